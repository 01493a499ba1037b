/**
 * Parameters RSKj's trace and debug modules take as a plain `String` and read with its own helpers
 * (co/rsk/util/HexUtils.java, co/rsk/rpc/Web3InformationRetriever.java) rather than through its parameter classes:
 * the numbers, hashes and block ids of trace_* and debug_trace* (docs/modules/tracing.md).
 */
import { invalidParams } from '../../errors.js'
import { hexToBytesLoose, javaTrim, removeHexPrefix, show, type Codec } from './primitives.js'
import type { BlockSelector } from './block.js'

/**
 * A `0x` number as RSKj reads one here: `HexUtils.stringHexToBigInteger(s).longValue()` (co/rsk/util/HexUtils.java
 * 72-78: a lower-case `0x`, then Java's `new BigInteger(hex, 16)`, which takes a leading `-` or `+`; `longValue()`
 * keeps the low 64 bits as a signed long), as `TraceModuleImpl.getByJsonBlockId` (TraceModuleImpl.java 229) and
 * `getBlockByTagOrNumber` (298, with `TraceFilterRequest.getFromBlockNumber`, 64-72) use it. So `0x10000000000000001`
 * is block 1, and a negative number names no block (`IndexedBlockStore.getChainBlockByNumber` finds none).
 * Undefined when the text is not such a number.
 */
export function javaHexLong(v: string): bigint | undefined {
  return javaHex(v, 64)
}

/**
 * The same reading kept to `bits` bits as a signed number: `longValue()` (64) or `intValue()` (32, trace_get's
 * positions, TraceGetRequest.java 76-78). Undefined when the text is not a `0x` number.
 */
export function javaHex(v: string, bits: 32 | 64): bigint | undefined {
  const m = /^0x([+-]?)([0-9a-fA-F]+)$/.exec(v)
  if (m === null) return undefined
  const n = BigInt('0x' + m[2]!)
  return BigInt.asIntN(bits, m[1] === '-' ? -n : n)
}

/**
 * A transaction hash where RSKj takes a plain `String` and reads it with `HexUtils.stringHexToByteArray`
 * (HexUtils.java 83-91): `TraceModuleImpl.traceTransaction` (91), `TraceGetRequest.getTransactionHashAsByteArray`,
 * `RskTracer`/`CallTracer.traceTransaction`. A lower-case `0x` is removed and an odd number of digits left-padded,
 * and the bytes are looked up as they are, so text of another length finds no transaction (null; callTracer's
 * "No transaction info"), as RSKj's receipt store finds none. Text that is not hex (RSKj: `Hex.decode` throws,
 * -32603) or not a string (null: a NullPointerException) is -32602.
 */
export const hashText: Codec<Uint8Array> = (v) => hexText('transaction hash', v)

function hexText(what: string, v: unknown): Uint8Array {
  if (typeof v !== 'string') throw invalidParams(`Invalid ${what}: ${show(v)}.`)
  const digits = removeHexPrefix(v)
  if (!/^[0-9a-fA-F]*$/.test(digits)) throw invalidParams(`Invalid ${what} format: invalid hex value`)
  return hexToBytesLoose(digits)
}

/**
 * A block hash where RSKj takes a plain `String`: trace_block's argument of 20 characters or more
 * (`TraceModuleImpl.getByJsonBlockHash` 214-218) and debug_traceBlockByHash's (`RskTracer`/`CallTracer
 * .traceBlockByHash`): `HexUtils.stringHexToByteArray` (so 63 digits are left-padded to 32 bytes), then the block
 * store's cache key, `new Keccak256(bytes)`, wants 32 bytes (an IllegalArgumentException otherwise: -32603 in RSKj,
 * -32602 here).
 */
export const blockHashText: Codec<Uint8Array> = (v) => {
  const bytes = hexText('block hash', v)
  if (bytes.length !== 32) throw invalidParams('Invalid block hash: incorrect length.')
  return bytes
}

/**
 * debug_traceBlockByNumber's `bnOrId`, a plain `String` that `RskTracer`/`CallTracer.traceBlockByNumber` hand to
 * `Web3InformationRetriever.getBlock` (co/rsk/rpc/Web3InformationRetriever.java 76-105, 149-157) with no parameter
 * class before it: the tags in lower case only (a `switch`), then 64 to 66 characters of lower-case hex (after a
 * `0x`: `HexUtils.isHex`) are a block hash (32 bytes once an odd digit count is padded, else `invalid block hash`),
 * then up to 66 characters a number read as `javaHexLong` reads it (a sign, and the low 64 bits: `0x-1` names no
 * block, `0x10000000000000001` is block 1; else `invalid blocknumber <x>`), longer text `invalid block identifier <x>`
 * (`StringUtils.trim`: its first 66 characters and `...`). The eth methods reach it after their parameter class
 * (rskjBlock.ts).
 * A JSON number reaches it as its decimal text (invalid); null is a NullPointerException there (-32603), -32602 here.
 */
export const retrieverBlockId: Codec<BlockSelector> = (v) => {
  const text = typeof v === 'number' ? String(v) : v
  if (typeof text !== 'string') throw invalidParams(`invalid blocknumber ${show(v)}`)
  if (text === 'pending' || text === 'latest' || text === 'earliest') return { kind: 'tag', tag: text }
  const digits = removeHexPrefix(text)
  if (text.length >= 64 && text.length <= 66 && /^[0-9a-f]*$/.test(digits)) {
    if (Math.ceil(digits.length / 2) !== 32) throw invalidParams(`invalid block hash ${text}`)
    return { kind: 'hash', hash: hexToBytesLoose(digits), requireCanonical: false, fromMap: false, text }
  }
  if (text.length > 66) throw invalidParams(`invalid block identifier ${javaTrim(text)}`)
  const number = javaHexLong(text)
  if (number === undefined) throw invalidParams(`invalid blocknumber ${text}`)
  return { kind: 'number', number, text }
}
