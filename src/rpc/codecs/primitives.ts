/**
 * Pure decoders of JSON-RPC parameters into domain values. Each throws -32602 with RSKj's text
 * (`java/org/ethereum/rpc/parameters/*`, reference §1.4).
 */
import { internalError, invalidParams } from '../../errors.js'
import { stringifyJson } from '../../node/integerJson.js'

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

/**
 * `codec`, but JSON `null` kept as null for the method to answer: Jackson hands a parameter class's deserializer no null
 * (`ObjectReader` gives `getNullValue()`, null), so the method meets it (`Web3Impl`'s `blockHash is null`).
 */
export function orNull<T>(codec: Codec<T>): Codec<T | null> {
  return (v) => (v === null ? null : codec(v))
}

const HEX = /^[0-9a-fA-F]*$/

/** Java's `Long.MAX_VALUE`: the largest number RSKj's readers that parse into a `long` accept. */
export const JAVA_LONG_MAX = 2n ** 63n - 1n

/** What Java's `new BigInteger(text)` (radix 10) reads: an optional sign, then decimal digits. */
export const JAVA_DECIMAL = /^[+-]?[0-9]+$/

/**
 * RSKj's `HexUtils.removeHexPrefix`: the text without a leading lower-case `0x` (`hasHexPrefix`); an upper-case `0X`
 * is no prefix, so its `X` is read as a (bad) digit.
 */
export const removeHexPrefix = (s: string): string => (s.startsWith('0x') ? s.slice(2) : s)

export function hexToBytesLoose(hex: string): Uint8Array {
  const even = hex.length % 2 === 1 ? '0' + hex : hex
  // A plain Uint8Array copy (typed-array constructor: one memcpy; `Uint8Array.from` iterates byte by byte), not a
  // view of Buffer's shared pool.
  return new Uint8Array(Buffer.from(even, 'hex'))
}

/**
 * JSON text of a parameter value, as Jackson gives a `String` parameter from a non-string scalar; a bigint (an integer
 * literal no double holds, src/rpc/requestJson.ts) is its digits, unquoted, as Jackson writes a `BigIntegerNode`
 * (`stringifyJson`). A value too deep for `JSON.stringify` (it recurses) is a bad parameter, not an internal error.
 */
export function jsonText(v: unknown): string {
  try {
    return stringifyJson(v) ?? String(v)
  } catch {
    throw invalidParams('Invalid argument: nested too deeply.')
  }
}

/** A parameter as error texts quote it (a bigint as its digits): at most 100 characters, whatever its size or depth. */
export function show(v: unknown): string {
  let text: string
  try {
    text = typeof v === 'string' ? v : (stringifyJson(v) ?? String(v))
  } catch {
    text = Array.isArray(v) ? '[…]' : '{…}'
  }
  return text.length > 100 ? `${text.slice(0, 100)}…` : text
}

/**
 * 20-byte address (`HexAddressParam`): 40–42 characters, any case, no checksum check; then `new RskAddress(text)`
 * (`HexUtils.stringHexToByteArray`: a lower-case `0x` removed, an odd digit count left-padded) must give 20 bytes, so
 * `0x` and 39 digits is an address and `0X…` is not.
 */
export const address: Codec<Uint8Array> = (v) => {
  if (typeof v !== 'string' || v.length < 40 || v.length > 42) throw invalidParams('Invalid address: null, empty or invalid hex value.')
  const body = removeHexPrefix(v)
  if (!HEX.test(body) || Math.ceil(body.length / 2) !== 20) throw invalidParams('Invalid address format: invalid hex value.')
  return hexToBytesLoose(body)
}

/**
 * RSKj's `co/rsk/util/StringUtils.trim`, which its parameter classes quote long input with: the first 66 characters
 * and `...` (not whitespace trimming).
 */
export const javaTrim = (s: string): string => (s.length <= 66 ? s : `${s.slice(0, 66)}...`)

/**
 * The text a parameter class's deserializer reads with Jackson's `getText()`/`asText()`: a string as it is, a number
 * or a boolean as its JSON text; undefined for anything else (null, an object, an array).
 */
export function scalarText(v: unknown): string | undefined {
  if (typeof v === 'string') return v
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v)
  return undefined
}

