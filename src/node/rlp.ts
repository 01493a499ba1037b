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
  const hex = n.toString(16)
  const odd = hex.length & 1
  const out = new Uint8Array((hex.length + odd) >> 1)
  for (let i = 0; i < out.length; i++) {
    const from = 2 * i - odd
    out[i] = parseInt(from < 0 ? hex[0]! : hex.slice(from, from + 2), 16)
  }
  return out
}
