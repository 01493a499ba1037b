/**
 * The fork's remote: a JSON-RPC client for the live node whose state a fork reads lazily.
 *
 * - Calls made in one macrotask turn go out together (collected with setImmediate) as JSON-RPC batches of at most
 *   `batchSize` calls (RSKj refuses batches over `max_batch_requests_size`, 50); a single call goes as a plain object.
 *   A batch refused as too large (HTTP 400/413, or RSKj's bare -32600 "… is the max number of supported batch
 *   requests") is halved for this client and sent again in smaller pieces, down to one call. A batch whose reply RSKj
 *   refuses as over its response size limit (one bare -32011 for all) is sent again one call at a time.
 * - Identical calls (method and JSON params) in flight share one promise; with `cache: true` and a ForkCache attached
 *   (cache.ts) answers are looked up there first and kept there after success, so the next run asks nothing.
 * - Rate limits (HTTP 429, JSON-RPC -32005 or "rate limit"/"too many requests"), HTTP 5xx, timeouts and network
 *   errors are retried with exponential backoff (Retry-After honoured); anything else fails the call at once.
 * - Hosted services carry the API key in the URL's path: only the redacted URL (`url`) ever appears in a message, and
 *   every message built from something the remote or the network said is scrubbed of the key and header values.
 */
import type { Agent } from 'node:http'
import { MAX_REPLY_BYTES, httpPost, remoteAgent } from './httpPost.js'
import { RemoteFailed } from '../errors.js'
import type { ForkCache } from './cache.js'
import { stringifyJson } from '../integerJson.js'

/** How a RemoteNode reaches its remote. */
export interface RemoteOptions {
  /** http(s) URL; the hosted service puts the API key in the path: https://rpc.testnet.rootstock.io/<key>. */
  url: string
  /** Extra HTTP headers (auth). Their values never appear in a message. */
  headers?: Record<string, string>
  /** Retries after the first attempt, for HTTP 429, 5xx, timeouts and network errors. Default 5. */
  retries?: number
  /** Milliseconds per HTTP attempt. Default 30_000. */
  timeout?: number
  /** Milliseconds before the first retry, doubled each retry, capped at 8_000. Default 250. */
  backoff?: number
  /** Most calls per HTTP request. Default 50 (RSKj's `max_batch_requests_size`). */
  batchSize?: number
  /** Largest reply body taken; a larger one fails its calls at once. Default 128 MiB (httpPost.ts). */
  maxReplyBytes?: number
  /** Where answers of `cache: true` calls are kept; may also be set later with `useCache`. */
  cache?: ForkCache
}

/** The wait before the first retry (then doubled each time); also what anvil_nodeInfo reports as `forkRetryBackoff`. */
export const FORK_FIRST_BACKOFF_MS = 250
const DEFAULTS = { retries: 5, timeout: 30_000, backoff: FORK_FIRST_BACKOFF_MS, batchSize: 50 }
/** The longest wait between two attempts, whatever the backoff or a Retry-After header says. */
const MAX_DELAY = 8_000

/** One call waiting for its answer. */
interface Call {
  readonly method: string
  readonly params: unknown[]
  /** `${method}${stringifyJson(params)}` (a bigint as its digits): the dedupe and cache key. */
  readonly key: string
  /** Keep the answer in the cache (true if any of the deduped callers asked for it). */
  cache: boolean
  settled: boolean
  readonly resolve: (value: unknown) => void
  readonly reject: (error: RemoteFailed) => void
}

interface RpcErrorObject {
  code: number
  message: string
  data?: unknown
}

interface Reply {
  id?: unknown
  result?: unknown
  error?: RpcErrorObject
}

/** What one HTTP attempt left to do. */
type Outcome =
  | { kind: 'done' }
  | { kind: 'split' }
  | { kind: 'alone' }
  | { kind: 'retry'; calls: Call[]; cause: string; retryAfter?: number }

/**
 * A JSON-RPC client for a fork's remote node.
 *
 * @example
 * ```ts
 * const remote = new RemoteNode({ url: 'https://rpc.testnet.rootstock.io/<key>', cache: ForkCache.open(dir, key) })
 * const [balance, code] = await Promise.all([
 *   remote.request<string>('eth_getBalance', [address, '0x5a2f10'], { cache: true }),
 *   remote.request<string>('eth_getCode', [address, '0x5a2f10'], { cache: true }),
 * ]) // one HTTP request carrying a 2-call batch
 * remote.url // 'https://rpc.testnet.rootstock.io/***'
 * ```
 */
