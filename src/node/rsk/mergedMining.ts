/**
 * INTERIM stand-in written by the lead so the rest of the node can run while the full merged-mining module
 * (helper-1) is finished; that work replaces this file.
 */
import { sha256 } from '@noble/hashes/sha2.js'

const dsha = (b: Uint8Array): Uint8Array => sha256(sha256(b))

export function difficultyToTarget(difficulty: bigint): bigint {
  return 2n ** 256n / (difficulty <= 2n ? 3n : difficulty)
}

export function buildMergedMiningFields(hashForMM: Uint8Array, difficulty: bigint, timestamp: bigint) {
  const tag = new TextEncoder().encode('RSKBLOCK:')
  const coinbase = new Uint8Array(tag.length + 32)
  coinbase.set(tag)
  coinbase.set(hashForMM, tag.length)
  const root = dsha(coinbase)
  const header = new Uint8Array(80)
  const view = new DataView(header.buffer)
  view.setUint32(0, 0x20000000, true)
  header.set(root, 36)
  view.setUint32(68, Number(timestamp & 0xffffffffn), true)
  view.setUint32(72, 0x207fffff, true)
  const target = difficultyToTarget(difficulty)
  for (let nonce = 0; ; nonce++) {
    view.setUint32(76, nonce, true)
    const h = dsha(header).reverse()
    if (BigInt('0x' + Buffer.from(h).toString('hex')) <= target) break
  }
  return { bitcoinMergedMiningHeader: header, bitcoinMergedMiningCoinbaseTransaction: coinbase, bitcoinMergedMiningMerkleProof: new Uint8Array() }
}
