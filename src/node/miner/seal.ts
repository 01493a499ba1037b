/**
 * Sealing a block whose transactions ran: its header (`headerOf`) and its record, hashed, with merged-mining data
 * (`sealBlock`). Used by the miner (miner.ts) and for the pending block (pendingSeal.ts); a module of its own so that
 * neither imports the other.
 */
import { RLP } from '@ethereumjs/rlp'
import { equalsBytes } from '@ethereumjs/util'
import type { Chain } from '../chain/chain.js'
import type { BlockRecord, ReceiptRecord, TxRecord } from '../chain/types.js'
import { orderedTrieRoot, receiptsRoot } from '../chain/tries.js'
import { rlpListLength } from '../rlp.js'
import { sealHeader, type RskHeader } from '../rsk/header/header.js'
import { buildMergedMiningFields } from '../rsk/mergedMining/mergedMining.js'
import { forkDetectionData } from '../rsk/mergedMining/forkDetection.js'
import { regtestHeaderShape } from '../rsk/header/headerFields.js'
import { keccak256 } from '../crypto.js'
import { flatHex } from '../chain/flatHex.js'
import { packBytes } from '../chain/packBytes.js'
import type { MinerConfig } from './config.js'
import type { BlockTotals } from './blockTotals.js'

/** keccak256(RLP([])): the uncles hash of a block without uncles. */
export const EMPTY_UNCLES_HASH = keccak256(RLP.encode([]))
/** Regtest difficulty stays 1 (reference §7.1). */
export const BLOCK_DIFFICULTY = 1n
/** `extraData` of mined blocks: RLP [1, "<modifier>-<build>"] as RSKj's `MinerServerImpl` writes it. */
export const EXTRA_DATA = RLP.encode([1, 'RSKSIM-rsksim'])

/** The three merged-mining fields of an RSK header. */
export type MergedMiningFields = Pick<RskHeader, 'bitcoinMergedMiningHeader' | 'bitcoinMergedMiningCoinbaseTransaction' | 'bitcoinMergedMiningMerkleProof'>

/** Adds merged-mining data to a complete header, hashes it and builds the block record on top of `parent`. */
export function sealBlock(
  header: RskHeader,
  txs: TxRecord[],
  receipts: ReceiptRecord[],
  parent: BlockRecord,
  mm?: MergedMiningFields,
): BlockRecord {
  const sealed = sealHeader(header, (forMergedMining) => {
    Object.assign(header, mm ?? buildMergedMiningFields(forMergedMining, header.difficulty, header.timestamp))
  })
  const [hash, hashForMergedMiningView] = compactHeader(header, parent.header, [sealed.hash, sealed.forMergedMining])
  return {
    header,
    hash: hash!,
    hashHex: flatHex(hash!),
    number: header.number,
    hashForMergedMining: hashForMergedMiningView!,
    // Exact-length copies: arrays grown by push keep spare capacity (~130 B each per block).
    transactions: txs.slice(),
    receipts: receipts.slice(),
    totalDifficulty: parent.totalDifficulty + header.difficulty,
    size: blockSize(sealed.encodedLength, txs),
  }
}

/**
 * RSKj's block size, `Block.getEncoded().length`: the RLP list of [the header with its Merkle proof and coinbase
 * (`headerLength`: encodedRskHeaderWithMergedMiningLength), the transactions as signed, no uncles]; debug_getRawBlock
 * answers those bytes. For every block record: mined, genesis (chain/genesis.ts), simulated (exec/simulatedBlock.ts).
 */
export function blockSize(headerLength: number, txs: readonly TxRecord[]): number {
  const txBytes = txs.reduce((n, t) => n + t.raw.length, 0)
  return rlpListLength(headerLength + rlpListLength(txBytes) + rlpListLength(0))
}

/**
 * Moves a sealed header's byte fields and `extra` (the block's hashes) into one buffer (packBytes.ts), and reuses
 * the parent's state root and bloom when they are equal (blocks without transactions change neither), so a
 * mined block holds one buffer instead of a dozen. Header arrays are never mutated once sealed. Returns the
 * views of `extra`.
 */