export class RemoteNode {
  /** The URL safe to print: no userinfo, no query values, no key-like path segment. */
  readonly url: string
  /** HTTP requests sent (each attempt counts), calls sent to the remote (each once), calls answered from the cache. */
  readonly stats = { httpRequests: 0, calls: 0, cacheHits: 0 }

  private readonly target: string
  private readonly headers: Record<string, string>
  private readonly secrets: string[]
  private readonly retries: number
  private readonly timeout: number
  private readonly maxReplyBytes: number
  private readonly backoff: number
  private batchSize: number
  private cache: ForkCache | undefined

  private queue: Call[] = []
  private scheduled: NodeJS.Immediate | undefined
  private readonly inflight = new Map<string, { call: Call; promise: Promise<unknown> }>()
  private readonly live = new Set<Call>()
  private readonly sleepers = new Set<() => void>()
  private readonly aborter = new AbortController()
  private readonly targetUrl: URL
  private readonly agent: Agent
  private closed = false

  constructor(options: RemoteOptions) {
    let parsed: URL
    try {
      parsed = new URL(options.url)
    } catch {
      throw new TypeError('the fork remote URL is not a valid URL')
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TypeError(`the fork remote URL must be http(s), not ${parsed.protocol}`)
    this.url = redactUrl(parsed.href)
    this.retries = count('retries', options.retries ?? DEFAULTS.retries, 0)
    this.timeout = count('timeout', options.timeout ?? DEFAULTS.timeout, 1)
    this.backoff = count('backoff', options.backoff ?? DEFAULTS.backoff, 0)
    this.batchSize = count('batchSize', options.batchSize ?? DEFAULTS.batchSize, 1)
    this.maxReplyBytes = count('maxReplyBytes', options.maxReplyBytes ?? MAX_REPLY_BYTES, 1)
    this.cache = options.cache

    this.headers = { 'content-type': 'application/json', ...options.headers }
    const secrets = [options.url, parsed.href, ...Object.values(options.headers ?? {})]
    // Credentials travel as Basic auth, never in the URL (which may be printed or logged), as a browser sends them.
    if (parsed.username !== '' || parsed.password !== '') {
      const user = decodeURIComponent(parsed.username)
      const password = decodeURIComponent(parsed.password)
      secrets.push(parsed.username, parsed.password, user, password)
      if (!Object.keys(this.headers).some((h) => h.toLowerCase() === 'authorization')) {
        this.headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
      }
      parsed.username = ''
      parsed.password = ''
    }
    this.target = parsed.href
    this.targetUrl = new URL(this.target)
    this.agent = remoteAgent(this.targetUrl)
    secrets.push(this.target, ...Object.values(this.headers).filter((v) => v !== 'application/json'))
    for (const segment of parsed.pathname.split('/')) if (looksLikeKey(segment)) secrets.push(segment, safeDecode(segment))
    for (const [name, value] of parsed.searchParams) secrets.push(name, value)
    for (const part of parsed.search.slice(1).split('&')) secrets.push(part, ...part.split('='))
    for (const value of [...secrets]) secrets.push(...value.split(/\s+/))
    this.secrets = [...new Set(secrets.filter((s) => s.length >= 4))].sort((a, b) => b.length - a.length)
  }

  /** Attaches (or, with `undefined`, detaches) the cache that `cache: true` calls read and fill. */
  useCache(cache: ForkCache | undefined): void {
    this.cache = cache
  }

  /**
   * One JSON-RPC call; rejects with RemoteFailed. Calls made in the same macrotask turn are sent together; identical
   * calls in flight share one promise; with `cache: true` and a cache attached the answer is looked up under
   * `${method}${stringifyJson(params)}` first and kept there after success (null results too). Treat the result as
   * read-only: a cached answer is the very object kept in the cache. A bigint in `params` (a request's JSON integer no
   * double holds, src/rpc/requestJson.ts) is sent as the integer literal of its digits.
   *
   * @example
   * ```ts
   * const head = await remote.request<string>('eth_blockNumber', [])
   * const block = await remote.request('eth_getBlockByNumber', ['0x5a2f10', false], { cache: true })
   * ```
   */
  request<T = unknown>(method: string, params: unknown[], opts: { cache?: boolean } = {}): Promise<T> {
    if (this.closed) return Promise.reject(this.failure(method, params, 'client closed'))
    let key: string
    try {
      key = `${method}${stringifyJson(params)}`
    } catch (e) {
      return Promise.reject(new TypeError(`fork remote: the params of ${method} are not JSON (${describe(e)})`))
    }
    const wantCache = opts.cache === true
    if (wantCache && this.cache !== undefined) {
      const hit = this.cache.get(key)
      if (hit !== undefined) {
        this.stats.cacheHits++
        return Promise.resolve(hit as T)
      }
    }
    const shared = this.inflight.get(key)
    if (shared !== undefined) {
      if (wantCache) shared.call.cache = true
      return shared.promise as Promise<T>
    }
    let resolve!: (value: unknown) => void
    let reject!: (error: RemoteFailed) => void
    const promise = new Promise<unknown>((res, rej) => {
      resolve = res
      reject = rej
    })
    const call: Call = { method, params, key, cache: wantCache, settled: false, resolve, reject }
    this.inflight.set(key, { call, promise })
    this.live.add(call)
    this.queue.push(call)
    this.scheduled ??= setImmediate(this.dispatch)
    return promise as Promise<T>
  }

  /** Fails every pending and future call with RemoteFailed('… client closed'); cancels timers and HTTP requests. */
  close(): void {
    if (this.closed) return
    this.closed = true
    if (this.scheduled !== undefined) clearImmediate(this.scheduled)
    this.scheduled = undefined
    this.queue = []
    this.aborter.abort()
    this.agent.destroy()
    for (const wake of this.sleepers) wake()
    this.sleepers.clear()
    for (const call of [...this.live]) this.fail(call, 'client closed')
  }

  /** Sends the calls collected this turn, in batches of `batchSize`. */
  private readonly dispatch = (): void => {
    this.scheduled = undefined
    const calls = this.queue
    this.queue = []
    this.stats.calls += calls.length
    for (let i = 0; i < calls.length; i += this.batchSize) this.sendSafely(calls.slice(i, i + this.batchSize))
  }

  private sendSafely(calls: Call[]): void {
    this.send(calls).catch((e: unknown) => {
      for (const call of calls) this.fail(call, `internal error: ${this.scrub(describe(e))}`)
    })
  }

  /** Sends `calls` until each is settled: retrying what is transient, halving a batch the remote finds too large. */
  private async send(calls: Call[]): Promise<void> {
    let todo = calls
    for (let retry = 0; ; retry++) {
      if (this.closed) return
      const outcome = await this.attempt(todo)
      if (outcome.kind === 'done') return
      if (outcome.kind === 'alone') {
        await Promise.all(todo.map((call) => this.send([call])))
        return
      }
      if (outcome.kind === 'split') {
        this.batchSize = Math.min(this.batchSize, Math.max(1, Math.floor(todo.length / 2)))
        const pieces: Promise<void>[] = []
        for (let i = 0; i < todo.length; i += this.batchSize) pieces.push(this.send(todo.slice(i, i + this.batchSize)))
        await Promise.all(pieces)
        return
      }
      if (retry >= this.retries) {
        const attempts = retry + 1
        for (const call of outcome.calls) this.fail(call, `${outcome.cause} (gave up after ${attempts} attempt${attempts === 1 ? '' : 's'})`, { retryable: true })
        return
      }
      todo = outcome.calls
      await this.sleep(outcome.retryAfter ?? Math.min(this.backoff * 2 ** retry, MAX_DELAY))
    }
  }

  /** One HTTP request carrying `calls`; settles the calls it can and says what is left to do. */
  private async attempt(calls: Call[]): Promise<Outcome> {
    const single = calls.length === 1
    const envelopes = calls.map((c, i) => ({ jsonrpc: '2.0', id: i + 1, method: c.method, params: c.params }))
    this.stats.httpRequests++
    let status: number
    let statusText: string
    let retryAfter: string | null
    let text: string
    try {
      // The params as the request gave them: a bigint as the same integer literal (integerJson.ts).
      const body = stringifyJson(single ? envelopes[0] : envelopes)
      const res = await httpPost(this.targetUrl, this.agent, this.headers, body, this.timeout, this.aborter.signal, this.maxReplyBytes)
      status = res.status
      statusText = res.statusText
      retryAfter = res.retryAfter
      text = res.text
    } catch (e) {
      if (this.closed) return { kind: 'done' }
      // The same request would bring the same reply: failed at once, not retried.
      if (e instanceof Error && e.name === 'ReplyTooLarge') {
        for (const call of calls) this.fail(call, e.message)
        return { kind: 'done' }
      }
      const timedOut = e instanceof Error && e.name === 'TimeoutError'
      return { kind: 'retry', calls, cause: timedOut ? `no answer within ${this.timeout} ms` : `network error: ${this.scrub(describe(e))}` }
    }
    if (this.closed) return { kind: 'done' }
    const httpCause = `HTTP ${status}${statusText === '' ? '' : ` ${this.scrub(statusText)}`}`
    if (status === 429 || status >= 500) return { kind: 'retry', calls, cause: httpCause, ...retryAfterMs(retryAfter) }

    let parsed: unknown
    let isJson = true
    try {
      parsed = JSON.parse(text)
    } catch {
      isJson = false
    }
    if (!single && (status === 400 || status === 413) && !Array.isArray(parsed)) return { kind: 'split' }
    if (!isJson || !isReplyBody(parsed)) {
      const cause = status >= 400 ? httpCause : `answered something that is not JSON-RPC: ${this.scrub(text.slice(0, 100))}`
      for (const call of calls) this.fail(call, cause)
      return { kind: 'done' }
    }

    if (!single && !Array.isArray(parsed)) {
      // A bare object for a batch answers the whole batch: RSKj's size refusal, a rate limit, or a failure.
      const error = parsed.error
      if (error === undefined) {
        for (const call of calls) this.fail(call, 'answered a batch with a single reply')
        return { kind: 'done' }
      }
      if (isRateLimit(error)) return { kind: 'retry', calls, cause: this.rpcCause(error) }
      if (isBatchTooLarge(error)) return { kind: 'split' }
      // RSKj answers a batch whose reply passes `rpc.maxResponseSize` with one bare -32011 for all: the call (or
      // calls) too large for it fail alone, the others are answered (the batch size stays: it was not the cause).
      if (isResponseTooLarge(error)) return { kind: 'alone' }
      for (const call of calls) this.failRpc(call, error)
      return { kind: 'done' }
    }

    const replies: Reply[] = Array.isArray(parsed) ? parsed : [parsed]
    const byId = new Map<string, Reply>()
    for (const reply of replies) byId.set(String(reply.id), reply)
    const again: Call[] = []
    let againCause = ''
    let cached = false
    for (const [i, call] of calls.entries()) {
      let reply = byId.get(String(i + 1))
      // A single call answered with an id-less error (a parse or envelope error) is still its answer.
      if (reply === undefined && single && replies.length === 1 && replies[0]?.id == null) reply = replies[0]
      if (reply === undefined) {
        this.fail(call, 'the reply has no answer for this call')
      } else if (reply.error === undefined) {
        const result = reply.result ?? null
        if (call.cache && this.cache !== undefined) {
          this.cache.set(call.key, result)
          cached = true
        }
        this.settle(call, result)
      } else if (isRateLimit(reply.error)) {
        again.push(call)
        againCause = this.rpcCause(reply.error)
      } else {
        this.failRpc(call, reply.error)
      }
    }
    if (cached) this.cache?.flush()
    return again.length > 0 ? { kind: 'retry', calls: again, cause: againCause } : { kind: 'done' }
  }

  /**
   * Waits `ms`, or until close. The timer is not unref'd: a caller waits for the retry (a fork's start, a request, a
   * read that goes on after its request answered -32011), and a process whose only work is that wait (the CLI starting
   * on an unreachable remote, a script) would otherwise end mid-retry with Node's exit code 13 and nothing printed.
   * `close()` (the provider's `disconnect()`) ends it.
   */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer)
        this.sleepers.delete(wake)
        resolve()
      }
      const timer = setTimeout(wake, ms)
      this.sleepers.add(wake)
    })
  }

  private settle(call: Call, result: unknown): void {
    if (!this.finish(call)) return
    call.resolve(result)
  }

  private fail(call: Call, cause: string, extra: { code?: number; data?: unknown; retryable?: boolean; remoteMessage?: string } = {}): void {
    if (!this.finish(call)) return
    call.reject(this.failure(call.method, call.params, cause, extra))
  }

  private failRpc(call: Call, error: RpcErrorObject): void {
    this.fail(call, this.rpcCause(error), { code: error.code, data: error.data, remoteMessage: this.scrub(String(error.message)) })
  }

  /** Marks `call` settled; false if it already was. */
  private finish(call: Call): boolean {
    if (call.settled) return false
    call.settled = true
    this.live.delete(call)
    if (this.inflight.get(call.key)?.call === call) this.inflight.delete(call.key)
    return true
  }

  private failure(method: string, params: unknown[], cause: string, extra: { code?: number; data?: unknown; retryable?: boolean; remoteMessage?: string } = {}): RemoteFailed {
    return new RemoteFailed({ url: this.url, method, params, cause, ...extra })
  }

  private rpcCause(error: RpcErrorObject): string {
    return `remote error ${error.code}: ${this.scrub(String(error.message))}`
  }

  /** `text` with the URL, its key-like parts and the header values replaced: it came from the remote or the network. */
  private scrub(text: string): string {
    let out = text
    for (const secret of this.secrets) if (out.includes(secret)) out = out.split(secret).join('***')
    return out
  }
}

