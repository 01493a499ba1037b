/**
 * eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter, eth_getFilterChanges, eth_getFilterLogs,
 * eth_uninstallFilter (spec "Filter lifecycle", "Events", "Method reference: logs and filters"; reference §6).
 * The node keeps the filters (`src/node/filters/`); this file decodes ids, resolves a filter's block range and
 * formats what a poll returns. Log matching and the eth_getLogs limits are those of `logs.ts`.
 */
import { bytesToHex } from '@ethereumjs/util'
import { filterObject, type FilterObject } from '../../codecs/objects.js'
import { type Codec } from '../../codecs/primitives.js'
import { rskjData } from '../../codecs/callArgumentsParam.js'
import { method, noParams, type MethodTable } from '../../method.js'
import { quantity } from '../../format/hex.js'
import { blockLogs, markRemoved } from '../../format/log.js'
import { filterNotFound } from '../../../errors.js'
import { filtersOf, type LogChanges, type LogCriteria, type LogScope, type RemoteRange } from '../../../node/filters/index.js'
import type { RskNode } from '../../../node/node.js'
import { bloomMatcher, collectLogs, filterBlocks, filterValueCount, logBound, logRange, overBlockRange, rawLogMatcher } from './logs.js'

/**
 * A filter id. RSKj reads it as `HexDataParam` (co/rsk/rpc/Web3EthModule.java; its deserializer takes `getText()`, so a
 * JSON number is its digits, read as hex: `10` is `0x10`), then looks up `getAsHexString()`, the bytes as `0x` and two
 * digits each; a bad one gets `Invalid data format: invalid hex value.` Ids are QUANTITY here (spec), so the bytes are
 * read as a number: `0x1`, `0x01`, `1` and the JSON number 1 name the same filter.
 */
const filterId: Codec<bigint> = (v) => {
  const bytes = rskjData(v)
  if (bytes.length > 32) return 0n // no such filter, answered as `filter not found`
  return bytes.length === 0 ? 0n : BigInt(bytesToHex(bytes))
}

/**
 * eth_uninstallFilter's id: JSON `null` too, which names no filter, so the answer is false (Jackson hands RSKj's
 * `Web3Impl.eth_uninstallFilter` a null `HexDataParam`, and it answers `if (id == null) return false`).
 */
const filterIdOrNull: Codec<bigint | null> = (v) => (v === null ? null : filterId(v))

/** The criteria of a log filter (addresses, topics), as the node keeps them for it. */
class FilterCriteria implements LogCriteria {
  readonly mayHold: (bloom: Uint8Array) => boolean
  readonly values: number
  constructor(readonly filter: FilterObject) {
    this.mayHold = bloomMatcher(filter)
    this.values = filterValueCount(filter)
  }
}

/** Whether a new filter over `f` collects the matches already on the chain (its range has a fixed start). */
export function hasHistory(f: FilterObject): boolean {
  const from = f.fromBlock
  return f.blockHash !== undefined || (from !== undefined && (from.kind !== 'tag' || from.tag === 'earliest'))
}

/**
 * The blocks whose logs a new filter over `f` reports, as RSKj's `LogFilter` gathers its events (reference §6;
 * `LogFilter.java` `fromFilterRequest` L187-198, `retrieveHistoricalData` L230-251, `newBlockReceived` L112-119):
 * - its history, the blocks `eth_getLogs` scans (`logRange`), when `fromBlock` names a block (a number up to the head,
 *   `earliest`), or a `blockHash`'s block;
 * - the blocks mined later: every one when `toBlock` is `latest` (or omitted), whatever `fromBlock` is (so below a
 *   `fromBlock` past the head too), and when `fromBlock` is `latest` (or omitted; a `blockHash` filter's bounds are
 *   both omitted), whatever `toBlock` is; none otherwise (a numeric `toBlock`, even past the head, `earliest`,
 *   `pending`).
 * From `latest`, RSKj also reports the best block's logs at creation and, on each new block, *replaces* the events with
 * that block's, so that a poll answers the last block's logs alone; rsksim reports every block mined since the
 * previous poll (spec "Filter lifecycle", "Events" 3: the items that occurred since the last poll).
 */
function scopeOf(node: RskNode, f: FilterObject, mayHold: (bloom: Uint8Array) => boolean): LogScope {
  const head = node.chain.store.headNumber
  // Read (and refused, `logBound`) before anything is kept, as eth_getLogs reads them.
  const from = logBound(f.fromBlock)
  const to = logBound(f.toBlock)
  if (f.blockHash !== undefined) {
    const hash = bytesToHex(f.blockHash)
    const block = node.chain.store.getByHash(hash)
    return { from: head + 1n, to: undefined, fromLatest: true, hash, block: block !== undefined && mayHold(block.header.logsBloom) ? block : undefined }
  }
  if (from === 'latest') return { from: head + 1n, to: undefined, fromLatest: true }
  const follows = to === 'latest'
  const history = logRange(node, f)
  if (history === undefined) return { from: head + 1n, to: follows ? undefined : head, fromLatest: false }
  // The limits apply to the history now (RSKj refuses eth_newFilter); the blocks are read again at the first poll.
  const blocks = filterBlocks(node, f)
  if (overBlockRange(node, blocks.span)) collectLogs(node, f, blocks)
  return { from: history.from, to: follows ? undefined : history.to, fromLatest: false }
}

