/**
 * The pending block complete, for the methods that answer with the block itself rather than read its state: trace_block
 * and trace_filter at `pending`, chain_getRawBlockHeaderByNumber("pending"), debug_traceBlockByNumber("pending").
 *
 * RSKj builds it with `BlockToMineBuilder.buildPending` and fills it with `BlockExecutor.executeAndFill`
 * (co/rsk/rpc/ExecutionBlockRetriever.java for "pending", co/rsk/mine/BlockToMineBuilder.java,
 * co/rsk/core/bc/BlockExecutor.java `fill`): the header the miner would build now, its transaction list ending with
 * the REMASC transaction, stateRoot, receiptsRoot, txTrieRoot, logsBloom, gasUsed and paidFees of the executed block,
 * and no merged-mining data. Two header fields differ from the block the miner then mines: `extraData` is empty
 * (`buildPending` passes none; a mined block carries the miner's), and the three merged-mining fields are empty, so
 * its hash is that of such a header. Everything else is what seal.ts `headerOf` gives the mined block, with the
 * same clock reading (pending.ts: `Clock.peek`).
 *
 * Made from what pending.ts's run left (each transaction's result, the REMASC receipt) on the live state inside the
 * pending block's checkpoint: the state root is computed there and nothing is kept once the task ends. Tracing
 * replays it, as a mined block, from the state it was built on (`Chain.addView`'s `builtOn`).
 */
import type { Chain } from '../chain/chain.js'
import type { BlockRecord } from '../chain/types.js'
import type { MinerConfig } from './config.js'
import { headerOf, sealBlock, type MergedMiningFields } from './seal.js'
import type { PendingRun } from './pending.js'
import { BlockTotals } from './blockTotals.js'

/** Merged-mining fields of a block nobody mined: empty, as RSKj's pending block has them. */
const NO_MERGED_MINING: MergedMiningFields = {
  bitcoinMergedMiningHeader: new Uint8Array(),
  bitcoinMergedMiningMerkleProof: new Uint8Array(),
  bitcoinMergedMiningCoinbaseTransaction: new Uint8Array(),
}

/**
 * The complete record of the pending block `run` built (inside its checkpoint, on the live state), registered as a
 * view of the chain built on the run's `builtOn` (the state root before it, when a dev-chain edit made it differ from
 * the head's).
 */
export async function sealPending(chain: Chain, config: MinerConfig, run: PendingRun): Promise<BlockRecord> {
  const parent = chain.head
  const { block, results } = run
  const totals = new BlockTotals()
  block.transactions.forEach((t, i) => totals.add(t, results[i]!))
  if (run.remasc !== undefined) totals.addRemasc(run.remasc, block.number, chain.common)
  const stateRoot = await chain.state.getStateRoot()
  const header = headerOf(chain, config, parent, stateRoot, totals, block.header.timestamp, new Uint8Array())
  const sealed = sealBlock(header, totals.included, totals.receipts, parent, NO_MERGED_MINING)
  chain.addView(sealed, run.builtOn)
  return sealed
}
