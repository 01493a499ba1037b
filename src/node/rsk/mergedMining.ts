/**
 * Merged mining (reference §3.4): the Bitcoin data an RSK block carries, built for blocks rsksim mines itself
 * and checked for blocks miners submit, as RSKj's `ProofOfWorkRule` does.
 *
 * An RSK block stores the Bitcoin header (80 bytes), the RSKIP92 Merkle proof (sibling hashes from the coinbase to
 * the root, concatenated) and the coinbase compressed: the SHA-256 state after the 64-byte blocks that precede the
 * `RSKBLOCK:` tag, trimmed to 40 bytes (byte count + eight words, `MinerServerImpl.compressCoinbase`), then the
 * rest of the transaction.
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { concat, coinbaseBranch, dsha256, merkleRoot, parseBlock, sha256Midstate, sha256Resume, writeVarInt } from './bitcoin.js'

export const RSK_TAG = new TextEncoder().encode('RSKBLOCK:')
/** Trimmed midstate length (`RskMiningConstants.MIDSTATE_SIZE_TRIMMED`). */
const MIDSTATE_TRIMMED = 40
/** At most this many bytes may follow the hash for merged mining in the coinbase. */
const MAX_BYTES_AFTER_HASH = 128

export interface MergedMiningFields {
  bitcoinMergedMiningHeader: Uint8Array
  bitcoinMergedMiningCoinbaseTransaction: Uint8Array
  bitcoinMergedMiningMerkleProof: Uint8Array
}

/** 2^256 / difficulty; a difficulty of 2 or less counts as 3 (RSKj `DifficultyUtils`). */
export function difficultyToTarget(difficulty: bigint): bigint {
  return 2n ** 256n / (difficulty < 3n ? 3n : difficulty)
}

/** The header's proof-of-work hash as a number (double SHA-256, read little-endian as Bitcoin does). */
function powValue(header: Uint8Array): bigint {
  const h = dsha256(header)
  let n = 0n
  for (let i = 31; i >= 0; i--) n = (n << 8n) | BigInt(h[i]!)
  return n
}

function lastIndexOf(hay: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = hay.length - needle.length; i >= 0; i--) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer
    return i
  }
  return -1
}

/** `MinerServerImpl.compressCoinbase`: midstate of the whole 64-byte blocks before the last tag, then the tail. */
export function compressCoinbase(coinbase: Uint8Array): Uint8Array {
  const tag = lastIndexOf(coinbase, RSK_TAG)
  if (tag < 0) throw new Error('the coinbase holds no RSKBLOCK: tag')
  const blocks = Math.floor(tag / 64)
  const h = sha256Midstate(coinbase, blocks)
  const state = new Uint8Array(MIDSTATE_TRIMMED)
  const view = new DataView(state.buffer)
  view.setBigUint64(0, BigInt(blocks * 64))
  for (let i = 0; i < 8; i++) view.setUint32(8 + 4 * i, h[i]!)
  return concat(state, coinbase.subarray(blocks * 64))
}

/**
 * A coinbase as RSKj's built-in miner writes it (`MinerUtils.getBitcoinCoinbaseTransaction`): one input, a
 * 50 BTC output, and a zero-value output whose script is `prefix ‖ RSKBLOCK: ‖ hashForMergedMining`.
 */
function minerCoinbase(hashForMergedMining: Uint8Array, extraNonce: number): Uint8Array {
  const prefix = Uint8Array.of(extraNonce & 0xff, (extraNonce >> 8) & 0xff, (extraNonce >> 16) & 0xff, extraNonce >>> 24)
  const data = concat(prefix, RSK_TAG, hashForMergedMining)
  const fifty = new Uint8Array(8)
  new DataView(fifty.buffer).setBigUint64(0, 5_000_000_000n, true)
  const payTo = Uint8Array.of(0x51) // OP_TRUE: no key is needed for a simulated reward
  return concat(
    Uint8Array.of(1, 0, 0, 0),
    writeVarInt(1), new Uint8Array(32), Uint8Array.of(0xff, 0xff, 0xff, 0xff), writeVarInt(0), Uint8Array.of(0xff, 0xff, 0xff, 0xff),
    writeVarInt(2), fifty, writeVarInt(payTo.length), payTo, new Uint8Array(8), writeVarInt(data.length), data,
    new Uint8Array(4),
  )
}

/** An 80-byte Bitcoin header. */
function btcHeader(root: Uint8Array, time: number, nonce: number): Uint8Array {
  const h = new Uint8Array(80)
  const v = new DataView(h.buffer)
  v.setUint32(0, 0x20000000, true)
  h.set(root, 36)
  v.setUint32(68, time >>> 0, true)
  v.setUint32(72, 0x207fffff, true) // regtest compact target, for explorers; RSK checks its own target
  v.setUint32(76, nonce >>> 0, true)
  return h
}

/**
 * Merged-mining fields for a block rsksim mines itself: a one-transaction Bitcoin block whose coinbase commits to
 * `hashForMergedMining`, with the header's nonce searched until its proof of work meets the RSK target.
 */
export function buildMergedMiningFields(hashForMergedMining: Uint8Array, difficulty: bigint, timestamp: bigint): MergedMiningFields {
  const coinbase = minerCoinbase(hashForMergedMining, Number(timestamp & 0xffffffffn))
  const root = dsha256(coinbase)
  const target = difficultyToTarget(difficulty)
  for (let nonce = 0; ; nonce++) {
    const header = btcHeader(root, Number(timestamp & 0xffffffffn), nonce)
    if (powValue(header) <= target) {
      return { bitcoinMergedMiningHeader: header, bitcoinMergedMiningCoinbaseTransaction: compressCoinbase(coinbase), bitcoinMergedMiningMerkleProof: new Uint8Array() }
    }
  }
}

