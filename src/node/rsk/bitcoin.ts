/**
 * The few Bitcoin primitives merged mining needs: double SHA-256, a SHA-256 that can resume from a midstate
 * (RSK stores the coinbase compressed as a midstate + tail, reference §3.4), varints, transaction and block
 * parsing, and Merkle roots and branches. Byte order is Bitcoin's internal order unless a name says "display".
 */
import { sha256 } from '@noble/hashes/sha2.js'

export const dsha256 = (b: Uint8Array): Uint8Array => sha256(sha256(b))

// SHA-256 round constants (FIPS 180-4).
const K = Uint32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be,
  0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa,
  0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85,
  0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
  0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
  0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
])
const IV = Uint32Array.from([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19])

function compress(h: Uint32Array, block: Uint8Array, at: number): void {
  const w = new Uint32Array(64)
  for (let i = 0; i < 16; i++) w[i] = ((block[at + 4 * i]! << 24) | (block[at + 4 * i + 1]! << 16) | (block[at + 4 * i + 2]! << 8) | block[at + 4 * i + 3]!) >>> 0
  const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n))
  for (let i = 16; i < 64; i++) {
    const s0 = rotr(w[i - 15]!, 7) ^ rotr(w[i - 15]!, 18) ^ (w[i - 15]! >>> 3)
    const s1 = rotr(w[i - 2]!, 17) ^ rotr(w[i - 2]!, 19) ^ (w[i - 2]! >>> 10)
    w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) >>> 0
  }
  let [a, b, c, d, e, f, g, hh] = h as unknown as number[]
  for (let i = 0; i < 64; i++) {
    const t1 = (hh! + (rotr(e!, 6) ^ rotr(e!, 11) ^ rotr(e!, 25)) + ((e! & f!) ^ (~e! & g!)) + K[i]! + w[i]!) >>> 0
    const t2 = ((rotr(a!, 2) ^ rotr(a!, 13) ^ rotr(a!, 22)) + ((a! & b!) ^ (a! & c!) ^ (b! & c!))) >>> 0
    hh = g; g = f; f = e; e = (d! + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0
  }
  const out = [a, b, c, d, e, f, g, hh]
  for (let i = 0; i < 8; i++) h[i] = (h[i]! + out[i]!) >>> 0
}

/** SHA-256 state after the first `64 × n` bytes of `data` (whole blocks only): the eight words. */
export function sha256Midstate(data: Uint8Array, blocks: number): Uint32Array {
  const h = IV.slice()
  for (let i = 0; i < blocks; i++) compress(h, data, i * 64)
  return h
}

/** Finishes a SHA-256 that had consumed `consumed` bytes into state `h`, with the remaining `tail`. */
export function sha256Resume(h: Uint32Array, consumed: bigint, tail: Uint8Array): Uint8Array {
  const state = h.slice()
  const total = consumed + BigInt(tail.length)
  const padLen = (tail.length + 9 + 63) & ~63
  const buf = new Uint8Array(padLen)
  buf.set(tail)
  buf[tail.length] = 0x80
  const bits = total * 8n
  for (let i = 0; i < 8; i++) buf[padLen - 1 - i] = Number((bits >> BigInt(8 * i)) & 0xffn)
  for (let at = 0; at < padLen; at += 64) compress(state, buf, at)
  const out = new Uint8Array(32)
  for (let i = 0; i < 8; i++) out.set([state[i]! >>> 24, (state[i]! >>> 16) & 0xff, (state[i]! >>> 8) & 0xff, state[i]! & 0xff], 4 * i)
  return out
}

/** Bitcoin CompactSize. */
export function writeVarInt(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n)
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >> 8)
  return Uint8Array.of(0xfe, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24)
}

export class Reader {
  constructor(
    readonly b: Uint8Array,
    public at = 0,
  ) {}
  bytes(n: number): Uint8Array {
    if (this.at + n > this.b.length) throw new Error('unexpected end of data')
    const out = this.b.subarray(this.at, this.at + n)
    this.at += n
    return out
  }
  u8(): number {
    return this.bytes(1)[0]!
  }
  u32(): number {
    const x = this.bytes(4)
    return (x[0]! | (x[1]! << 8) | (x[2]! << 16) | (x[3]! << 24)) >>> 0
  }
  varInt(): number {
    const first = this.u8()
    if (first < 0xfd) return first
    if (first === 0xfd) return this.u8() | (this.u8() << 8)
    if (first === 0xfe) return this.u32()
    const lo = this.u32()
    const hi = this.u32()
    return hi * 2 ** 32 + lo
  }
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) out.set(p, at), (at += p.length)
  return out
}

/**
 * Reads one transaction at the reader's position; returns its serialization without witness data (the bytes
 * whose double SHA-256 is the txid).
 */
export function readTransaction(r: Reader): Uint8Array {
  const start = r.at
  const version = r.bytes(4)
  let segwit = false
  if (r.b[r.at] === 0 && r.b[r.at + 1] === 1) {
    segwit = true
    r.at += 2
  }
  const bodyStart = r.at
  const inputs = r.varInt()
  for (let i = 0; i < inputs; i++) {
    r.bytes(36)
    r.bytes(r.varInt())
    r.bytes(4)
  }
  const outputs = r.varInt()
  for (let i = 0; i < outputs; i++) {
    r.bytes(8)
    r.bytes(r.varInt())
  }
  const bodyEnd = r.at
  if (segwit) for (let i = 0; i < inputs; i++) for (let n = r.varInt(); n > 0; n--) r.bytes(r.varInt())
  const lockTime = r.bytes(4)
  if (!segwit) return r.b.slice(start, r.at)
  return concat(version, r.b.subarray(bodyStart, bodyEnd), lockTime)
}

/** Parses a serialized block: the 80-byte header and every transaction (witness stripped). */
export function parseBlock(block: Uint8Array): { header: Uint8Array; txs: Uint8Array[] } {
  const r = new Reader(block)
  const header = r.bytes(80)
  const count = r.varInt()
  if (count < 1) throw new Error('block without transactions')
  const txs: Uint8Array[] = []
  for (let i = 0; i < count; i++) txs.push(readTransaction(r))
  return { header, txs }
}

/** Merkle root of txids (internal order), duplicating the last of an odd level as Bitcoin does. */
export function merkleRoot(ids: Uint8Array[]): Uint8Array {
  let level = ids
  while (level.length > 1) {
    const next: Uint8Array[] = []
    for (let i = 0; i < level.length; i += 2) next.push(dsha256(concat(level[i]!, level[i + 1] ?? level[i]!)))
    level = next
  }
  return level[0]!
}

/** Sibling hashes from the first transaction (the coinbase) up to the root, bottom-up (RSKIP92 proof). */
export function coinbaseBranch(ids: Uint8Array[]): Uint8Array[] {
  const branch: Uint8Array[] = []
  let level = ids
  while (level.length > 1) {
    branch.push(level[1] ?? level[0]!)
    const next: Uint8Array[] = []
    for (let i = 0; i < level.length; i += 2) next.push(dsha256(concat(level[i]!, level[i + 1] ?? level[i]!)))
    level = next
  }
  return branch
}

/** Reads a Bitcoin header's little-endian u32 fields. */
export function headerField(header: Uint8Array, offset: number): number {
  return new Reader(header, offset).u32()
}
