/**
 * SHA-256 with an exposed intermediate state ("midstate").
 *
 * RSK stores the merged-mining coinbase compressed: the SHA-256 state after the whole 64-byte blocks that
 * precede the `RSKBLOCK:` tag, then the remaining bytes (RSKj `co/rsk/mine/MinerServerImpl.compressCoinbase`,
 * which uses Bouncy Castle's `SHA256Digest.getEncodedState`). Validation resumes the hash from that state
 * (`co/rsk/validators/ProofOfWorkRule.isValid`). @noble/hashes does not expose its state without reaching into
 * its internals, so the compression function is written out here (FIPS 180-4 §6.2).
 */

// SHA-256 round constants (FIPS 180-4 §4.2.2).
const K = Uint32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be,
  0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa,
  0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85,
  0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
  0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
  0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
])
// Initial hash value (FIPS 180-4 §5.3.3).
const IV = Uint32Array.from([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19])
const W = new Uint32Array(64)

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n))

/** One SHA-256 compression of the 64-byte block at `at` into state `h` (modified in place). */
function compress(h: Uint32Array, block: Uint8Array, at: number): void {
  for (let i = 0; i < 16; i++) {
    const o = at + 4 * i
    W[i] = ((block[o]! << 24) | (block[o + 1]! << 16) | (block[o + 2]! << 8) | block[o + 3]!) >>> 0
  }
  for (let i = 16; i < 64; i++) {
    const a = W[i - 15]!
    const b = W[i - 2]!
    const s0 = rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3)
    const s1 = rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10)
    W[i] = (W[i - 16]! + s0 + W[i - 7]! + s1) >>> 0
  }
  let a = h[0]!, b = h[1]!, c = h[2]!, d = h[3]!, e = h[4]!, f = h[5]!, g = h[6]!, k = h[7]!
  for (let i = 0; i < 64; i++) {
    const t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i]! + W[i]!) >>> 0
    const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0
    k = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0
  }
  h[0] = (h[0]! + a) >>> 0; h[1] = (h[1]! + b) >>> 0; h[2] = (h[2]! + c) >>> 0; h[3] = (h[3]! + d) >>> 0
  h[4] = (h[4]! + e) >>> 0; h[5] = (h[5]! + f) >>> 0; h[6] = (h[6]! + g) >>> 0; h[7] = (h[7]! + k) >>> 0
}

/**
 * The SHA-256 state (eight words) after hashing the first `64 × blocks` bytes of `data`.
 *
 * @example
 * const h = sha256Midstate(new Uint8Array(128), 2) // state after two zero blocks
 */
export function sha256Midstate(data: Uint8Array, blocks: number): Uint32Array {
  if (blocks * 64 > data.length) throw new Error(`sha256Midstate: ${blocks} blocks need ${blocks * 64} bytes, got ${data.length}`)
  const h = IV.slice()
  for (let i = 0; i < blocks; i++) compress(h, data, i * 64)
  return h
}

/**
 * Finishes a SHA-256 that had already consumed `consumed` bytes (a multiple of 64) into state `h`, with `tail`.
 * Equals `sha256(prefix ‖ tail)` when `h = sha256Midstate(prefix, prefix.length / 64)`.
 *
 * @example
 * const digest = sha256Resume(sha256Midstate(prefix, 1), 64n, tail) // == sha256(concat(prefix, tail))
 */
export function sha256Resume(h: Uint32Array, consumed: bigint, tail: Uint8Array): Uint8Array {
  const state = h.slice()
  const padLen = (tail.length + 9 + 63) & ~63
  const buf = new Uint8Array(padLen)
  buf.set(tail)
  buf[tail.length] = 0x80
  new DataView(buf.buffer).setBigUint64(padLen - 8, (consumed + BigInt(tail.length)) * 8n)
  for (let at = 0; at < padLen; at += 64) compress(state, buf, at)
  const out = new Uint8Array(32)
  const view = new DataView(out.buffer)
  for (let i = 0; i < 8; i++) view.setUint32(4 * i, state[i]!)
  return out
}

/**
 * Double SHA-256 of 80-byte Bitcoin headers that share their first 64 bytes (version, previous hash and most of the
 * Merkle root), as a nonce search hashes them: the first block is compressed once, then each header costs two
 * compressions in place, with no allocation (about 3 headers per mined block; Node's one-shot `crypto.hash` pays a
 * native call and two allocations per digest).
 *
 * @example
 * const hasher = new HeaderHasher(header)
 * hasher.digest(header) // == dsha256(header), while header[0..64) stays the same
 */
export class HeaderHasher {
  private readonly mid: Uint32Array
  private readonly state = new Uint32Array(8)
  /** The header's last 16 bytes, padded: 80 bytes = 640 bits. */
  private readonly tail = new Uint8Array(64)
  /** The first digest, padded: 32 bytes = 256 bits. */
  private readonly second = new Uint8Array(64)
  private readonly out = new Uint8Array(32)

  constructor(header: Uint8Array) {
    if (header.length !== 80) throw new Error(`a Bitcoin header has 80 bytes, got ${header.length}`)
    this.mid = sha256Midstate(header, 1)
    this.tail[16] = 0x80
    this.tail[62] = 0x02
    this.tail[63] = 0x80
    this.second[32] = 0x80
    this.second[62] = 0x01
  }

  /** dsha256 of `header` (whose first 64 bytes must be the constructor's); the answer is reused by the next call. */
  digest(header: Uint8Array): Uint8Array {
    this.tail.set(header.subarray(64, 80))
    this.state.set(this.mid)
    compress(this.state, this.tail, 0)
    writeWords(this.second, this.state)
    this.state.set(IV)
    compress(this.state, this.second, 0)
    writeWords(this.out, this.state)
    return this.out
  }
}

/** The eight state words, big-endian, into the first 32 bytes of `out`. */
function writeWords(out: Uint8Array, h: Uint32Array): void {
  for (let i = 0; i < 8; i++) {
    const w = h[i]!
    out[4 * i] = w >>> 24
    out[4 * i + 1] = (w >>> 16) & 0xff
    out[4 * i + 2] = (w >>> 8) & 0xff
    out[4 * i + 3] = w & 0xff
  }
}
