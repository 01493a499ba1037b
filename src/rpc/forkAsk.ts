/**
 * What every fork route (forkRoute.ts, forkLogs.ts, forkExtensions.ts) is made of: the context a route runs in, its
 * "answer locally", the remote asked with its cache, and the lookups that say whether a block or a transaction is the
 * remote's (at or below the forked block) or rsksim's own.
 */
import { bytesToHex } from '@ethereumjs/util'
import { ErrorCode, RpcError } from '../errors.js'
import { RemoteFailed } from '../node/errors.js'
import type { RskNode } from '../node/node.js'
import { isResponseTooLarge } from '../node/fork/remote.js'
import { ExecutionTimeout } from '../node/exec/guard.js'
import type { ForkPoint } from '../node/fork/fork.js'
import { hexNumber } from '../node/fork/fork.js'
import type { BlockSelector } from './codecs/block.js'

/** What a route decided: undefined (answer locally), or the remote's answer. */
export type Route = (ctx: RouteContext, args: unknown[], raw: unknown[]) => Promise<unknown | typeof LOCAL>

/** How a route that decided for the remote asks it, with the params it was sent (a block tag made a number). */
export type Answer = (ctx: RouteContext, params: unknown[]) => Promise<unknown>

export interface RouteContext {
  node: RskNode
  fork: ForkPoint
  method: string
  /**
   * When the request's time is up (ms since the epoch; undefined: `rpcTimeout` 0, none): `rpcTimeout` after dispatch
   * handed the request to its route (src/rpc/dispatch.ts `invoke`), as a local request's deadline runs from when it
   * leaves the queue.
   */
  deadline?: number
}

/**
 * The time a request has left before `deadline` (`RouteContext.deadline`), as `guard.within` takes it: 0 (no limit) when
 * there is none, else at least 1 ms, so that a request past its time still fails by the deadline rather than running
 * without one.
 */
export const timeLeft = (deadline: number | undefined): number => (deadline === undefined ? 0 : Math.max(1, deadline - Date.now()))

/** A block hash as the routes of the methods that take only a hash (ots_getBlockDetailsByHash) give it. */
export type HashSelector = { kind: 'hash'; hash: Uint8Array }

/** A route's "answer locally". */
export const LOCAL: unique symbol = Symbol('local')

export const ask = (ctx: RouteContext, params: unknown[], method = ctx.method): Promise<unknown> => inTime(ctx, ctx.fork.remote.request(method, params, { cache: true }))

/**
 * `pending`, a remote call of a route, waited for no longer than the request's deadline: past it the request fails
 * with `ExecutionTimeout` (RSKj's -32011 `Execution has got timeout out.`, as a local request past `rpcTimeout` and a
 * state read inside one answer, src/node/exec/guard.ts `wait`). The call goes on: what it brings is kept in the fork
 * cache for the next request, and a failure of it is nobody's (Promise.race handles it).
 */
export function inTime<T>(ctx: RouteContext, pending: Promise<T>): Promise<T> {
  if (ctx.deadline === undefined) return pending
  const left = ctx.deadline - Date.now()
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ExecutionTimeout()), Math.max(0, left))
  })
  return Promise.race([pending, late]).finally(() => clearTimeout(timer))
}

/**
 * Whether `e` is the remote's refusal of a call as over its response size limit: RSKj `rpc.maxResponseSize` (10 MiB),
 * -32011 `Response size limit of N bytes exceeded` (`JsonResponseSizeLimiter`, `JsonRpcResponseLimitError`).
 */
export function isRemoteTooLarge(e: unknown): e is RemoteFailed & { remoteMessage: string } {
  return e instanceof RemoteFailed && e.remoteMessage !== undefined && isResponseTooLarge({ code: e.code, message: e.remoteMessage })
}

