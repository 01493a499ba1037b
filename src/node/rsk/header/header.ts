/**
 * RSK block header encodings and hashes (reference §3.4, §3.6), following RSKj
 * `org/ethereum/core/BlockHeader.java` (`getEncoded(withMergedMiningFields, withMerkleProofAndCoinbase, compressed)`,
 * `getHash`, `getHashForMergedMining`), `BlockHeaderV0/V1/V2.java` and `BlockHeaderExtensionV1/V2.java`.
 *
 * RSKj has three encodings of one header:
 * - `getEncodedForHash()` = compressed, RSKIP92 (Bitcoin header only): its keccak-256 is the block hash.
 *   For version 1/2 the logs bloom slot holds `RLP[version, keccak(extension)]` and the version, edges and base
 *   event are left out; for version 0 it equals `getEncoded()`. → `encodeRskHeader`.
 * - `getEncoded()` = uncompressed, RSKIP92: bloom, version byte, edges, base event. This is what RSKj's
 *   `rsk_getRawBlockHeaderByHash` answers. → `encodeRskHeaderFull`.
 * - `getFullEncoded()` = uncompressed with all three merged-mining fields: blocks and uncle lists on the wire.
 *   → `encodeRskHeaderWithMergedMining`.
 * On regtest genesis (version 0) all three coincide except that the last one adds the proof and coinbase `0x00`.
 */
import { rlpEncode, rlpLength } from '../../rlp.js'
import { bytesToHex, equalsBytes } from '@ethereumjs/util'
import { keccak256, keccakRlp } from '../../crypto.js'
import { RSK_TAG, lastIndexOf } from '../mergedMining/coinbase.js'
import {
  edgesToBytes,
  gasLimitBytesFor,
  hasMiningFields,
  javaSignedBytes,
  unsignedBytes,
  type RskHeader,
} from './headerFields.js'

export type { RskHeader, HeaderRules, HeaderActivation } from './headerFields.js'
export { regtestHeaderRules, regtestHeaderShape, hasMiningFields } from './headerFields.js'
export { decodeRskHeader } from './headerDecode.js'

/** The three switches of RSKj's `BlockHeader.getEncoded(boolean, boolean, boolean)`. */
export interface HeaderEncoding {
  /** Encode the merged-mining fields at all (default true). */
  withMergedMiningFields?: boolean
  /** Also the Merkle proof and the coinbase (default: only when RSKIP92 is off for this header). */
  withMerkleProofAndCoinbase?: boolean
  /** Version 1/2: the extension hash in the bloom's place, no version/edges/base event (default false). */
  compressed?: boolean
}

const EMPTY = new Uint8Array()
/** The encoding the block hash is taken over (`encodeRskHeader`, `rskBlockHash`). */
const FOR_HASH: HeaderEncoding = { compressed: true }
const isZero = (b: Uint8Array): boolean => b.every((x) => x === 0)

/** The last bloom hashed by `bloomHash` (a copy: the caller's array is not kept) and its hash. */
const lastBloom = new Uint8Array(256)
let lastBloomHash: Uint8Array | undefined

/**
 * keccak-256 of a 256-byte logs bloom, remembered for the last one: consecutive blocks often have the same bloom
 * (every empty block's is REMASC's; transfers between the same accounts repeat theirs), and comparing 256 bytes is
 * cheaper than hashing them (about 4 µs per block in a profile of `evm_mine`s).
 */
function bloomHash(bloom: Uint8Array): Uint8Array {
  if (bloom.length !== lastBloom.length) return keccak256(bloom)
  if (lastBloomHash !== undefined && equalsBytes(bloom, lastBloom)) return lastBloomHash
  const hash = keccak256(bloom)
  lastBloom.set(bloom)
  lastBloomHash = hash
  return hash
}

/** `BlockHeaderExtensionV1/V2.getHash`: keccak(RLP[keccak(bloom), (v2) baseEvent ?? empty, edges?]). */
function extensionHash(h: RskHeader): Uint8Array {
  const items: Uint8Array[] = [bloomHash(h.logsBloom)]
  if (h.version >= 2) items.push(h.baseEvent ?? EMPTY)
  if (h.txExecutionSublistsEdges !== undefined) items.push(edgesToBytes(h.txExecutionSublistsEdges))
  return keccakRlp(items)
}

