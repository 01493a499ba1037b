/**
 * The Bitcoin coinbase as RSK merged mining uses it (reference §3.4): the `RSKBLOCK:` tag, the coinbase RSKj's
 * built-in miner writes, and the compressed form RSK blocks store (SHA-256 midstate + tail).
 */
import { sha256 } from '@noble/hashes/sha2.js'
import { hexToBytes, concatBytes } from '@ethereumjs/util'
import { sha256Midstate, sha256Resume, type BitcoinTransaction, serializeBitcoinTransaction } from './bitcoin.js'

/** `RskMiningConstants.RSK_TAG`. */
export const RSK_TAG = new TextEncoder().encode('RSKBLOCK:')
/** `RskMiningConstants.MIDSTATE_SIZE_TRIMMED`: 8-byte byte count + eight 4-byte state words. */
export const MIDSTATE_TRIMMED = 40

/**
 * Last index of `needle` in `hay`, or -1 (`co/rsk/util/ListArrayUtil.lastIndexOfSubList`).
 *
 * @example
 * lastIndexOf(coinbase, RSK_TAG)
 */
export function lastIndexOf(hay: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = hay.length - needle.length; i >= 0; i--) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer
    return i
  }
  return -1
}

/** First index of `needle` in `hay`, or -1. */
function indexOf(hay: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer
    return i
  }
  return -1
}

/**
 * `MinerServerImpl.compressCoinbase`: the SHA-256 state after the whole 64-byte blocks before the last (or, with
 * `lastTag = false`, the first) `RSKBLOCK:` tag, trimmed to 40 bytes (the big-endian byte count, then the eight
 * state words, as Bouncy Castle's `getEncodedState` lays them out from offset 8), followed by the rest of the
 * serialized coinbase. Without a tag RSKj hashes no block (its position −1 / 64 is 0), and so does this.
 *
 * @example
 * const compressed = compressCoinbase(serializeBitcoinTransaction(coinbase, false))
 */
export function compressCoinbase(coinbase: Uint8Array, lastTag = true): Uint8Array {
  const tag = lastTag ? lastIndexOf(coinbase, RSK_TAG) : indexOf(coinbase, RSK_TAG)
  const blocks = tag < 0 ? 0 : Math.floor(tag / 64)
  const h = midstateOf(coinbase, blocks)
  const state = new Uint8Array(MIDSTATE_TRIMMED)
  const view = new DataView(state.buffer)
  view.setBigUint64(0, BigInt(blocks * 64))
  for (let i = 0; i < 8; i++) view.setUint32(8 + 4 * i, h[i]!)
  return concatBytes(state, coinbase.subarray(blocks * 64))
}

/** The last midstate computed, with the bytes it hashed: the coinbases rsksim mines begin with the same block. */
let lastMidstate: { hashed: Uint8Array; h: Uint32Array } | undefined

/** `sha256Midstate(data, blocks)`, answered from the last call when it hashed the same bytes. */
function midstateOf(data: Uint8Array, blocks: number): Uint32Array {
  const n = blocks * 64
  const last = lastMidstate
  if (last !== undefined && last.hashed.length === n && n <= data.length) {
    let same = true
    for (let i = 0; i < n && same; i++) same = last.hashed[i] === data[i]
    if (same) return last.h
  }
  const h = sha256Midstate(data, blocks)
  lastMidstate = { hashed: data.slice(0, n), h }
  return h
}

/**
 * The txid (internal order) of a compressed coinbase: SHA-256 resumed from the midstate over the tail, then once
 * more (`ProofOfWorkRule.isValid`).
 *
 * @example
 * compressedCoinbaseTxid(compressCoinbase(raw)) // == dsha256(raw)
 */
export function compressedCoinbaseTxid(compressed: Uint8Array): Uint8Array {
  if (compressed.length < MIDSTATE_TRIMMED) throw new Error(`a compressed coinbase has at least ${MIDSTATE_TRIMMED} bytes, got ${compressed.length}`)
  const view = new DataView(compressed.buffer, compressed.byteOffset, MIDSTATE_TRIMMED)
  const h = new Uint32Array(8)
  for (let i = 0; i < 8; i++) h[i] = view.getUint32(8 + 4 * i)
  return sha256(sha256Resume(h, view.getBigUint64(0), compressed.subarray(MIDSTATE_TRIMMED)))
}