function compactHeader(header: RskHeader, parent: RskHeader, extra: Uint8Array[]): Uint8Array[] {
  const fields: PackedField[] = ['txTrieRoot', 'receiptTrieRoot', 'bitcoinMergedMiningHeader', 'bitcoinMergedMiningMerkleProof', 'bitcoinMergedMiningCoinbaseTransaction']
  if (equalsBytes(header.stateRoot, parent.stateRoot)) header.stateRoot = parent.stateRoot
  else fields.push('stateRoot')
  if (equalsBytes(header.logsBloom, parent.logsBloom)) header.logsBloom = parent.logsBloom
  else fields.push('logsBloom')
  if (header.forkDetectionData !== undefined) fields.push('forkDetectionData')
  const packed = packBytes([...extra, ...fields.map((f) => header[f]!)])
  fields.forEach((f, i) => (header[f] = packed[extra.length + i]!))
  return packed.slice(0, extra.length)
}

/** Byte fields of a header that compactHeader may move. */
type PackedField = 'txTrieRoot' | 'receiptTrieRoot' | 'bitcoinMergedMiningHeader' | 'bitcoinMergedMiningMerkleProof' | 'bitcoinMergedMiningCoinbaseTransaction' | 'stateRoot' | 'logsBloom' | 'forkDetectionData'

/**
 * The header of a block whose transactions ran (without merged-mining fields: `sealBlock` adds them): a mined block's,
 * with the miner's `extraData`, and the pending block's (pendingSeal.ts), with none (RSKj `BlockToMineBuilder.buildPending`
 * passes null, which `BlockHeaderBuilder` makes empty).
 */
export function headerOf(
  chain: Chain,
  config: MinerConfig,
  parent: BlockRecord,
  stateRoot: Uint8Array,
  totals: BlockTotals,
  time: bigint,
  extraData: Uint8Array,
): RskHeader {
  const { gasUsed, paidFees } = totals
  return blockHeader(parent, totals.included, totals.receipts, {
    number: parent.number + 1n,
    timestamp: time,
    gasLimit: config.blockGasLimit,
    coinbase: config.coinbase,
    difficulty: BLOCK_DIFFICULTY,
    gasUsed,
    paidFees,
    minimumGasPrice: config.minimumGasPrice,
    stateRoot,
    logsBloom: totals.bloom,
    extraData,
    forkDetectionData: forkDetectionData(chain.store),
  })
}

/** What a block's header takes from the block it heads: all but the parent's hash and the roots of its lists. */
export interface HeaderValues {
  number: bigint
  timestamp: bigint
  gasLimit: bigint
  coinbase: Uint8Array
  difficulty: bigint
  gasUsed: bigint
  paidFees: bigint
  minimumGasPrice: bigint
  stateRoot: Uint8Array
  logsBloom: Uint8Array
  extraData: Uint8Array
  /** A header being mined carries it (forkDetection.ts); a simulated one (exec/simulatedBlock.ts) has none. */
  forkDetectionData?: Uint8Array
}

/**
 * An RSK header of `txs` (with their `receipts`) on top of `parent`, without merged-mining data: what `headerOf` gives
 * a mined or the pending block, and exec/simulatedBlock.ts an eth_simulateV1 block.
 */
export function blockHeader(parent: BlockRecord, txs: TxRecord[], receipts: ReceiptRecord[], v: HeaderValues): RskHeader {
  return {
    parentHash: parent.hash,
    unclesHash: EMPTY_UNCLES_HASH,
    coinbase: v.coinbase,
    stateRoot: v.stateRoot,
    txTrieRoot: orderedTrieRoot(txs.map((t) => t.raw)),
    receiptTrieRoot: receiptsRoot(receipts),
    logsBloom: v.logsBloom,
    difficulty: v.difficulty,
    number: v.number,
    gasLimit: v.gasLimit,
    gasUsed: v.gasUsed,
    timestamp: v.timestamp,
    extraData: v.extraData,
    paidFees: v.paidFees,
    minimumGasPrice: v.minimumGasPrice,
    uncleCount: 0,
    // Regtest from block 1: version 2 with an empty UMM root and base event (RSKj BlockToMineBuilder).
    ...regtestHeaderShape(v.number),
    ...(v.forkDetectionData !== undefined ? { forkDetectionData: v.forkDetectionData } : {}),
    bitcoinMergedMiningHeader: new Uint8Array(),
    bitcoinMergedMiningMerkleProof: new Uint8Array(),
    bitcoinMergedMiningCoinbaseTransaction: new Uint8Array(),
  }
}
