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
import { runBlockTransaction } from '../chain/runBlockTx.js'
import { executionBlockOf } from '../chain/execBlock.js'

/** Something that listens to the EVM while one transaction runs. */
export interface TxListener {
  attach(evm: EVM): void
  detach(evm: EVM): void
}

export interface ReplayedTx {
  index: number
  tx: TxRecord
  result: RunTxResult
  /** Logs of the block's earlier transactions: the block-wide index of this transaction's first log. */
  logOffset: number
}

/**
 * Replays `block` up to and including transaction `last` (default: all), attaching `listenerFor(i)` while
 * transaction i runs. Returns the replayed transactions that had a listener, in order. Genesis has nothing to
 * replay.
 */
export async function replayBlock(
  chain: Chain,
  block: BlockRecord,
  listenerFor: (index: number) => TxListener | undefined,
  last = block.transactions.length - 1,
): Promise<ReplayedTx[]> {
  const parent = chain.store.byNumber(block.number - 1n)
  if (parent === undefined || block.transactions.length === 0) return []
  await chain.requireState(parent)
  const state = new LiveState(chain.trees)
  await state.setStateRoot(parent.header.stateRoot)
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
      listener?.attach(evm)
      let result: RunTxResult
      try {
        result = await runBlockTransaction(context, t, gasUsed)
      } finally {
        listener?.detach(evm)
      }
      if (listener !== undefined) out.push({ index: i, tx: t, result, logOffset })
      gasUsed += result.totalGasSpent
      logOffset += block.receipts[i]?.logs.length ?? 0
    }
  } finally {
    await state.revert()
  }
  return out
}