/**
 * The bloom slot of a compressed v1/v2 header: `RLP[version, extensionHash]` (`BlockHeaderV1.createExtensionData`,
 * `BlockHeaderV2.createExtensionData`).
 *
 * @example
 * rskHeaderExtensionData(header) // 0xe202a0… for a version-2 header
 */
export function rskHeaderExtensionData(h: RskHeader): Uint8Array {
  if (h.extensionData !== undefined) return h.extensionData
  if (h.logsBloom.length !== 256) throw new Error('the header has no 256-byte logs bloom to hash into its extension')
  // A block being sealed asks twice in a row (its merged-mining hash, then its block hash): the last answer is kept
  // while the header and the fields are the same objects (sealed headers' arrays are never mutated). One entry
  // only: a memo per header would stay on the heap for every block.
  const known = lastExtension
  if (known?.header === h && known.bloom === h.logsBloom && known.edges === h.txExecutionSublistsEdges && known.baseEvent === h.baseEvent && known.version === h.version) {
    return known.data
  }
  const data = rlpEncode([Uint8Array.of(h.version), extensionHash(h)])
  lastExtension = { header: h, bloom: h.logsBloom, edges: h.txExecutionSublistsEdges, baseEvent: h.baseEvent, version: h.version, data }
  return data
}

let lastExtension: { header: RskHeader; bloom: Uint8Array; edges: number[] | undefined; baseEvent: Uint8Array | undefined; version: number; data: Uint8Array } | undefined

/**
 * RSKj's `BlockHeader.getEncoded(withMergedMiningFields, withMerkleProofAndCoinbase, compressed)`.
 *
 * @example
 * encodeRskHeaderWith(header, { withMergedMiningFields: false, compressed: true }) // what hashForMergedMining hashes
 */
export function encodeRskHeaderWith(h: RskHeader, opts: HeaderEncoding = {}): Uint8Array {
  return rlpEncode(rskHeaderItems(h, opts))
}

/** The items of the list `encodeRskHeaderWith` encodes. */
function rskHeaderItems(h: RskHeader, opts: HeaderEncoding): Uint8Array[] {
  const compressed = opts.compressed ?? false
  const items = coreItems(h, compressed)
  pushExtraFields(items, h, compressed)
  if (opts.withMergedMiningFields ?? true) pushMergedMiningFields(items, h, opts.withMerkleProofAndCoinbase ?? h.useRskip92Encoding === false)
  return items
}

/** The sixteen fields every encoding has, then the UMM root if any (bloom or extension data in slot 6). */
function coreItems(h: RskHeader, compressed: boolean): Uint8Array[] {
  const v0 = h.version === 0
  if (!v0 && !compressed && h.logsBloom.length !== 256) {
    throw new Error('the header was decoded from its compressed form: its logs bloom, edges and base event are unknown')
  }
  const items: Uint8Array[] = [
    h.parentHash,
    h.unclesHash,
    // RLP.encodeRskAddress: the null (all-zero) address is the empty string.
    isZero(h.coinbase) ? EMPTY : h.coinbase,
    h.stateRoot,
    h.txTrieRoot,
    h.receiptTrieRoot,
    compressed && !v0 ? rskHeaderExtensionData(h) : h.logsBloom,
    h.difficultyBytes ?? javaSignedBytes(h.difficulty),
    unsignedBytes(h.number),
    h.gasLimitBytes ?? gasLimitBytesFor(h.number, h.gasLimit),
    unsignedBytes(h.gasUsed),
    unsignedBytes(h.timestamp),
    h.extraData,
    unsignedBytes(h.paidFees),
    // RLP.encodeSignedCoinNonNullZero: zero is the byte 0x00, otherwise Coin.getBytes (BigInteger.toByteArray).
    javaSignedBytes(h.minimumGasPrice),
    unsignedBytes(BigInt(h.uncleCount)),
  ]
  if (h.ummRoot !== undefined) items.push(h.ummRoot)
  return items
}

/**
 * `addExtraFieldsToEncodedHeader`: v0 always adds edges/base event if present; v1/v2 only when uncompressed, after
 * the version byte (v1 has no base event).
 */
function pushExtraFields(items: Uint8Array[], h: RskHeader, compressed: boolean): void {
  const v0 = h.version === 0
  if (!v0 && compressed) return
  if (!v0) items.push(Uint8Array.of(h.version))
  if (h.txExecutionSublistsEdges !== undefined) items.push(edgesToBytes(h.txExecutionSublistsEdges))
  if ((v0 || h.version >= 2) && h.baseEvent !== undefined) items.push(h.baseEvent)
}

