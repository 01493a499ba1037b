/**
 * Fork routes of the log and trace queries (docs/forking.md): eth_getLogs, log filters and trace_filter over a range
 * that reaches the remote's blocks, joined with rsksim's own under the service's limits for the whole range.
 */
import { bytesToHex } from '@ethereumjs/util'
import { RpcError, ErrorCode, invalidParams } from '../errors.js'
import { RemoteFailed } from '../node/errors.js'
import { hexNumber } from '../node/fork/fork.js'
import type { FilterObject } from './codecs/objects.js'
import { collectLogs, filterBlocks, checkLogCount, logRange, overBlockRange } from './namespaces/eth/logs.js'
import { asFilterResults, filterChanges, filterLogsQuery, hasHistory, logFilterObject, newLogFilter } from './namespaces/eth/filters.js'
import { filtersOf, type RemoteRange } from '../node/filters/index.js'
import { quantity } from './format/hex.js'
import { filterTraces, MAX_TRACES_PER_REQUEST, refuseNegativeCount, type TraceFilter } from './namespaces/trace.js'
import { ask, blockNumberOf, LOCAL, remoteBlockOfHash, timeLeft, type Route, type RouteContext } from './forkAsk.js'

/**
 * The part of a log query the remote answers, as block numbers; `overRange`: the whole range is over
 * `logsMaxBlockRange` (the results limit then applies); `local`: the range goes on above the forked block.
 */
type RemotePart = RemoteRange & { overRange: boolean; local: boolean }

/**
 * The part of `f` at or below the forked block: LOCAL when none of it is the remote's, undefined for a block hash
 * neither chain has (no logs). The range limit counts the whole range, as for eth_getLogs.
 */
async function remotePart(ctx: RouteContext, f: FilterObject): Promise<RemotePart | undefined | typeof LOCAL> {
  const { node, fork } = ctx
  if (f.blockHash !== undefined) {
    const remote = await remoteBlockOfHash(ctx, bytesToHex(f.blockHash))
    if (remote === LOCAL) return LOCAL
    return remote === undefined ? undefined : { from: remote.number, to: remote.number, overRange: false, local: false }
  }
  // The blocks eth_getLogs scans (eth/logs.ts `logRange`, RSKj's rules); none, or none at or below the forked
  // block, are left to the local handler.
  const r = logRange(node, f)
  if (r === undefined || r.from > fork.number) return LOCAL
  const overRange = overBlockRange(node, r.to - r.from + 1n)
  return { from: r.from, to: r.to < fork.number ? r.to : fork.number, overRange, local: r.to > fork.number }
}

/**
 * The remote's logs over `part`, asked as `query` (the filter as sent, or as `filterJson` writes it): as written when
 * it names a block hash, else with the part's bounds. Throws the results limit when the whole range is over the
 * block range limit, as eth_getLogs does (`alsoLocal`: rsksim's logs counted with them).
 */
async function askLogs(ctx: RouteContext, query: object, part: RemoteRange & { overRange?: boolean }, alsoLocal = 0): Promise<object[]> {
  const q = 'blockHash' in query ? query : { ...query, fromBlock: hexNumber(part.from), toBlock: hexNumber(part.to) }
  const answer = await ask(ctx, [q], 'eth_getLogs')
  const logs = Array.isArray(answer) ? (answer as object[]) : []
  checkLogCount(ctx.node, part.overRange === true, logs.length + alsoLocal)
  return logs
}

/** The remote's logs joined with rsksim's for `f`, under the results limit for the whole range. */
async function logsOnFork(ctx: RouteContext, f: FilterObject, query: object): Promise<object[] | typeof LOCAL> {
  const part = await remotePart(ctx, f)
  if (part === LOCAL) return LOCAL
  if (part === undefined) return []
  const local = part.local ? collectLogs(ctx.node, f, filterBlocks(ctx.node, f)) : []
  return [...(await askLogs(ctx, query, part, local.length)), ...local]
}

/** A decoded filter as JSON for the remote (addresses, topics, block hash; `askLogs` sets the bounds). */
function filterJson(f: FilterObject): object {
  const out: Record<string, unknown> = {}
  if (f.blockHash !== undefined) out.blockHash = bytesToHex(f.blockHash)
  if (f.addresses.length > 0) out.address = f.addresses.map((a) => bytesToHex(a))
  if (f.topics.length > 0) out.topics = f.topics.map((t) => (t === null ? null : t.map((x) => bytesToHex(x))))
  return out
}

/** eth_getLogs: the remote's part of the range from the remote, the rest here; the limits count the whole range. */
export const logs: Route = (ctx, args, raw) => logsOnFork(ctx, args[0] as FilterObject, raw[0] as object)

/**
 * eth_getFilterLogs of a log filter: its events (eth/filters.ts `filterLogsQuery`), as eth_getLogs answers them, each
 * log with `removed: false`.
 */
export const filterLogs: Route = async (ctx, args) => {
  const q = filterLogsQuery(ctx.node, args[0] as bigint)
  if (q === undefined) return LOCAL
  if (q === null) return []
  const all = await logsOnFork(ctx, q, filterJson(q))
  return all === LOCAL ? LOCAL : asFilterResults(all, false)
}

/**
 * eth_newFilter whose range starts at or below the forked block: the filter keeps that part of its range, and its
 * first eth_getFilterChanges asks the remote for the matches there (below) and reports them before rsksim's own.
 */
