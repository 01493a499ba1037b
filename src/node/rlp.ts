/**
 * RLP encoding of byte strings and nested lists, byte for byte what `@ethereumjs/rlp`'s `RLP.encode` writes for the
 * same input (test/rlp.test.ts compares them on random nested inputs), in one allocation: sizes first, then every
 * byte written into a single buffer. `RLP.encode` allocates twice per item (a length prefix, then a concatenation
 * spread over every item) and builds long-length prefixes through hex strings: in a profile of empty `evm_mine`s its
 * `concatBytes` and `encodeLength` took 18 % of the time (headers, receipts and REMASC logs are encoded every block).
 * Numbers and strings are not taken: callers turn them into bytes (`unpaddedBytes` below).
 */

export type RlpInput = Uint8Array | readonly RlpInput[]

/**
 * @example
 * rlpEncode([Uint8Array.of(1), []]) // Uint8Array [0xc2, 0x01, 0xc0]
 */
export function rlpEncode(input: RlpInput): Uint8Array {
  // Payload lengths of the lists, in the order the writer meets them (pre-order).
  const lists: number[] = []
  const out = new Uint8Array(measure(input, lists))
  write(input, out, 0, lists, { next: 0 })
  return out
}

/**
 * A buffer reused for bytes that are hashed at once and dropped: `take(n)` answers its first `n` bytes, valid until the
 * next `take` (contents are left over from the previous use: the caller writes every byte). Over `SCRATCH_MAX` an
 * array of its own, so one large value does not stay allocated here.
 */
class ReusedBuffer {
  private buffer = new Uint8Array(4096)

  take(n: number): Uint8Array {
    if (n > SCRATCH_MAX) return new Uint8Array(n)
    if (n > this.buffer.length) this.buffer = new Uint8Array(SCRATCH_MAX)
    return this.buffer.subarray(0, n)
  }
}
const SCRATCH_MAX = 64 * 1024
/** For one encoding at a time (`rlpEncodeScratch`, `scratchBytes`); `rlpEncodeEach` has its own. */
const single = new ReusedBuffer()
const each = new ReusedBuffer()

/**
 * `rlpEncode(input)` written into a reused buffer: a view valid only until the next call here or to `scratchBytes`,
 * for encodings hashed at once and dropped (signing hashes, header hashes, trie nodes without a store). A typed array
 * of its own costs V8 on Node 20 a backing store outside the heap when over 64 bytes (about 1-4 µs each, counting the
 * collector's share, measured alone), and a transfer's block made ~33 of them (docs/performance.md "Twelfth round").
 */
export function rlpEncodeScratch(input: RlpInput): Uint8Array {
  const lists: number[] = []
  const out = scratchBytes(measure(input, lists))
  write(input, out, 0, lists, { next: 0 })
  return out
}

/**
 * The first `n` bytes of `rlpEncodeScratch`'s reused buffer, for an encoder that writes every one of them: valid
 * until the next call here or to `rlpEncodeScratch`.
 */
export function scratchBytes(n: number): Uint8Array {
  return single.take(n)
}

/**
 * `rlpEncode` of each input, written back to back into a second reused buffer (not the one of `rlpEncodeScratch`):
 * views valid only until the next call here, for a list of values that is hashed into a root and dropped (a
 * block's receipts).
 */
export function rlpEncodeEach(inputs: readonly RlpInput[]): Uint8Array[] {
  const lists: number[][] = inputs.map(() => [])
  const sizes = inputs.map((input, i) => measure(input, lists[i]!))
  const all = each.take(sizes.reduce((total, n) => total + n, 0))
  let at = 0
  return inputs.map((input, i) => {
    const view = all.subarray(at, (at += sizes[i]!))
    write(input, view, 0, lists[i]!, { next: 0 })
    return view
  })
}

/** `rlpEncode(input).length`, without writing the bytes. */
export function rlpLength(input: RlpInput): number {
  return measure(input, [])
}

/** Bytes needed by a length prefix's length field (0 for a short prefix). */
function lengthOfLength(n: number): number {
  if (n < 56) return 0
  let k = 0
  while (n > 0) {
    k++
    n = Math.floor(n / 256)
  }
  return k
}

/** Size of the length prefix of `n` payload bytes. */
export const prefixSize = (n: number): number => 1 + lengthOfLength(n)

/** Size of a byte string's RLP. */
export const stringSize = (b: Uint8Array): number => (b.length === 1 && b[0]! < 0x80 ? 1 : prefixSize(b.length) + b.length)

