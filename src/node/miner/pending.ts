/**
 * The pending block: what `pending` reads and executes on (spec "Block parameter": "a sample next block built on top
 * of `latest`, holding transactions usually taken from the local mempool"; RSKj `ExecutionBlockRetriever` for
 * "pending": the block the miner would build now, and its final state). Built for one request on the live state,
 * inside a checkpoint the miner opened and reverts when the request's task of the node's queue ends
 * (`Miner.pending`, `Miner.endTask`), with the chain's own EVM: the chain's state is as before once the answer is out.
 * (Until the twenty-fifth performance round it was built on a copy of the state with an EVM of its own: 0.1-0.2 ms more
 * an estimate after 500 transfers, for the EVM's construction and every account and slot read anew through the trie.)
 *
 * - number: the head's + 1; timestamp: the one the next block would get now (`Clock.peek`: `evm_setNextBlockTimestamp`,
 *   the interval or the clock, not consumed); coinbase, gas limit and difficulty: the miner's;
 * - the pool's transactions that fit in the block gas limit, in the order the miner takes them (`TxPool.ordered`); one
 *   the engine refuses (a nonce gap) is left out, as the miner leaves it in the pool; on a fork, a remote that cannot
 *   be read fails the request (-32603 with the reason, as a block being mined); their console.log output is not
 *   reported (`MinerConfig.afterPendingTransactions`), as it is when they are mined;
 * - then, on a chain with REMASC, its `processMinersFees` for that number (fees paid after maturity), as the block
 *   would end.
 *
 * Its receipts, roots, hash and REMASC transaction are not made here (a state read or a call needs none of them, and
 * eth_call and eth_estimateGas at `pending` are hot): what the run left (`PendingRun`) lets pendingSeal.ts complete
 * the block for the methods that answer with it (trace_block, chain_getRawBlockHeaderByNumber, …). With an empty pool
 * (automine, the default) its state is the head's after REMASC's payments, and a call there reads NUMBER head + 1.
 */
import { RemoteFailed } from '../errors.js'
import type { Chain } from '../chain/chain.js'
import type { RunTxResult } from '@ethereumjs/vm'
import type { BlockRecord, ReceiptRecord, TxRecord } from '../chain/types.js'
import { executionBlockOf } from '../chain/execBlock.js'
import { runBlockTransaction, type BlockContext } from '../chain/runBlockTx.js'
import { processMinersFees, remascContext } from '../rsk/remasc/remasc.js'
import type { TxPool } from '../pool/pool.js'
import { minedPriceRefusal } from '../pool/admission.js'
import type { Clock } from './clock.js'
import type { MinerConfig } from './config.js'

/** The pending block as run, and what its run left that a sealed record needs (pendingSeal.ts). */
export interface PendingRun {
  /** Its record without receipts or REMASC transaction, its hash the parent's (a state read or a call needs neither). */
  block: BlockRecord
  /** The engine's result of each of `block.transactions`, in order. */
  results: RunTxResult[]
  /** The REMASC transaction's receipt, on a chain with REMASC. */
  remasc?: ReceiptRecord
  /** The root of the state it was built on, when a dev-chain edit made it differ from the head's (Chain.editedRoot). */
  builtOn: Uint8Array | undefined
}

/**
 * The pending block (its record not in the store: the chain reads it through `Chain.addView`), built on the live
 * state, which the caller has put in a checkpoint and reverts when the request is done; `builtOn`: that state's root,
 * when a dev-chain edit made it differ from the head's (`Chain.editedRoot`, read before the checkpoint).
 */
export async function pendingBlock(chain: Chain, pool: TxPool, clock: Clock, config: MinerConfig, difficulty: bigint, builtOn: Uint8Array | undefined): Promise<PendingRun> {
  const parent = chain.head
  const number = parent.number + 1n
  const timestamp = clock.peek(parent.header.timestamp)
  const { state, vm } = chain
  const fields = { number, timestamp, gasLimit: config.blockGasLimit, coinbase: config.coinbase, difficulty }
  const context: BlockContext = { vm, state, block: executionBlockOf(chain.common, fields), coinbase: config.coinbase, remasc: config.remasc !== undefined }
  const included: TxRecord[] = []
  const results: RunTxResult[] = []
  let gasUsed = 0n
  for (const t of pool.ordered()) {
    // What the miner would leave out for its price (pool/admission.ts `minedPriceRefusal`) is not in the pending block.
    if (minedPriceRefusal(t.tx.gasPrice, config.minimumGasPrice) !== undefined) continue
    if (gasUsed + t.tx.gasLimit > config.blockGasLimit) continue
    try {
      const result = await runBlockTransaction(context, t, gasUsed)
      gasUsed += result.totalGasSpent
      included.push(t)
      results.push(result)
    } catch (e) {
      // A fork's remote that cannot be read fails the request, as it fails the block (miner.ts `droppedReason`).
      if (e instanceof RemoteFailed) throw e
      // Refused by the engine (a nonce gap): the miner leaves it in the pool, and the pending block without it.
    }
  }
  if (included.length > 0) config.afterPendingTransactions?.()
  const remasc = config.remasc === undefined ? undefined : await processMinersFees(remascContext(chain, state, config.remasc, config.minimumGasPrice, number, gasUsed))
  const block: BlockRecord = {
    ...parent,
    number,
    header: { ...parent.header, ...fields, parentHash: parent.hash, gasUsed, minimumGasPrice: config.minimumGasPrice },
    transactions: included,
    receipts: [],
  }
  chain.addView(block)
  return { block, results, builtOn, ...(remasc !== undefined ? { remasc } : {}) }
}
