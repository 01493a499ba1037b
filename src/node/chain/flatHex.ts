/**
 * Hex strings that are kept for the life of a record (block and transaction hashes, map keys). `bytesToHex` of
 * @ethereumjs/util appends two characters at a time, which V8 stores as a chain of ~27 rope ("cons") nodes for a
 * 32-byte hash: ~900 heap bytes instead of ~90. Writing the characters into a buffer and decoding it once yields
 * one flat string with the same value.
 */
import { Buffer } from 'node:buffer'

const DIGITS = Buffer.from('0123456789abcdef', 'latin1')

/**
 * The two hex digits of each byte value as one 16-bit unit, laid out through a byte view so that the characters
 * land in memory order whatever the platform's endianness: one table read and one write per byte.
 */
const PAIRS = new Uint16Array(256)
const pairBytes = new Uint8Array(PAIRS.buffer)
for (let i = 0; i < 256; i++) {
  pairBytes[2 * i] = DIGITS[i >> 4]!
  pairBytes[2 * i + 1] = DIGITS[i & 15]!
}
const PREFIX = new Uint16Array(new Uint8Array([0x30, 0x78]).buffer)[0]! // '0x'

/**
 * Reused output area: the decode copies the characters into the new string, so one buffer serves every call
 * (allocating a buffer per call cost as much as the encoding of a 32-byte word). Longer inputs (contract code,
 * call data) get a buffer of their own, so a single large value does not stay allocated here.
 */
const SCRATCH_UNITS = 4096
const scratch = new Uint16Array(SCRATCH_UNITS)
const scratchBytes = Buffer.from(scratch.buffer)

/** Lowercase `0x` hex of `bytes`, as one flat string (equal to `bytesToHex(bytes)`). */
export function flatHex(bytes: Uint8Array): string {
  const units = bytes.length + 1
  const out = units <= SCRATCH_UNITS ? scratch : new Uint16Array(units)
  out[0] = PREFIX
  for (let i = 0; i < bytes.length; i++) out[i + 1] = PAIRS[bytes[i]!]!
  const chars = out === scratch ? scratchBytes : Buffer.from(out.buffer)
  return chars.toString('latin1', 0, 2 * units)
}

/**
 * `flatHex` of each of `items`, decoded in one call: the characters of all items are written back to back and
 * each result is a slice of the one decoded string. For the five values of a log (address, data, three topics)
 * the per-call cost of the decode was as large as the digit loop. Slices keep the whole string alive, so this is
 * for values that live and die together (the fields of one reply object), not for long-lived keys.
 */
export function flatHexAll(items: readonly Uint8Array[]): string[] {
  let units = 0
  for (const b of items) units += b.length + 1
  if (units > SCRATCH_UNITS) return items.map(flatHex)
  let at = 0
  for (const b of items) {
    scratch[at++] = PREFIX
    for (let i = 0; i < b.length; i++) scratch[at++] = PAIRS[b[i]!]!
  }
  const all = scratchBytes.toString('latin1', 0, 2 * units)
  const out = new Array<string>(items.length)
  let from = 0
  for (let k = 0; k < items.length; k++) {
    const to = from + 2 * (items[k]!.length + 1)
    out[k] = all.slice(from, to)
    from = to
  }
  return out
}