/** The encoded size of `input`; records each list's payload length in `lists`. */
function measure(input: RlpInput, lists: number[]): number {
  if (input instanceof Uint8Array) return stringSize(input)
  const slot = lists.length
  lists.push(0)
  let payload = 0
  for (const item of input) payload += measure(item, lists)
  lists[slot] = payload
  return prefixSize(payload) + payload
}

/**
 * Writes the length prefix of `n` payload bytes (`short`: 0x80 for a string, 0xc0 for a list) at `o`; returns the
 * next offset. With `stringSize`, `prefixSize` and `writeString`, for encoders that write into a buffer of their own
 * (trie nodes: src/node/state/trieNode.ts).
 */
export function writePrefix(out: Uint8Array, o: number, n: number, short: number): number {
  if (n < 56) {
    out[o] = short + n
    return o + 1
  }
  const k = lengthOfLength(n)
  out[o] = short + 55 + k
  for (let i = k; i >= 1; i--) {
    out[o + i] = n & 0xff
    n = Math.floor(n / 256)
  }
  return o + 1 + k
}

/** Writes a byte string's RLP at `o`; returns the next offset. */
export function writeString(out: Uint8Array, o: number, b: Uint8Array): number {
  if (b.length === 1 && b[0]! < 0x80) {
    out[o] = b[0]!
    return o + 1
  }
  o = writePrefix(out, o, b.length, 0x80)
  out.set(b, o)
  return o + b.length
}

function write(input: RlpInput, out: Uint8Array, o: number, lists: number[], cursor: { next: number }): number {
  if (input instanceof Uint8Array) return writeString(out, o, input)
  o = writePrefix(out, o, lists[cursor.next++]!, 0xc0)
  for (const item of input) o = write(item, out, o, lists, cursor)
  return o
}

/** A decoded RLP item: a byte string or a list of items. */
export type RlpItem = Uint8Array | RlpItem[]

/**
 * Decodes one RLP item that fills `input`, accepting exactly what `@ethereumjs/rlp`'s `RLP.decode` accepts (canonical
 * single bytes, long forms only past 55 bytes, lengths without leading zeros, no trailing bytes; test/rlp.test.ts
 * compares them on random valid and damaged inputs). The byte strings are views of `input`, not copies: `RLP.decode`
 * copies every item and, at each list level, the rest of the list, which took half the samples of a profile of
 * packing and unpacking blocks (src/node/chain/blockPack.ts).
 */
export function rlpDecode(input: Uint8Array): RlpItem {
  if (input.length === 0) return new Uint8Array()
  const item = decodeAt(input, 0, input.length)
  if (after !== input.length) throw new Error('invalid RLP: remainder must be zero')
  return item
}

/** The offset after the item `decodeAt` decoded last (a variable rather than a returned pair: no allocation). */
let after = 0
/** The payload start of the long form `longLength` read last. */
let payloadStart = 0

/** The item at `o`, which must end by `limit`; sets `after`. */
function decodeAt(input: Uint8Array, o: number, limit: number): RlpItem {
  const first = input[o]!
  if (first <= 0x7f) {
    after = o + 1
    return input.subarray(o, o + 1)
  }
  if (first <= 0xb7) {
    const end = o + 1 + (first - 0x80)
    if (end > limit) throw new Error('invalid RLP: string longer than its input')
    if (first === 0x81 && input[o + 1]! < 0x80) throw new Error('invalid RLP encoding: invalid prefix, single byte < 0x80 are not prefixed')
    after = end
    return input.subarray(o + 1, end)
  }
  if (first <= 0xbf) {
    const length = longLength(input, o, first - 0xb7, limit)
    if (length <= 55) throw new Error('invalid RLP: expected string length to be greater than 55')
    const start = payloadStart
    if (start + length > limit) throw new Error('invalid RLP: string longer than its input')
    after = start + length
    return input.subarray(start, start + length)
  }
  let start: number
  let length: number
  if (first <= 0xf7) {
    start = o + 1
    length = first - 0xc0
  } else {
    length = longLength(input, o, first - 0xf7, limit)
    if (length < 56) throw new Error('invalid RLP: encoded list too short')
    start = payloadStart
  }
  const end = start + length
  if (end > limit) throw new Error('invalid RLP: list longer than its input')
  const items: RlpItem[] = []
  for (let at = start; at < end; at = after) items.push(decodeAt(input, at, end))
  after = end
  return items
}

/** A long form's payload length (`k` length bytes after the prefix at `o`); sets `payloadStart`. */
function longLength(input: Uint8Array, o: number, k: number, limit: number): number {
  if (o + 1 + k > limit) throw new Error('invalid RLP: not enough bytes for the length')
  if (input[o + 1] === 0) throw new Error('invalid RLP: extra zeros')
  let length = 0
  for (let i = 1; i <= k; i++) length = length * 256 + input[o + i]!
  payloadStart = o + 1 + k
  return length
}

