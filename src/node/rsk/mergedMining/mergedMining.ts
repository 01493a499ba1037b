/**
 * Merged mining (reference §3.4): the Bitcoin proof an RSK block carries, built for blocks rsksim mines itself and
 * checked as RSKj's `co/rsk/validators/ProofOfWorkRule.java` checks it. The submission shapes are in
 * `mergedMiningSubmit.ts`, the coinbase in `coinbase.ts`, the Bitcoin primitives in `bitcoin.ts`.
 */
import { bigIntToBytes, bytesToBigInt, concatBytes, setLengthLeft } from '@ethereumjs/util'
import { dsha256, reverseBytes, serializeBitcoinHeader } from './bitcoin.js'
import { HeaderHasher } from './sha256State.js'
import { MIDSTATE_TRIMMED, RSK_TAG, compressCoinbase, compressedCoinbaseTxid, lastIndexOf, minerCoinbaseBytes } from './coinbase.js'
import {
  fieldsFromBitcoinBlock,
  fieldsFromBlockTransactions,
  fieldsFromPartialMerkle,
  type MergedMiningFields,
  type MergedMiningSubmission,
} from './mergedMiningSubmit.js'

export { RSK_TAG, compressCoinbase, compressedCoinbaseTxid } from './coinbase.js'
export { fieldsFromBitcoinBlock, fieldsFromBlockTransactions, fieldsFromPartialMerkle }
export type { MergedMiningFields, MergedMiningSubmission }

const TWO_256 = 1n << 256n
/** `Constants.getMaxBitcoinMergedMiningMerkleProofLength` (RSKIP180). */
const MAX_MERKLE_PROOF_LENGTH = 960
/** `RskMiningConstants.MAX_BYTES_AFTER_MERGED_MINING_HASH`. */
const MAX_BYTES_AFTER_HASH = 128
/** `MinerUtils.getBitcoinMergedMiningBlock`: bitcoinj's `ProtocolVersion.CURRENT` (70012) is written as the block version. */
const MINER_BLOCK_VERSION = 70012
/** `Utils.encodeCompactBits(params.getMaxTarget())` of Bitcoin regtest, the network regtest's Bridge uses. */
const MINER_BLOCK_BITS = 0x207fffff

/**
 * 2^256 / difficulty, a difficulty of 2 or less counting as 3 so that the target fits 256 bits without its top
 * bit (RSKj `co/rsk/util/DifficultyUtils.difficultyToTarget`).
 *
 * @example
 * difficultyToTarget(1n).toString(16) // '5555…55' (regtest)
 */
export function difficultyToTarget(difficulty: bigint): bigint {
  return TWO_256 / (difficulty <= 2n ? 3n : difficulty)
}

/** The header's proof-of-work value: bitcoinj's `getHash().toBigInteger()`, the digest read little-endian. */
const powValue = (header: Uint8Array): bigint => bytesToBigInt(reverseBytes(dsha256(header)))

/** The last `targetBytes` answer: every block of a chain has the same difficulty. */
let lastTarget: { difficulty: bigint; bytes: Uint8Array } | undefined

/** `difficultyToTarget(difficulty)` as 32 big-endian bytes. */
function targetBytes(difficulty: bigint): Uint8Array {
  if (lastTarget?.difficulty !== difficulty) lastTarget = { difficulty, bytes: setLengthLeft(bigIntToBytes(difficultyToTarget(difficulty)), 32) }
  return lastTarget.bytes
}

/**
 * `powValue(header) <= target` on the digest itself: bitcoinj reads the double SHA-256 little-endian, so its last
 * byte is the most significant. `target`: 32 bytes big-endian (`targetBytes`). Saves the number conversions per try.
 */
function meetsTarget(digest: Uint8Array, target: Uint8Array): boolean {
  for (let i = 0; i < 32; i++) {
    const d = digest[31 - i]!
    const t = target[i]!
    if (d !== t) return d < t
  }
  return true
}