/** The Bitcoin header, then (`withProof`) the Merkle proof and the coinbase, when the header has any of them. */
function pushMergedMiningFields(items: Uint8Array[], h: RskHeader, withProof: boolean): void {
  if (!hasMiningFields(h)) return
  items.push(h.bitcoinMergedMiningHeader)
  if (withProof) items.push(h.bitcoinMergedMiningMerkleProof, h.bitcoinMergedMiningCoinbaseTransaction)
}

/** What sealing a block takes from its header (`sealHeader`). */
export interface SealedHeader {
  /** `hashForMergedMining(h)` before the merged-mining fields were added. */
  forMergedMining: Uint8Array
  /** `rskBlockHash(h)` after. */
  hash: Uint8Array
  /** `encodedRskHeaderWithMergedMiningLength(h)` after. */
  encodedLength: number
}

/**
 * A block being sealed needs three encodings of its header: the merged-mining hash (compressed, no merged-mining
 * fields), then, once `addMergedMining` has written those fields into `h`, the block hash (the same items and the
 * Bitcoin header) and the length RSKj's `Block.getEncoded` gives the header (uncompressed, all three fields). The
 * sixteen fields' bytes are made once here for all three, instead of once per encoding. Equal to
 * `hashForMergedMining`, `rskBlockHash` and `encodedRskHeaderWithMergedMiningLength` called in that order
 * (test/rsk-header.test.ts).
 */
export function sealHeader(h: RskHeader, addMergedMining: (forMergedMining: Uint8Array) => void): SealedHeader {
  const items = coreItems(h, true)
  const core = items.length
  pushExtraFields(items, h, true)
  const forMergedMining = withForkDetectionData(h, baseHashForMergedMining(h, items))
  addMergedMining(forMergedMining)
  const unmined = items.length
  pushMergedMiningFields(items, h, h.useRskip92Encoding === false)
  const hash = keccakRlp(items)
  // The uncompressed form: for v1/v2 the bloom in slot 6 and the extra fields (v0's are already there).
  if (h.version === 0) items.length = unmined
  else {
    items.length = core
    items[6] = h.logsBloom
    pushExtraFields(items, h, false)
  }
  pushMergedMiningFields(items, h, true)
  return { forMergedMining, hash, encodedLength: rlpLength(items) }
}

/**
 * The encoding the block hash is taken over (RSKj `getEncodedForHash`). `chain_getRawBlockHeaderBy*` answer
 * `encodeRskHeaderFull` instead, as RSKj does; the two differ for version 1/2 headers.
 *
 * @example
 * keccak256(encodeRskHeader(header)) // == rskBlockHash(header)
 */
export function encodeRskHeader(h: RskHeader): Uint8Array {
  return encodeRskHeaderWith(h, FOR_HASH)
}

/**
 * RSKj's `BlockHeader.getEncoded()`: uncompressed (bloom, version, edges, base event), with the Bitcoin header
 * but, under RSKIP92, without proof and coinbase. This is RSKj's `rsk_getRawBlockHeaderByHash` answer.
 *
 * @example
 * decodeRskHeader(encodeRskHeaderFull(header)) // the same header back
 */
export function encodeRskHeaderFull(h: RskHeader): Uint8Array {
  return encodeRskHeaderWith(h)
}

/**
 * `encodeRskHeaderWithMergedMining(h).length`, without writing the bytes: the header's part of a block's `size`
 * (RSKj `Block.getEncoded().length`).
 */
export function encodedRskHeaderWithMergedMiningLength(h: RskHeader): number {
  return rlpLength(rskHeaderItems(h, { withMerkleProofAndCoinbase: true }))
}

/**
 * RSKj's `getFullEncoded()`: uncompressed with all three merged-mining fields (blocks, uncles, the network).
 *
 * @example
 * const headerRlp = encodeRskHeaderWithMergedMining(header)
 */
export function encodeRskHeaderWithMergedMining(h: RskHeader): Uint8Array {
  return encodeRskHeaderWith(h, { withMerkleProofAndCoinbase: true })
}

/**
 * The block hash: keccak-256 of `encodeRskHeader` (RSKj `BlockHeader.getHash`).
 *
 * @example
 * bytesToHex(rskBlockHash(header)) // eth_getBlockByNumber(...).hash
 */