/**
 * The -32011 answered for a request whose remote call the remote refused as over its response size limit
 * (`isRemoteTooLarge`), the same for every route: what was asked (`asked`), where a fork takes its answer from
 * (`from`), the call the remote refused and the remote's text, so that it does not read as rsksim's own limit; `more`
 * says why nothing else can answer, where a route knows. The request's envelope and id are kept (an RpcError, not
 * RSKj's bare request-level error): rsksim's own reply is not too large.
 */
export function remoteTooLarge(e: RemoteFailed & { remoteMessage: string }, asked: string, from: string, more?: string): RpcError {
  return new RpcError(
    ErrorCode.Timeout,
    `${asked} on a fork ${from}: the remote refuses its ${e.method} as over the remote's response size limit (${e.remoteMessage})${more === undefined ? '' : `; ${more}`}`,
    { cause: e },
  )
}

/**
 * The number of the block a selector names on this chain, or undefined for a hash this chain does not have (yet).
 * `pending` is the pending block, the one after the head: rsksim's own, built from its pool, even right at the fork
 * (as Anvil's fork answers it; the remote's pending block is of another chain), so every route leaves it
 * to the local handlers.
 */
export function numberOf(node: RskNode, sel: BlockSelector | undefined): bigint | undefined {
  const store = node.chain.store
  if (sel === undefined) return store.headNumber
  if (sel.kind === 'number') return sel.number
  if (sel.kind === 'tag') {
    if (sel.tag === 'earliest') return 0n
    if (sel.tag === 'pending') return store.headNumber + 1n
    // Other tags (safe, finalized) are refused by the local handlers, as RSKj refuses them.
    return sel.tag === 'latest' ? store.headNumber : undefined
  }
  return store.getByHash(bytesToHex(sel.hash))?.number
}

/**
 * The number of the block `sel` names: on this chain (`numberOf`), or, for a hash this chain does not have, on the
 * remote at or below the forked block; undefined when neither has it.
 */
export async function blockNumberOf(ctx: RouteContext, sel: BlockSelector | undefined): Promise<bigint | undefined> {
  const n = numberOf(ctx.node, sel)
  return n === undefined && sel?.kind === 'hash' ? (await remoteBlockAtOrBelowFork(ctx, bytesToHex(sel.hash)))?.number : n
}

/** The number of the forked block or one below it that `sel` names; LOCAL for rsksim's own blocks, `pending` among them. */
function remoteNumber(ctx: RouteContext, sel: BlockSelector): bigint | typeof LOCAL {
  const n = numberOf(ctx.node, sel)
  // A negative number (trace_block reads `0x-1` as RSKj does, trace.ts `javaHexLong`) names no block: rsksim answers.
  return n === undefined || n < 0n || n > ctx.fork.number ? LOCAL : n
}

/**
 * The block `sel` names as the remote is asked for it, its hash or its number (hex), when it is the forked block or
 * one below it (`isRemoteBlock`, `remoteNumber`); LOCAL for rsksim's own blocks, `pending` among them.
 */
export async function remoteBlockParam(ctx: RouteContext, sel: BlockSelector | HashSelector): Promise<string | typeof LOCAL> {
  if (sel.kind === 'hash') {
    const hash = bytesToHex(sel.hash)
    return (await isRemoteBlock(ctx, hash)) ? hash : LOCAL
  }
  const n = remoteNumber(ctx, sel)
  return n === LOCAL ? LOCAL : hexNumber(n)
}

/** The remote's block of `hash` (transactions as hashes) with its number, when at or below the forked block. */
async function remoteBlockAtOrBelowFork(ctx: RouteContext, hash: string): Promise<{ number: bigint; block: object } | undefined> {
  const b = (await ask(ctx, [hash, false], 'eth_getBlockByHash')) as { number?: string } | null
  if (b === null || typeof b?.number !== 'string') return undefined
  const n = BigInt(b.number)
  return n <= ctx.fork.number ? { number: n, block: b } : undefined
}

