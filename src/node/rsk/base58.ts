/**
 * Bitcoin's Base58 and Base58Check (bitcoinj `co/rsk/bitcoinj/core/Base58.java`, as RSKj uses it through
 * bitcoinj-thin): each leading zero byte is a leading `1`; Base58Check appends the first 4 bytes of the payload's
 * double SHA-256.
 */
import { concatBytes, equalsBytes } from '@ethereumjs/util'
import { sha256 } from '@noble/hashes/sha2.js'

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
const INDEX = new Map([...ALPHABET].map((c, i) => [c, BigInt(i)]))

const checksum = (payload: Uint8Array): Uint8Array => sha256(sha256(payload)).subarray(0, 4)

/**
 * Base58Check of `payload`.
 *
 * @example
 * base58Check(Uint8Array.of(0)) // '1Wh4bh'
 */
export function base58Check(payload: Uint8Array): string {
  const full = concatBytes(payload, checksum(payload))
  let n = BigInt('0x' + (Buffer.from(full).toString('hex') || '0'))
  let out = ''
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)]! + out
    n /= 58n
  }
  for (const b of full) {
    if (b !== 0) break
    out = '1' + out
  }
  return out
}

/**
 * The payload of a Base58Check string, or undefined when it is not one (`Base58.decodeChecked`: a character outside
 * the alphabet, fewer than 4 bytes, a wrong checksum).
 *
 * @example
 * fromBase58Check('1Wh4bh') // Uint8Array [0]
 */
export function fromBase58Check(text: string): Uint8Array | undefined {
  let n = 0n
  let zeros = 0
  let leading = true
  for (const c of text) {
    const digit = INDEX.get(c)
    if (digit === undefined) return undefined
    if (leading && digit === 0n) zeros++
    else leading = false
    n = n * 58n + digit
  }
  const hex = n === 0n ? '' : n.toString(16)
  const bytes = concatBytes(new Uint8Array(zeros), Uint8Array.from(Buffer.from(hex.length % 2 === 1 ? '0' + hex : hex, 'hex')))
  if (bytes.length < 4) return undefined
  const payload = bytes.subarray(0, bytes.length - 4)
  return equalsBytes(checksum(payload), bytes.subarray(bytes.length - 4)) ? payload : undefined
}