/**
 * The URL safe to print: userinfo removed, query values replaced, every path segment that looks like a key (16+
 * characters of [A-Za-z0-9_-], or 12+ characters with both letters and digits) replaced with `***`, fragment dropped.
 *
 * @example
 * ```ts
 * redactUrl('https://user:pw@rpc.testnet.rootstock.io/AbCdEf0123456789xyz?apikey=secret')
 * // 'https://rpc.testnet.rootstock.io/***?apikey=***'
 * ```
 */
export function redactUrl(url: string): string {
  const parsed = new URL(url)
  const path = parsed.pathname
    .split('/')
    .map((s) => (looksLikeKey(s) ? '***' : s))
    .join('/')
  const query = parsed.search
    .slice(1)
    .split('&')
    .filter((part) => part !== '')
    .map((part) => {
      const eq = part.indexOf('=')
      // A bare token (`?<key>`) is a value too.
      if (eq < 0) return '***'
      const name = part.slice(0, eq)
      return `${looksLikeKey(name) ? '***' : name}=***`
    })
    .join('&')
  return `${parsed.protocol}//${parsed.host}${path}${query === '' ? '' : `?${query}`}`
}

function looksLikeKey(segment: string): boolean {
  return /^[A-Za-z0-9_-]{16,}$/.test(segment) || (segment.length >= 12 && /[A-Za-z]/.test(segment) && /[0-9]/.test(segment))
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** Rate limits come back as JSON-RPC errors too: -32005 (EIP-1474 "limit exceeded") or a telling message. */
function isRateLimit(error: RpcErrorObject): boolean {
  return error.code === -32005 || /rate limit|too many requests/i.test(String(error.message))
}

/** RSKj: -32600 "Cannot dispatch batch requests. 50 is the max number of supported batch requests"; others alike. */
function isBatchTooLarge(error: RpcErrorObject): boolean {
  const message = String(error.message)
  return /batch/i.test(message) && /max|too (large|big|many)|exceed|limit/i.test(message)
}

/**
 * RSKj's refusal of a reply over `rpc.maxResponseSize` (`JsonResponseSizeLimiter`, `JsonRpcResponseLimitError`):
 * -32011 `Response size limit of N bytes exceeded`, reference §1.2.
 */
export function isResponseTooLarge(error: { code?: unknown; message?: unknown }): boolean {
  return error.code === -32011 && /response size limit/i.test(String(error.message))
}

/** A Retry-After header in seconds, capped; nothing when absent or not a number of seconds. */
function retryAfterMs(header: string | null): { retryAfter?: number } {
  if (header === null || header.trim() === '') return {}
  const seconds = Number(header)
  return Number.isFinite(seconds) && seconds >= 0 ? { retryAfter: Math.min(seconds * 1000, MAX_DELAY) } : {}
}

/** True for a JSON-RPC reply or an array of them: objects with `result`, or an `error` with a numeric code. */
function isReplyBody(body: unknown): body is Reply | Reply[] {
  const isReply = (r: unknown): boolean => {
    if (typeof r !== 'object' || r === null || Array.isArray(r)) return false
    if ('error' in r) {
      const error = (r as { error: unknown }).error
      return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'number'
    }
    return 'result' in r
  }
  return Array.isArray(body) ? body.length > 0 && body.every(isReply) : isReply(body)
}

/** An error's message, with its cause when it has one (the cause says why). */
function describe(e: unknown): string {
  if (!(e instanceof Error)) return String(e)
  const cause: unknown = e.cause
  if (cause instanceof Error) {
    const why = cause.message !== '' ? cause.message : ((cause as { code?: string }).code ?? cause.name)
    return `${e.message} (${why})`
  }
  return e.message
}

function count(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) throw new RangeError(`fork remote: ${name} must be an integer >= ${min}, not ${value}`)
  return value
}