/**
 * A non-negative integer as minimal big-endian bytes, zero as the empty string (RLP's integer form): what
 * `@ethereumjs/util`'s `bigIntToUnpaddedBytes` returns, without its hex-string round trip and validation (about 4 %
 * of an empty block in a profile: every header number, gas figure and REMASC value goes through it).
 *
 * @example
 * unpaddedBytes(0n) // Uint8Array []
 * unpaddedBytes(0x1234n) // Uint8Array [0x12, 0x34]
 */
export function unpaddedBytes(n: bigint): Uint8Array {
  if (n < 0n) throw new Error(`unpaddedBytes: negative value ${n}`)
  if (n <= 0xffff_ffff_ffffn) {
    // Up to 6 bytes: exact in a double.
    let x = Number(n)
    let k = 0
    for (let y = x; y > 0; y = Math.floor(y / 256)) k++
    const out = new Uint8Array(k)
    for (let i = k - 1; i >= 0; i--) {
      out[i] = x % 256
      x = Math.floor(x / 256)
    }
    return out
  }
  if (n < WORD_LIMIT) {
    // The word's 32 bytes, then those from the first non-zero one: 121-257 ns against 462-753 through the value's
    // hex string, for values of 60-255 bits measured alone (docs/performance.md, twenty-fourth round). REMASC's
    // values and the header's large numbers take this path in every block.
    const word = wordInScratch(n)
    let first = 0
    while (word[first] === 0) first++
    return word.slice(first)
  }
  const hex = n.toString(16)
  const odd = hex.length & 1
  const out = new Uint8Array((hex.length + odd) >> 1)
  for (let i = 0; i < out.length; i++) {
    const from = 2 * i - odd
    out[i] = parseInt(from < 0 ? hex[0]! : hex.slice(from, from + 2), 16)
  }
  return out
}

/**
 * Big-endian bytes as an unsigned integer: util's `bytesToBigInt` without its hex string (EVM words in
 * enginePatches/fastOpcodes.ts; the integers of packed blocks, the inverse of `unpaddedBytes`).
 */
export function bytesToWord(bytes: Uint8Array): bigint {
  const n = bytes.length
  // Up to six significant bytes fit a double exactly.
  let lead = 0
  while (lead < n && bytes[lead] === 0) lead++
  if (n - lead <= 6) {
    let v = 0
    for (let i = lead; i < n; i++) v = v * 256 + bytes[i]!
    return BigInt(v)
  }
  if (n <= 32) {
    // An EVM word or shorter: right-aligned in one reused 32-byte buffer, read from its first significant 8 bytes
    // (a DataView per call was half of this function's time).
    WORD_BYTES.fill(0, 0, 32 - n)
    WORD_BYTES.set(bytes, 32 - n)
    let i = (32 - n + lead) & ~7
    let r = WORD_VIEW.getBigUint64(i)
    for (i += 8; i < 32; i += 8) r = (r << 64n) | WORD_VIEW.getBigUint64(i)
    return r
  }
  let r = 0n
  let i = 0
  const view = new DataView(bytes.buffer, bytes.byteOffset, n)
  for (; i + 8 <= n; i += 8) r = (r << 64n) | view.getBigUint64(i)
  for (; i < n; i++) r = (r << 8n) | BigInt(bytes[i]!)
  return r
}

/**
 * `word` (below 2^256) as 32 big-endian bytes in a scratch buffer shared by this file's conversions, valid until the
 * next call: its four 64-bit limbs written through a DataView. Copy what must be kept (unpaddedBytes, and
 * enginePatches/fastOpcodes.ts `writeWord` for EVM words above 2^53).
 */
export function wordInScratch(word: bigint): Uint8Array {
  WORD_VIEW.setBigUint64(24, BigInt.asUintN(64, word))
  WORD_VIEW.setBigUint64(16, BigInt.asUintN(64, word >> 64n))
  WORD_VIEW.setBigUint64(8, BigInt.asUintN(64, word >> 128n))
  WORD_VIEW.setBigUint64(0, BigInt.asUintN(64, word >> 192n))
  return WORD_BYTES
}

/** 2^256: the first value that is not an EVM word. */
export const WORD_LIMIT = 1n << 256n
/** A word's scratch bytes, for bytesToWord and wordInScratch (both synchronous). */
const WORD_BYTES = new Uint8Array(32)
const WORD_VIEW = new DataView(WORD_BYTES.buffer)

/** Length of an RLP list whose items take `payload` bytes. */
export function rlpListLength(payload: number): number {
  if (payload < 56) return payload + 1
  return payload + 1 + Math.ceil(Math.log2(payload + 1) / 8)
}
