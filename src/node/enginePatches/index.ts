/**
 * Changes to @ethereumjs internals that no public option reaches: interpreter fast paths (interpreter.ts,
 * runInterpreter.ts, executeCall.ts, newInterpreter.ts), contract addresses through rsksim's keccak
 * (generateAddress.ts), opcode tables made once for the EVMs of a chain (activeOpcodes.ts), Common fast paths (common.ts), faster opcode handlers
 * (fastOpcodes.ts, fastArithmetic.ts), the known sender and sender address of a transaction (senderCache.ts),
 * addresses' hex (addressHex.ts), and execution blocks and decoded legacy transactions copied from a template
 * instead of built (execBlock.ts, legacyTx.ts, both through copyTemplate.ts), and the engine's `runTx` for legacy
 * transactions on RSK's rules (runTx.ts). Five files are not for speed, and are in effect whether or not the speed
 * patches are: RSK's account rules where the engine applies EIP-161 (accountRules.ts: no state clearing, a contract
 * created by a transaction at nonce 0), the caller's call depth for RSK's Environment precompile and blake2f
 * (callDepth.ts), the number of the block being executed for RSK's BlockHeader precompile (executingBlock.ts, read
 * only), the accounts earlier transactions of a block deleted, for RSKIP125's CREATE rule (blockDeletions.ts), and a
 * sender with code let through the engine's EIP-3607 test, which RSKj does not have (contractSender.ts). One is
 * made by the build, not at run time (bundle.ts: the esbuild options and plugin that bundle the engine into dist),
 * and the others find engine methods by their text compared without whitespace (sourceText.ts), so that they match
 * the engine's files and the whitespace-free bundle alike. (The world state is rsksim's own, src/node/state, behind
 * the engine's public StateManagerInterface: it needs no patch.) Everything that touches engine internals lives in
 * this folder, says why, and is fenced by switch.ts: installed only when the installed engine is the pinned release
 * (else one warning, and the engine's own code runs), each field it touches checked at load, and every patch
 * switchable off at run time (`RSKSIM_ENGINE_PATCHES=off`, `setEnginePatches`). Imported for its effects by
 * src/node/chain/chain.ts, before any EVM exists.
 */
export { enginePatches, enginePatchesActive, setEnginePatches, ENGINE_VERSIONS, PINNED_ENGINE_VERSION, engineMatchesPin } from './switch.js'
export { interpreterPatched, memoryPatched, interpreterFieldsFound } from './interpreter.js'
export { runInterpreterPatched } from './runInterpreter.js'
export { executeCallPatched } from './executeCall.js'
export { generateAddressPatched } from './generateAddress.js'
export { activeOpcodesPatched } from './activeOpcodes.js'
export { newInterpreterPatched } from './newInterpreter.js'
export { activatedEipsArray, commonPatched, paramsAlreadyMerged } from './common.js'
export { fastOpcodes, fastSstore, wordToBytes, writeWord } from './fastOpcodes.js'
export { fastArithmetic } from './fastArithmetic.js'
export { seedSender, senderAddressPatched, senderCachePatched } from './senderCache.js'
export { addressHexPatched } from './addressHex.js'
export { execBlockTemplateRecognised } from './execBlock.js'
export { legacyTxTemplateRecognised } from './legacyTx.js'
export { runTransaction, runTxPatched, takesThisPath } from './runTx.js'
export { withSenderCodeAllowed } from './contractSender.js'
export { applyAccountRules, creationNonceRuleFound } from './accountRules.js'
export { forgetCallerDepth, noteCallerDepth, takeCallerDepth } from './callDepth.js'
export { blockDeletionsOf, noteBlockDeletions, raiseCreatorNonce } from './blockDeletions.js'
export { executingBlockFound, executingBlockNumber } from './executingBlock.js'