/**
 * Merged-mining fields for a block rsksim mines itself: a one-transaction Bitcoin block whose coinbase is the one
 * RSKj's miner writes (`MinerUtils.getBitcoinMergedMiningCoinbaseTransaction`, committing to `hashForMergedMining`
 * after `RSKBLOCK:`), whose header (`MinerUtils.getBitcoinMergedMiningBlock`: version 70012, zero previous hash,
 * regtest bits, `timestamp` as its time) has its nonce incremented until the double SHA-256 meets the RSK target
 * (about 3 tries at regtest difficulty), the coinbase compressed as RSKj stores it, and an empty RSKIP92 proof.
 *
 * @example
 * const mm = buildMergedMiningFields(hashForMergedMining(header), header.difficulty, header.timestamp)
 * validateMergedMining(hashForMergedMining(header), header.difficulty, mm) // null
 */
export function buildMergedMiningFields(hashForMergedMining: Uint8Array, difficulty: bigint, timestamp: bigint): MergedMiningFields {
  if (hashForMergedMining.length !== 32) throw new Error(`hashForMergedMining has 32 bytes, got ${hashForMergedMining.length}`)
  const time = Number(BigInt.asUintN(32, timestamp))
  // RSKj's prefix is random; the block time keeps rsksim's coinbases distinct and reproducible.
  const prefix = new Uint8Array(4)
  new DataView(prefix.buffer).setUint32(0, time, true)
  const raw = minerCoinbaseBytes(hashForMergedMining, prefix)
  const header = serializeBitcoinHeader({
    version: MINER_BLOCK_VERSION,
    prevBlock: new Uint8Array(32),
    merkleRoot: dsha256(raw),
    time,
    bits: MINER_BLOCK_BITS,
    nonce: 0,
  })
  const target = targetBytes(difficulty)
  const view = new DataView(header.buffer)
  const hasher = new HeaderHasher(header) // the nonce is in the last 16 bytes: the first 64 are hashed once
  for (let nonce = 0; ; nonce++) {
    if (nonce > 0xffffffff) throw new Error('no nonce meets the target: the difficulty is too high for rsksim to mine')
    view.setUint32(76, nonce, true)
    if (meetsTarget(hasher.digest(header), target)) break
  }
  return {
    bitcoinMergedMiningHeader: header,
    bitcoinMergedMiningCoinbaseTransaction: compressCoinbase(raw),
    bitcoinMergedMiningMerkleProof: new Uint8Array(),
  }
}

/** Java's `Arrays.toString(byte[])`: signed decimal bytes, as RSKj's log lines print them. */
const javaBytes = (b: Uint8Array): string => `[${Array.from(b, (x) => (x << 24) >> 24).join(', ')}]`

/**
 * `MerkleTreeUtils.checkNotAValid64ByteTransaction` on two display-order nodes: refuses a pair that parses as a
 * 64-byte Bitcoin transaction (the leaf-node weakness), with bitcoinj's `VerificationException` text.
 */
function formsA64ByteTransaction(left: Uint8Array, right: Uint8Array): boolean {
  const b = concatBytes(left, right)
  const view = new DataView(b.buffer)
  const signed = (i: number): number => (b[i]! << 24) >> 24
  if (signed(4) !== 1) return false
  const output0Index = view.getUint32(37, true)
  if (output0Index > 1_000_000 && output0Index !== 0xffffffff) return false
  const inScript = signed(41)
  if (inScript < 0 || inScript > 4) return false
  let at = 42 + inScript + 4
  if (signed(at) !== 1) return false
  at += 1
  const value = view.getBigInt64(at, true)
  if (value < 1n || value > 21_000_000n * 100_000_000n) return false
  const outScript = signed(at + 8)
  if (outScript < 0 || outScript > 4) return false
  return inScript + outScript === 4
}

