/**
 * eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter, eth_getFilterChanges, eth_getFilterLogs,
 * eth_uninstallFilter (spec "Filter lifecycle", "Events", "Method reference: logs and filters"; reference §6).
 * The node keeps the filters (`src/node/filters/`); this file decodes ids, resolves a filter's block range and
 * formats what a poll returns. Log matching and the eth_getLogs limits are those of `logs.ts`.
 */
import { bytesToHex } from '@ethereumjs/util'
import { filterObject, type FilterObject } from '../../codecs/objects.js'
import { data, type Codec } from '../../codecs/primitives.js'
import { method, noParams, type MethodTable } from '../../method.js'
import { quantity } from '../../format/hex.js'
import { blockLogs, markRemoved } from '../../format/log.js'
import { filterNotFound } from '../../../errors.js'
import { filtersOf, type LogEvent, type LogRange, type RemoteRange } from '../../../node/filters/index.js'
import type { RskNode } from '../../../node/node.js'
import type { BlockRecord } from '../../../node/chain/types.js'
import { bloomMatcher, collectLogs, filterBlocks, logBound, rawLogMatcher } from './logs.js'

/**
 * A filter id. RSKj reads it as `HexDataParam` (so a bad one gets `Invalid data format: invalid hex value.`);
 * ids are QUANTITY here (spec), and `0x1`, `0x01` and `1` name the same filter.
 */
const filterId: Codec<bigint> = (v) => {
  const bytes = data(v)
  if (bytes.length > 32) return 0n // no such filter, answered as `filter not found`
  return bytes.length === 0 ? 0n : BigInt(bytesToHex(bytes))
}

/** The criteria of a log filter and the block range it follows. */
class LogCriteria implements LogRange {
  constructor(
    readonly filter: FilterObject,
    /** Lowest block number covered. */
    private readonly from: bigint,
    /** Highest block number covered; undefined follows the head. */
    private readonly to: bigint | undefined,
    /** With `blockHash`, only that block is covered. */
    private readonly hash: string | undefined,
  ) {}

  get span(): { from: bigint; to: bigint | undefined } | undefined {
    return this.hash === undefined ? { from: this.from, to: this.to } : undefined
  }

  covers(b: BlockRecord): boolean {
    if (this.hash !== undefined) return b.hashHex === this.hash
    return b.number >= this.from && (this.to === undefined || b.number <= this.to)
  }
}

/** Whether a new filter over `f` collects the matches already on the chain (its range has a fixed start). */
export function hasHistory(f: FilterObject): boolean {
  const from = f.fromBlock
  return f.blockHash !== undefined || (from !== undefined && (from.kind !== 'tag' || from.tag === 'earliest'))
}

/**
 * Installs a log filter. With a fixed `fromBlock` (a number, `earliest`) or a `blockHash`, the matches already on the
 * chain are collected now under the eth_getLogs limits, and the first poll returns them (RSKj
 * `LogFilter.retrieveHistoricalData`, bounds as `logRange` reads them). With `fromBlock` `latest` (or omitted) only
 * blocks mined after creation count, as geth, Hardhat and Ganache do: RSKj also reports the best block at creation and
 * keeps only the last block's logs between polls, which would make watchers see old events and lose new ones. Blocks
 * mined later are the filter's up to a numeric `toBlock`, without bound for a tag, and always from `fromBlock`
 * `latest` (RSKj's `newBlockReceived` ignores toBlock then).
 *
 * On a fork, `remote` is the part of the range at or below the forked block, whose matches the remote answers at
 * the first poll (src/rpc/forkLogs.ts).
 */
export function newLogFilter(node: RskNode, f: FilterObject, remote?: RemoteRange): bigint {
  const head = node.chain.store.headNumber
  const hash = f.blockHash === undefined ? undefined : bytesToHex(f.blockHash)
  // Read (and refused, `logBound`) before anything is kept, as eth_getLogs reads them.
  const from = logBound(f.fromBlock)
  const to = logBound(f.toBlock)
  const start = typeof from === 'bigint' ? from : from === 'earliest' ? 0n : head + 1n
  const end = from === 'latest' || typeof to !== 'bigint' ? undefined : to
  const criteria = new LogCriteria(f, start, end, hash)
  let history: BlockRecord[] = []
  if (hasHistory(f)) {
    collectLogs(node, f, filterBlocks(node, f), history)
  }
  return filtersOf(node).newLogFilter(criteria, history, remote)
}

/** The criteria of log filter `id`, or undefined (no such filter, or not a log filter). */
export function logFilterObject(node: RskNode, id: bigint): FilterObject | undefined {
  const f = filtersOf(node).get(id)
  return f?.kind === 'log' && f.range instanceof LogCriteria ? f.range.filter : undefined
}

/** Logs as filters report them: with `removed` (spec "Log object"), copied (a remote's answers are cached). */
export const asFilterResults = (logs: readonly object[], removed: boolean): object[] => logs.map((l) => ({ ...l, removed }))

/**
 * The matching logs of the gathered blocks, each with `removed` (spec "Log object": filter results carry it);
 * `remote`: what the remote answered for the remote part of the history, when the poll asked it (forkLogs.ts).
 */
function logsOf(range: LogRange, items: LogEvent[], remote: readonly object[] = []): object[] {
  if (!(range instanceof LogCriteria)) return []
  const keep = rawLogMatcher(range.filter)
  const mayHold = bloomMatcher(range.filter)
  const out: object[] = []
  for (const item of items) {
    if ('remote' in item) for (const log of asFilterResults(remote, false)) out.push(log)
    else for (const log of markRemoved(blockLogs(item.block, keep, mayHold), item.removed)) out.push(log)
  }
  return out
}

/**
 * eth_getFilterChanges: what happened since the previous poll of filter `id` (spec "Events" 3); `remote`, on a
 * fork, the remote's answer for the remote part of its history, reported only by the poll that takes that part.
 */
export function filterChanges(node: RskNode, id: bigint, remote?: readonly object[]): unknown[] {
  const f = filtersOf(node).take(id)
  if (f === undefined) throw filterNotFound()
  return f.kind === 'log' ? logsOf(f.range, f.items, remote) : [...f.items]
}

export const ethFilterMethods: MethodTable = {
  eth_newFilter: method([filterObject], ({ node }, f) => quantity(newLogFilter(node, f))),

  eth_newBlockFilter: noParams(({ node }) => quantity(filtersOf(node).newBlockFilter())),

  eth_newPendingTransactionFilter: noParams(({ node }) => quantity(filtersOf(node).newPendingTransactionFilter())),

  eth_getFilterChanges: method([filterId], ({ node }, id) => filterChanges(node, id)),

  /**
   * A log filter: every log now matching its criteria, as eth_getLogs would answer them. A block or
   * pending-transaction filter: what it holds and has not returned yet (RSKj keeps and returns everything since
   * creation; keeping only the unreturned part bounds memory). Nothing is consumed.
   */
  eth_getFilterLogs: method([filterId], ({ node }, id) => {
    const f = filtersOf(node).get(id)
    if (f === undefined) throw filterNotFound()
    if (f.kind !== 'log' || !(f.range instanceof LogCriteria)) return [...f.items]
    const filter = f.range.filter
    return markRemoved(collectLogs(node, filter, filterBlocks(node, filter)), false)
  }),

  eth_uninstallFilter: method([filterId], ({ node }, id) => filtersOf(node).uninstall(id)),
}
