/**
 * The three shapes in which miners submit a solution (reference §3.4; RSKj
 * `co/rsk/rpc/modules/mnr/MnrModuleImpl.java`, `co/rsk/mine/MinerServerImpl.processSolution`,
 * `co/rsk/mine/Rskip92MerkleProofBuilder.java`), turned into the three merged-mining fields an RSK block stores.
 *
 * RSKIP92 proofs hold the coinbase's sibling hashes bottom-up in bitcoinj's `Sha256Hash.getBytes()` order, i.e.
 * byte-reversed ("display" order): `Rskip92MerkleProofBuilder` takes them from a serialized partial Merkle tree
 * with `Sha256Hash.wrapReversed`, or reverses the submitted merkle hashes, and `Rskip92MerkleProofValidator`
 * reads them back with `Sha256Hash.wrap`.
 */
import { concatBytes } from '@ethereumjs/util'
import {
  bitcoinTxid,
  coinbaseMerkleBranch,
  parseBitcoinBlock,
  parseBitcoinTransaction,
  reverseBytes,
  serializeBitcoinTransaction,
  type BitcoinTransaction,
} from './bitcoin.js'
import { compressCoinbase, hashAfterLastTag } from './coinbase.js'

/** The Bitcoin data an RSK block carries. */
export interface MergedMiningFields {
  /** The 80-byte Bitcoin header. */
  bitcoinMergedMiningHeader: Uint8Array
  /** The coinbase compressed: 40-byte trimmed SHA-256 midstate + tail. */
  bitcoinMergedMiningCoinbaseTransaction: Uint8Array
  /** RSKIP92 proof: the coinbase's sibling hashes, bottom-up, byte-reversed, concatenated. */
  bitcoinMergedMiningMerkleProof: Uint8Array
}

/** A parsed submission: the fields to store and the hash for merged mining its coinbase commits to. */
export interface MergedMiningSubmission extends MergedMiningFields {
  /** The 32 bytes after the last `RSKBLOCK:` tag of the coinbase (`MnrModuleImpl.extractBlockHashForMergedMining`). */
  hashForMergedMining: Uint8Array
}

/** `BtcBlock.cloneAsHeader().bitcoinSerialize()`: the first 80 bytes; bitcoinj refuses fewer. */
function headerOf(bytes: Uint8Array): Uint8Array {
  if (bytes.length < 80) throw new Error(`Invalid bitcoin block header: expected 80 bytes, got ${bytes.length}`)
  return bytes.slice(0, 80)
}

/**
 * `coinbase.bitcoinSerialize()`: the legacy serialization, the one whose double SHA-256 is the txid that the
 * Merkle proof starts from.
 */
function coinbaseSerialized(coinbase: BitcoinTransaction): Uint8Array {
  return serializeBitcoinTransaction(coinbase, false)
}

function parseCoinbase(bytes: Uint8Array): BitcoinTransaction {
  try {
    return parseBitcoinTransaction(bytes)
  } catch (e) {
    throw new Error(`Invalid bitcoin coinbase transaction: ${e instanceof Error ? e.message : String(e)}`)
  }
}

function submission(header: Uint8Array, coinbase: BitcoinTransaction, proofDisplay: Uint8Array[]): MergedMiningSubmission {
  const raw = coinbaseSerialized(coinbase)
  return {
    hashForMergedMining: hashAfterLastTag(raw),
    bitcoinMergedMiningHeader: header,
    // MinerServerImpl.submitBitcoinBlock*/processSolution compress at the last tag.
    bitcoinMergedMiningCoinbaseTransaction: compressCoinbase(raw, true),
    bitcoinMergedMiningMerkleProof: concatBytes(...proofDisplay),
  }
}

/**
 * `mnr_submitBitcoinBlock(blockHex)`: a whole serialized Bitcoin block; the coinbase is its first transaction and
 * the proof is built from every txid (`Rskip92MerkleProofBuilder.buildFromBlock`).
 *
 * @example
 * const s = fieldsFromBitcoinBlock(hexToBytes('0x' + blockHex))
 * validateMergedMining(s.hashForMergedMining, difficulty, s) // null when the work is good
 */
export function fieldsFromBitcoinBlock(block: Uint8Array): MergedMiningSubmission {
  let parsed: ReturnType<typeof parseBitcoinBlock>
  try {
    parsed = parseBitcoinBlock(block)
  } catch (e) {
    throw new Error(`Invalid bitcoin block: ${e instanceof Error ? e.message : String(e)}`)
  }
  const ids = parsed.transactions.map(bitcoinTxid)
  return submission(parsed.header, parsed.transactions[0]!, coinbaseMerkleBranch(ids).map(reverseBytes))
}

/**
 * `mnr_submitBitcoinBlockTransactions(hash, headerHex, coinbaseHex, txHashesHex)`: the header, the coinbase and
 * every txid of the block in display order, the coinbase's first (`Rskip92MerkleProofBuilder.buildFromTxHashes`
 * reads them with `Sha256Hash.wrap`).
 *
 * @example
 * fieldsFromBlockTransactions(header, coinbase, [coinbaseTxidDisplay, otherTxidDisplay])
 */
export function fieldsFromBlockTransactions(header: Uint8Array, coinbase: Uint8Array, txHashes: Uint8Array[]): MergedMiningSubmission {
  // RSKj fails inside bitcoinj here (Sha256Hash.wrap of a hash that is not 32 bytes, an empty partial Merkle tree).
  if (txHashes.length === 0) throw new Error('Invalid transaction hashes: the list must hold at least the coinbase txid')
  txHashes.forEach((t, i) => {
    if (t.length !== 32) throw new Error(`Invalid transaction hash at position ${i}: expected 32 bytes, got ${t.length}`)
  })
  const branch = coinbaseMerkleBranch(txHashes.map(reverseBytes))
  return submission(headerOf(header), parseCoinbase(coinbase), branch.map(reverseBytes))
}

/**
 * `mnr_submitBitcoinBlockPartialMerkle(hash, headerHex, coinbaseHex, merkleHashesHex, txCountHex)`: the merkle
 * hashes in internal byte order, the first being the coinbase's own hash (dropped), then the siblings bottom-up
 * (`Rskip92MerkleProofBuilder.buildFromMerkleHashes` reverses each). `txCount` only matters to the pre-RSKIP92
 * format (`GenesisMerkleProofBuilder`), so it is accepted and not used, as on regtest.
 *
 * @example
 * fieldsFromPartialMerkle(header, coinbase, [coinbaseTxid, sibling0, sibling1], 3)
 */
export function fieldsFromPartialMerkle(
  header: Uint8Array,
  coinbase: Uint8Array,
  merkleHashes: Uint8Array[],
  txCount: number,
): MergedMiningSubmission {
  void txCount
  // MnrModuleImpl.submitBitcoinBlockPartialMerkle: JsonRpcSubmitBlockException (-33000).
  if (merkleHashes.length === 0) throw new Error("The list of merkle hashes can't be empty")
  merkleHashes.forEach((t, i) => {
    if (t.length !== 32) throw new Error(`Invalid merkle hash at position ${i}: expected 32 bytes, got ${t.length}`)
  })
  return submission(headerOf(header), parseCoinbase(coinbase), merkleHashes.slice(1).map(reverseBytes))
}
