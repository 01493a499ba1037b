/**
 * In the published dist the engine is bundled (tsup.config.ts). The patches find the engine's interpreter and memory
 * classes by probing the engine in use (src/node/enginePatches/engineModule.ts), and read its version from a value
 * the build writes in. Vitest runs the sources unbundled, so the other tests cannot see the bundled case: this one
 * bundles the patches the way the build does (the same esbuild options: src/node/enginePatches/bundle.ts, the
 * engine's whitespace removed and its bytes module patched) and checks they take effect there, and that a bundle
 * whose engine is not the pinned release leaves them off with one warning.
 */
import { describe, expect, it } from 'vitest'
import { build } from 'esbuild'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { PINNED_ENGINE_VERSION } from '../src/node/enginePatches/switch.js'
import { bundleOptions, enginePatchesPlugin, patchBytesModule } from '../src/node/enginePatches/bundle.js'

async function bundle(define: Record<string, string>): Promise<string> {
  const out = await build({
    entryPoints: [path.resolve('test/fixtures/bundleProbe.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    logLevel: 'silent',
    define,
    ...bundleOptions,
    // As in tsup.config.ts: the WebAssembly loader stays external (it finds its binary beside its files),
    external: ['tiny-secp256k1'],
    // and: the engine goes into the bundle, and bundled CommonJS needs a require of its own.
    banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
  })
  return out.outputFiles[0]!.text
}

/** Runs a bundle in a child process; resolves with its stdout (JSON) and stderr. */
function run(code: string, env: NodeJS.ProcessEnv = process.env): { stdout: string; stderr: string } {
  // Inside the project, so the external packages resolve from its node_modules.
  mkdirSync(path.resolve('node_modules/.cache'), { recursive: true })
  const dir = mkdtempSync(path.resolve('node_modules/.cache/rsksim-bundle-'))
  try {
    const file = path.join(dir, 'probe.mjs')
    writeFileSync(file, code)
    const r = spawnSync(process.execPath, [file], { encoding: 'utf8', env })
    return { stdout: r.stdout, stderr: r.stderr }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Every patch flag the probe prints, set to `on`. */
const allPatches = (on: boolean) =>
  Object.fromEntries(
    ['active', 'interpreter', 'memory', 'newInterpreter', 'executingBlock', 'runInterpreter', 'common', 'senderCache', 'addressHex', 'execBlock', 'legacyTx', 'executeCall', 'generateAddress', 'activeOpcodes', 'runTx', 'creationNonceRule'].map((k) => [k, on]),
  )

const versions = (v: string) => JSON.stringify({ '@ethereumjs/evm': v, '@ethereumjs/statemanager': v, '@ethereumjs/common': v, '@ethereumjs/tx': v, '@ethereumjs/util': v, '@ethereumjs/block': v })

describe('engine patches in a bundle', () => {
  it('take effect when the bundled engine is the pinned release', async () => {
    const code = await bundle({ __RSKSIM_ENGINE_VERSIONS__: versions(PINNED_ENGINE_VERSION) })
    const { stdout, stderr } = run(code)
    expect(JSON.parse(stdout)).toEqual({ ...allPatches(true), chainId: '0x21', bigintsWrong: 0 })
    expect(stderr).not.toContain('RSKSIM_ENGINE_VERSION')
    // Whitespace-free, as the build makes it, and the engine's BigInt cache filled to 255 at load, not 65,535.
    expect(code).toContain('this._block=opts.block')
    // ASCII only: one non-ASCII character (a comment's arrow, a licence's ©) makes V8 hold the whole file as a two-byte
    // string, slower to read and scan (docs/performance.md, twenty-third round).
    expect(code.match(/[^\x00-\x7f]/g)).toBeNull()
    expect(code).toMatch(/RSKSIM_FILLED=\[.*\]\.includes\(.*RSKSIM_ENGINE_PATCHES.*\)\?256\*256-1:255;/)
  })

  it('RSKSIM_ENGINE_PATCHES=off: every patch off in the bundle too, the same BigInts', async () => {
    const { stdout } = run(await bundle({ __RSKSIM_ENGINE_VERSIONS__: versions(PINNED_ENGINE_VERSION) }), { ...process.env, RSKSIM_ENGINE_PATCHES: 'off' })
    // Off by the switch, the patches that also hold RSK's rules (account rules, executing block) still apply.
    expect(JSON.parse(stdout)).toMatchObject({ active: false, chainId: '0x21', bigintsWrong: 0 })
  })

  it('stay off, with one warning, when it is another release; rsksim still answers', async () => {
    const { stdout, stderr } = run(await bundle({ __RSKSIM_ENGINE_VERSIONS__: versions('10.2.0') }))
    // The executing block is read for RSK's BlockHeader precompile (not for speed): found by the engine's text alone.
    expect(JSON.parse(stdout)).toEqual({ ...allPatches(false), executingBlock: true, chainId: '0x21', bigintsWrong: 0 })
    expect(stderr.match(/engine patches are off because the installed engine/g)).toHaveLength(1)
    expect(stderr).toContain('@ethereumjs/evm@10.2.0')
  })
})

describe('the build-time patch of @ethereumjs/util (src/node/enginePatches/bundle.ts)', () => {
  const bytesFile = createRequire(import.meta.url).resolve('@ethereumjs/util').replace(/index\.js$/, 'bytes.js')
  const engineText = readFileSync(bytesFile, 'utf8')

  it('changes exactly the eager loop and the two-byte lookup of the pinned release', () => {
    const patched = patchBytesModule(engineText)!
    expect(patched).toBeDefined()
    expect(engineText).toContain('for (let i = 0; i <= 256 * 256 - 1; i++) {')
    expect(patched).not.toContain('for (let i = 0; i <= 256 * 256 - 1; i++) {')
    expect(patched).toContain('return BIGINT_CACHE[bytes[0]];')
    expect(patched).toContain('?? BigInt(bytes[0] * 256 + bytes[1]);')
    // Anything else is the engine's text, line for line.
    const removed = engineText.split('\n').filter((l) => !patched.split('\n').includes(l))
    expect(removed.map((l) => l.trim())).toEqual(['for (let i = 0; i <= 256 * 256 - 1; i++) {', 'return BIGINT_CACHE[bytes[0] * 256 + bytes[1]];'])
  })

  it('leaves another text unchanged', () => {
    expect(patchBytesModule(engineText.replace('256 * 256 - 1', '65535'))).toBeUndefined()
    expect(patchBytesModule(engineText.replace('return BIGINT_CACHE[bytes[0]];', 'return BIGINT_CACHE[bytes[0] | 0];'))).toBeUndefined()
    expect(patchBytesModule(engineText + engineText)).toBeUndefined()
  })

  it('bundles another release of @ethereumjs/util unchanged, with one warning', async () => {
    mkdirSync(path.resolve('node_modules/.cache'), { recursive: true })
    const dir = mkdtempSync(path.resolve('node_modules/.cache/rsksim-util-'))
    try {
      const pkg = path.join(dir, 'node_modules/@ethereumjs/util')
      // The pinned release's files, under another version number.
      cpSync(path.dirname(bytesFile), path.join(pkg, 'dist/esm'), { recursive: true })
      writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: '@ethereumjs/util', version: '10.2.0' }))
      writeFileSync(path.join(dir, 'entry.js'), "import * as b from './node_modules/@ethereumjs/util/dist/esm/bytes.js'; console.log(Object.keys(b).length)")
      const warnings: string[] = []
      const out = await build({ entryPoints: [path.join(dir, 'entry.js')], bundle: true, write: false, format: 'esm', logLevel: 'silent', external: ['@noble/*'], plugins: [enginePatchesPlugin((m) => warnings.push(m))] })
      expect(out.outputFiles[0]!.text).toContain('for (let i = 0; i <= 256 * 256 - 1; i++) {')
      expect(out.outputFiles[0]!.text).not.toContain('RSKSIM_FILLED')
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toContain('@ethereumjs/util@10.2.0 bundled unpatched')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
