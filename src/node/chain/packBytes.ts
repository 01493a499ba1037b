/**
 * One buffer for many small byte arrays that live as long as each other (a block's hashes and roots, a receipt's logs
 * and bloom: miner.ts). Every Uint8Array with a buffer of its own costs ~90 heap bytes for the ArrayBuffer plus a
 * native allocation on top of its view; views on one shared buffer cost only the view.
 */

/** The answer for every empty part: a view costs 96 bytes of heap even with no bytes (a mined block's Merkle proof). */
const EMPTY = new Uint8Array(0)

/** Copies `parts` into one new buffer; returns views on it (one shared empty array for empty parts), in order. */
export function packBytes(parts: readonly Uint8Array[]): Uint8Array[] {
  let size = 0
  for (const p of parts) size += p.length
  const buffer = new Uint8Array(size)
  const out: Uint8Array[] = []
  let at = 0
  for (const p of parts) {
    if (p.length === 0) {
      out.push(EMPTY)
      continue
    }
    buffer.set(p, at)
    out.push(buffer.subarray(at, at + p.length))
    at += p.length
  }
  return out
}