/**
 * Installs a log filter over `f` (scopeOf: its history, reported by the first poll, and the new blocks it takes). On a
 * fork, `remote` is the part of the history at or below the forked block, whose matches the remote answers at the
 * first poll (src/rpc/forkLogs.ts).
 */
export function newLogFilter(node: RskNode, f: FilterObject, remote?: RemoteRange): bigint {
  const criteria = new FilterCriteria(f)
  const scope = scopeOf(node, f, criteria.mayHold)
  const part = remote !== undefined && scope.hash !== undefined ? { ...remote, hash: scope.hash } : remote
  return filtersOf(node).newLogFilter(criteria, scope, part)
}

/** The criteria of log filter `id`, or undefined (no such filter, or not a log filter). */
export function logFilterObject(node: RskNode, id: bigint): FilterObject | undefined {
  const f = filtersOf(node).get(id)
  return f?.kind === 'log' && f.criteria instanceof FilterCriteria ? f.criteria.filter : undefined
}

/**
 * What eth_getFilterLogs of log filter `id` answers, as a log query: RSKj's `Filter.getEvents` (`Filter.java`
 * L63-67), every event the filter holds. For a filter from `latest` (or a `blockHash`) those are the last block's
 * (`LogFilter.java` L113-115 clears the others): the head's, or before any block was mined the `blockHash`'s block
 * (or, from `latest`, the best block at creation: the head). Otherwise the blocks of its range still on the chain:
 * its history, and the new blocks it took. `null`: no events; undefined: no such filter, or not a log filter.
 */
export function filterLogsQuery(node: RskNode, id: bigint): FilterObject | null | undefined {
  const f = filtersOf(node).get(id)
  if (f?.kind !== 'log' || !(f.criteria instanceof FilterCriteria)) return undefined
  const { addresses, topics, blockHash } = f.criteria.filter
  if (f.fromLatest) return blockHash !== undefined && !f.received ? { addresses, topics, blockHash } : { addresses, topics }
  const to = f.to ?? node.chain.store.headNumber
  if (f.from > to) return null
  return { addresses, topics, fromBlock: { kind: 'number', number: f.from }, toBlock: { kind: 'number', number: to } }
}

/** Logs as filters report them: with `removed` (spec "Log object"), copied (a remote's answers are cached). */
export const asFilterResults = (logs: readonly object[], removed: boolean): object[] => logs.map((l) => ({ ...l, removed }))

/** What the remote answered for each remote part of a filter's events a poll asked it for (forkLogs.ts). */
export type RemoteAnswers = ReadonlyMap<RemoteRange, readonly object[]>

/**
 * The matching logs of a poll's events, each with `removed` (spec "Log object": filter results carry it): its items,
 * then the chain's blocks of its range; `remote`: the remote's answers for its remote parts (the manager's `take` hands
 * over only parts that have one).
 */
function logsOf(node: RskNode, changes: LogChanges, remote: RemoteAnswers): object[] {
  if (!(changes.criteria instanceof FilterCriteria)) return []
  const keep = rawLogMatcher(changes.criteria.filter)
  const mayHold = changes.criteria.mayHold
  const out: object[] = []
  for (const item of changes.items) {
    if ('remote' in item) for (const log of asFilterResults(remote.get(item.remote) ?? [], false)) out.push(log)
    else for (const log of markRemoved(blockLogs(item.block, keep, mayHold), item.removed)) out.push(log)
  }
  if (changes.from <= changes.to) {
    for (const block of node.chain.store.blocksIn(changes.from, changes.to, mayHold)) for (const log of markRemoved(blockLogs(block, keep, mayHold), false)) out.push(log)
  }
  return out
}

/**
 * eth_getFilterChanges: what happened since the previous poll of filter `id` (spec "Events" 3); `remote`, on a
 * fork, the remote's answers for the remote parts of its events, reported only by the poll that takes them. A remote
 * part without an answer (none, for a poll answered here) waits, with what follows it, for the next poll.
 */
export function filterChanges(node: RskNode, id: bigint, remote: RemoteAnswers = new Map()): unknown[] {
  const f = filtersOf(node).take(id, remote)
  if (f === undefined) throw filterNotFound()
  return f.kind === 'log' ? logsOf(node, f.changes, remote) : f.items
}

export const ethFilterMethods: MethodTable = {
  eth_newFilter: method([filterObject], ({ node }, f) => quantity(newLogFilter(node, f))),

  eth_newBlockFilter: noParams(({ node }) => quantity(filtersOf(node).newBlockFilter())),

  eth_newPendingTransactionFilter: noParams(({ node }) => quantity(filtersOf(node).newPendingTransactionFilter())),

  eth_getFilterChanges: method([filterId], ({ node }, id) => filterChanges(node, id)),

  /**
   * A log filter: its events (filterLogsQuery), as eth_getLogs answers them, under its limits. A block or
   * pending-transaction filter: what it holds and has not returned yet (RSKj keeps and returns everything since
   * creation; keeping only the unreturned part bounds memory). Nothing is consumed.
   */
  eth_getFilterLogs: method([filterId], ({ node }, id) => {
    const f = filtersOf(node).get(id)
    if (f === undefined) throw filterNotFound()
    if (f.kind !== 'log') return [...f.items]
    const q = filterLogsQuery(node, id)
    if (q === undefined || q === null) return []
    return markRemoved(collectLogs(node, q, filterBlocks(node, q)), false)
  }),

  eth_uninstallFilter: method([filterIdOrNull], ({ node }, id) => id !== null && filtersOf(node).uninstall(id)),
}
