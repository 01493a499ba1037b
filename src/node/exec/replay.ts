/**
 * Re-executes a mined block's transactions for tracing, as RSKj's `BlockExecutor.traceBlock` does: from the
 * parent's state, in order, with the block's context. Transactions before the traced one run without listeners.
 *
 * The replay never touches the live state or the chain's cached historical view: it works on its own shallow copy
 * positioned at the parent's state root, inside a checkpoint that is always reverted, so not even trie nodes
 * reach the shared database.
 */
import { createBlock } from '@ethereumjs/block'
import { createEVM, type EVM } from '@ethereumjs/evm'
import { createVM, runTx, type RunTxResult } from '@ethereumjs/vm'
import { Address } from '@ethereumjs/util'
import type { Chain } from '../chain/chain.js'
import type { BlockRecord, TxRecord } from '../chain/types.js'
import { rskEvmOptions } from '../rsk/evmProfile.js'
import { routeFee } from '../rsk/remasc.js'

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
  const view = await chain.stateAt(parent)
  const state = view.shallowCopy(false)
  await state.setStateRoot(parent.header.stateRoot)
  const blockchain = chain.vm.blockchain
  const evm = await createEVM({ common: chain.common, stateManager: state, blockchain, ...rskEvmOptions(chain.common, chain.guard) })
  const vm = await createVM({ common: chain.common, stateManager: state, blockchain, evm })
  // The execution block exactly as the miner built it (src/node/miner/miner.ts).
  const h = block.header
  const execBlock = createBlock(
    { header: { number: h.number, timestamp: h.timestamp, gasLimit: h.gasLimit, coinbase: new Address(h.coinbase), difficulty: h.difficulty } },
    { common: chain.common, skipConsensusFormatValidation: true },
  )
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
        result = await runTx(vm, { tx: t.tx, block: execBlock, blockGasUsed: gasUsed, skipHardForkValidation: true, skipBlockGasLimitValidation: true })
      } finally {
        listener?.detach(evm)
      }
      if (listener !== undefined) out.push({ index: i, tx: t, result, logOffset })
      gasUsed += result.totalGasSpent
      // Fees go to REMASC as when the block was mined (src/node/miner/miner.ts), so later transactions see the same state.
      if (block.transactions.at(-1)?.system === 'remasc') await routeFee(state, h.coinbase, result.totalGasSpent * t.tx.gasPrice)
      logOffset += block.receipts[i]?.logs.length ?? 0
    }
  } finally {
    await state.revert()
  }
  return out
}