/**
 * `ProofOfWorkRule.isValid` for merged-mining fields: null when valid, else why not (RSKj only logs the reason and
 * answers `Invalid block supplied by miner`).
 */
export function validateMergedMining(hashForMergedMining: Uint8Array, difficulty: bigint, f: MergedMiningFields): string | null {
  const header = f.bitcoinMergedMiningHeader
  if (header.length !== 80) return 'bitcoin header must be 80 bytes'
  const proof = f.bitcoinMergedMiningMerkleProof
  if (proof.length % 32 !== 0 || proof.length > 960) return "Merkle proof can't be validated"
  const compressed = f.bitcoinMergedMiningCoinbaseTransaction
  if (compressed.length <= MIDSTATE_TRIMMED) return 'Compressed coinbase transaction does not exist'
  if (powValue(header) > difficultyToTarget(difficulty)) return 'Hash is higher than target'
  const tail = compressed.subarray(MIDSTATE_TRIMMED)
  const expected = concat(RSK_TAG, hashForMergedMining)
  const position = lastIndexOf(tail, expected)
  if (position === -1) return 'bitcoin coinbase transaction tail message does not contain expected RSKBLOCK:hashForMergedMining'
  if (position >= 64) return 'bitcoin coinbase transaction tag position is bigger than expected 64'
  if (position !== lastIndexOf(tail, RSK_TAG)) return 'The valid RSK tag is not the last RSK tag'
  if (tail.length - position - expected.length > MAX_BYTES_AFTER_HASH) return 'More than 128 bytes after RSK tag'
  const consumed = new DataView(compressed.buffer, compressed.byteOffset, 8).getBigUint64(0)
  if (BigInt(tail.length) + consumed <= 64n) return 'Coinbase transaction must always be greater than 64-bytes long'
  let node = coinbaseTxid(compressed)
  for (let at = 0; at < proof.length; at += 32) node = dsha256(concat(node, proof.subarray(at, at + 32)))
  if (!equal(node, header.subarray(36, 68))) return "bitcoin merkle branch doesn't match coinbase and state root"
  return null
}

/** txid of a compressed coinbase: resume SHA-256 from the midstate over the tail, then SHA-256 once more. */
export function coinbaseTxid(compressed: Uint8Array): Uint8Array {
  const view = new DataView(compressed.buffer, compressed.byteOffset, MIDSTATE_TRIMMED)
  const h = new Uint32Array(8)
  for (let i = 0; i < 8; i++) h[i] = view.getUint32(8 + 4 * i)
  return sha256(sha256Resume(h, view.getBigUint64(0), compressed.subarray(MIDSTATE_TRIMMED)))
}

const equal = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i])

/** What a submission carries: the fields to store and the hash for merged mining read from its coinbase. */
export interface Submission {
  fields: MergedMiningFields
  hashForMergedMining: Uint8Array
}

/** The hash after the last `RSKBLOCK:` tag of a coinbase (`MinerServerImpl`). */
function hashInCoinbase(coinbase: Uint8Array): Uint8Array {
  const at = lastIndexOf(coinbase, RSK_TAG)
  if (at < 0 || at + RSK_TAG.length + 32 > coinbase.length) throw new Error('the coinbase holds no RSKBLOCK: tag followed by a hash')
  return coinbase.slice(at + RSK_TAG.length, at + RSK_TAG.length + 32)
}

function submission(header: Uint8Array, coinbase: Uint8Array, branch: Uint8Array[]): Submission {
  if (header.length !== 80) throw new Error('the bitcoin block header must be 80 bytes')
  return {
    hashForMergedMining: hashInCoinbase(coinbase),
    fields: { bitcoinMergedMiningHeader: header, bitcoinMergedMiningCoinbaseTransaction: compressCoinbase(coinbase), bitcoinMergedMiningMerkleProof: concat(...branch) },
  }
}

/** `mnr_submitBitcoinBlock`: a whole serialized Bitcoin block. */
export function fromBitcoinBlock(block: Uint8Array): Submission {
  const { header, txs } = parseBlock(block)
  return submission(header, txs[0]!, coinbaseBranch(txs.map(dsha256)))
}

/** `mnr_submitBitcoinBlockTransactions`: header, coinbase and every txid (display order, coinbase first). */
export function fromBlockTransactions(header: Uint8Array, coinbase: Uint8Array, txidsDisplay: Uint8Array[]): Submission {
  const ids = txidsDisplay.map((t) => t.slice().reverse())
  if (ids.length === 0) throw new Error('The list of transaction hashes can\'t be empty')
  return submission(header, coinbase, coinbaseBranch(ids))
}

/** `mnr_submitBitcoinBlockPartialMerkle`: merkle hashes in internal order, the coinbase's first, then siblings bottom-up. */
export function fromPartialMerkle(header: Uint8Array, coinbase: Uint8Array, merkleHashes: Uint8Array[], txCount: number): Submission {
  if (merkleHashes.length === 0) throw new Error("The list of merkle hashes can't be empty")
  if (!(txCount >= 1)) throw new Error('invalid transaction count')
  return submission(header, coinbase, merkleHashes.slice(1))
}

/** For tests and tools: the Merkle root of txids, as a Bitcoin header stores it. */
export { merkleRoot }
