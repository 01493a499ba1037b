/**
 * Changes to @ethereumjs internals that no public option reaches: state manager fixes (stateManager.ts), interpreter
 * fast paths (interpreter.ts, runInterpreter.ts) and a storage cache with cheaper keys for the live state
 * (storageCache.ts). Everything that touches engine internals lives in this folder, says why, names the engine
 * version it was written against and checks at load time that what it patches exists, leaving the engine's own
 * behaviour in place otherwise. Imported for its effects by src/node/chain/chain.ts, before any EVM exists.
 */
import './stateManager.js'
export { interpreterPatched, memoryPatched } from './interpreter.js'
export { createCaches, storageCachePatched } from './storageCache.js'
export { runInterpreterPatched } from './runInterpreter.js'