export function rskBlockHash(h: RskHeader): Uint8Array {
  return keccakRlp(rskHeaderItems(h, FOR_HASH))
}

/** RSKIP110 constants (`BlockHeader`, `co/rsk/config/MiningConfig.java`). */
const PREFIX_LENGTH = 20
const FORK_DETECTION_DATA_LENGTH = 12
const FORK_DETECTION_MIN_HEIGHT = 449n

/** keccak of the compressed encoding without merged-mining fields, folded with a UMM root if any (`getBaseHashForMergedMining`). */
function baseHashForMergedMining(h: RskHeader, items = rskHeaderItems(h, { withMergedMiningFields: false, compressed: true })): Uint8Array {
  const hash = keccakRlp(items)
  if (h.ummRoot === undefined || h.ummRoot.length === 0) return hash
  if (h.ummRoot.length !== 20) throw new Error(`UMM Root length must be either 0 or 20. Found: ${h.ummRoot.length}`)
  const leftRight = new Uint8Array(40)
  leftRight.set(hash.subarray(0, PREFIX_LENGTH))
  leftRight.set(h.ummRoot, PREFIX_LENGTH)
  return keccak256(leftRight)
}

/** `getMiningForkDetectionData` of a sealed header: the 12 bytes after `RSKBLOCK:` + the base hash's first 20 bytes. */
function forkDetectionDataInCoinbase(h: RskHeader, base: Uint8Array): Uint8Array {
  const needle = new Uint8Array(RSK_TAG.length + PREFIX_LENGTH)
  needle.set(RSK_TAG)
  needle.set(base.subarray(0, PREFIX_LENGTH), RSK_TAG.length)
  const coinbase = h.bitcoinMergedMiningCoinbaseTransaction
  const position = lastIndexOf(coinbase, needle)
  const hashHex = (): string => bytesToHex(rskBlockHash(h)).slice(2)
  if (position === -1) throw new Error(`Mining fork detection data could not be found. Header: ${hashHex()}`)
  const from = position + needle.length
  if (coinbase.length < from + FORK_DETECTION_DATA_LENGTH) {
    throw new Error(`Invalid fork detection data length. Expected: 12. Got: ${coinbase.length - from}. Header: ${hashHex()}`)
  }
  return coinbase.slice(from, from + FORK_DETECTION_DATA_LENGTH)
}

/**
 * RSKj's `BlockHeader.getHashForMergedMining`: keccak-256 of the compressed encoding without merged-mining
 * fields (UMM-folded when `ummRoot` is 20 bytes), whose last 12 bytes are replaced by RSKIP110 fork detection
 * data when the header includes it:
 * - a header being mined includes `forkDetectionData` (the argument, else the header's field) when it has 12
 *   bytes; RSKj's `ForkDetectionDataCalculator` yields them once the chain has 449 blocks, and nothing before;
 * - a sealed header without such data (RSKj's decoded blocks) at height ≥ 449 takes them from its coinbase,
 *   after `RSKBLOCK:` and the hash's first 20 bytes (`getMiningForkDetectionData`).
 * A chain without that data (short chains, genesis) gets the plain keccak.
 *
 * @example
 * hashForMergedMining(template, forkDetectionData(store)) // what mnr_getWork hands out
 */
export function hashForMergedMining(h: RskHeader, forkDetectionData?: Uint8Array): Uint8Array {
  return withForkDetectionData(h, baseHashForMergedMining(h), forkDetectionData)
}

/** `hash` (a base hash for merged mining, modified in place) with the header's RSKIP110 data in its last 12 bytes, if any. */
function withForkDetectionData(h: RskHeader, hash: Uint8Array, forkDetectionData?: Uint8Array): Uint8Array {
  const given = forkDetectionData ?? h.forkDetectionData
  let data: Uint8Array | undefined
  if (given !== undefined && given.length > 0) {
    if (given.length !== FORK_DETECTION_DATA_LENGTH) throw new Error(`fork detection data has 12 bytes, got ${given.length}`)
    data = given
  } else if (hasMiningFields(h) && h.number >= FORK_DETECTION_MIN_HEIGHT) {
    data = forkDetectionDataInCoinbase(h, hash)
  }
  if (data !== undefined) hash.set(data, PREFIX_LENGTH)
  return hash
}
