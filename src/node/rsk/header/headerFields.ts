/**
 * The RSK block header as a value, the per-height rules that shape its encoding, and the field codecs RSKj uses
 * (RSKj `org/ethereum/core/BlockHeader.java`, `BlockHeaderBuilder.java`, `org/ethereum/util/RLP.java`,
 * `org/ethereum/util/ByteUtil.java`). `header.ts` encodes and hashes, `headerDecode.ts` decodes.
 */
import { bytesToBigInt } from '@ethereumjs/util'
import { unpaddedBytes } from '../../rlp.js'

/**
 * An RSK block header in domain types.
 *
 * Regtest (reference §7.3, RSKj `resources/config/regtest.conf`): genesis is a version-0 header
 * (`org/ethereum/core/GenesisHeader.java`) without `ummRoot`, edges or base event, whose merged-mining fields
 * are the single byte `0x00` each (`resources/genesis/rsk-dev.json`), so the header encoding carries
 * `bitcoinMergedMiningHeader = 0x00`. From block 1 (RSKIPUMM, RSKIP144, RSKIP351 and RSKIP535 at 1) every
 * header is version 2 with `ummRoot` empty (encoded as `0x80`), `txExecutionSublistsEdges` (possibly `[]`) and
 * `baseEvent` empty (`BlockToMineBuilder` / `BlockHeaderBuilder.build`). RSKIP92 is active from 0, so only the
 * Bitcoin header of the three merged-mining fields is hashed.
 */
export interface RskHeader {
  parentHash: Uint8Array
  unclesHash: Uint8Array
  /** 20 bytes; the all-zero address is encoded as the empty string (`RLP.encodeRskAddress`). */
  coinbase: Uint8Array
  stateRoot: Uint8Array
  txTrieRoot: Uint8Array
  receiptTrieRoot: Uint8Array
  /** 256 bytes; empty only for a header decoded from its compressed (hash) form, see `extensionData`. */
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
  /** Undefined = RSKj's null (not encoded, before RSKIPUMM); empty on regtest from block 1; else 20 bytes. */
  ummRoot?: Uint8Array
  /** 0, 1 or 2, as RSKj's `BlockHeaderV0/V1/V2` (`ActivationConfig.getHeaderVersion`). */
  version: number
  /** RSKIP144 sublist edges; undefined = null (not encoded). */
  txExecutionSublistsEdges?: number[]
  /** RSKIP535 base event (≤ 128 bytes); undefined = null. Version 2 always hashes it (null as empty). */
  baseEvent?: Uint8Array
  bitcoinMergedMiningHeader: Uint8Array
  bitcoinMergedMiningMerkleProof: Uint8Array
  bitcoinMergedMiningCoinbaseTransaction: Uint8Array
  /**
   * RSKIP110 fork detection data of a header being mined (12 bytes, `co/rsk/mine/ForkDetectionDataCalculator`),
   * or absent/empty while the chain has fewer than 449 blocks. Not part of any encoding.
   */
  forkDetectionData?: Uint8Array
  /** RSKIP92 (default true: regtest, and mainnet since Orchid): proof and coinbase are left out of the hash. */
  useRskip92Encoding?: boolean
  /** The difficulty bytes as stored when they are not Java's minimal form (genesis JSON: `0x0000000001`). */
  difficultyBytes?: Uint8Array
  /** The gas-limit bytes as stored when they differ from what `gasLimitBytesFor` writes. */
  gasLimitBytes?: Uint8Array
  /** `RLP[version, extension hash]` of a v1/v2 header decoded from its compressed form (bloom unknown). */
  extensionData?: Uint8Array
}

/** What the consensus rules active at a height do to the header encoding (`BlockFactory.decodeHeader`). */
export interface HeaderRules {
  /** RSKIPUMM: `ummRoot` is encoded. */
  umm: boolean
  /** `ActivationConfig.getHeaderVersion`: 0, 1 (RSKIP351) or 2 (RSKIP351 + RSKIP535). */
  version: 0 | 1 | 2
  /** RSKIP351 and RSKIP144: the sublist edges are encoded. */
  edges: boolean
  /** RSKIP535 and RSKIP351: the base event is encoded. */
  baseEvent: boolean
  /** RSKIP92: the Merkle proof and the coinbase are not in the hashed encoding. */
  rskip92: boolean
}

/** The rules at a block height. */
export type HeaderActivation = (number: bigint) => HeaderRules

/**
 * Regtest (`resources/config/regtest.conf`): everything from 0, with RSKIPUMM, 144, 351 and 535 from block 1.
 *
 * @example
 * regtestHeaderRules(1n).version // 2
 */
