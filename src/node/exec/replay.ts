/**
 * Re-executes a mined block's transactions for tracing, as RSKj's `BlockExecutor.traceBlock` does: from the
 * parent's state, in order, with the block's context. Transactions before the traced one run without listeners.
 *
 * The replay never touches the live state or the chain's cached historical view: it works on its own shallow copy
 * positioned at the parent's state root, inside a checkpoint that is always reverted, so not even trie nodes
 * reach the shared database.
 */
import type { EVM } from '@ethereumjs/evm'
import type { RunTxResult } from '@ethereumjs/vm'
import type { Chain } from '../chain/chain.js'
import { LiveState } from '../state/liveState.js'
import type { BlockRecord, TxRecord } from '../chain/types.js'
import { contextCopy, runBlockTransaction, type BlockContext } from '../chain/runBlockTx.js'
import { executionBlockOf } from '../chain/execBlock.js'
import { listening, settleAround, type EvmListener, type StateReader } from './listen.js'

/**
 * Something that listens to the EVM while one transaction runs. With `settle`, a listener that reads the state around
 * the transaction (the prestate tracer): called with the state the transaction left, then, once the transaction is
 * taken back, with the state it started from (listen.ts `settleAround`). The transaction then runs again without the
 * listener when later ones follow.
 */
export interface TxListener extends EvmListener, StateReader<LiveState> {}

/** Called inside the replay once the replayed transactions ran, with the state they left (never kept). */
export type AfterReplay = (state: LiveState, gasUsed: bigint) => Promise<void>

export interface ReplayedTx {
  index: number
  tx: TxRecord
  result: RunTxResult
  /** Logs of the block's earlier transactions: the block-wide index of this transaction's first log. */
  logOffset: number
}

/**
 * A private copy of the state `block` was built on: its parent's, or the one a dev-chain edit made before the block was
 * built (Chain.stateRootBefore). Throws StateNotKept when that state was released.
 */
export async function stateBefore(chain: Chain, block: BlockRecord, parent: BlockRecord): Promise<LiveState> {
  const root = chain.stateRootBefore(block, parent)
  await chain.requireState(parent, root)
  const state = new LiveState(chain.trees)
  await state.setStateRoot(root)
  return state
}

/**
 * Replays `block` up to and including transaction `last` (default: all), attaching `listenerFor(i)` while
 * transaction i runs, then calls `after` with the state reached. Returns the replayed transactions that had a
 * listener, in order. Genesis has nothing to replay.
 */
export async function replayBlock(
  chain: Chain,
  block: BlockRecord,
  listenerFor: (index: number) => TxListener | undefined,
  last = block.transactions.length - 1,
  after?: AfterReplay,
): Promise<ReplayedTx[]> {
  const parent = chain.store.byNumber(block.number - 1n)
  if (parent === undefined || block.transactions.length === 0) return []
  const state = await stateBefore(chain, block, parent)
  const vm = await chain.vmOver(state)
  const evm = vm.evm as EVM
  // The execution block exactly as the miner built it (src/node/miner/miner.ts), transactions run as it ran them.
  const h = block.header
  const context = { vm, state, block: executionBlockOf(chain.common, h), coinbase: h.coinbase, remasc: block.transactions.at(-1)?.system === 'remasc' }
  const out: ReplayedTx[] = []
  let gasUsed = 0n
  let logOffset = 0
  await state.checkpoint()
  try {
    for (let i = 0; i <= last && i < block.transactions.length; i++) {
      const t = block.transactions[i]!
      // The REMASC system transaction is not an engine transaction (unsigned); it moves no gas and is not traced.
      if (t.system !== undefined) continue
      chain.guard.check()
      const listener = listenerFor(i)
      let result: RunTxResult
      // A listener that reads the state around its transaction is attached by runSettled, for its first run only.
      if (listener?.settle !== undefined) result = await runSettled(context, t, gasUsed, listener, i < last)
      else result = await listening(evm, listener, () => runBlockTransaction(context, t, gasUsed))
      if (listener !== undefined) out.push({ index: i, tx: t, result, logOffset })
      gasUsed += result.totalGasSpent
      logOffset += block.receipts[i]?.logs.length ?? 0
    }
    if (after !== undefined) await after(state, gasUsed)
  } finally {
    await state.revert()
  }
  return out
}

/**
 * Runs `t` with a listener that reads the state around it (`TxListener.settle`): on a copy of the context, inside a
 * checkpoint taken back once the listener read the state after; then again, without the listener, when `rerun`
 * (later transactions run on its state). Both runs are the same transaction on the same state: the same result.
 */
async function runSettled(context: BlockContext, t: TxRecord, gasUsed: bigint, listener: TxListener, rerun: boolean): Promise<RunTxResult> {
  const { state } = context
  const evm = context.vm.evm as EVM
  const result = await settleAround(state, state, listener, () => listening(evm, listener, () => runBlockTransaction(contextCopy(context), t, gasUsed)))
  if (rerun) await runBlockTransaction(context, t, gasUsed)
  return result
}
