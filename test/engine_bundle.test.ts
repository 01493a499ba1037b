/**
 * In the published dist the engine is bundled (tsup.config.ts). The patches find the engine's interpreter and memory
 * classes by probing the engine in use (src/node/enginePatches/engineModule.ts), and read its version from a value
 * the build writes in. Vitest runs the sources unbundled, so the other tests cannot see the bundled case: this one
 * bundles the patches the way the build does and checks they take effect there, and that a bundle whose engine is
 * not the pinned release leaves them off with one warning.
 */
import { describe, expect, it } from 'vitest'
import { build } from 'esbuild'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { PINNED_ENGINE_VERSION } from '../src/node/enginePatches/switch.js'

async function bundle(define: Record<string, string>): Promise<string> {
  const out = await build({
    entryPoints: [path.resolve('test/fixtures/bundleProbe.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    logLevel: 'silent',
    define,
    // As in tsup.config.ts: the WebAssembly loader stays external (it finds its binary beside its files),
    external: ['tiny-secp256k1'],
    // and: the engine goes into the bundle, and bundled CommonJS needs a require of its own.
    banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
  })
  return out.outputFiles[0]!.text
}

/** Runs a bundle in a child process; resolves with its stdout (JSON) and stderr. */
function run(code: string): { stdout: string; stderr: string } {
  // Inside the project, so the external packages resolve from its node_modules.
  mkdirSync(path.resolve('node_modules/.cache'), { recursive: true })
  const dir = mkdtempSync(path.resolve('node_modules/.cache/rsksim-bundle-'))
  try {
    const file = path.join(dir, 'probe.mjs')
    writeFileSync(file, code)
    const r = spawnSync(process.execPath, [file], { encoding: 'utf8' })
    return { stdout: r.stdout, stderr: r.stderr }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const versions = (v: string) => JSON.stringify({ '@ethereumjs/evm': v, '@ethereumjs/statemanager': v, '@ethereumjs/common': v, '@ethereumjs/tx': v, '@ethereumjs/util': v, '@ethereumjs/block': v })

describe('engine patches in a bundle', () => {
  it('take effect when the bundled engine is the pinned release', async () => {
    const { stdout, stderr } = run(await bundle({ __RSKSIM_ENGINE_VERSIONS__: versions(PINNED_ENGINE_VERSION) }))
    expect(JSON.parse(stdout)).toEqual({ active: true, interpreter: true, memory: true, runInterpreter: true, common: true, senderCache: true, addressHex: true, execBlock: true, legacyTx: true, executeCall: true, runTx: true, creationNonceRule: true, chainId: '0x21' })
    expect(stderr).not.toContain('RSKSIM_ENGINE_VERSION')
  })

  it('stay off, with one warning, when it is another release; rsksim still answers', async () => {
    const { stdout, stderr } = run(await bundle({ __RSKSIM_ENGINE_VERSIONS__: versions('10.2.0') }))
    expect(JSON.parse(stdout)).toEqual({ active: false, interpreter: false, memory: false, runInterpreter: false, common: false, senderCache: false, addressHex: false, execBlock: false, legacyTx: false, executeCall: false, runTx: false, creationNonceRule: false, chainId: '0x21' })
    expect(stderr.match(/engine patches are off because the installed engine/g)).toHaveLength(1)
    expect(stderr).toContain('@ethereumjs/evm@10.2.0')
  })
})
