/**
 * rsksim's one-allocation RLP encoder (src/node/rlp.ts) against @ethereumjs/rlp's `RLP.encode`, the reference:
 * byte-identical output on random nested inputs, with byte strings and list payloads on every length boundary
 * (1-byte values below and above 0x80, 55/56 bytes, 255/256, 65,535/65,536) and deep nesting.
 */
import { describe, expect, it } from 'vitest'
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes, bytesToHex, equalsBytes } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { rlpDecode, rlpEncode, rlpEncodeEach, rlpEncodeScratch, rlpLength, scratchBytes, unpaddedBytes, type RlpInput } from '../src/node/rlp.js'
import { keccak256Kept } from '../src/node/crypto.js'
import { keptCopy } from '../src/node/keptBytes.js'
import { rng } from './rng.js'

const LENGTHS = [0, 1, 2, 31, 32, 54, 55, 56, 57, 255, 256, 257, 1024]

/**
 * Random nested inputs from `r`: byte strings mostly of boundary lengths, half their bytes below 0x80, lists up to
 * depth 5 (a few of 70 items). Call the result with depth 0.
 */
function randomInputs(r: () => number): (depth: number) => RlpInput {
  const n = (k: number) => Math.floor(r() * k)
  const bytes = (): Uint8Array => {
    const len = r() < 0.7 ? LENGTHS[n(LENGTHS.length)]! : n(80)
    return Uint8Array.from({ length: len }, () => (r() < 0.5 ? n(0x80) : n(256)))
  }
  const value = (depth: number): RlpInput => {
    if (depth > 4 || r() < 0.55) return bytes()
    return Array.from({ length: n(r() < 0.1 && depth < 2 ? 70 : 6) }, () => value(depth + 1))
  }
  return value
}

describe('rlpEncode', () => {
  it('writes what RLP.encode writes on 3,000 random nested inputs (and rlpLength is its length)', () => {
    const value = randomInputs(rng(77))
    for (let i = 0; i < 3000; i++) {
      const v = value(0)
      const mine = rlpEncode(v)
      const theirs = RLP.encode(v as never)
      if (!equalsBytes(mine, theirs)) expect(bytesToHex(mine)).toBe(bytesToHex(theirs))
      if (rlpLength(v) !== theirs.length) expect(rlpLength(v)).toBe(theirs.length)
    }
  })

  it('rlpEncodeScratch writes the same bytes into a reused buffer left dirty by the call before', () => {
    const value = randomInputs(rng(78))
    for (let i = 0; i < 1000; i++) {
      // Fill the reused buffer with garbage first: every byte of the encoding must be written, none left over.
      scratchBytes(4096).fill(0x5a)
      const v = value(0)
      const mine = rlpEncodeScratch(v)
      const theirs = RLP.encode(v as never)
      if (!equalsBytes(mine, theirs)) expect(bytesToHex(mine)).toBe(bytesToHex(theirs))
    }
    // Past the reused buffer's size, an array of its own.
    const big = new Uint8Array(70_000).fill(1)
    expect(equalsBytes(rlpEncodeScratch([big]), RLP.encode([big]))).toBe(true)
  })

  it('keccak256Kept and keptCopy: each kept value keeps its bytes while thousands more are written after it', () => {
    // Kept values share slabs (src/node/keptBytes.ts): 2,000 hashes and 2,000 encodings of random sizes (copied in:
    // up to 256 bytes into a slab, longer ones apart) fill several, and the scratch buffer the encodings are written
    // through is dirtied in between. Every one is checked at the end, against RLP.encode and @noble/hashes' keccak-256.
    const value = randomInputs(rng(80))
    const kept: Array<{ mine: Uint8Array; theirs: Uint8Array }> = []
    for (let i = 0; i < 2000; i++) {
      const v = value(0)
      const theirs = RLP.encode(v as never)
      kept.push({ mine: keptCopy(rlpEncodeScratch(v)), theirs }, { mine: keccak256Kept(theirs), theirs: keccak_256(theirs) })
      scratchBytes(4096).fill(0x5a)
    }
    const shared = kept.filter(({ mine }) => mine.byteOffset > 0).length
    expect(shared).toBeGreaterThan(1000) // most are views into slabs, not arrays of their own
    for (const { mine, theirs } of kept) if (!equalsBytes(mine, theirs)) expect(bytesToHex(mine)).toBe(bytesToHex(theirs))
  })

  it('rlpEncodeEach writes each of a list of inputs as RLP.encode does, apart, through a reused buffer', () => {
    const value = randomInputs(rng(79))
    for (let round = 0; round < 200; round++) {
      const inputs = Array.from({ length: round % 20 }, () => value(0))
      // Something else written through the other reused buffer in between must not touch these.
      const views = rlpEncodeEach(inputs)
      rlpEncodeScratch(value(0))
      expect(views.length).toBe(inputs.length)
      inputs.forEach((v, i) => {
        const theirs = RLP.encode(v as never)
        if (!equalsBytes(views[i]!, theirs)) expect(bytesToHex(views[i]!)).toBe(bytesToHex(theirs))
      })
    }
  })

  it('long payloads: 65,535 and 65,536 bytes, and a list over 56 bytes of single bytes', () => {
    for (const len of [65_535, 65_536, 70_000]) {
      const b = new Uint8Array(len).fill(0xab)
      expect(bytesToHex(rlpEncode(b))).toBe(bytesToHex(RLP.encode(b)))
      expect(bytesToHex(rlpEncode([b, [b]]))).toBe(bytesToHex(RLP.encode([b, [b]])))
    }
    const singles = Array.from({ length: 60 }, (_, i) => Uint8Array.of(i))
    expect(bytesToHex(rlpEncode(singles))).toBe(bytesToHex(RLP.encode(singles)))
    expect(bytesToHex(rlpEncode(Uint8Array.of(0x7f)))).toBe('0x7f')
    expect(bytesToHex(rlpEncode(Uint8Array.of(0x80)))).toBe('0x8180')
    expect(bytesToHex(rlpEncode([]))).toBe('0xc0')
  })
})