/**
 * Whose block `hash` is: LOCAL for one rsksim mined (the forked block, the remote's, is not); else the remote's block
 * and number when the remote has it at or below the forked block, or undefined when neither chain has it.
 */
export async function remoteBlockOfHash(ctx: RouteContext, hash: string): Promise<{ number: bigint; block: object } | undefined | typeof LOCAL> {
  const local = ctx.node.chain.store.getByHash(hash)
  if (local !== undefined && local !== ctx.node.chain.store.first) return LOCAL
  return remoteBlockAtOrBelowFork(ctx, hash)
}

/** Whether `hash` is the remote's block at or below the forked block (`remoteBlockOfHash`), not rsksim's nor unknown. */
export async function isRemoteBlock(ctx: RouteContext, hash: string): Promise<boolean> {
  const remote = await remoteBlockOfHash(ctx, hash)
  return remote !== LOCAL && remote !== undefined
}

/**
 * Whose transaction `hash` is: the remote's (its eth_getTransactionByHash answer) when the remote mined it at or below
 * the forked block and rsksim has it neither mined nor waiting; LOCAL otherwise.
 */
async function remoteTransaction(ctx: RouteContext, hash: string): Promise<object | typeof LOCAL> {
  if (ctx.node.chain.store.getTx(hash) !== undefined || ctx.node.pool.has(hash)) return LOCAL
  const t = (await ask(ctx, [hash], 'eth_getTransactionByHash')) as { blockNumber?: string | null } | null
  if (t === null || typeof t?.blockNumber !== 'string' || BigInt(t.blockNumber) > ctx.fork.number) return LOCAL
  return t
}

/**
 * A route of the methods of a transaction hash (the first param): `answer`, given the hash (lowercase) and the remote's
 * eth_getTransactionByHash answer, for a transaction the remote mined at or below the forked block
 * (`remoteTransaction`); LOCAL for the others.
 */
export const ofRemoteTx =
  (answer: (ctx: RouteContext, hash: string, tx: object, raw: unknown[]) => Promise<unknown>): Route =>
  async (ctx, args, raw) => {
    // The decoded hash where the method has one: trace_transaction, trace_get and debug_traceTransaction read any hex
    // as RSKj does (trace.ts `hashText`), so text that is not 32 bytes names no transaction, here or on the remote.
    const given = args[0]
    if (given instanceof Uint8Array && given.length !== 32) return LOCAL
    const hash = hashParam(given, raw)
    const tx = await remoteTransaction(ctx, hash)
    return tx === LOCAL ? LOCAL : answer(ctx, hash, tx, raw)
  }

/**
 * The hash a method of a block or transaction hash (the first param) names, as the remote is asked for it: the decoded
 * bytes as `0x` hex where the codec gives bytes (it reads some malformed text as RSKj does), else the text as sent,
 * lowercase.
 */
export const hashParam = (given: unknown, raw: unknown[]): string => (given instanceof Uint8Array ? bytesToHex(given) : String(raw[0]).toLowerCase())

export const withParam = (raw: unknown[], i: number, v: unknown): unknown[] => {
  const out = raw.slice()
  out[i] = v
  return out
}

/**
 * The remote's block (`eth_getBlockByNumber`/`ByHash`, cached; transactions as hashes, or whole with
 * `fullTransactions`) that `sel` names when it is the forked block or one below it (`remoteNumber`); LOCAL for
 * rsksim's own blocks (`pending` among them) and a hash neither has.
 */
export async function remoteBlock(ctx: RouteContext, sel: BlockSelector | HashSelector, fullTransactions = false): Promise<unknown> {
  // By hash, without the transactions, the call `remoteBlockParam` made to see whose the block is: answered from the cache.
  const block = await remoteBlockParam(ctx, sel)
  return block === LOCAL ? LOCAL : ask(ctx, [block, fullTransactions], sel.kind === 'hash' ? 'eth_getBlockByHash' : 'eth_getBlockByNumber')
}

