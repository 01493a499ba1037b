/**
 * Block selectors (spec "Block parameter forms", reference §1.4): a tag, a number, a 32-byte hash, or an
 * EIP-1898 map `{ blockHash, requireCanonical? }` / `{ blockNumber }`. `text`: the identifier as the request gave it,
 * which RSKj quotes in `Block <id> not found` (rskjBlock.ts). The codecs here serve the extensions, the bounds of a
 * `logs` subscription and the methods rskjBlock.ts does not.
 */
import { invalidParams } from '../../errors.js'
import { hexToBytesLoose, removeHexPrefix, show, type Codec } from './primitives.js'

export type BlockTag = 'latest' | 'earliest' | 'pending' | 'safe' | 'finalized'

export type BlockSelector =
  | { kind: 'tag'; tag: BlockTag }
  | { kind: 'number'; number: bigint; text?: string }
  | { kind: 'hash'; hash: Uint8Array; requireCanonical: boolean; fromMap: boolean; text?: string }

export const LATEST: BlockSelector = { kind: 'tag', tag: 'latest' }


/** A string selector: tag, `0x` hex number, decimal number, or a 64/66-character hex hash. */
function parseString(v: string, caseInsensitiveTags: boolean): BlockSelector | undefined {
  // Nothing longer than a hash is a selector; checked first so a huge decimal is never converted (BigInt is quadratic).
  if (v.length > 66) return undefined
  const tag = caseInsensitiveTags ? v.toLowerCase() : v
  if (tag === 'latest' || tag === 'earliest' || tag === 'pending') return { kind: 'tag', tag }
  if (caseInsensitiveTags && (tag === 'safe' || tag === 'finalized')) return { kind: 'tag', tag }
  const body = /^0[xX]/.test(v) ? v.slice(2) : undefined
  if (body !== undefined && /^[0-9a-fA-F]+$/.test(body)) {
    if (body.length === 64) return { kind: 'hash', hash: hexToBytesLoose(body), requireCanonical: false, fromMap: false }
    if (body.length <= 64) return { kind: 'number', number: BigInt('0x' + body) }
  }
  if (/^[0-9]+$/.test(v)) return v.length === 64 ? { kind: 'hash', hash: hexToBytesLoose(v), requireCanonical: false, fromMap: false } : { kind: 'number', number: BigInt(v) }
  return undefined
}

function parseMap(v: Record<string, unknown>): BlockSelector {
  if (typeof v.blockHash === 'string') {
    const body = removeHexPrefix(v.blockHash)
    if (body.length !== 64 || !/^[0-9a-fA-F]+$/.test(body)) throw invalidParams(`Invalid block identifier '${v.blockHash}'`)
    const rc = v.requireCanonical
    if (rc !== undefined && rc !== true && rc !== false && rc !== 'true' && rc !== 'false') throw invalidParams('Invalid block input')
    return { kind: 'hash', hash: hexToBytesLoose(body), requireCanonical: rc === true || rc === 'true', fromMap: true }
  }
  if (typeof v.blockNumber === 'string') {
    const sel = parseString(v.blockNumber, false)
    if (sel === undefined || sel.kind === 'hash') throw invalidParams(`Invalid block identifier '${v.blockNumber}'`)
    return sel
  }
  throw invalidParams('Invalid block input')
}

/**
 * The extensions' state-read block (eth_getProof, eth_getAccount, debug_traceCall, …), modelled on `BlockRefParam`:
 * exact-case tags, numbers (hex or decimal), a hash string, or an EIP-1898 map. `safe`/`finalized` are refused. The
 * eth methods RSKj has read theirs with rskjBlock.ts.
 */
export const blockRef: Codec<BlockSelector> = (v) => {
  if (typeof v === 'string') {
    const sel = parseString(v, false)
    if (sel !== undefined) return sel
    throw invalidParams(`Invalid block identifier '${show(v)}'`)
  }
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return parseMap(v as Record<string, unknown>)
  // `BlockRefParam.Deserializer`: a JSON value that is neither a string nor an object (a number, a boolean, an array).
  throw invalidParams('Invalid input')
}

/**
 * Tags in any case (`safe`/`finalized` parse but do not resolve), numbers, and a 64-character hex string read as a
 * block hash; the base of `hexBlockId`.
 */
export const blockId: Codec<BlockSelector> = (v) => {
  if (typeof v === 'string') {
    const sel = parseString(v, true)
    if (sel !== undefined) return sel
  }
  throw invalidParams(`invalid blocknumber ${show(v)}`)
}

/**
 * The bounds of a `logs` subscription (which RSKj's `EthSubscribeLogsParams` keeps as text and never reads; eth_getLogs
 * and eth_newFilter read theirs with rskjBlock.ts `filterBound`) and the extensions' …ByNumber block
 * (eth_getRawTransactionByBlockNumberAndIndex, trace_replayBlockTransactions, ots_*): a number must be `0x` hex; a
 * decimal string or a JSON number is -32602 `invalid blocknumber <n>`. A 64-digit string stays a block hash. The eth
 * methods RSKj has read theirs with rskjBlock.ts.
 */
export const hexBlockId: Codec<BlockSelector> = (v) => {
  if (typeof v === 'string' && v.length !== 64 && /^[0-9]+$/.test(v)) throw invalidParams(`invalid blocknumber ${show(v)}`)
  return blockId(v)
}
