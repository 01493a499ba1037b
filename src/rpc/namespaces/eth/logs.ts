/**
 * eth_getLogs (spec "eth_getLogs rules" and "Limits"; reference §6). The spec's limit is an either/or: a query
 * over at most `logsMaxBlockRange` blocks has no cap, a longer one is answered while it returns at most
 * `logsMaxResults` logs. Both are configurable; 0 turns one off.
 */
import { bytesToBigInt, bytesToHex, equalsBytes } from '@ethereumjs/util'
import { filterObject, type FilterObject } from '../../codecs/objects.js'
import { JAVA_LONG_MAX } from '../../codecs/primitives.js'
import { RpcError, ErrorCode, invalidParams } from '../../../errors.js'
import { method, type MethodTable } from '../../method.js'
import { blockLogs, type LogJson } from '../../format/log.js'
import type { RskNode } from '../../../node/node.js'
import type { BlockRecord, LogRecord } from '../../../node/chain/types.js'
import type { BlockSelector } from '../../codecs/block.js'
import { bloomBits, bloomHasAny } from '../../../node/chain/bloom.js'

/** A filter bound as RSKj reads it: one of the words it tests for, or a block number. */
export type LogBound = bigint | 'latest' | 'pending' | 'earliest'

/**
 * Reads a filter bound as RSKj does (`LogFilter.retrieveHistoricalData` L236-237): `latest`, `pending` and `earliest`
 * as words (`isBlockWord`), anything else through `Web3Impl.getBlockByNumberOrStr` as a number
 * (`HexUtils.jsonHexToLong`). Omitted is `latest` (`fromFilterRequest` L188-195). The codec (codecs/rskjBlock.ts
 * `filterBound`) has refused what is not a tag or a `0x` number up to a Java long; `safe` and `finalized`, which
 * `BlockIdentifierParam` takes, make RSKj throw NumberFormatException here, its -32603 `Internal server error`; rsksim
 * answers -32602 `invalid blocknumber <bound>` (docs/compatibility.md).
 */
export function logBound(sel: BlockSelector | undefined): LogBound {
  if (sel === undefined) return 'latest'
  if (sel.kind === 'number') {
    if (sel.number > JAVA_LONG_MAX) throw invalidParams(`invalid blocknumber 0x${sel.number.toString(16)}`)
    return sel.number
  }
  if (sel.kind === 'tag') {
    if (sel.tag === 'safe' || sel.tag === 'finalized') throw invalidParams(`invalid blocknumber ${sel.tag}`)
    return sel.tag
  }
  // Not from the codec, which reads no hash (the type allows one): 32 bytes read as a number, as RSKj would.
  const n = bytesToBigInt(sel.hash)
  if (n > JAVA_LONG_MAX) throw invalidParams(`invalid blocknumber ${bytesToHex(sel.hash)}`)
  return n
}

/** The blocks `from`..`to` (from <= to) a log query scans. */
export interface LogRange {
  from: bigint
  to: bigint
}

/**
 * The blocks a log query without `blockHash` scans, as RSKj's `LogFilter.retrieveHistoricalData` resolves its bounds
 * (undefined: none). A `fromBlock` that names a block (a number up to the head, or `earliest`: block 0, L239-241)
 * scans from `toBlock`'s block (the best block for a tag or a number past the head, L245; `getBlockByNumber` answers
 * null there) down while the number is >= fromBlock, in a do-while (`processBlocks` L270-306): so from > to scans
 * toBlock's block alone. `latest` scans the best block only, whatever toBlock is (L248-250); `pending` and a number
 * past the head scan nothing. Both bounds are read first (L236-237), so a bad toBlock is refused even where unused.
 */
export function logRange(node: RskNode, f: FilterObject): LogRange | undefined {
  const head = node.chain.store.headNumber
  const from = logBound(f.fromBlock)
  const to = logBound(f.toBlock)
  const start = from === 'earliest' ? 0n : typeof from === 'bigint' && from <= head ? from : undefined
  if (start === undefined) return from === 'latest' ? { from: head, to: head } : undefined
  const end = typeof to === 'bigint' && to <= head ? to : head
  return { from: start <= end ? start : end, to: end }
}

/**
 * The blocks a filter covers now: how many (`span`, what the limits count: the blocks scanned, so 1 where fromBlock >
 * toBlock, which RSKj's `to - from` check, negative there, never refuses either) and those whose bloom may match, read
 * as they are iterated (a query stopped by the results limit reads, and unpacks, no further).
 */
