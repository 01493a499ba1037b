/**
 * The transaction object of eth_sendTransaction and personal_sendTransaction read as RSKj reads it (VETIVER-9.0.3),
 * in its two steps:
 *
 * 1. When the request is decoded, `CallArgumentsParam.Deserializer` (org/ethereum/rpc/parameters/CallArgumentsParam.java)
 *    reads `from`, `to`, `gas`, `gasPrice`, `gasLimit`, `nonce`, `chainId`, `value`, `data`, `input`, in that order,
 *    each as `JsonNode.asText()` of its value (absent or `null`: none; other keys ignored), into `HexAddressParam`,
 *    `HexNumberParam` and `HexDataParam`, whose constructors answer -32602 (`callArgumentsParam`).
 * 2. After the sender's checks, `TransactionArgumentsUtil.processArguments` (org/ethereum/util/) turns the number
 *    texts into numbers (`HexUtils.strHexOrStrNumberToBigInteger`) in its order: `nonce`, `value`, `gasPrice`, `gas`,
 *    then `gasLimit` only when `gas` is none, then `chainId` (`hexToChainId`) (`transactionArguments`).
 *
 * So a text `HexNumberParam` lets through but step 2 cannot read fails only after the sender's checks, and only in a
 * field step 2 reads: `0x` alone (Java's `new BigInteger("", 16)`, a NumberFormatException: -32603), or text of hex
 * digits without `0x` that is not a decimal number (`ff`, `""`, an object's or array's text: -32602 `Number values
 * should not contain letters or hex values should start with 0x.`).
 *
 * The same address and data readings serve whole parameters too (`rskjAddress`, `rskjData`: eth_sign,
 * eth_sendRawTransaction, personal_unlockAccount/lockAccount/dumpRawKey), whose text is `JsonParser.getText()`.
 */
import { internalError, invalidParams } from '../../errors.js'
import { asObject } from './objects.js'
import { hexToBytesLoose, type Codec } from './primitives.js'

/** The object as step 1 leaves it: addresses and data read, numbers kept as their text. */
export interface CallArgumentsParam {
  from?: Uint8Array
  to?: Uint8Array
  gas?: string
  gasPrice?: string
  gasLimit?: string
  nonce?: string
  chainId?: string
  value?: string
  /** `input` when given, else `data` (`CallArguments.setInput` overwrites what `setData` wrote). */
  data?: Uint8Array
}

/**
 * Jackson's `JsonNode.asText()` of the node it reads from the JSON text of `v`: a string itself; an integer as its
 * decimal (the digits `JSON.stringify` writes, which is what a JavaScript client sends); another number, which JSON
 * writes with a fraction or an exponent, as a `DoubleNode`, Java's `Double.toString`; `true`/`false`; an object or an
 * array (`ContainerNode`) the empty string. Undefined for what JSON writes as `null` (NaN and the infinities too).
 */
export function nodeText(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined
  if (typeof v === 'string') return v
  if (typeof v === 'boolean') return String(v)
  if (typeof v === 'bigint') return v.toString()
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return undefined
    const json = JSON.stringify(v)
    return /^-?[0-9]+$/.test(json) ? (json === '-0' ? '0' : json) : javaDouble(v)
  }
  return typeof v === 'object' ? '' : String(v)
}

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

/** `HexUtils.isHex(s, from)`: only `0-9` and lower-case `a-f` from `from` on (the empty rest is hex). */
const isHex = (s: string, from: number): boolean => /^[0-9a-f]*$/.test(s.slice(from))
/** Java's `new BigInteger(String)` (radix 10): an optional sign, then at least one digit. */
const JAVA_DECIMAL = /^[+-]?[0-9]+$/
/** Apache `StringUtils.trim`: characters up to U+0020 off both ends. */
const javaTrim = (s: string): string => s.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '')

/** `HexNumberParam`: at most 66 characters; hex digits (any case) after an optional lower-case `0x`, or a decimal. */
function hexNumberParam(text: string): string {
  if (text.length > 66) throw invalidParams(`Invalid param: ${javaTrim(text)}`)
  const prefixed = text.startsWith('0x')
  if (!isHex(text.toLowerCase(), prefixed ? 2 : 0) && !JAVA_DECIMAL.test(text)) {
    throw invalidParams(`Invalid param ${text}: value must be a valid hex or string number.`)
  }
  return text
}

