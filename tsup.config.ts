import { readFileSync } from 'node:fs'
import { defineConfig } from 'tsup'
import { bundleOptions } from './src/node/enginePatches/bundle.js'

/** The package's entry points: `rsksim`, `rsksim/testing`, `rsksim/hardhat` (package.json `exports`) and the bin. */
const ENTRY = {
  index: 'src/index.ts',
  testing: 'src/testing/index.ts',
  hardhat: 'src/integrations/hardhat/index.ts',
  cli: 'src/cli.ts',
}

/** Versions of the engine packages bundled into dist, written into the bundle (src/node/enginePatches/switch.ts). */
const engineVersions = Object.fromEntries(
  ['@ethereumjs/evm', '@ethereumjs/statemanager', '@ethereumjs/common', '@ethereumjs/tx', '@ethereumjs/util', '@ethereumjs/block'].map((name) => [
    name,
    (JSON.parse(readFileSync(`node_modules/${name}/package.json`, 'utf8')) as { version: string }).version,
  ]),
)

export default defineConfig({
  entry: ENTRY,
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  // resolve: the declarations carry eventemitter3's types (Provider extends its EventEmitter), since the package is
  // bundled and so not a dependency a user's type check could read them from.
  dts: { entry: { index: ENTRY.index, testing: ENTRY.testing, hardhat: ENTRY.hardhat }, resolve: ['eventemitter3'] },
  sourcemap: true,
  clean: true,
  splitting: true,
  // The engine (@ethereumjs, @noble and their small helpers) is bundled into dist: Node 20 spends about 250 ms
  // resolving and linking its few hundred ES modules one by one, and about 70 ms loading the same code as one file
  // (startup to the first answer: ~300 ms -> ~120 ms, docs/performance.md). They are devDependencies (the bundle
  // carries them; issue 17). The WebAssembly loader (tiny-secp256k1) stays external: it finds its binary next to
  // its own files. Licences of what is bundled: THIRD-PARTY-NOTICES.md.
  // src/node/enginePatches relies on it: the engine internals it patches are bundled as the engine's own modules.
  define: { __RSKSIM_ENGINE_VERSIONS__: JSON.stringify(engineVersions) },
  noExternal: [/^@ethereumjs\//, /^@noble\//, 'eventemitter3', 'hash-wasm'],
  // classic-level (the on-disk database, an optional dependency) loads its native LevelDB binding from its own
  // directory: imported from node_modules at run time, only when a database directory is asked for. secp256k1-native
  // (native sender recovery, optional too: src/node/nativeSecp256k1.ts) loads its prebuilt binary the same way.
  external: ['classic-level', 'secp256k1-native'],
  // Bundled CommonJS (debug, lru-cache) calls require() for Node built-ins; an ES module has none of its own.
  // Whitespace-free output and the build-time engine patch (src/node/enginePatches/bundle.ts says what each saves);
  // test/engine_bundle.test.ts bundles with the same options.
  minifyWhitespace: bundleOptions.minifyWhitespace,
  esbuildPlugins: bundleOptions.plugins,
  banner: { js: "import { createRequire as __rsksimCreateRequire } from 'node:module'; const require = __rsksimCreateRequire(import.meta.url);" },
})
