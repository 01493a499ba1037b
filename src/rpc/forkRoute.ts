/**
 * On a fork, requests about the remote's history go to the remote (docs/forking.md): blocks at or below the forked
 * block, their transactions, receipts, traces and logs, and state or calls at blocks below it. The request is sent
 * as the user wrote it, with a block tag replaced by the number it meant here (the remote's `latest` has moved on),
 * and answered with the remote's result; what is above the forked block (or not the remote's) is left to rsksim's
 * own handlers. The remote is asked outside the node's queue: waiting for it never holds up local requests.
 *
 * Decided here: a block hash or transaction the remote mined after the forked block is not part of this chain, so
 * it is looked up first (one cached call) and answered as unknown. `eth_getLogs` over a range that spans the forked
 * block joins the remote's logs and rsksim's, under the service's limits for the whole range.
 */
import { bytesToHex } from '@ethereumjs/util'
import { RpcError, ErrorCode, invalidParams } from '../errors.js'
import { RemoteFailed } from '../node/errors.js'
import type { RskNode } from '../node/node.js'
import type { ForkPoint } from '../node/fork/fork.js'
import { hexNumber } from '../node/fork/fork.js'
import type { BlockSelector } from './codecs/block.js'
import type { FilterObject } from './codecs/objects.js'
import { collectLogs, filterBlocks, checkLogCount, overBlockRange } from './namespaces/eth/logs.js'
import { asFilterResults, filterChanges, hasHistory, logFilterObject, newLogFilter } from './namespaces/eth/filters.js'
import { filtersOf, type RemoteRange } from '../node/filters/index.js'
import { quantity } from './format/hex.js'
import { filterTraces, MAX_TRACES_PER_REQUEST, type BlockArg, type TraceFilter } from './namespaces/trace.js'
import { remoteRawTransaction } from './namespaces/eth/rawTransactions.js'

/** What a route decided: undefined (answer locally), or the remote's answer. */
type Route = (ctx: RouteContext, args: unknown[], raw: unknown[]) => Promise<unknown | typeof LOCAL>

interface RouteContext {
  node: RskNode
  fork: ForkPoint
  method: string
}

/** A route's "answer locally". */
export const LOCAL: unique symbol = Symbol('local')

const ask = (ctx: RouteContext, params: unknown[], method = ctx.method): Promise<unknown> => ctx.fork.remote.request(method, params, { cache: true })

/** The number a selector means on this chain, or undefined for a hash this chain does not have (yet). */
function numberOf(node: RskNode, sel: BlockSelector | undefined): bigint | undefined {
  const store = node.chain.store
  if (sel === undefined) return store.headNumber
  if (sel.kind === 'number') return sel.number
  if (sel.kind === 'tag') {
    if (sel.tag === 'earliest') return 0n
    // Other tags (safe, finalized) are refused by the local handlers, as RSKj refuses them.
    return sel.tag === 'latest' || sel.tag === 'pending' ? store.headNumber : undefined
  }
  return store.getByHash(bytesToHex(sel.hash))?.number
}

/** The number of a block hash on the remote at or below the forked block; undefined when it is not there. */
async function remoteNumberOfHash(ctx: RouteContext, hash: string): Promise<bigint | undefined> {
  const b = (await ask(ctx, [hash, false], 'eth_getBlockByHash')) as { number?: string } | null
  if (b === null || typeof b?.number !== 'string') return undefined
  const n = BigInt(b.number)
  return n <= ctx.fork.number ? n : undefined
}

/** The number of the block the remote mined a transaction in, when at or below the forked block. */
async function remoteTxBlock(ctx: RouteContext, hash: string): Promise<bigint | undefined> {
  const t = (await ask(ctx, [hash], 'eth_getTransactionByHash')) as { blockNumber?: string | null } | null
  if (t === null || typeof t?.blockNumber !== 'string') return undefined
  const n = BigInt(t.blockNumber)
  return n <= ctx.fork.number ? n : undefined
}

const withParam = (raw: unknown[], i: number, v: unknown): unknown[] => {
  const out = raw.slice()
  out[i] = v
  return out
}