/** `HexUtils.stringHexToByteArray`: a lower-case `0x` removed, an odd count left-padded, then any-case hex digits. */
function hexBytes(text: string): Uint8Array | undefined {
  const digits = text.startsWith('0x') ? text.slice(2) : text
  return /^[0-9a-fA-F]*$/.test(digits) ? hexToBytesLoose(digits) : undefined
}

/** `HexAddressParam`: 40 to 42 characters, then `new RskAddress(text)`: 20 bytes once read (so 39 digits after `0x` too). */
function hexAddressParam(text: string): Uint8Array {
  if (text.length < 40 || text.length > 42) throw invalidParams('Invalid address: null, empty or invalid hex value.')
  const bytes = hexBytes(text)
  if (bytes === undefined || bytes.length !== 20) throw invalidParams('Invalid address format: invalid hex value.')
  return bytes
}

/** `HexDataParam`. */
function hexDataParam(text: string): Uint8Array {
  const bytes = hexBytes(text)
  if (bytes === undefined) throw invalidParams('Invalid data format: invalid hex value.')
  return bytes
}

/**
 * Step 1: `CallArgumentsParam.Deserializer`, every field read, in its order. It reads the parameter as a tree and asks
 * it for each field (`JsonNode.get`): a string, number, boolean or array has none, so it is an object without fields
 * (eth_sendTransaction then answers `from is null`, as for a raw transaction sent to it by mistake). `null` stays
 * refused here (RSKj: a NullPointerException, -32603).
 */
export function callArgumentsParam(v: unknown): CallArgumentsParam {
  const o = v !== null && typeof v !== 'object' ? {} : Array.isArray(v) ? {} : asObject(v, 'transaction call object')
  const out: CallArgumentsParam = {}
  const text = (key: string): string | undefined => nodeText(o[key])
  const from = text('from')
  if (from !== undefined) out.from = hexAddressParam(from)
  const to = text('to')
  if (to !== undefined) out.to = hexAddressParam(to)
  for (const key of ['gas', 'gasPrice', 'gasLimit', 'nonce', 'chainId', 'value'] as const) {
    const t = text(key)
    if (t !== undefined) out[key] = hexNumberParam(t)
  }
  const data = text('data')
  const dataBytes = data === undefined ? undefined : hexDataParam(data)
  const input = text('input')
  const inputBytes = input === undefined ? undefined : hexDataParam(input)
  const payload = inputBytes ?? dataBytes
  if (payload !== undefined) out.data = payload
  return out
}

/**
 * `HexUtils.strHexOrStrNumberToBigInteger` of a text `HexNumberParam` let through. A negative decimal is read by
 * `TransactionBuilder` as the unsigned value of its two's-complement bytes (`BigIntegers.asUnsignedByteArray`,
 * `BigInteger.toByteArray`): `-1` is 255, `-256` is 65,280.
 */
function toNumber(text: string): bigint {
  if (text.startsWith('0x')) {
    if (text.length === 2) throw internalError(new Error('Zero length BigInteger'))
    return BigInt(text)
  }
  if (!JAVA_DECIMAL.test(text)) throw invalidParams('Number values should not contain letters or hex values should start with 0x.')
  const n = BigInt(text)
  if (n >= 0n) return n
  let bytes = 1n
  while (n < -(1n << (8n * bytes - 1n))) bytes++
  return n + (1n << (8n * bytes))
}

/** Step 2's numbers; a chain id of 0 (none, or named 0) is the node's. */
export interface TransactionArguments {
  nonce?: bigint
  value: bigint
  gasPrice: bigint
  gasLimit: bigint
  /** The chain id as the one byte RSKj keeps, unsigned (0-255). */
  chainId: number
}

/**
 * Step 2, `processArguments`: the defaults (value and gas price 0, gas `gasLimit` then `defaultGas`) and the chain id,
 * which must be one byte (`HexUtils.strHexOrStrNumberToByteArray`: `0x21` and `33`, not `0x0021` nor `0x`), else
 * -32602 `Invalid chainId: <its text>`. The nonce stays undefined when none is named (the pool's pending one is used).
 */
