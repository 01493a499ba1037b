/**
 * Pure decoders of JSON-RPC parameters into domain values. Each throws -32602 with RSKj's text
 * (`java/org/ethereum/rpc/parameters/*`, reference §1.4).
 */
import { invalidParams } from '../../errors.js'

/** A decoder of one positional parameter. `optional` ones may be omitted (or null) at the end of `params`. */
export interface Codec<T> {
  (value: unknown): T
  optional?: boolean
}

/** Marks a codec optional; the handler then receives `undefined` when the parameter is absent or null. */
export function optional<T>(codec: Codec<T>): Codec<T | undefined> {
  const c: Codec<T | undefined> = (v: unknown) => (v === undefined || v === null ? undefined : codec(v))
  c.optional = true
  return c
}

const HEX = /^[0-9a-fA-F]*$/
const LOWER_HEX = /^[0-9a-f]+$/
const DECIMAL = /^[0-9]+$/

export function hexToBytesLoose(hex: string): Uint8Array {
  const even = hex.length % 2 === 1 ? '0' + hex : hex
  // A plain Uint8Array copy (typed-array constructor: one memcpy; `Uint8Array.from` iterates byte by byte), not a
  // view of Buffer's shared pool.
  return new Uint8Array(Buffer.from(even, 'hex'))
}

/**
 * JSON text of a parameter value, as Jackson gives a `String` parameter from a non-string scalar. A value too deep
 * for `JSON.stringify` (it recurses) is a bad parameter, not an internal error.
 */
export function jsonText(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v)
  } catch {
    throw invalidParams('Invalid argument: nested too deeply.')
  }
}

/** A parameter as error texts quote it: at most 100 characters, whatever its size or depth. */
export function show(v: unknown): string {
  let text: string
  try {
    text = typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v))
  } catch {
    text = Array.isArray(v) ? '[…]' : '{…}'
  }
  return text.length > 100 ? `${text.slice(0, 100)}…` : text
}
const strip0x = (s: string): string => (s.startsWith('0x') || s.startsWith('0X') ? s.slice(2) : s)

/** 20-byte address (`HexAddressParam`): 40–42 characters, any case, no checksum check. */
export const address: Codec<Uint8Array> = (v) => {
  if (typeof v !== 'string' || v.length < 40 || v.length > 42) throw invalidParams('Invalid address: null, empty or invalid hex value.')
  const body = strip0x(v)
  if (body.length !== 40 || !HEX.test(body)) throw invalidParams('Invalid address format: invalid hex value.')
  return hexToBytesLoose(body)
}

/** 32-byte hash (`HashParam32`); `type` names it in messages: `block hash`, `transaction hash`, `topic`. */
export function hash32(type: string): Codec<Uint8Array> {
  return (v) => {
    if (typeof v !== 'string' || v.length < 64 || v.length > 66) throw invalidParams(`Invalid ${type}: incorrect length.`)
    const body = strip0x(v)
    if (body.length !== 64 || !HEX.test(body)) throw invalidParams(`Invalid ${type} format: invalid hex value`)
    return hexToBytesLoose(body)
  }
}

export const blockHash = hash32('block hash')
export const txHash = hash32('transaction hash')
export const topic = hash32('topic')

/** Unsigned integer (`HexNumberParam`): `0x` hex in any case or a decimal string, at most 66 characters. */
export const quantity: Codec<bigint> = (v) => {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v)
  if (typeof v === 'string' && v.length > 0 && v.length <= 66) {
    if (/^0[xX]/.test(v)) {
      const body = v.slice(2)
      if (body.length > 0 && HEX.test(body)) return BigInt('0x' + body)
    } else if (DECIMAL.test(v)) return BigInt(v)
  }
  throw invalidParams(`Invalid param ${show(v)}: value must be a valid hex or string number.`)
}

/** Index or duration (`HexIndexParam`): `0x` followed by lowercase hex digits only. */
export const hexIndex: Codec<bigint> = (v) => {
  if (typeof v === 'string' && v.startsWith('0x') && LOWER_HEX.test(v.slice(2))) return BigInt(v)
  throw invalidParams(`Invalid argument "${show(v)}": param should be a hex value string.`)
}

/** Byte string (`HexDataParam`): hex with optional `0x`; an odd length is left-padded. */
export const data: Codec<Uint8Array> = (v) => {
  if (typeof v === 'string') {
    const body = strip0x(v)
    if (HEX.test(body)) return hexToBytesLoose(body)
  }
  throw invalidParams('Invalid data format: invalid hex value.')
}

/** `0x`-prefixed byte string, as `web3_sha3` requires. */
export const prefixedData: Codec<Uint8Array> = (v) => {
  if (typeof v !== 'string' || !v.startsWith('0x')) throw invalidParams("Parameter must be hexadecimal encoded with the '0x' prefix.")
  return data(v)
}

export const boolean: Codec<boolean> = (v) => {
  if (typeof v === 'boolean') return v
  throw invalidParams(`Invalid argument "${show(v)}": param should be a boolean.`)
}

export const string: Codec<string> = (v) => {
  if (typeof v === 'string') return v
  throw invalidParams(`Invalid argument "${show(v)}": param should be a string.`)
}

/** A plain JSON object (not null, not an array). */
export function object(what: string): Codec<Record<string, unknown>> {
  return (v) => {
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>
    throw invalidParams(`Invalid ${what}: expected an object.`)
  }
}