/**
 * Block methods by number (`i`: the selector's position): the forked block and below are the remote's. With
 * `pendingBlock`, `pending` is the pending block rsksim builds (the block after the head: its own, even right at the
 * fork), for the methods that answer with that block (trace_block, debug_traceBlockByNumber, …RawBlockHeaderByNumber).
 */
const byNumber =
  (i: number, pendingBlock = false): Route =>
  async (ctx, args, raw) => {
    const sel = args[i] as BlockSelector
    if (pendingBlock && sel.kind === 'tag' && sel.tag === 'pending') return LOCAL
    const n = numberOf(ctx.node, sel)
    if (n === undefined || n > ctx.fork.number) return LOCAL
    return ask(ctx, withParam(raw, i, hexNumber(n)))
  }

/** Block methods by hash: a hash rsksim did not mine is the remote's, if the remote has it at or below the fork. */
const byHash =
  (i: number): Route =>
  async (ctx, _args, raw) => {
    const hash = String(raw[i]).toLowerCase()
    const local = ctx.node.chain.store.getByHash(hash)
    if (local !== undefined && local !== ctx.node.chain.store.first) return LOCAL
    if ((await remoteNumberOfHash(ctx, hash)) === undefined) return LOCAL
    return ask(ctx, raw)
  }

/**
 * State reads and calls at a block (`i`: the selector's position): below the forked block they are the remote's.
 * At the forked block and above they run here, over the remote's state read lazily (ForkState).
 */
const atState =
  (i: number, proof = false): Route =>
  async (ctx, args, raw) => {
    const sel = args[i] as BlockSelector | undefined
    let n = numberOf(ctx.node, sel)
    // A proof at `pending` is of the block after the head: rsksim's own, even right at the fork.
    if (proof && sel?.kind === 'tag' && sel.tag === 'pending') n = ctx.node.chain.store.headNumber + 1n
    if (n === undefined && sel?.kind === 'hash') n = await remoteNumberOfHash(ctx, bytesToHex(sel.hash))
    if (n === undefined) return LOCAL
    if (n < ctx.fork.number || (proof && n === ctx.fork.number)) return ask(ctx, withParam(raw, i, hexNumber(n)))
    if (proof) {
      throw new RpcError(
        ErrorCode.Internal,
        `${ctx.method} on a fork answers for blocks up to the forked block ${ctx.fork.number} (from the remote): the trie of rsksim's own blocks holds only their local changes, not the whole state`,
      )
    }
    return LOCAL
  }

/** Transaction methods by hash: a transaction rsksim does not know is the remote's, if mined at or below the fork. */
const byTx =
  (i: number): Route =>
  async (ctx, _args, raw) => {
    const hash = String(raw[i]).toLowerCase()
    if (ctx.node.chain.store.getTx(hash) !== undefined || ctx.node.pool.has(hash)) return LOCAL
    if ((await remoteTxBlock(ctx, hash)) === undefined) return LOCAL
    return ask(ctx, raw)
  }

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
    const hash = bytesToHex(f.blockHash)
    const local = node.chain.store.getByHash(hash)
    if (local !== undefined && local !== node.chain.store.first) return LOCAL
    const n = await remoteNumberOfHash(ctx, hash)
    return n === undefined ? undefined : { from: n, to: n, overRange: false, local: false }
  }
  const from = numberOf(node, f.fromBlock) ?? node.chain.store.headNumber + 1n
  const to = numberOf(node, f.toBlock) ?? node.chain.store.headNumber + 1n
  if (from > fork.number || from > to) return LOCAL
  const overRange = overBlockRange(node, to - from + 1n)
  return { from, to: to < fork.number ? to : fork.number, overRange, local: to > fork.number }
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
const logs: Route = (ctx, args, raw) => logsOnFork(ctx, args[0] as FilterObject, raw[0] as object)

/** eth_getFilterLogs of a log filter: what eth_getLogs answers for its criteria, each log with `removed: false`. */
const filterLogs: Route = async (ctx, args) => {
  const f = logFilterObject(ctx.node, args[0] as bigint)
  if (f === undefined) return LOCAL
  const all = await logsOnFork(ctx, f, filterJson(f))
  return all === LOCAL ? LOCAL : asFilterResults(all, false)
}

