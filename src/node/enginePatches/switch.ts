/**
 * The fence around every engine patch of this folder: they are written against one exact engine release, so they are
 * installed only when that release is the one in use, and they can be switched off.
 *
 * - The installed version of each engine package whose internals a patch touches is compared with
 *   `PINNED_ENGINE_VERSION` (package.json pins the same exact version). On a mismatch nothing is patched, one
 *   warning says so, and rsksim runs on the engine's own code: correct, slower.
 * - `RSKSIM_ENGINE_PATCHES=off` in the environment starts with every patch off. `setEnginePatches(false)` turns them
 *   off at run time (tests compare results both ways: test/engine_differential.test.ts); each patched method checks
 *   the switch at every call and otherwise runs the engine's original.
 *
 * In the published bundle the engine is bundled, so its version is written in at build time (tsup.config.ts
 * `define`); from source, it is read from the installed packages.
 */
import { createRequire } from 'node:module'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { offInEnvironment } from '../envSwitch.js'

/** The engine release the patches were written against. */
export const PINNED_ENGINE_VERSION = '10.1.3'

/** Engine packages whose internals the patches read or replace. */
const PATCHED_PACKAGES = ['@ethereumjs/evm', '@ethereumjs/statemanager', '@ethereumjs/common', '@ethereumjs/tx', '@ethereumjs/util', '@ethereumjs/block'] as const

declare const __RSKSIM_ENGINE_VERSIONS__: Record<string, string> | undefined

/**
 * The version of package `name` that holds the file or folder `from`: the nearest package.json named `name` at most
 * six folders up (packages export no package.json, so it is found from one of their files). Also used by the build's
 * patch (bundle.ts).
 */
export function versionOfPackageAt(from: string, name: string): string | undefined {
  try {
    for (let dir = from, i = 0; i < 6; i++, dir = dirname(dir)) {
      const file = join(dir, 'package.json')
      if (!existsSync(file)) continue
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string }
      if (pkg.name === name) return pkg.version
    }
  } catch {
    // unreadable: unknown
  }
  return undefined
}

/** The version of an installed package, found from its entry point. */
function installedVersion(name: string): string | undefined {
  try {
    return versionOfPackageAt(dirname(createRequire(import.meta.url).resolve(name)), name)
  } catch {
    return undefined // not resolvable: unknown
  }
}

/** Version of each patched engine package: written in by the build when bundled, else read from node_modules. */
export const ENGINE_VERSIONS: Readonly<Record<string, string | undefined>> =
  typeof __RSKSIM_ENGINE_VERSIONS__ === 'object' && __RSKSIM_ENGINE_VERSIONS__ !== null
    ? __RSKSIM_ENGINE_VERSIONS__
    : Object.fromEntries(PATCHED_PACKAGES.map((p) => [p, installedVersion(p)]))

/** Every patched package is the pinned release. */
export const engineMatchesPin: boolean = PATCHED_PACKAGES.every((p) => ENGINE_VERSIONS[p] === PINNED_ENGINE_VERSION)

const offByEnvironment = offInEnvironment('RSKSIM_ENGINE_PATCHES')

/** Whether patches may be installed (the engine is the pinned release), and whether they run now. */
export const enginePatches = { installable: engineMatchesPin, active: engineMatchesPin && !offByEnvironment }

if (!engineMatchesPin) {
  const found = PATCHED_PACKAGES.map((p) => `${p}@${ENGINE_VERSIONS[p] ?? 'unknown'}`).join(', ')
  process.emitWarning(`rsksim: engine patches are off because the installed engine (${found}) is not the pinned ${PINNED_ENGINE_VERSION}; rsksim works, more slowly, and with Ethereum's EIP-161 account rules where RSK has its own (docs/modules/evm-profile.md).`, {
    code: 'RSKSIM_ENGINE_VERSION',
  })
}

/**
 * Turns every engine patch on or off for what runs from now on (on only when the engine is the pinned release).
 * Objects already built keep what they were built with (a provider's storage cache, its EVMs' opcode tables), so
 * create providers after switching.
 */
export function setEnginePatches(on: boolean): void {
  enginePatches.active = on && enginePatches.installable
}

/** Whether the engine patches are in effect. */
export const enginePatchesActive = (): boolean => enginePatches.active
