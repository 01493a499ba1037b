/**
 * One transaction of a block, run as the miner runs it and as the tracers replay it: the engine's `runTx` (through
 * src/node/enginePatches/runTx.ts, its lean copy for legacy transactions on RSK's rules when the patches are on) in the
 * block's context (the pool has already checked the block gas limit and RSKj's rules), then, on a chain with REMASC,
 * the fee the engine paid to the coinbase moved to REMASC (RSKj `TransactionExecutor.finalization`). Shared by
 * src/node/miner/miner.ts and src/node/exec/replay.ts so a replay can never run a transaction differently.
 */
import type { Block } from '@ethereumjs/block'
import type { RunTxResult, VM } from '@ethereumjs/vm'
import { routeFee } from '../rsk/remasc/remasc.js'
import { runTransaction } from '../enginePatches/index.js'
import type { TxRecord } from './types.js'
import type { LiveState } from '../state/liveState.js'

export interface BlockContext {
  vm: VM
  state: LiveState
  block: Block
  coinbase: Uint8Array
  /** Whether fees go to REMASC (blocks that end with the REMASC transaction). */
  remasc: boolean
}

/** Runs `t` after `gasUsed` gas of the block's earlier transactions; throws what the engine throws. */
export async function runBlockTransaction(ctx: BlockContext, t: TxRecord, gasUsed: bigint): Promise<RunTxResult> {
  const result = await runTransaction(ctx.vm, t.tx, ctx.block, gasUsed)
  if (ctx.remasc) {
    const routing = routeFee(ctx.state, ctx.coinbase, result.totalGasSpent * t.tx.gasPrice)
    if (routing !== undefined) await routing
  }
  return result
}
