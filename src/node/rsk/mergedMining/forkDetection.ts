/**
 * RSKIP110 fork detection data (RSKj `co/rsk/mine/ForkDetectionDataCalculator.java`): 12 bytes a miner writes
 * into the last bytes of the hash for merged mining once the chain has at least 449 blocks: the least
 * significant byte of the Bitcoin block hash of 7 ancestors spaced 64 blocks apart, the uncle count of the last
 * 32 blocks, and the height of the block being mined.
 */
import { dsha256 } from './bitcoin.js'
import type { BlockStore } from '../../chain/store.js'

const CPV_SIZE = 7
const CPV_JUMP = 64
const UNCLES_WINDOW = 32
const MIN_CHAIN = CPV_SIZE * CPV_JUMP + 1

/** First digest byte of each sealed block's Bitcoin header: every block reads seven of them, and they never change. */
const firstByteOf = new WeakMap<Uint8Array, number>()

function firstHashByte(header: Uint8Array): number {
  let b = firstByteOf.get(header)
  if (b === undefined) firstByteOf.set(header, (b = dsha256(header)[0]!))
  return b
}

/** Fork detection data for the block after `store.head`, or an empty array while the chain is too short. */
export function forkDetectionData(store: BlockStore): Uint8Array {
  // Block numbers fit a double (chains of 2^53 blocks are not simulated); the ancestors are counted back from the head.
  const best = Number(store.headNumber)
  if (best + 1 < MIN_CHAIN) return new Uint8Array()
  const out = new Uint8Array(12)
  const cpvStart = Math.floor(best / CPV_JUMP) * CPV_JUMP
  for (let i = 0; i < CPV_SIZE; i++) {
    // Index counted back from the best block, as the calculator's list is ordered newest first.
    const back = best - cpvStart + i * CPV_JUMP
    // On a fork the blocks below the forked one are the remote's: their Bitcoin headers count as absent.
    const header = store.back(back)?.header.bitcoinMergedMiningHeader
    // bitcoinj's hash bytes are in display (reversed) order: its last byte is the first byte of the digest.
    out[i] = header !== undefined && header.length === 80 ? firstHashByte(header) : 0
  }
  let uncles = 0
  for (let i = 0; i < UNCLES_WINDOW; i++) uncles += store.back(i)?.header.uncleCount ?? 0
  out[7] = Math.min(uncles, 255)
  new DataView(out.buffer).setUint32(8, best + 1)
  return out
}
