/**
 * The ABI as RSKj's native contracts read and write it (`org/ethereum/core/CallTransaction.Function.decode` and
 * `encodeOutputs`, `org/ethereum/solidity/SolidityType`), where it differs from Solidity's:
 *
 * - **Reading.** Arguments start after the 4-byte selector. With no bytes at all after it, every word reads 0
 *   (`IntType.decodeInt` of an empty payload); otherwise a word must be there whole. A dynamic argument's offset and
 *   length are read as Java's `BigInteger.intValue()` (the low 32 bits, signed); its bytes need only be present, not
 *   padded; a negative or out-of-range offset or length fails. A `bytes[]` element's offset counts from the word
 *   after the array's length (`DynamicArrayType.decode`); an empty payload reads an empty array. Anything left after
 *   the arguments is ignored.
 * - **Writing** `bytes` and `string` (`BytesType.encode`): offset word, length word, the bytes padded to 32 with
 *   zeros, and empty bytes padded to one zero word (96 bytes in all, where Solidity writes 64).
 *
 * A read that fails throws `NativeAbiError`; callers answer as RSKj's `NativeContract.parseData` does (no method:
 * price 0, failure).
 */
import { bigIntToBytes, bytesToBigInt, concatBytes, equalsBytes, setLengthLeft } from '@ethereumjs/util'
import { keccak256 } from '../../crypto.js'

/** A method's 4-byte selector: keccak-256 of its signature (`CallTransaction.Function.encodeSignature`), e.g. `getBlockHash(int256)`. */
export const abiSelector = (signature: string): Uint8Array => keccak256(new TextEncoder().encode(signature)).subarray(0, 4)

/** Data RSKj's decoder refuses. */
export class NativeAbiError extends Error {}

const refuse = (why: string): never => {
  throw new NativeAbiError(why)
}

/** The argument types the native contracts served here take. */
export type NativeAbiType = 'int256' | 'bytes' | 'string' | 'bytes[]'
export type NativeAbiValue = bigint | Uint8Array | string | Uint8Array[]

/** Java's `BigInteger.intValue()`: the low 32 bits, signed. */
const intValue = (n: bigint): number => Number(BigInt.asIntN(32, n))

/** `IntType.decodeInt`: the signed word at `offset`, 0 for an empty payload. */
function word(body: Uint8Array, offset: number): bigint {
  if (body.length === 0) return 0n
  if (offset < 0 || offset + 32 > body.length) refuse('word out of range')
  const n = bytesToBigInt(body.subarray(offset, offset + 32))
  return body[offset]! >= 0x80 ? n - (1n << 256n) : n
}

/** `BytesType.decode`: length word at `offset`, then that many bytes (present, not necessarily padded). */
function bytesAt(body: Uint8Array, offset: number): Uint8Array {
  const length = intValue(word(body, offset))
  const from = offset + 32
  if (length < 0 || from + length > body.length) refuse('bytes out of range')
  return body.slice(from, from + length)
}

/** `DynamicArrayType.decode` of `bytes[]`: length word, element offsets (from the word after the length), elements. */
function bytesArrayAt(body: Uint8Array, offset: number): Uint8Array[] {
  if (body.length === 0) return []
  const length = intValue(word(body, offset))
  const from = offset + 32
  // RSKj's lower bound: at least `length` bytes after the length word (each element checks its own).
  if (length < 0 || from + length > body.length) refuse('array out of range')
  const out: Uint8Array[] = []
  for (let i = 0; i < length; i++) out.push(bytesAt(body, from + intValue(word(body, from + 32 * i))))
  return out
}

/**
 * The arguments of `types` in `data` (selector included), as RSKj's `CallTransaction.Function.decode` reads them.
 *
 * @example
 * decodeNativeArgs(Uint8Array.of(1, 2, 3, 4), ['int256']) // [0n]
 */
export function decodeNativeArgs(data: Uint8Array, types: readonly NativeAbiType[]): NativeAbiValue[] {
  const body = data.subarray(4)
  return types.map((type, i) => {
    if (type === 'int256') return word(body, 32 * i)
    const offset = intValue(word(body, 32 * i))
    if (type === 'bytes[]') return bytesArrayAt(body, offset)
    const bytes = bytesAt(body, offset)
    // Java's `new String(bytes, UTF_8)`: malformed sequences become U+FFFD.
    return type === 'string' ? new TextDecoder().decode(bytes) : bytes
  })
}

/**
 * `NativeContract.parseData`: the method of `methods` whose selector begins `data`, with its arguments (`types` of
 * the method) decoded; undefined when RSKj finds none (fewer than 4 bytes, no method for the selector, a partial
 * argument), which fails the call.
 */
export function parseNativeCall<M extends { selector: Uint8Array }>(
  data: Uint8Array,
  methods: readonly M[],
  types: (method: M) => readonly NativeAbiType[],
): { method: M; args: NativeAbiValue[] } | undefined {
  if (data.length < 4) return undefined
  const method = methods.find((m) => equalsBytes(m.selector, data.subarray(0, 4)))
  if (method === undefined) return undefined
  try {
    return { method, args: decodeNativeArgs(data, types(method)) }
  } catch (e) {
    if (e instanceof NativeAbiError) return undefined
    throw e
  }
}

/**
 * A `bytes` (or UTF-8 `string`) answer as RSKj's `BytesType.encode` writes it: empty bytes still take one zero word.
 *
 * @example
 * nativeAbiBytes(new Uint8Array(0)).length // 96
 */
export function nativeAbiBytes(b: Uint8Array | string): Uint8Array {
  const bytes = typeof b === 'string' ? new TextEncoder().encode(b) : b
  const padded = new Uint8Array(Math.max(1, Math.ceil(bytes.length / 32)) * 32)
  padded.set(bytes)
  return concatBytes(setLengthLeft(bigIntToBytes(32n), 32), setLengthLeft(bigIntToBytes(BigInt(bytes.length)), 32), padded)
}