export const newFilter: Route = async (ctx, args) => {
  const f = args[0] as FilterObject
  if (!hasHistory(f)) return LOCAL
  const part = await remotePart(ctx, f)
  if (part === LOCAL || part === undefined) return LOCAL
  if (part.overRange) {
    // Over the block range limit, the results limit counts the whole history now, as eth_newFilter does without a
    // fork: a filter over too many logs is refused here, not at each of its polls. The answer is not kept.
    const local = part.local ? collectLogs(ctx.node, f, filterBlocks(ctx.node, f)).length : 0
    await askLogs(ctx, filterJson(f), part, local)
  }
  return quantity(newLogFilter(ctx.node, f, { from: part.from, to: part.to }))
}

/**
 * eth_getFilterChanges of a log filter whose remote parts are unreported: the remote is asked for them first (a
 * `blockHash` filter's block by its hash), and the poll that takes them reports them (a concurrent poll that took them
 * first has).
 */
export const filterChangesRoute: Route = async (ctx, args) => {
  const id = args[0] as bigint
  const ranges = filtersOf(ctx.node).remoteHistory(id)
  const f = logFilterObject(ctx.node, id)
  if (ranges.length === 0 || f === undefined) return LOCAL
  const criteria = filterJson({ addresses: f.addresses, topics: f.topics })
  // By part: a hardhat_reset while the remote is asked may add, cut or extend parts (filters.ts `onForked`, new
  // objects); the poll reports the parts it has answers for, and leaves the others to the next poll (`take`).
  const answers = new Map<RemoteRange, object[]>()
  for (const range of ranges) {
    try {
      const query = range.hash === undefined ? criteria : { ...criteria, blockHash: range.hash }
      answers.set(range, await askLogs(ctx, query, { ...range, overRange: overBlockRange(ctx.node, range.to - range.from + 1n) }))
    } catch (e) {
      // A part over the limits (one a hardhat_reset to a higher block added; a new filter's was checked when it was
      // made), or one the remote refuses (its own limits: a JSON-RPC error, not a transient failure): this poll
      // reports the error and the part is dropped, so the next poll goes on with what came after. A remote that could
      // not be reached is asked again at the next poll.
      const overLimits = e instanceof RpcError && e.code === ErrorCode.LogLimit
      const refused = e instanceof RemoteFailed && e.code !== undefined && !e.retryable
      if (overLimits || refused) filtersOf(ctx.node).dropRemoteHistory(id, range)
      throw e
    }
  }
  return filterChanges(ctx.node, id, answers)
}

/**
 * trace_filter over a range that starts at or below the forked block: the remote traces its part, rsksim its own
 * blocks, and `after` and `count` page through the two joined in block order. The remote is asked for its first
 * `after + count` traces (in pages of at most `MAX_TRACES_PER_REQUEST`, its own cap); rsksim's part runs in the
 * node's queue under the request deadline, as the method does without a fork.
 */
export const traceFilterRoute: Route = async (ctx, args, raw) => {
  const f = args[0] as TraceFilter
  const { node, fork } = ctx
  // A bound at `pending` is the pending block's number, after the head (trace.ts `filterTraces`): rsksim's own.
  // A negative number (RSKj reads `0x-1`, and wraps a long's overflow, as trace.ts `javaHexLong` does) names no
  // block: as fromBlock, an answer of [] (rsksim's own walk gives it); as toBlock, the head.
  const from = await blockNumberOf(ctx, f.fromBlock)
  if (from === undefined || from < 0n || from > fork.number) return LOCAL
  const given = await blockNumberOf(ctx, f.toBlock)
  const to = given === undefined || given < 0n ? node.chain.store.headNumber : given
  if (from > to) throw invalidParams('fromBlock cannot be greater than toBlock')
  if (f.addressError !== undefined) throw f.addressError
  refuseNegativeCount(f)
  if (f.count === 0) return []
  const wanted = f.after + f.count
  const remote: object[] = []
  for (let skip = 0; skip < wanted; skip += MAX_TRACES_PER_REQUEST) {
    const count = Math.min(MAX_TRACES_PER_REQUEST, wanted - skip)
    const query = {
      ...(raw[0] as object),
      // The addresses as read (trace.ts `filterAddress`: RSKj's `RskAddress` forms, `0x` and 40 digits here).
      ...(f.fromAddress ? { fromAddress: [...f.fromAddress] } : {}),
      ...(f.toAddress ? { toAddress: [...f.toAddress] } : {}),
      fromBlock: hexNumber(from),
      toBlock: hexNumber(to < fork.number ? to : fork.number),
      after: skip,
      count,
    }
    const page = (await ask(ctx, [query], 'trace_filter')) as unknown
    const list = Array.isArray(page) ? (page as object[]) : []
    remote.push(...list)
    if (list.length < count) break
  }
  const out: object[] = remote.slice(f.after, wanted)
  if (out.length === f.count || to <= fork.number) return out
  const local: TraceFilter = {
    ...f,
    fromBlock: { kind: 'number', number: fork.number + 1n },
    toBlock: { kind: 'number', number: to },
    after: Math.max(0, f.after - remote.length),
    count: f.count - out.length,
  }
  // The local part has what is left of the request's time after the remote's pages (forkAsk.ts `inTime`).
  const own = await node.queue.run(() => node.chain.guard.within(timeLeft(ctx.deadline), () => filterTraces({ node }, local)))
  return [...out, ...own]
}