export function transactionArguments(p: CallArgumentsParam, defaultGas: bigint): TransactionArguments {
  const nonce = p.nonce === undefined ? undefined : toNumber(p.nonce)
  const value = p.value === undefined ? 0n : toNumber(p.value)
  const gasPrice = p.gasPrice === undefined ? 0n : toNumber(p.gasPrice)
  const gasLimit = p.gas !== undefined ? toNumber(p.gas) : p.gasLimit !== undefined ? toNumber(p.gasLimit) : defaultGas
  const out: TransactionArguments = { value, gasPrice, gasLimit, chainId: p.chainId === undefined ? 0 : chainIdByte(p.chainId) }
  if (nonce !== undefined) out.nonce = nonce
  return out
}

/** `hexToChainId`: the text's bytes (hex left-padded, or a decimal's minimal two's complement) must be exactly one. */
function chainIdByte(text: string): number {
  const refuse = (): never => {
    throw invalidParams(`Invalid chainId: ${text}`)
  }
  let bytes: number
  let first: number
  if (text.startsWith('0x')) {
    const digits = text.slice(2)
    bytes = Math.ceil(digits.length / 2)
    first = bytes === 1 ? Number.parseInt(digits, 16) : 0
  } else {
    if (!JAVA_DECIMAL.test(text)) return refuse()
    const n = BigInt(text)
    // ByteUtil.bigIntegerToBytes: toByteArray without a leading 0 byte (so 128-255 are one byte too).
    const magnitude = n < 0n ? -n - 1n : n
    let length = 1
    while (magnitude >= 1n << BigInt(8 * length - 1)) length++
    bytes = n > 0n && length > 1 && n < 1n << BigInt(8 * (length - 1)) ? length - 1 : length
    first = bytes === 1 ? Number(BigInt.asUintN(8, n)) : 0
  }
  if (bytes !== 1) return refuse()
  return first
}

/** Java's `byte` of an unsigned chain id byte, as `tx.getChainId()` prints it (personal_sendTransaction's text). */
export const signedByte = (b: number): number => (b > 127 ? b - 256 : b)

/**
 * The text Jackson's `JsonParser.getText()` gives a parameter's own deserializer (`HexAddressParam.Deserializer`,
 * `HexDataParam.Deserializer`): a string itself, a number or boolean as the JSON text a JavaScript client writes
 * (`JSON.stringify`), an object `{` and an array `[` (the token the parser stands on). Undefined for `null`, which
 * Jackson hands to no deserializer (RSKj then meets a null: a NullPointerException, -32603; rsksim answers the
 * parameter's -32602 instead, as elsewhere).
 */
function tokenText(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined
  if (typeof v === 'string') return v
  if (Array.isArray(v)) return '['
  if (typeof v === 'object') return '{'
  if (typeof v === 'number' && !Number.isFinite(v)) return undefined
  return typeof v === 'bigint' ? v.toString() : (JSON.stringify(v) ?? String(v))
}

/**
 * A whole parameter read as RSKj's `HexAddressParam` (eth_sign, personal_unlockAccount, personal_lockAccount,
 * personal_dumpRawKey): 40 to 42 characters that `new RskAddress` reads as 20 bytes, so only a lower-case `0x` is a
 * prefix (`0X…` is `Invalid address format: invalid hex value.`) and 39 digits after `0x` are left-padded.
 */
export const rskjAddress: Codec<Uint8Array> = (v) => {
  const text = tokenText(v)
  if (text === undefined) throw invalidParams('Invalid address: null, empty or invalid hex value.')
  return hexAddressParam(text)
}

/**
 * A whole parameter read as RSKj's `HexDataParam` (eth_sign's data, eth_sendRawTransaction): hex after an optional
 * lower-case `0x` (`0X…` is refused), an odd count left-padded; a JSON number is its digits read as hex.
 */
export const rskjData: Codec<Uint8Array> = (v) => {
  const text = tokenText(v)
  if (text === undefined) throw invalidParams('Invalid data format: invalid hex value.')
  return hexDataParam(text)
}
