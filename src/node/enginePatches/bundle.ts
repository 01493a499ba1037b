/**
 * The engine patch made while the build bundles the engine into dist (tsup.config.ts), not at run time: the other
 * files of this folder change engine objects after they load; this one changes what an engine module does as it
 * loads, which no later change can undo. It is a build step, so nothing imports it at run time, and the same
 * options bundle test/engine_bundle.test.ts's probe.
 *
 * What: @ethereumjs/util's `bytes.js` fills a cache of the BigInts 0-65,535 when it loads (a loop of 65,536
 * `BigInt(i)`, at the top level of the module), for `bytesToBigInt` of one or two bytes. That loop was 11 ms of a
 * fresh process's import of rsksim here (69.3 against 80.5 ms, median of 20 interleaved runs of
 * `bench/startup.mjs`; docs/performance.md, twenty-third round): the BigInts, the array growing to 65,536 entries and
 * the collections they cause. The patched module fills the first 256 at load and makes a two-byte value when asked
 * (`BigInt(n)`, a small number: the same value as the cache held).
 *
 * The fence, as for the run-time patches (switch.ts): the module is changed only when @ethereumjs/util is the pinned
 * release and its text is the one the patch was written against (the loop and both lookups found, each once); else
 * the file is bundled as it is and the build prints one warning. `RSKSIM_ENGINE_PATCHES=off` in the environment when
 * the bundle loads fills the whole cache at load, as the engine does.
 */
import { readFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { BuildOptions, Plugin } from 'esbuild'
import { PINNED_ENGINE_VERSION, versionOfPackageAt } from './switch.js'

/** The engine module the patch changes. */
const BYTES_MODULE = /[\\/]@ethereumjs[\\/]util[\\/]dist[\\/]esm[\\/]bytes\.js$/

/** The engine's text (pinned release) and what replaces it. */
const REPLACED: ReadonlyArray<readonly [string, string]> = [
  [
    'for (let i = 0; i <= 256 * 256 - 1; i++) {',
    // The switch as envSwitch.ts reads it (this code runs inside the engine's module, which cannot import it).
    "const RSKSIM_FILLED = ['off', '0', 'false'].includes((globalThis.process?.env?.RSKSIM_ENGINE_PATCHES ?? '').toLowerCase()) ? 256 * 256 - 1 : 255; // rsksim: src/node/enginePatches/bundle.ts\nfor (let i = 0; i <= RSKSIM_FILLED; i++) {",
  ],
  ['return BIGINT_CACHE[bytes[0] * 256 + bytes[1]];', 'return BIGINT_CACHE[bytes[0] * 256 + bytes[1]] ?? BigInt(bytes[0] * 256 + bytes[1]);'],
]

/**
 * `bytes.js`'s text with the patch applied, or undefined when the text is not the one it was written against (then
 * the module is bundled unchanged). Every replaced piece must occur exactly once, and the one-byte lookup (still
 * served by the cache's first 256) must be there.
 */
export function patchBytesModule(text: string): string | undefined {
  if (text.split('return BIGINT_CACHE[bytes[0]];').length !== 2) return undefined
  let out = text
  for (const [from, to] of REPLACED) {
    if (out.split(from).length !== 2) return undefined
    out = out.replace(from, to)
  }
  return out
}

/**
 * The esbuild plugin that applies the patch. `warn` receives the one warning of a build that leaves the module
 * unchanged (default: the console).
 */
export function enginePatchesPlugin(warn: (message: string) => void = (m) => console.warn(m)): Plugin {
  return {
    name: 'rsksim-engine-patches',
    setup(build) {
      let warned = false
      build.onLoad({ filter: BYTES_MODULE }, async (args) => {
        const text = await readFile(args.path, 'utf8')
        const version = versionOfPackageAt(dirname(args.path), '@ethereumjs/util')
        const patched = version === PINNED_ENGINE_VERSION ? patchBytesModule(text) : undefined
        if (patched === undefined && !warned) {
          warned = true
          warn(
            `rsksim build: @ethereumjs/util@${version ?? 'unknown'} bundled unpatched: ${version === PINNED_ENGINE_VERSION ? "its bytes.js is not the text the patch was written against" : `not the pinned ${PINNED_ENGINE_VERSION}`} (src/node/enginePatches/bundle.ts)`,
          )
        }
        return { contents: patched ?? text, loader: 'js' }
      })
    },
  }
}

/**
 * What the build passes to esbuild besides entries and outputs, shared by tsup.config.ts and the bundle test.
 * `minifyWhitespace`: 1.60 → 1.10 MB of JavaScript for V8 to read and scan at import (3-4 ms of a fresh process's
 * import here, docs/performance.md twenty-third round); it drops the comments too, some of them non-ASCII, which
 * made V8 hold the whole file as a two-byte string. Names are kept (no identifier minification): the run-time patches
 * find engine methods by name and compare their text whitespace-free (sourceText.ts). Stack traces map back through
 * the source maps (`node --enable-source-maps`).
 */
export const bundleOptions = {
  minifyWhitespace: true,
  plugins: [enginePatchesPlugin()],
} satisfies BuildOptions