export interface FilterBlocks {
  span: number
  blocks: Iterable<BlockRecord>
  /** The filter's bloom test (bloomMatcher), for the receipts of those blocks. */
  mayHold: (bloom: Uint8Array) => boolean
}

export function filterBlocks(node: RskNode, f: FilterObject): FilterBlocks {
  const mayHold = bloomMatcher(f)
  if (f.blockHash !== undefined) {
    const b = node.chain.store.getByHash(bytesToHex(f.blockHash))
    return b === undefined ? { span: 0, blocks: [], mayHold } : { span: 1, blocks: mayHold(b.header.logsBloom) ? [b] : [], mayHold }
  }
  const r = logRange(node, f)
  if (r === undefined) return { span: 0, blocks: [], mayHold }
  return { span: node.chain.store.count(r.from, r.to), blocks: node.chain.store.blocksIn(r.from, r.to, mayHold), mayHold }
}

/**
 * Whether a log matches the filter's addresses and topics (spec "Topic filter matching"), on raw log records
 * (bytes, no formatting), so that only matching logs are formatted: most logs
 * of a busy chain (REMASC's in every block, other contracts') never match.
 */
export function rawLogMatcher(f: FilterObject): (l: LogRecord) => boolean {
  const { addresses, topics } = f
  return (l) => {
    if (addresses.length > 0 && !oneOf(addresses, l.address)) return false
    for (let i = 0; i < topics.length; i++) {
      const want = topics[i]
      if (want === null || want === undefined) continue
      const got = l.topics[i]
      if (got === undefined || !oneOf(want, got)) return false
    }
    return true
  }
}

function oneOf(values: readonly Uint8Array[], v: Uint8Array): boolean {
  for (const x of values) if (equalsBytes(x, v)) return true
  return false
}

/** How many addresses and topics (of every position) a filter names: what it holds against the node's bound (src/node/filters/filterValues.ts). */
export function filterValueCount(f: FilterObject): number {
  return f.addresses.length + f.topics.reduce((n, t) => n + (t?.length ?? 0), 0)
}

/**
 * Whether a receipt's logs bloom may hold a log matching the filter: every address and topic position that the
 * filter constrains needs one of its values in the bloom. False means no log of the receipt matches.
 */
export function bloomMatcher(f: FilterObject): (bloom: Uint8Array) => boolean {
  const groups: number[][][] = []
  if (f.addresses.length > 0) groups.push(f.addresses.map(bloomBits))
  for (const want of f.topics) if (want !== null && want !== undefined) groups.push(want.map(bloomBits))
  if (groups.length === 0) return () => true
  return (bloom) => {
    for (const any of groups) if (!bloomHasAny(bloom, any)) return false
    return true
  }
}

/**
 * The limits on a log query over `span` blocks (spec "Limits"; RSKj `rpc.logs` `maxBlocksToQuery`, `maxLogsToReturn`):
 * whether it is over `logsMaxBlockRange`, in which case at most `logsMaxResults` logs may be answered
 * (`checkLogCount`); with no results limit set, a range over it is refused here.
 */
export function overBlockRange(node: RskNode, span: number | bigint): boolean {
  const { logsMaxBlockRange: maxRange, logsMaxResults: maxLogs } = node.options
  const over = maxRange > 0 && span > maxRange
  if (over && maxLogs === 0) throw new RpcError(ErrorCode.LogLimit, `Cannot query more than ${maxRange} blocks at once`)
  return over
}

/** Refuses `count` logs for a query over the block range limit (`overBlockRange`) when they are more than it may answer. */
export function checkLogCount(node: RskNode, overRange: boolean, count: number): void {
  const maxLogs = node.options.logsMaxResults
  if (overRange && maxLogs > 0 && count > maxLogs) throw new RpcError(ErrorCode.LogLimit, `Filter returned more than ${maxLogs} logs.`)
}

/** Logs of the filter's blocks that match `f`, enforcing the configured limits; `matched` gets the blocks that hold some. */
export function collectLogs(node: RskNode, f: FilterObject, { span, blocks, mayHold }: FilterBlocks, matched?: BlockRecord[]): LogJson[] {
  const overRange = overBlockRange(node, span)
  const keep = rawLogMatcher(f)
  const out: LogJson[] = []
  for (const block of blocks) {
    const before = out.length
    blockLogs(block, keep, mayHold, false, out)
    if (out.length === before) continue
    matched?.push(block)
    checkLogCount(node, overRange, out.length)
  }
  return out
}

export const ethLogMethods: MethodTable = {
  eth_getLogs: method([filterObject], ({ node }, f) => collectLogs(node, f, filterBlocks(node, f))),
}
