/**
 * Loads a module of @ethereumjs/evm's ESM build that the package does not export (its `exports` map names only the
 * index), by file path next to the index. Node keys ES modules by resolved URL, so this is the very module instance
 * the engine itself imports; `sameInstance` confirms it against a class the index does export before anything is
 * patched. Any failure answers `undefined` and the caller leaves the engine alone.
 */
import { createRequire } from 'node:module'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { EVM } from '@ethereumjs/evm'

const require = createRequire(import.meta.url)

function esmFile(name: string): string | undefined {
  try {
    // The `require` condition resolves to dist/cjs/index.js; the ESM build sits beside it in dist/esm.
    const file = join(dirname(require.resolve('@ethereumjs/evm')), '..', 'esm', name)
    return existsSync(file) ? file : undefined
  } catch {
    return undefined
  }
}

/** The engine's own instance of `dist/esm/<name>`, or undefined. */
export async function loadEvmModule(name: string): Promise<Record<string, unknown> | undefined> {
  const file = esmFile(name)
  const index = esmFile('evm.js')
  if (file === undefined || index === undefined) return undefined
  try {
    const evmModule = (await import(pathToFileURL(index).href)) as Record<string, unknown>
    // Another copy of the engine (a bundler, a second install) would make the patch miss the engine in use.
    if (evmModule.EVM !== EVM) return undefined
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>
  } catch {
    return undefined
  }
}