export const regtestHeaderRules: HeaderActivation = (number) =>
  number === 0n
    ? { umm: false, version: 0, edges: false, baseEvent: false, rskip92: true }
    : { umm: true, version: 2, edges: true, baseEvent: true, rskip92: true }

/**
 * Shared by every mined header (headers are never mutated): an array of its own in each of 10,000 headers costs
 * ~550 KB of heap for nothing.
 */
const NO_BYTES = new Uint8Array()
const NO_EDGES: number[] = []

/**
 * The header fields regtest fixes at a height (`BlockHeaderBuilder.build` defaults), to spread into a new header.
 *
 * @example
 * const header: RskHeader = { ...fields, ...regtestHeaderShape(1n) } // version 2, ummRoot/baseEvent empty, edges []
 */
export function regtestHeaderShape(number: bigint): Pick<RskHeader, 'version' | 'ummRoot' | 'txExecutionSublistsEdges' | 'baseEvent'> {
  if (number === 0n) return { version: 0 }
  return { version: 2, ummRoot: NO_BYTES, txExecutionSublistsEdges: NO_EDGES, baseEvent: NO_BYTES }
}

/**
 * Java's `BigInteger.toByteArray()` for a non-negative value: minimal two's complement, so a leading 0x00 when
 * the top bit is set, and `[0x00]` for zero. RSKj writes difficulty (`BlockDifficulty.getBytes`), a mined gas
 * limit (`BlockToMineBuilder`: `gasLimit.toByteArray()`) and a non-zero minimum gas price (`Coin.getBytes`) so.
 *
 * @example
 * javaSignedBytes(0x80n) // Uint8Array [0x00, 0x80]
 */
export function javaSignedBytes(n: bigint): Uint8Array {
  if (n < 0n) throw new Error('javaSignedBytes: negative value')
  if (n === 0n) return Uint8Array.of(0)
  const b = unpaddedBytes(n)
  if (b[0]! < 0x80) return b
  // The sign byte, then the bytes (without spreading them into an argument list: 3-4 of these per header encoding).
  const out = new Uint8Array(b.length + 1)
  out.set(b, 1)
  return out
}

/**
 * `RLP.encodeBigInteger`: minimal unsigned bytes, zero as the empty string.
 *
 * @example
 * unsignedBytes(0n) // Uint8Array []
 */
export const unsignedBytes = unpaddedBytes

/**
 * The gas-limit bytes RSKj stores: the genesis loader strips leading zeroes (`GenesisHeader`), the block builder
 * writes `BigInteger.toByteArray()` (`co/rsk/mine/BlockToMineBuilder.java`).
 *
 * @example
 * gasLimitBytesFor(1n, 10_000_000n) // Uint8Array [0x00, 0x98, 0x96, 0x80]
 */
export function gasLimitBytesFor(number: bigint, gasLimit: bigint): Uint8Array {
  return number === 0n ? unsignedBytes(gasLimit) : javaSignedBytes(gasLimit)
}

/**
 * `ByteUtil.shortsToRLP` payload: each edge as a little-endian 16-bit value.
 *
 * @example
 * edgesToBytes([1, 256]) // Uint8Array [1, 0, 0, 1]
 */
export function edgesToBytes(edges: number[]): Uint8Array {
  // No edges (every block mined here): no buffer and DataView for nothing.
  if (edges.length === 0) return NO_BYTES
  const out = new Uint8Array(edges.length * 2)
  const view = new DataView(out.buffer)
  edges.forEach((e, i) => view.setInt16(2 * i, e, true))
  return out
}

/**
 * `ByteUtil.rlpToShorts`: little-endian 16-bit values (signed, as Java's `short`).
 *
 * @example
 * edgesFromBytes(Uint8Array.of(1, 0, 0, 1)) // [1, 256]
 */
export function edgesFromBytes(b: Uint8Array): number[] {
  if (b.length < 2) return []
  const view = new DataView(b.buffer, b.byteOffset, b.length)
  return Array.from({ length: Math.floor(b.length / 2) }, (_, i) => view.getInt16(2 * i, true))
}

/** Unsigned value of big-endian bytes (RSKj parses numbers with `BigIntegers.fromUnsignedByteArray`). */
export const toBigInt = (b: Uint8Array): bigint => (b.length === 0 ? 0n : bytesToBigInt(b))

/** True when any merged-mining field is non-empty (`BlockHeader.hasMiningFields`). */
export const hasMiningFields = (h: RskHeader): boolean =>
  h.bitcoinMergedMiningHeader.length > 0 || h.bitcoinMergedMiningCoinbaseTransaction.length > 0 || h.bitcoinMergedMiningMerkleProof.length > 0

