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
import { asObject, type CallObject } from './objects.js'
import { address, asText, data, hexNumberText, JAVA_DECIMAL, javaNumber, tokenText, type Codec } from './primitives.js'

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
 * A field's text as `CallArgumentsParam.paramOrNull` reads it: Jackson's `JsonNode.asText()` (`asText`; a body's `1e400`
 * is an infinite `DoubleNode`, the text `Infinity`), undefined for an absent field or `null`, which the deserializer skips.
 */
export function nodeText(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined
  return asText(v)
}

/**
 * Step 1: `CallArgumentsParam.Deserializer`, every field read, in its order. It reads the parameter as a tree and asks
 * it for each field (`JsonNode.get`): a string, number, boolean or array has none, so it is an object without fields
 * (eth_sendTransaction then answers `from is null`, as for a raw transaction sent to it by mistake). `null` stays
 * refused here (RSKj: a NullPointerException, -32603).
 */
export function callArgumentsParam(v: unknown): CallArgumentsParam {
  const o = v === null || (typeof v === 'object' && !Array.isArray(v)) ? asObject(v, 'transaction call object') : {}
  const out: CallArgumentsParam = {}
  const text = (key: string): string | undefined => nodeText(o[key])
  const from = text('from')
  if (from !== undefined) out.from = address(from)
  const to = text('to')
  if (to !== undefined) out.to = address(to)
  for (const key of ['gas', 'gasPrice', 'gasLimit', 'nonce', 'chainId', 'value'] as const) {
    const t = text(key)
    if (t !== undefined) out[key] = hexNumberText(t)
  }
  const dataText = text('data')
  const dataBytes = dataText === undefined ? undefined : data(dataText)
  const input = text('input')
  const inputBytes = input === undefined ? undefined : data(input)
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
  // Java's `new BigInteger("", 16)`: a NumberFormatException, -32603 (CallArgumentsToByteArray reads `0x` as 0 instead).
  if (text === '0x') throw internalError(new Error('Zero length BigInteger'))
  return javaNumber(text)
}

/** Step 2's numbers; a chain id of 0 (none, or named 0) is the node's. */
export interface TransactionArguments {
  nonce?: bigint
  value: bigint
  gasPrice: bigint
  gasLimit: bigint
  /**
   * The chain id as the one byte RSKj keeps, unsigned (0-255); on a node whose own chain id is no byte (a fork of
   * another chain, which no RSKj node is), the number named.
   */
  chainId: number | bigint
}

/**
 * Step 2, `processArguments`: the defaults (value and gas price 0, gas `gasLimit` then `defaultGas`) and the chain id,
 * which must be one byte (`HexUtils.strHexOrStrNumberToByteArray`: `0x21` and `33`, not `0x0021` nor `0x`), else
 * -32602 `Invalid chainId: <its text>`. The nonce stays undefined when none is named (the pool's pending one is used).
 * `nodeChainId`: a node whose chain id is no byte (a fork of another chain, docs/forking.md: Anvil's 31337) reads the
 * chain id as a number, so that the clients' own chain id (viem, ethers and cast name it) is taken.
 */
export function transactionArguments(p: CallArgumentsParam, defaultGas: bigint, nodeChainId = 0n): TransactionArguments {
  const nonce = p.nonce === undefined ? undefined : toNumber(p.nonce)
  const value = p.value === undefined ? 0n : toNumber(p.value)
  const gasPrice = p.gasPrice === undefined ? 0n : toNumber(p.gasPrice)
  const gasLimit = p.gas !== undefined ? toNumber(p.gas) : p.gasLimit !== undefined ? toNumber(p.gasLimit) : defaultGas
  const out: TransactionArguments = { value, gasPrice, gasLimit, chainId: p.chainId === undefined ? 0 : nodeChainId > 0xffn ? wideChainId(p.chainId) : chainIdByte(p.chainId) }
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

/** A chain id of any size (a `0x` hex or a decimal number), on a node whose own is no byte; else `Invalid chainId`. */
function wideChainId(text: string): bigint {
  if (/^0x[0-9a-fA-F]+$/.test(text) || /^[+]?[0-9]+$/.test(text)) return BigInt(text.replace(/^\+/, ''))
  throw invalidParams(`Invalid chainId: ${text}`)
}

/** Java's `byte` of an unsigned chain id byte, as `tx.getChainId()` prints it (personal_sendTransaction's text). */
export const signedByte = (b: number | bigint): number | bigint => (typeof b === 'number' && b > 127 ? b - 256 : b)

/**
 * A whole parameter read as RSKj's `HexAddressParam` (eth_sign, personal_unlockAccount, personal_lockAccount,
 * personal_dumpRawKey): 40 to 42 characters that `new RskAddress` reads as 20 bytes, so only a lower-case `0x` is a
 * prefix (`0X…` is `Invalid address format: invalid hex value.`) and 39 digits after `0x` are left-padded.
 */
export const rskjAddress: Codec<Uint8Array> = (v) => {
  const text = tokenText(v)
  if (text === undefined) throw invalidParams('Invalid address: null, empty or invalid hex value.')
  return address(text)
}

/**
 * A whole parameter read as RSKj's `HexDataParam` (eth_sign's data, eth_sendRawTransaction): hex after an optional
 * lower-case `0x` (`0X…` is refused), an odd count left-padded; a JSON number is its digits read as hex.
 */
export const rskjData: Codec<Uint8Array> = (v) => {
  const text = tokenText(v)
  if (text === undefined) throw invalidParams('Invalid data format: invalid hex value.')
  return data(text)
}

/**
 * eth_call's and eth_estimateGas's call object as RSKj reads it when the parameters are read: step 1
 * (`callArgumentsParam`: every known field checked, `input` over `data`, other fields ignored); its numbers are read by
 * `callArgumentsToByteArray` once the block is. A parameter that is not an object stays refused (-32602), where RSKj
 * finds no field in it and runs an empty call (docs/compatibility.md).
 */
export const callArguments: Codec<CallArgumentsParam> = (v) => callArgumentsParam(asObject(v, 'transaction call object'))

/**
 * `CallArgumentsToByteArray` (org/ethereum/rpc/converters/CallArgumentsToByteArray.java), which `EthModule.call` and
 * `EthModule.estimateGas` build after the block is read (and, for eth_call, the state overrides applied), so a block
 * error wins over a number it cannot read: `gasPrice`, `gas`, then `value`; an empty text is absent, `0x` is 0,
 * decimals and `0x` hex as `HexUtils.strHexOrStrNumberToByteArray` (`javaNumber`: `ff` is -32602 `Number values should
 * not contain letters or hex values should start with 0x.`); `gasLimit`, `nonce` and `chainId` are checked only.
 */
export function callArgumentsToByteArray(p: CallArgumentsParam): CallObject {
  const number = (text: string | undefined): bigint | undefined => (text === undefined || text === '' ? undefined : javaNumber(text))
  const out: CallObject = {}
  const gasPrice = number(p.gasPrice)
  const gas = number(p.gas)
  const value = number(p.value)
  if (p.from !== undefined) out.from = p.from
  if (p.to !== undefined) out.to = p.to
  if (gas !== undefined) out.gas = gas
  if (gasPrice !== undefined) out.gasPrice = gasPrice
  if (value !== undefined) out.value = value
  if (p.data !== undefined) out.data = p.data
  return out
}
