/**
 * Hex strings that are kept for the life of a record (block and transaction hashes, map keys). `bytesToHex` of
 * @ethereumjs/util appends two characters at a time, which V8 stores as a chain of ~27 rope ("cons") nodes for a
 * 32-byte hash: ~900 heap bytes instead of ~90. Writing the characters into a buffer and decoding it once yields
 * one flat string with the same value.
 */
import { Buffer } from 'node:buffer'

const DIGITS = Buffer.from('0123456789abcdef', 'latin1')

/** Lowercase `0x` hex of `bytes`, as one flat string (equal to `bytesToHex(bytes)`). */
export function flatHex(bytes: Uint8Array): string {
  const out = Buffer.allocUnsafe(2 + bytes.length * 2)
  out[0] = 0x30 // '0'
  out[1] = 0x78 // 'x'
  for (let i = 0; i < bytes.length; i++) {
    out[2 + 2 * i] = DIGITS[bytes[i]! >> 4]!
    out[3 + 2 * i] = DIGITS[bytes[i]! & 15]!
  }
  return out.toString('latin1')
}