/**
 * A JSON value's text as Jackson's `JsonNode.asText` gives it: a string as it is, a number's digits, `true`/`false`,
 * `null` for JSON null, and "" for an object or an array.
 */
export const asText = (v: unknown): string => {
  if (v === null) return 'null'
  if (typeof v === 'bigint') return v.toString()
  if (typeof v !== 'number') return scalarText(v) ?? ''
  // A JSON literal no double holds (`1e400`) is an infinite `DoubleNode`, written by Java's `Double.toString`.
  if (!Number.isFinite(v)) return javaNonFinite(v)
  // An integer is the digits a JavaScript client writes (`JSON.stringify`); JSON writes another number with a fraction
  // or an exponent, which Jackson keeps as a `DoubleNode`, written by Java's `Double.toString`.
  const json = JSON.stringify(v)
  return /^-?[0-9]+$/.test(json) ? json : javaDouble(v)
}

/** Java's `Double.toString` of NaN and the infinities (JSON.parse reads `1e400` as Infinity, as Jackson reads it). */
const javaNonFinite = (d: number): string => (Number.isNaN(d) ? 'NaN' : d > 0 ? 'Infinity' : '-Infinity')

/** Java's `Double.toString`: plain from 10^-3 up to 10^7, else `<d>.<digits>E<exponent>`; always a fraction digit. */
function javaDouble(d: number): string {
  const a = Math.abs(d)
  if (a >= 1e-3 && a < 1e7) {
    const s = String(d)
    return s.includes('.') ? s : `${s}.0`
  }
  const [mantissa, exponent] = d.toExponential().split('e') as [string, string]
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${Number(exponent)}`
}

/**
 * The text Jackson's `JsonParser.getText()` gives a parameter's own deserializer (`HexAddressParam.Deserializer`,
 * `HexDataParam.Deserializer`, `BlockIdentifierParam`): a string itself, a number or boolean as the JSON text a
 * JavaScript client writes (`JSON.stringify`), an object `{` and an array `[` (the token the parser stands on); an
 * infinite number (a body's `1e400`) as Java writes the double, `Infinity` (`TreeTraversingParser.getText`).
 * Undefined for `null`, which Jackson hands to no deserializer.
 */
export function tokenText(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined
  if (typeof v === 'number' && !Number.isFinite(v)) return javaNonFinite(v)
  if (typeof v === 'bigint') return v.toString()
  return scalarText(v) ?? (Array.isArray(v) ? '[' : '{')
}

/**
 * 32-byte hash (`HashParam32`); `type` names it in messages: `block hash`, `transaction hash`, `topic`. 64 to 66
 * characters, read by `HexUtils.stringHexToByteArray` (a lower-case `0x` removed, an odd digit count left-padded), then
 * 32 bytes: `0x` and 63 digits is a hash, `0x` and 62 digits or 65/66 digits without `0x` are `incorrect length`, and
 * an upper-case `0X` is not a prefix (`invalid hex value`).
 */
export function hash32(type: string): Codec<Uint8Array> {
  return (v) => {
    const text = scalarText(v)
    if (text === undefined || text.length < 64 || text.length > 66) throw invalidParams(`Invalid ${type}: incorrect length.`)
    const body = removeHexPrefix(text)
    if (!HEX.test(body)) throw invalidParams(`Invalid ${type} format: invalid hex value`)
    const bytes = hexToBytesLoose(body)
    if (bytes.length !== 32) throw invalidParams(`Invalid ${type}: incorrect length.`)
    return bytes
  }
}

export const blockHash = hash32('block hash')
export const txHash = hash32('transaction hash')
export const topic = hash32('topic')

/**
 * `HexNumberParam`'s check (org/ethereum/rpc/parameters/HexNumberParam.java): at most 66 characters (else
 * `Invalid param: <x>`), then hex digits of any case after an optional lower-case `0x` (so `0x` alone, `""` and `ff`
 * pass), or what Java's `new BigInteger(text)` reads (a sign, decimal digits). Returns the text.
 */
export function hexNumberText(v: unknown): string {
  const text = scalarText(v)
  if (text === undefined || text.length > 66) throw invalidParams(`Invalid param: ${text === undefined ? 'null' : javaTrim(text)}`)
  const body = removeHexPrefix(text)
  if (!HEX.test(body) && !JAVA_DECIMAL.test(text)) throw invalidParams(`Invalid param ${text}: value must be a valid hex or string number.`)
  return text
}

/**
 * The number `HexUtils.strHexOrStrNumberToByteArray` makes of a `HexNumberParam`'s text, as the bytes it gives are
 * read unsigned: `0x` hex (`0x` alone is no bytes: 0), else Java's `BigInteger` in decimal, written as
 * `toByteArray()` (two's complement, so `-1` is the byte `ff`: 255); anything else (hex digits without `0x`, `""`)
 * is -32602 `Number values should not contain letters or hex values should start with 0x.`
 */
export function javaNumber(text: string): bigint {
  if (text.startsWith('0x')) return text.length === 2 ? 0n : BigInt(text)
  if (!JAVA_DECIMAL.test(text)) throw invalidParams('Number values should not contain letters or hex values should start with 0x.')
  const n = BigInt(text)
  if (n >= 0n) return n
  let bits = 8n
  while (n < -(1n << (bits - 1n))) bits += 8n
  return n + (1n << bits)
}

/**
 * Unsigned integer in `0x` hex of any case or a decimal string, at most 66 characters, or a JSON integer (the
 * extensions' numbers; the methods RSKj reads through `HexNumberParam` use `hexNumberText`, then `javaNumber` where
 * RSKj reads the number). A JSON integer past 2^53 is read exactly: a body read by src/rpc/requestJson.ts keeps an
 * integer literal no double holds as a bigint (at most 66 digits, as a string), and one it kept as a number is that
 * number's digits, below 10^21. A number of 10^21 or more (JavaScript writes it with an exponent) can only come from
 * a literal with an exponent or a fraction (`1e65`), which the double may have rounded: refused.
 */
export const quantity: Codec<bigint> = (v) => {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < 1e21) return BigInt(v)
  if (typeof v === 'bigint' && v >= 0n && v < 10n ** 66n) return v
  if (typeof v === 'string' && v.length > 0 && v.length <= 66) {
    if (/^0[xX]/.test(v)) {
      const body = v.slice(2)
      if (body.length > 0 && HEX.test(body)) return BigInt('0x' + body)
    } else if (/^[0-9]+$/.test(v)) return BigInt(v)
  }
  throw invalidParams(`Invalid param ${show(v)}: value must be a valid hex or string number.`)
}

/**
 * `HexStringParam`'s check (org/ethereum/rpc/parameters/HexStringParam.java), the base of `HexIndexParam` and
 * `HexDurationParam`: `""` passes; more than 66 characters is `Invalid argument: <x>` (`StringUtils.trim`:
 * `javaTrim`); other text must be a lower-case `0x` and lower-case hex digits (`HexUtils.isHex`), else
 * `Invalid argument "<x>": param should be a hex value string.`
 */
export function hexStringParam(text: string): void {
  if (text === '') return
  if (text.length > 66) throw invalidParams(`Invalid argument: ${javaTrim(text)}`)
  if (!/^0x[0-9a-f]*$/.test(text)) throw invalidParams(`Invalid argument "${text}": param should be a hex value string.`)
}

/**
 * Index (`HexIndexParam`, org/ethereum/rpc/parameters/HexIndexParam.java): `hexStringParam`'s check, then
 * `Integer.parseInt(digits, 16)`: `0x`, `""` and anything past 2^31 − 1 are `Invalid index param: value must be a
 * valid hex number.` A JSON number is its text (no `0x`: refused), an object or array the token `jp.getText()` stands
 * on (`{`, `[`: `tokenText`).
 */
export const hexIndex: Codec<bigint> = (v) => {
  const text = tokenText(v) ?? show(v)
  hexStringParam(text)
  const digits = text.slice(2)
  if (digits === '' || BigInt('0x' + digits) > 0x7fffffffn) throw invalidParams('Invalid index param: value must be a valid hex number.')
  return BigInt('0x' + digits)
}

/**
 * An index given as JSON `null` (`orNull(hexIndex)`), read once its block is found: Jackson hands `HexIndexParam`'s
 * deserializer no null, so the method meets it, and RSKj's …AndIndex methods answer null where no block is found before
 * they read it (`Web3Impl`: `index.getIndex()` / `uncleIdx.getIndex()`), where one is a NullPointerException (-32603),
 * which rsksim answers -32602 `index is null`, the text `eth_getTransactionByBlockHashAndIndex` checks it with.
 */
export function foundBlockIndex(index: bigint | null): bigint {
  if (index === null) throw invalidParams('index is null')
  return index
}

/**
 * Byte string (`HexDataParam`, `HexUtils.stringHexToByteArray`): hex with an optional lower-case `0x` (`0X…` is not
 * hex); an odd length is left-padded.
 */
export const data: Codec<Uint8Array> = (v) => {
  if (typeof v === 'string') {
    const body = removeHexPrefix(v)
    if (HEX.test(body)) return hexToBytesLoose(body)
  }
  throw invalidParams('Invalid data format: invalid hex value.')
}

/**
 * `web3_sha3`'s input (`Web3Impl.web3_sha3`): `HexUtils.isHexWithPrefix` checks the lower-cased text, so a `0x` or `0X`
 * and at least one hex digit of any case, else -32602 `Parameter must be hexadecimal encoded with the '0x' prefix.`
 * (`0x` alone too); then `HexUtils.decode` removes a lower-case `0x` only and left-pads an odd digit count, so after
 * `0X` Bouncy Castle's `Hex.decode` meets the `X` and throws (`DecoderException`: -32603 `Internal server error`).
 */
export const prefixedData: Codec<Uint8Array> = (v) => {
  if (typeof v !== 'string' || !/^0[xX][0-9a-fA-F]+$/.test(v)) throw invalidParams("Parameter must be hexadecimal encoded with the '0x' prefix.")
  if (v[1] === 'X') throw internalError(new Error('exception decoding Hex string: invalid characters encountered in Hex string'))
  return data(v)
}

export const boolean: Codec<boolean> = (v) => {
  if (typeof v === 'boolean') return v
  throw invalidParams(`Invalid argument "${show(v)}": param should be a boolean.`)
}

/** Java's `String.trim()`: the characters up to U+0020 removed from both ends. */
const javaStringTrim = (s: string): string => s.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '')

/**
 * A `Boolean` parameter as jsonrpc4j 1.6 has Jackson 2.15 read it (`JsonRpcBasicServer.convertJsonToParameters`:
 * `mapper.readerFor(type).readValue`, on RSKj's `new ObjectMapper()` without coercion settings,
 * co/rsk/rpc/netty/JsonRpcWeb3ServerHandler.java): `NumberDeserializers.BooleanDeserializer` →
 * `StdDeserializer._parseBoolean`. JSON `true`/`false`; an integer (`_coerceBooleanFromInt`, allowed by the default
 * `CoercionAction.TryConvert`): 0 is false, any other true; a string, trimmed as `String.trim()` does: `true`/`True`/
 * `TRUE`, `false`/`False`/`FALSE`. Java's null Boolean (returned as `null`): JSON null (`getNullValue`), `""` and blank
 * strings (`CoercionConfigs`: empty and blank strings to a scalar are `AsNull`), the string `null`
 * (`_checkTextualNull`, `ALLOW_COERCION_OF_SCALARS` being on). Jackson refuses the rest (other strings, a fraction,
 * an object, an array: a `JsonMappingException`, which jsonrpc4j answers -32700 `JSON parse error` with id null);
 * rsksim answers -32602 (docs/compatibility.md). A number with a fraction of zero (`1.0`) is an integer here: a parsed
 * JSON number does not keep how it was written.
 */
export const javaBoolean: Codec<boolean | null> = (v) => {
  if (typeof v === 'boolean' || v === null) return v
  if (typeof v === 'number' && Number.isInteger(v)) return v !== 0
  if (typeof v === 'bigint') return v !== 0n
  if (typeof v === 'string') {
    const t = javaStringTrim(v)
    if (t === '' || t === 'null') return null
    if (t === 'true' || t === 'True' || t === 'TRUE') return true
    if (t === 'false' || t === 'False' || t === 'FALSE') return false
  }
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
