/**
 * The RSK block header and its encodings (RSKj `org/ethereum/core/BlockHeader.java`, `BlockHeaderV2.java`,
 * `BlockHeaderExtensionV2.java`; reference §3.6).
 *
 * Regtest headers are version 0 at genesis and version 2 from block 1. A version-2 header keeps its logs bloom,
 * sublist edges and base event in an "extension": the hash encoding (`getEncodedForHash`, compressed) carries
 * `RLP[2, keccak(extension)]` in the bloom's place and leaves the version, edges and base event out; the full
 * encoding (`getEncoded`) carries the bloom, the version byte, the edges and the base event. With RSKIP92 active
 * neither carries the Merkle proof or the coinbase, only the Bitcoin header.
 */
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes } from '@ethereumjs/util'
import { keccak256 } from '../crypto.js'

export interface RskHeader {
  parentHash: Uint8Array
  unclesHash: Uint8Array
  coinbase: Uint8Array
  stateRoot: Uint8Array
  txTrieRoot: Uint8Array
  receiptTrieRoot: Uint8Array
  logsBloom: Uint8Array
  difficulty: bigint
  number: bigint
  gasLimit: bigint
  gasUsed: bigint
  timestamp: bigint
  extraData: Uint8Array
  paidFees: bigint
  minimumGasPrice: bigint
  uncleCount: number
  /** Unused on regtest (null in RSKj: not encoded). */
  ummRoot?: Uint8Array
  /** 0 (genesis) or 2 (regtest from block 1). */
  version: number
  txExecutionSublistsEdges?: number[]
  baseEvent?: Uint8Array
  /** RSKIP110 fork detection data (12 bytes), or empty while the chain is too short for it. */
  forkDetectionData?: Uint8Array
  bitcoinMergedMiningHeader: Uint8Array
  bitcoinMergedMiningMerkleProof: Uint8Array
  bitcoinMergedMiningCoinbaseTransaction: Uint8Array
}

/** `RLP.encodeBigInteger`: minimal big-endian, zero as the empty string. */
const int = (n: bigint): Uint8Array => bigIntToUnpaddedBytes(n)

/** `RLP.encodeSignedCoinNonNullZero`: zero is the raw byte 0x00; otherwise Java's signed `toByteArray`. */
function minimumGasPriceField(n: bigint): Uint8Array {
  if (n === 0n) return Uint8Array.of(0)
  const b = bigIntToUnpaddedBytes(n)
  return b[0]! >= 0x80 ? Uint8Array.of(0, ...b) : b
}

/** `ByteUtil.shortsToRLP`: each edge as a little-endian 16-bit value. */
function edgesField(edges: number[]): Uint8Array {
  const out = new Uint8Array(edges.length * 2)
  edges.forEach((e, i) => ((out[2 * i] = e & 0xff), (out[2 * i + 1] = (e >> 8) & 0xff)))
  return out
}

/** `BlockHeaderExtensionV2` hash: keccak(RLP[keccak(bloom), baseEvent, edges?]). */
function extensionData(h: RskHeader): Uint8Array {
  const items: Uint8Array[] = [keccak256(h.logsBloom), h.baseEvent ?? new Uint8Array()]
  if (h.txExecutionSublistsEdges !== undefined) items.push(edgesField(h.txExecutionSublistsEdges))
  return RLP.encode([Uint8Array.of(h.version), keccak256(RLP.encode(items))])
}

const hasMiningFields = (h: RskHeader): boolean =>
  h.bitcoinMergedMiningHeader.length > 0 || h.bitcoinMergedMiningCoinbaseTransaction.length > 0 || h.bitcoinMergedMiningMerkleProof.length > 0

/** `BlockHeader.getEncoded(withMergedMiningFields, false, compressed)` with RSKIP92 active. */
function encode(h: RskHeader, withMergedMiningFields: boolean, compressed: boolean): Uint8Array {
  const v0 = h.version === 0
  const fields: (Uint8Array | Uint8Array[])[] = [
    h.parentHash, h.unclesHash, h.coinbase, h.stateRoot, h.txTrieRoot, h.receiptTrieRoot,
    compressed && !v0 ? extensionData(h) : h.logsBloom,
    int(h.difficulty), int(h.number), int(h.gasLimit), int(h.gasUsed), int(h.timestamp), h.extraData, int(h.paidFees),
  ]
  const encoded = fields.map((f) => RLP.encode(f))
  encoded.push(RLP.encode(minimumGasPriceField(h.minimumGasPrice)))
  encoded.push(RLP.encode(int(BigInt(h.uncleCount))))
  if (h.ummRoot !== undefined) encoded.push(RLP.encode(h.ummRoot))
  if (v0) {
    if (h.txExecutionSublistsEdges !== undefined) encoded.push(RLP.encode(edgesField(h.txExecutionSublistsEdges)))
    if (h.baseEvent !== undefined) encoded.push(RLP.encode(h.baseEvent))
  } else if (!compressed) {
    encoded.push(RLP.encode(Uint8Array.of(h.version)))
    if (h.txExecutionSublistsEdges !== undefined) encoded.push(RLP.encode(edgesField(h.txExecutionSublistsEdges)))
    if (h.baseEvent !== undefined) encoded.push(RLP.encode(h.baseEvent))
  }
  if (withMergedMiningFields && hasMiningFields(h)) encoded.push(RLP.encode(h.bitcoinMergedMiningHeader))
  return rlpList(encoded)
}

/** An RLP list of already-encoded items. */
function rlpList(items: Uint8Array[]): Uint8Array {
  const length = items.reduce((n, i) => n + i.length, 0)
  const prefix = length < 56 ? Uint8Array.of(0xc0 + length) : (() => {
    const len = bigIntToUnpaddedBytes(BigInt(length))
    return Uint8Array.of(0xf7 + len.length, ...len)
  })()
  const out = new Uint8Array(prefix.length + length)
  out.set(prefix)
  let at = prefix.length
  for (const i of items) out.set(i, at), (at += i.length)
  return out
}

/**
 * The header encoding whose keccak-256 is the block hash (`getEncodedForHash`). `chain_getRawBlockHeaderByHash`
 * answers these bytes, so `keccak256(raw) == hash` holds for every block.
 */
export function encodeRskHeader(h: RskHeader): Uint8Array {
  return encode(h, true, true)
}

/** RSKj's `BlockHeader.getEncoded()` (uncompressed: bloom, version, edges and base event in full). */
export function encodeRskHeaderFull(h: RskHeader): Uint8Array {
  return encode(h, true, false)
}

/** The block hash: keccak-256 of `encodeRskHeader`. */
export function rskBlockHash(h: RskHeader): Uint8Array {
  return keccak256(encodeRskHeader(h))
}

/**
 * `getHashForMergedMining`: keccak of the compressed encoding without merged-mining fields, its last 12 bytes
 * replaced by the fork detection data when there is any (RSKIP110).
 */
export function hashForMergedMining(h: RskHeader): Uint8Array {
  const hash = keccak256(encode(h, false, true))
  if (h.forkDetectionData !== undefined && h.forkDetectionData.length === 12) hash.set(h.forkDetectionData, 20)
  return hash
}
