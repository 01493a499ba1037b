/** Ethereum 2048-bit log blooms: each item sets three bits chosen by keccak256(item). */
import { keccak256 } from '../crypto.js'

/** The bits `item` sets, as (byte index, mask) pairs: [byte, mask, byte, mask, byte, mask]. */
export function bloomBits(item: Uint8Array): number[] {
  const h = keccak256(item)
  const out: number[] = []
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i]! << 8) | h[i + 1]!) & 2047
    out.push(255 - (bit >> 3), 1 << (bit & 7))
  }
  return out
}

export function addToBloom(bloom: Uint8Array, item: Uint8Array): void {
  const bits = bloomBits(item)
  for (let i = 0; i < 6; i += 2) bloom[bits[i]!]! |= bits[i + 1]!
}

/** Whether `bloom` has every bit of `bits` (from bloomBits): false means the item is certainly absent. */
export function bloomHas(bloom: Uint8Array, bits: number[]): boolean {
  for (let i = 0; i < bits.length; i += 2) if ((bloom[bits[i]!]! & bits[i + 1]!) === 0) return false
  return true
}

/** Whether `bloom` may hold one of several items (each `bits` from bloomBits). */
export function bloomHasAny(bloom: Uint8Array, items: readonly number[][]): boolean {
  for (const bits of items) if (bloomHas(bloom, bits)) return true
  return false
}

/** Adds a transaction's logs bloom to the block's. */
export function orBloom(bloom: Uint8Array, other: Uint8Array): void {
  for (let i = 0; i < 256; i++) bloom[i]! |= other[i]!
}
