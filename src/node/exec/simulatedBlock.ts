/**
 * The block record of a simulated block (eth_simulateV1), so that it is answered by the formatters every block is
 * (src/rpc/format/block.ts, log.ts, transaction.ts). It is an RSK header as the miner builds one (miner/seal.ts
 * `blockHeader`, which `headerOf` fills for a mined block), with these differences, because it is never mined:
 *
 * - no REMASC transaction: the block holds exactly the simulated calls, so `transactions[i]` is `calls[i]`'s;
 * - no merged-mining proof: the three `bitcoinMergedMining*` fields are empty, and there is no `forkDetectionData`;
 *   `hashForMergedMining` is computed as for any header, and `hash` is RSKj's hash of this header: a name for this
 *   simulated block (its parentHash chains the simulated blocks), not a block any node has (eth_getBlockByHash
 *   answers null for it);
 * - `stateRoot` is the zero hash: not computed. Computing it would flush the live state's caches inside the
 *   request's checkpoint (the miner then clears them: miner.ts `discard`), a cost every simulation at `latest`
 *   would pay for a field no call reads; Anvil 1.7.1 answers the zero hash too.
 */
import type { BlockRecord, ReceiptRecord, TxRecord } from '../chain/types.js'
import { flatHex } from '../chain/flatHex.js'
import { orBloom } from '../chain/bloom.js'
import { blockHeader, blockSize, type HeaderValues } from '../miner/seal.js'
import { encodedRskHeaderWithMergedMiningLength, hashForMergedMining, rskBlockHash } from '../rsk/header/header.js'

const ZERO_ROOT = new Uint8Array(32)

/** The header values a simulation chooses; the state root (zero), the bloom (the receipts') and `extraData` (the parent's) are simulatedBlock's. */
export type SimulatedHeaderValues = Omit<HeaderValues, 'stateRoot' | 'logsBloom' | 'extraData' | 'forkDetectionData'>

/** The record of a block of `txs` (with their `receipts`) on top of `parent`. */
export function simulatedBlock(parent: BlockRecord, v: SimulatedHeaderValues, txs: TxRecord[], receipts: ReceiptRecord[]): BlockRecord {
  const bloom = new Uint8Array(256)
  for (const r of receipts) orBloom(bloom, r.logsBloom)
  const header = blockHeader(parent, txs, receipts, { ...v, stateRoot: ZERO_ROOT, logsBloom: bloom, extraData: parent.header.extraData })
  const hash = rskBlockHash(header)
  return {
    header,
    hash,
    hashHex: flatHex(hash),
    number: v.number,
    hashForMergedMining: hashForMergedMining(header),
    transactions: txs,
    receipts,
    totalDifficulty: parent.totalDifficulty + v.difficulty,
    // As a mined block's (seal.ts); a simulated header has no merged-mining fields.
    size: blockSize(encodedRskHeaderWithMergedMiningLength(header), txs),
  }
}