describe('rlpDecode', () => {
  /** What a decoder answers: the value as nested hex, or that it threw. */
  const outcome = (decode: () => unknown): unknown => {
    const hex = (v: unknown): unknown => (v instanceof Uint8Array ? bytesToHex(v) : (v as unknown[]).map(hex))
    try {
      return hex(decode())
    } catch {
      return 'throws'
    }
  }

  it('answers what RLP.decode answers on 3,000 random encodings and 6,000 damaged ones (flipped, cut or extended)', () => {
    const r = rng(123)
    const n = (k: number) => Math.floor(r() * k)
    const value = randomInputs(r)
    let threw = 0
    for (let i = 0; i < 3000; i++) {
      const encoded = RLP.encode(value(0) as never)
      expect(outcome(() => rlpDecode(encoded))).toEqual(outcome(() => RLP.decode(encoded)))
      const flipped = encoded.slice()
      flipped[n(flipped.length)] = n(256)
      const cut = encoded.subarray(0, n(encoded.length))
      const extended = Uint8Array.from([...encoded, n(256)])
      for (const damaged of [flipped, r() < 0.5 ? cut : extended]) {
        const theirs = outcome(() => RLP.decode(damaged))
        if (theirs === 'throws') threw++
        expect(outcome(() => rlpDecode(damaged))).toEqual(theirs)
      }
    }
    // The damaged inputs exercised the refusals, not only the happy path.
    expect(threw).toBeGreaterThan(1000)
  })

  it('refuses non-canonical forms as RLP.decode does', () => {
    for (const hex of ['8105', 'b800', 'b838' + '00'.repeat(56).slice(2), 'b90000', 'f800', 'c2c0', '82ab', 'f90038' + 'c0'.repeat(56), 'c0c0', '']) {
      const input = Uint8Array.from(Buffer.from(hex, 'hex'))
      expect(outcome(() => rlpDecode(input))).toEqual(outcome(() => RLP.decode(input)))
    }
  })
})

describe('unpaddedBytes', () => {
  it("equals @ethereumjs/util's bigIntToUnpaddedBytes on every byte-length boundary and 5,000 random values", () => {
    const values: bigint[] = [0n, 1n, 0x7fn, 0x80n, 0xffn, 0x100n]
    for (let bits = 1; bits <= 264; bits++) values.push((1n << BigInt(bits)) - 1n, 1n << BigInt(bits), (1n << BigInt(bits)) + 1n)
    const r = rng(91)
    for (let i = 0; i < 5000; i++) {
      let v = 0n
      for (let k = Math.floor(r() * 34); k > 0; k--) v = (v << 8n) | BigInt(Math.floor(r() * 256))
      values.push(v)
    }
    for (const v of values) {
      const mine = unpaddedBytes(v)
      const theirs = bigIntToUnpaddedBytes(v)
      if (!equalsBytes(mine, theirs)) expect(`${v}: ${bytesToHex(mine)}`).toBe(`${v}: ${bytesToHex(theirs)}`)
    }
    expect(() => unpaddedBytes(-1n)).toThrow(/negative/)
  })
})
