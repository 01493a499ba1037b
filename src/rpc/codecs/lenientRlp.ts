/**
 * The nine fields of a raw legacy transaction read as RSKj reads them, with the errors RSKj answers when it cannot:
 * `Transaction(byte[])` → `RLP.decodeList` → `RLP.decode2`/`decodeElement`, then the list's own `RLPList.size()`
 * (org/ethereum/util/RLP.java, RLPList.java, org/ethereum/core/Transaction.java, VETIVER-9.0.3). The decoder checks no
 * canonical form (a single byte below 0x80 given a length prefix, a long length form for a short string or list, lengths
 * with leading zero bytes are all read); @ethereumjs/rlp refuses these, so rawTransaction.ts asks this decoder only after
 * it did. What RSKj throws reaches eth_sendRawTransaction as (EthModuleTransactionBase.sendRawTransaction,
 * RskErrorResolver):
 * - an RLPException (an item that does not fit its bytes): -32602 `Invalid input: <its text>`;
 * - an IllegalArgumentException (not exactly one item, the item not a list, a list not of exactly nine items):
 *   -32603 `Internal server error`. So bytes after the transaction's list are refused so when they read as items, and
 *   with the RLPException's text when they do not.
 * Lengths are Java ints: the arithmetic below wraps and overflows where RSKj's does.
 */
import { internalError, invalidParams, type RpcError } from '../../errors.js'

const NO_SPACE = "The RLP byte array doesn't have enough space to hold an element with the specified length"
const LENGTH_OF_LENGTH = "The length of the RLP item length can't possibly fit the data byte array"
const NEGATIVE_LENGTH = "The length of the RLP item can't be negative"
/** `RLP.safeAdd`: its text, then Math.addExact's ArithmeticException message. */
const OVERFLOW = "The current implementation doesn't support lengths longer than Integer.MAX_VALUE because that is the largest number of elements an array can have. integer overflow"

const rlpException = (text: string): RpcError => invalidParams(`Invalid input: ${text}`)
const illegalArgument = (text: string): RpcError => internalError(new Error(text))

/**
 * The fields as RSKj's `getRLPData` gives them: a string's payload (an empty one is RSKj's null: empty here), a list's
 * whole encoding (RSKj keeps a list item's bytes, prefix included). Throws RSKj's answer when it reads no transaction.
 */
export function lenientTransactionFields(raw: Uint8Array): Uint8Array[] {
  const top = items(raw)
  if (top.length !== 1) throw illegalArgument(`Expected one RLP item but got ${top.length}`)
  const list = top[0]!
  if (!list.isList) throw illegalArgument("The decoded element wasn't a list")
  const content = raw.subarray(list.from, list.to)
  const fields = items(content).map((f) => content.subarray(f.isList ? f.at : f.from, f.to))
  if (fields.length !== 9) throw illegalArgument('A transaction must have exactly 9 elements')
  return fields
}

interface Item {
  isList: boolean
  /** Where the item starts, where its payload starts and where it ends, in the bytes read. */
  at: number
  from: number
  to: number
}

/** `RLP.decode2`: every item of `bytes`, one after the other to their end. */
function items(bytes: Uint8Array): Item[] {
  const out: Item[] = []
  for (let at = 0; at < bytes.length; at = out[out.length - 1]!.to) out.push(item(bytes, at))
  return out
}

/** `RLP.decodeElement`: the item at `at`. */
function item(bytes: Uint8Array, at: number): Item {
  const b0 = bytes[at]!
  if (b0 >= 0xc0) {
    let length = b0 - 0xc0 + 1
    let offset = 1
    if (b0 > 0xf7) {
      offset = 1 + (b0 - 0xf7)
      length = safeAdd(offset, lengthAt(bytes, at + 1, b0 - 0xf7))
    }
    const end = safeAdd(length, at)
    if (end > bytes.length) throw rlpException(NO_SPACE)
    return { isList: true, at, from: at + offset, to: end }
  }
  if (b0 <= 0x80) return b0 === 0x80 ? { isList: false, at, from: at + 1, to: at + 1 } : { isList: false, at, from: at, to: at + 1 }
  let length = b0 & 0x7f
  let offset = 1
  if (b0 > 0xb7) {
    offset = b0 - 0xb7 + 1
    length = lengthAt(bytes, at + 1, offset - 1)
  }
  // `length` is never negative here (lengthAt refuses it), so RSKj's check against Integer.MAX_VALUE cannot fire.
  const end = (((at + offset) | 0) + length) | 0
  if (end < 0 || end > bytes.length) throw rlpException(NO_SPACE)
  return { isList: false, at, from: at + offset, to: end }
}

/** `RLP.bytesToLength`: `size` big-endian bytes at `at` as a Java int (shifted out bytes are lost, as there). */
function lengthAt(bytes: Uint8Array, at: number, size: number): number {
  if (at + size > bytes.length) throw rlpException(LENGTH_OF_LENGTH)
  let length = 0
  for (let k = 0; k < size; k++) length = (length << 8) | bytes[at + k]!
  if (length < 0) throw rlpException(NEGATIVE_LENGTH)
  return length
}

/** `RLP.safeAdd`: Math.addExact on Java ints. */
function safeAdd(a: number, b: number): number {
  const sum = a + b
  if (sum > 0x7fffffff || sum < -0x80000000) throw rlpException(OVERFLOW)
  return sum
}