/**
 * eth_newFilter whose range starts at or below the forked block: the filter keeps that part of its range, and its
 * first eth_getFilterChanges asks the remote for the matches there (below) and reports them before rsksim's own.
 */
const newFilter: Route = async (ctx, args) => {
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
 * eth_getFilterChanges of a log filter whose remote history is unreported: the remote is asked for it first, and
 * the poll that takes that part of the history reports it (a concurrent poll that took it first has).
 */
const filterChangesRoute: Route = async (ctx, args) => {
  const id = args[0] as bigint
  const range = filtersOf(ctx.node).remoteHistory(id)
  const f = logFilterObject(ctx.node, id)
  if (range === undefined || f === undefined) return LOCAL
  let logs: object[]
  try {
    logs = await askLogs(ctx, filterJson(f), { ...range, overRange: overBlockRange(ctx.node, range.to - range.from + 1n) })
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
  return filterChanges(ctx.node, id, logs)
}

/** A trace_filter bound as a number on this chain: undefined for a hash neither chain has at or below the fork. */
async function traceBound(ctx: RouteContext, arg: BlockArg): Promise<bigint | undefined> {
  if (arg.kind === 'number') return arg.number
  // `pending` is the pending block, after the head (trace.ts `filterTraces`): rsksim's own, even right at the fork.
  if (arg.kind === 'tag') return arg.tag === 'earliest' ? 0n : ctx.node.chain.store.headNumber + (arg.tag === 'pending' ? 1n : 0n)
  return ctx.node.chain.store.getByHash(arg.hash)?.number ?? (await remoteNumberOfHash(ctx, arg.hash))
}

/**
 * trace_filter over a range that starts at or below the forked block: the remote traces its part, rsksim its own
 * blocks, and `after` and `count` page through the two joined in block order. The remote is asked for its first
 * `after + count` traces (in pages of at most `MAX_TRACES_PER_REQUEST`, its own cap); rsksim's part runs in the
 * node's queue under the request deadline, as the method does without a fork.
 */
const traceFilterRoute: Route = async (ctx, args, raw) => {
  const f = args[0] as TraceFilter
  const { node, fork } = ctx
  const from = await traceBound(ctx, f.fromBlock)
  if (from === undefined || from > fork.number) return LOCAL
  const to = (await traceBound(ctx, f.toBlock)) ?? node.chain.store.headNumber
  if (from > to) throw invalidParams('fromBlock cannot be greater than toBlock')
  if (f.count === 0) return []
  const wanted = f.after + f.count
  const remote: object[] = []
  for (let skip = 0; skip < wanted; skip += MAX_TRACES_PER_REQUEST) {
    const count = Math.min(MAX_TRACES_PER_REQUEST, wanted - skip)
    const query = { ...(raw[0] as object), fromBlock: hexNumber(from), toBlock: hexNumber(to < fork.number ? to : fork.number), after: skip, count }
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
  const own = await node.queue.run(() => node.chain.guard.within(node.options.rpcTimeout, () => filterTraces({ node }, local)))
  return [...out, ...own]
}

/**
 * eth_getBlocksByNumber below the forked block: the remote's block at that height, from its eth_getBlockByNumber
 * (which every kind of remote answers), as the one main-chain entry rsksim answers for its own heights.
 */
const blocksByNumber: Route = async (ctx, args) => {
  const n = args[0] as bigint
  if (n < 0n || n >= ctx.fork.number) return LOCAL
  const b = (await ask(ctx, [hexNumber(n), false], 'eth_getBlockByNumber')) as { hash?: unknown; totalDifficulty?: unknown } | null
  if (b === null || typeof b.hash !== 'string') return []
  return [{ hash: b.hash, totalDifficulty: b.totalDifficulty, inMainChain: true }]
}

/**
 * eth_getBlockReceipts (an extension) of the forked block or one below it: built from the remote's block
 * (eth_getBlockByNumber/ByHash) and its eth_getTransactionReceipt of each of the block's transactions, asked together
 * (one batch), so each receipt is the one eth_getTransactionReceipt answers here for that transaction. Every kind of
 * remote answers those two; an RSKj remote has no eth_getBlockReceipts (its -32601 would be the answer). `pending` is
 * left to the local handler, which refuses it.
 */
const blockReceipts: Route = async (ctx, args) => {
  const sel = args[0] as BlockSelector
  if (sel.kind === 'tag' && sel.tag === 'pending') return LOCAL
  const block = await remoteBlock(ctx, sel)
  if (block === LOCAL) return LOCAL
  const hashes = (block as { transactions?: unknown } | null)?.transactions
  if (!Array.isArray(hashes)) return null
  return Promise.all(hashes.map((h) => ask(ctx, [h], 'eth_getTransactionReceipt')))
}

/**
 * The remote's block (`eth_getBlockByNumber`/`ByHash`, transactions as hashes) that `sel` names when it is the forked
 * block or one below it; LOCAL for rsksim's own blocks (and a hash neither has).
 */
async function remoteBlock(ctx: RouteContext, sel: BlockSelector | { kind: 'hash'; hash: Uint8Array }): Promise<unknown> {
  if (sel.kind === 'hash') {
    const hash = bytesToHex(sel.hash)
    const local = ctx.node.chain.store.getByHash(hash)
    if (local !== undefined && local !== ctx.node.chain.store.first) return LOCAL
    if ((await remoteNumberOfHash(ctx, hash)) === undefined) return LOCAL
    return ask(ctx, [hash, false], 'eth_getBlockByHash')
  }
  const n = numberOf(ctx.node, sel)
  if (n === undefined || n > ctx.fork.number) return LOCAL
  return ask(ctx, [hexNumber(n), false], 'eth_getBlockByNumber')
}

/** Otterscan's methods (an extension) on a fork: docs/forking.md#otterscan. */
const OTS_REMOTE = (ctx: RouteContext, what: string): RpcError =>
  invalidParams(
    `${ctx.method} answers for rsksim's own blocks, above the forked block ${ctx.fork.number}; ${what} is the remote's (RSKj has no ots_* methods): ask eth_getBlockByNumber, eth_getTransactionReceipt or trace_transaction, which a fork answers from the remote`,
  )

/** ots_* of one transaction: a transaction the remote mined at or below the forked block is refused (above). */
const otsTx: Route = async (ctx, _args, raw) => {
  const hash = String(raw[0]).toLowerCase()
  if (ctx.node.chain.store.getTx(hash) !== undefined) return LOCAL
  if ((await remoteTxBlock(ctx, hash)) === undefined) return LOCAL
  throw OTS_REMOTE(ctx, `transaction ${hash}`)
}

/**
 * ots_getBlockDetails(ByHash) of the forked block or one below it: the remote's block (eth_getBlockByNumber/ByHash,
 * which every RSK remote answers) shaped as rsksim shapes its own: no transaction list but their count, no issuance,
 * and `totalFees` the block's `paidFees` (what its senders paid, as rsksim sums it for its own blocks).
 */
const otsBlockDetails =
  (byHash: boolean): Route =>
  async (ctx, args) => {
    const block = await remoteBlock(ctx, byHash ? { kind: 'hash', hash: args[0] as Uint8Array } : (args[0] as BlockSelector))
    if (block === LOCAL) return LOCAL
    if (block === null || typeof block !== 'object') return null
    const { transactions, ...rest } = block as { transactions?: unknown; paidFees?: unknown }
    return {
      block: { ...rest, transactionCount: Array.isArray(transactions) ? transactions.length : 0 },
      issuance: { blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' },
      totalFees: typeof rest.paidFees === 'string' ? rest.paidFees : '0x0',
    }
  }

/** ots_getBlockTransactions of the forked block or one below it: refused (above). */
const otsBlockTransactions: Route = async (ctx, args) => {
  const n = BigInt(args[0] as number)
  if (n > ctx.fork.number) return LOCAL
  throw OTS_REMOTE(ctx, `block ${n}`)
}

/** ots_hasCode below the forked block: the remote's eth_getCode there, as eth_getCode is routed. */
const otsHasCode: Route = async (ctx, args, raw) => {
  const sel = args[1] as BlockSelector | undefined
  let n = numberOf(ctx.node, sel)
  if (n === undefined && sel?.kind === 'hash') n = await remoteNumberOfHash(ctx, bytesToHex(sel.hash))
  if (n === undefined || n >= ctx.fork.number) return LOCAL
  const code = await ask(ctx, [raw[0], hexNumber(n)], 'eth_getCode')
  return typeof code === 'string' && code.length > 2
}

/** erigon_getHeaderByNumber at or below the forked block: the remote's eth_getBlockByNumber(n, false). */
const erigonHeader: Route = async (ctx, args) => {
  const sel = args[0] as BlockSelector
  return sel.kind === 'hash' ? LOCAL : remoteBlock(ctx, sel)
}

/**
 * eth_getAccountInfo (an extension) below the forked block: the remote's eth_getBalance, eth_getTransactionCount and
 * eth_getCode there, which every remote answers (an RSKj remote has no eth_getAccountInfo).
 */
const accountInfo: Route = async (ctx, args, raw) => {
  const sel = args[1] as BlockSelector | undefined
  let n = numberOf(ctx.node, sel)
  if (n === undefined && sel?.kind === 'hash') n = await remoteNumberOfHash(ctx, bytesToHex(sel.hash))
  if (n === undefined || n >= ctx.fork.number) return LOCAL
  const params = [raw[0], hexNumber(n)]
  const [balance, nonce, code] = await Promise.all([ask(ctx, params, 'eth_getBalance'), ask(ctx, params, 'eth_getTransactionCount'), ask(ctx, params, 'eth_getCode')])
  return { balance, nonce, code }
}

/**
 * The raw-transaction extensions for a transaction the remote mined at or below the forked block: rebuilt from the
 * remote's eth_getTransactionBy* answer (`remoteRawTransaction`; an RSKj remote has no raw-transaction method).
 */
const rawByTx: Route = async (ctx, _args, raw) => {
  const hash = String(raw[0]).toLowerCase()
  if (ctx.node.chain.store.getTx(hash) !== undefined || ctx.node.pool.has(hash)) return LOCAL
  const t = (await ask(ctx, [hash], 'eth_getTransactionByHash')) as { blockNumber?: unknown } | null
  if (t === null || typeof t?.blockNumber !== 'string' || BigInt(t.blockNumber) > ctx.fork.number) return LOCAL
  return remoteRawTransaction(t)
}

const rawByBlockNumber: Route = async (ctx, args, raw) => {
  const sel = args[0] as BlockSelector
  const n = sel.kind === 'tag' && sel.tag === 'pending' ? undefined : numberOf(ctx.node, sel)
  if (n === undefined || n > ctx.fork.number) return LOCAL
  return remoteRawTransaction(await ask(ctx, [hexNumber(n), raw[1]], 'eth_getTransactionByBlockNumberAndIndex'))
}

const rawByBlockHash: Route = async (ctx, _args, raw) => {
  const hash = String(raw[0]).toLowerCase()
  const local = ctx.node.chain.store.getByHash(hash)
  if (local !== undefined && local !== ctx.node.chain.store.first) return LOCAL
  if ((await remoteNumberOfHash(ctx, hash)) === undefined) return LOCAL
  return remoteRawTransaction(await ask(ctx, raw, 'eth_getTransactionByBlockHashAndIndex'))
}

const ROUTES: Record<string, Route> = {
  eth_getBlockByNumber: byNumber(0),
  eth_getBlockTransactionCountByNumber: byNumber(0),
  eth_getUncleCountByBlockNumber: byNumber(0),
  eth_getTransactionByBlockNumberAndIndex: byNumber(0),
  eth_getUncleByBlockNumberAndIndex: byNumber(0),
  debug_traceBlockByNumber: byNumber(0, true),
  trace_block: byNumber(0, true),
  // Replays of the remote's blocks are the remote's (an RSKj remote has none: its -32601 is the answer); `pending` is
  // refused here.
  trace_replayBlockTransactions: byNumber(0, true),
  chain_getRawBlockHeaderByNumber: byNumber(0, true),
  rsk_getRawBlockHeaderByNumber: byNumber(0, true),
  eth_getBlockByHash: byHash(0),
  eth_getBlockTransactionCountByHash: byHash(0),
  eth_getUncleCountByBlockHash: byHash(0),
  eth_getTransactionByBlockHashAndIndex: byHash(0),
  eth_getUncleByBlockHashAndIndex: byHash(0),
  debug_traceBlockByHash: byHash(0),
  chain_getRawBlockHeaderByHash: byHash(0),
  rsk_getRawBlockHeaderByHash: byHash(0),
  chain_getTransactionReceiptNodesByHash: byHash(0),
  rsk_getTransactionReceiptNodesByHash: byHash(0),
  eth_getBalance: atState(1),
  eth_getTransactionCount: atState(1),
  eth_getCode: atState(1),
  eth_getStorageAt: atState(2),
  eth_call: atState(1),
  eth_estimateGas: atState(1),
  // A call traced below the forked block runs on the remote, as eth_call there (an RSKj remote has no such method:
  // its own -32601 is the answer).
  debug_traceCall: atState(1),
  // The same for the extensions run as eth_call runs (RSKj has neither: an RSKj remote answers -32601).
  eth_createAccessList: atState(1),
  eth_simulateV1: atState(1),
  eth_getProof: atState(2, true),
  // geth's eth_getAccount is a proof's account leaf: the remote's at or below the forked block, as eth_getProof.
  eth_getAccount: atState(1, true),
  eth_getAccountInfo: accountInfo,
  eth_getRawTransactionByHash: rawByTx,
  debug_getRawTransaction: rawByTx,
  eth_getRawTransactionByBlockNumberAndIndex: rawByBlockNumber,
  eth_getRawTransactionByBlockHashAndIndex: rawByBlockHash,
  eth_getTransactionByHash: byTx(0),
  eth_getTransactionReceipt: byTx(0),
  debug_traceTransaction: byTx(0),
  trace_transaction: byTx(0),
  trace_replayTransaction: byTx(0),
  trace_get: byTx(0),
  chain_getRawTransactionReceiptByHash: byTx(0),
  rsk_getRawTransactionReceiptByHash: byTx(0),
  eth_getBlockReceipts: blockReceipts,
  eth_getLogs: logs,
  trace_filter: traceFilterRoute,
  eth_getBlocksByNumber: blocksByNumber,
  eth_getFilterLogs: filterLogs,
  eth_newFilter: newFilter,
  eth_getFilterChanges: filterChangesRoute,
  ots_getInternalOperations: otsTx,
  ots_traceTransaction: otsTx,
  ots_getTransactionError: otsTx,
  ots_getBlockDetails: otsBlockDetails(false),
  ots_getBlockDetailsByHash: otsBlockDetails(true),
  ots_getBlockTransactions: otsBlockTransactions,
  ots_hasCode: otsHasCode,
  erigon_getHeaderByNumber: erigonHeader,
  // The Bridge's state has no block parameter: the forked network's, as it is now.
  eth_bridgeState: (ctx, _args, raw) => ask(ctx, raw),
}

/**
 * The remote's answer to a request about its history, or LOCAL. `args`: the decoded params (selectors parsed),
 * `raw`: the params as sent.
 */
export async function routeToFork(node: RskNode, fork: ForkPoint, method: string, args: unknown[], raw: unknown): Promise<unknown> {
  const route = Object.hasOwn(ROUTES, method) ? ROUTES[method] : undefined
  if (route === undefined) return LOCAL
  try {
    return await route({ node, fork, method }, args, Array.isArray(raw) ? raw : [])
  } catch (e) {
    // The remote's own JSON-RPC error is the answer, as the remote gave it (a block it refuses, a revert).
    if (e instanceof RemoteFailed && e.code !== undefined && e.remoteMessage !== undefined) {
      throw new RpcError(e.code, e.remoteMessage, typeof e.data === 'string' ? { data: e.data, cause: e } : { cause: e })
    }
    throw e
  }
}
