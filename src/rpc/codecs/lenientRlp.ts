/**
 * The nine byte strings of a raw legacy transaction read as RSKj's RLP decoder reads them
 * (org/ethereum/util/RLP.java `decodeElement`, RLPList.java), which checks no canonical form: a single byte below 0x80
 * given a length prefix, a long length form for a short string or list, and lengths with leading zero bytes are all
 * read. @ethereumjs/rlp refuses these; rawTransaction.ts asks this decoder only after it did.
 */

/** The fields, or undefined unless `raw` is one list, exactly, of exactly nine byte strings, each inside it. */
export function lenientTransactionFields(raw: Uint8Array): Uint8Array[] | undefined {
  const list = item(raw, 0, raw.length)
  if (list === undefined || !list.isList || list.end !== raw.length) return undefined
  const fields: Uint8Array[] = []
  for (let at = list.start; at < list.end; ) {
    const field = item(raw, at, list.end)
    if (field === undefined || field.isList) return undefined
    fields.push(raw.subarray(field.start, field.end))
    at = field.end
  }
  return fields.length === 9 ? fields : undefined
}

interface Item {
  isList: boolean
  /** Where the payload starts and ends in `bytes`. */
  start: number
  end: number
}

/** The item at `at`, whose bytes must end by `limit`; undefined when they do not. */
function item(bytes: Uint8Array, at: number, limit: number): Item | undefined {
  if (at >= limit) return undefined
  const b0 = bytes[at]!
  if (b0 < 0x80) return { isList: false, start: at, end: at + 1 }
  const isList = b0 >= 0xc0
  const base = isList ? 0xc0 : 0x80
  let start = at + 1
  let length = b0 - base
  if (length > 55) {
    // Long form: the length of the length, then the length (any value, leading zeros allowed).
    const size = length - 55
    if (start + size > limit) return undefined
    length = 0
    for (let i = 0; i < size; i++) length = length * 256 + bytes[start + i]!
    start += size
  }
  const end = start + length
  return end <= limit ? { isList, start, end } : undefined
}