/**
 * `MnrModuleImpl.extractBlockHashForMergedMining`: the 32 bytes after the last `RSKBLOCK:` tag. Like RSKj, a
 * coinbase without a tag yields the bytes at offset 8 (−1 + 9), which will match no work.
 *
 * @example
 * hashAfterLastTag(coinbase) // hashForMergedMining the miner committed to
 */
export function hashAfterLastTag(coinbase: Uint8Array): Uint8Array {
  const from = lastIndexOf(coinbase, RSK_TAG) + RSK_TAG.length
  if (from + 32 > coinbase.length) {
    throw new Error(`arraycopy: last source index ${from + 32} out of bounds for byte[${coinbase.length}]`)
  }
  return coinbase.slice(from, from + 32)
}

/**
 * A public key for the coinbase's 50 BTC output. RSKj's miner draws a fresh key (`MinerUtils.buildScriptPubKeyBytes`);
 * rsksim uses the secp256k1 generator point so blocks are reproducible. Nobody can spend simulated bitcoins anyway.
 */
const PAY_TO_PUBKEY = concatBytes(
  Uint8Array.of(33, 0x02),
  hexToBytes('0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798'),
  Uint8Array.of(0xac), // OP_CHECKSIG
)

/**
 * The coinbase RSKj's built-in miner writes (`MinerUtils.getBitcoinMergedMiningCoinbaseTransaction` and
 * `getBitcoinCoinbaseTransaction`): version 1, one input with an empty script spending the null outpoint, a
 * 50 BTC pay-to-pubkey output, and a zero-value output whose script is `prefix ‖ RSKBLOCK: ‖ hashForMergedMining`.
 * RSKj's prefix is 0–999 random bytes; here it is the caller's (a short deterministic one by default).
 *
 * @example
 * const tx = minerCoinbase(hashForMergedMining, Uint8Array.of(1, 2, 3, 4))
 */
export function minerCoinbase(hashForMergedMining: Uint8Array, prefix: Uint8Array = new Uint8Array()): BitcoinTransaction {
  return {
    version: 1,
    inputs: [{ prevTxid: new Uint8Array(32), prevIndex: 0xffffffff, script: new Uint8Array(), sequence: 0xffffffff, witness: [] }],
    outputs: [
      { value: 5_000_000_000n, script: PAY_TO_PUBKEY },
      { value: 0n, script: concatBytes(prefix, RSK_TAG, hashForMergedMining) },
    ],
    lockTime: 0,
  }
}

/**
 * Legacy serialization (what RSKj compresses and hashes as the txid).
 *
 * @example
 * const raw = coinbaseBytes(minerCoinbase(hash))
 */
export const coinbaseBytes = (tx: BitcoinTransaction): Uint8Array => serializeBitcoinTransaction(tx, false)

/** `coinbaseBytes(minerCoinbase(…))` for one prefix length, with where the prefix starts in it. */
let template: { prefixLength: number; bytes: Uint8Array; prefixAt: number } | undefined

/**
 * `coinbaseBytes(minerCoinbase(hashForMergedMining, prefix))`, written into a copy of the serialized template
 * (only the prefix and the hash differ between the coinbases rsksim mines; test/mergedMining.test.ts compares the
 * two).
 *
 * @example
 * minerCoinbaseBytes(hash, prefix) // equal to coinbaseBytes(minerCoinbase(hash, prefix))
 */
export function minerCoinbaseBytes(hashForMergedMining: Uint8Array, prefix: Uint8Array): Uint8Array {
  if (hashForMergedMining.length !== 32) throw new Error(`hashForMergedMining has 32 bytes, got ${hashForMergedMining.length}`)
  if (template?.prefixLength !== prefix.length) {
    const bytes = coinbaseBytes(minerCoinbase(new Uint8Array(32), new Uint8Array(prefix.length)))
    // The tag's last occurrence is the template's own (prefix and hash are zeros): the prefix is right before it.
    template = { prefixLength: prefix.length, bytes, prefixAt: lastIndexOf(bytes, RSK_TAG) - prefix.length }
  }
  const out = template.bytes.slice()
  out.set(prefix, template.prefixAt)
  out.set(hashForMergedMining, template.prefixAt + prefix.length + RSK_TAG.length)
  return out
}