/**
 * `ProofOfWorkRule.isValid` for RSKIP92 merged-mining fields: null when valid, else the reason RSKj logs (RSKj
 * answers a miner only `Invalid block supplied by miner: …`; the reason is in its log). The checks, in RSKj's
 * order: proof length ≤ 960 and a multiple of 32; a coinbase present; an 80-byte Bitcoin header; its double
 * SHA-256 ≤ `difficultyToTarget(difficulty)`; `RSKBLOCK:` + `hashForMergedMining` in the coinbase tail, at offset
 * < 64, as the last tag, with ≤ 128 bytes after the hash; a coinbase longer than 64 bytes; no proof step forming a
 * 64-byte transaction; the proof folded from the coinbase txid giving the header's Merkle root.
 *
 * @example
 * validateMergedMining(block.hashForMergedMining, block.header.difficulty, block.header) // null
 */
export function validateMergedMining(hashForMergedMining: Uint8Array, difficulty: bigint, fields: MergedMiningFields): string | null {
  const proof = fields.bitcoinMergedMiningMerkleProof
  // Rskip92MerkleProofValidator's constructor (RSKIP180 active) throws; ProofOfWorkRule logs and refuses.
  if (proof.length > MAX_MERKLE_PROOF_LENGTH) {
    return `Merkle proof can't be validated: Partial merkle tree's size is greater than ${MAX_MERKLE_PROOF_LENGTH}`
  }
  if (proof.length % 32 !== 0) return "Merkle proof can't be validated: Partial merkle tree does not have the expected format"
  const compressed = fields.bitcoinMergedMiningCoinbaseTransaction
  // An empty RLP item decodes to null in RSKj (getRLPData).
  if (compressed.length === 0) return 'Compressed coinbase transaction does not exist'
  const header = fields.bitcoinMergedMiningHeader
  if (header.length === 0) return 'Bitcoin merged mining header does not exist'
  if (header.length !== 80) return `Bitcoin merged mining header must be 80 bytes but was ${header.length}`
  const pow = powValue(header)
  const target = difficultyToTarget(difficulty)
  if (pow > target) return `Hash ${pow.toString(16)} is higher than target ${target.toString(16)}`
  // RSKj allocates the tail with a negative size here (NegativeArraySizeException) and MinerServerImpl refuses.
  if (compressed.length < MIDSTATE_TRIMMED) {
    return `Failed to validate PoW: the compressed coinbase has ${compressed.length} bytes, fewer than its ${MIDSTATE_TRIMMED}-byte midstate`
  }
  const tail = compressed.subarray(MIDSTATE_TRIMMED)
  const expected = concatBytes(RSK_TAG, hashForMergedMining)
  const position = lastIndexOf(tail, expected)
  if (position === -1) {
    return (
      'bitcoin coinbase transaction tail message does not contain expected RSKBLOCK:RskBlockHeaderHash. ' +
      `Expected: ${javaBytes(expected)} . Actual: ${javaBytes(tail)} .`
    )
  }
  if (position >= 64) return `bitcoin coinbase transaction tag position is bigger than expected 64. Actual: ${position}.`
  if (position !== lastIndexOf(tail, RSK_TAG)) return `The valid RSK tag is not the last RSK tag. Tail: ${javaBytes(tail)}.`
  if (tail.length - position - expected.length > MAX_BYTES_AFTER_HASH) return 'More than 128 bytes after RSK tag'
  const consumed = new DataView(compressed.buffer, compressed.byteOffset, 8).getBigUint64(0)
  const coinbaseLength = BigInt(tail.length) + consumed
  if (coinbaseLength <= 64n) return `Coinbase transaction must always be greater than 64-bytes long. But it was: ${coinbaseLength}`
  // Rskip92MerkleProofValidator.isValid: fold left-to-right with MerkleTreeUtils.combineLeftRight, all in display order.
  let node = reverseBytes(compressedCoinbaseTxid(compressed))
  for (let at = 0; at < proof.length; at += 32) {
    const sibling = proof.subarray(at, at + 32)
    if (formsA64ByteTransaction(node, sibling)) return 'Supplied nodes form a valid btc transaction'
    node = reverseBytes(dsha256(concatBytes(reverseBytes(node), reverseBytes(sibling))))
  }
  const root = reverseBytes(header.subarray(36, 68))
  if (!node.every((x, i) => x === root[i])) return "bitcoin merkle branch doesn't match coinbase and state root"
  return null
}
