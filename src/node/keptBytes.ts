/**
 * Small byte strings kept as long as the chain (the hashes that name trie nodes: crypto.ts `keccak256Kept`), copied
 * into shared 4 KB slabs. V8 on Node 20 spends 232 bytes of heap on a 32-byte array of its own (the array, its buffer
 * object, the bytes) and 96 on a view of a larger buffer, whose bytes live outside the heap (measured alone with
 * `--expose-gc`, 200,000 of each kept); an array over 64 bytes gets its bytes outside the heap too, one allocation
 * each, which the collector tracks and frees one by one. Every object a block keeps is copied by the young-generation
 * collector before it is promoted: an automined transfer kept 12.1-12.9 KB of heap before these slabs and
 * 10.9-11.7 KB after them, sampled (docs/performance.md "Fourteenth round"). A slab lives while any of its views
 * does: only what lives about as long goes in (trie node hashes, not the hashed keys of every account or slot read,
 * which die young).
 *
 * A view's `byteOffset` is not 0: code that reads `.buffer` must use `byteOffset` too (rsksim's does).
 */
const SLAB = 4096
/** Longer strings get an array of their own: a slab would hold few of them. */
const MAX_KEPT = 256

let slab = new Uint8Array(SLAB)
let at = 0

/** A copy of `bytes` as a view into a shared slab (an array of its own over 256 bytes). */
export function keptCopy(bytes: Uint8Array): Uint8Array {
  const n = bytes.length
  if (n > MAX_KEPT) return bytes.slice()
  if (at + n > SLAB) {
    slab = new Uint8Array(SLAB)
    at = 0
  }
  slab.set(bytes, at)
  return slab.subarray(at, (at += n))
}
