/**
 * The engine patches reach @ethereumjs/evm internals by file path (src/node/enginePatches/engineModule.ts). In the
 * published dist the engine is bundled (tsup.config.ts), and the patches only take effect if esbuild bundles those
 * files as the very modules the engine's index imports. Vitest runs the sources unbundled, so the other tests cannot
 * see that: this one bundles the module the way the build does and checks the engine it patches is the engine in use.
 */
import { describe, expect, it } from 'vitest'
import { build } from 'esbuild'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

describe('engine patches in a bundle', () => {
  it('esbuild bundles the patched interpreter module as the engine’s own (sameEngine)', async () => {
    const out = await build({
      entryPoints: [path.resolve('src/node/enginePatches/engineModule.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
      logLevel: 'silent',
      // As in tsup.config.ts: the engine goes into the bundle, and bundled CommonJS needs a require of its own.
      banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
    })
    const dir = mkdtempSync(path.join(tmpdir(), 'rsksim-bundle-'))
    try {
      const file = path.join(dir, 'engineModule.mjs')
      writeFileSync(file, out.outputFiles[0]!.text)
      const bundled = (await import(pathToFileURL(file).href)) as { sameEngine: boolean; engineInterpreter?: unknown }
      expect(bundled.sameEngine).toBe(true)
      expect(typeof bundled.engineInterpreter).toBe('function')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
