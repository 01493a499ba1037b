/**
 * The number of the block an EVM is executing, for RSK's BlockHeader precompile (RSKIP119,
 * src/node/rsk/evm/blockHeaderPrecompile.ts): its methods read the ancestors of that block, and a precompile is not
 * given it (its input holds data, gas and the EVM). The engine keeps the block `runCall` was given in the EVM's
 * protected `_block` field (@ethereumjs/evm 10.1.3 dist/esm/evm.js `runCall` and `runCode`:
 * `this._block = opts.block ?? defaultBlock()`), the same block NUMBER, COINBASE and TIMESTAMP read. Every execution
 * of the node passes one: mined transactions (src/node/chain/runBlockTx.ts, the block being built), `eth_call` and
 * `eth_estimateGas` (src/node/exec/call.ts, the selected block) and replays for traces (src/node/exec/replay.ts, the
 * replayed block).
 *
 * Not a speed patch: read whether or not the speed patches are on. Checked at load (the text of `runCall` sets
 * `this._block` from `opts.block`) and where it is read (a bigint `header.number`); when either check fails the
 * number is unknown and the precompile fails every call, which is wrong but never silently so.
 */
import { EVM } from '@ethereumjs/evm'
import { sourceHasAll, sourceOf } from './sourceText.js'

interface EvmInternals {
  _block?: { header?: { number?: unknown } }
}

/** Whether the engine's `runCall` keeps the block it was given in `_block`. */
export const executingBlockFound: boolean = sourceHasAll(sourceOf((EVM.prototype as unknown as { runCall?: unknown }).runCall), ['this._block = opts.block'])

/** The number of the block `evm` is executing (a precompile's `input._EVM`), or undefined when it cannot be read. */
export function executingBlockNumber(evm: unknown): bigint | undefined {
  if (!executingBlockFound || typeof evm !== 'object' || evm === null) return undefined
  const number = (evm as EvmInternals)._block?.header?.number
  return typeof number === 'bigint' ? number : undefined
}
