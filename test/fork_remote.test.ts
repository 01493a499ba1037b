/**
 * The fork's remote client (src/node/fork/remote.ts) and disk cache (src/node/fork/cache.ts), against a scripted
 * local HTTP server: batching, dedupe, retries and giving up, timeouts, batch-size halving, URL redaction, close,
 * and a cache that survives a second client, cut lines and an unwritable directory.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { RemoteNode, redactUrl, type RemoteOptions } from '../src/node/fork/remote.js'
import { ForkCache } from '../src/node/fork/cache.js'
import { RemoteFailed } from '../src/node/errors.js'

const KEY = 'AbCdEf0123456789xyz'

interface Envelope {
  jsonrpc: string
  id: number
  method: string
  params: unknown[]
}
interface Seen {
  url: string
  headers: IncomingHttpHeaders
  body: Envelope | Envelope[]
  /** The body as sent (JSON.parse reads an integer past 2^53 as another number). */
  text: string
}
/** What the server answers: status, body (a string is sent as it is), headers; or 'hang' to never answer. */
type Answer = { status?: number; body: unknown; headers?: Record<string, string> } | 'hang'
type Script = (body: Envelope | Envelope[], n: number) => Answer

/** Each call's result names it, so a test sees which call got which answer. */
const echoOne = (c: Envelope): unknown => ({ jsonrpc: '2.0', id: c.id, result: `${c.method}:${JSON.stringify(c.params)}` })
const echo: Script = (body) => ({ body: Array.isArray(body) ? body.map(echoOne) : echoOne(body) })

let server: Server
let base = ''
let script: Script = echo
let seen: Seen[] = []
const hanging: ServerResponse[] = []

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const sent = Buffer.concat(chunks).toString('utf8')
      const body = JSON.parse(sent) as Envelope | Envelope[]
      seen.push({ url: req.url ?? '', headers: req.headers, body, text: sent })
      const answer = script(body, seen.length)
      if (answer === 'hang') {
        hanging.push(res)
        return
      }
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body)
      res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers })
      res.end(text)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  for (const res of hanging) res.destroy()
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

const clients: RemoteNode[] = []
const dirs: string[] = []
beforeEach(() => {
  script = echo
  seen = []
})
afterEach(() => {
  for (const c of clients.splice(0)) c.close()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  vi.restoreAllMocks()
})

const remote = (options: Partial<RemoteOptions> = {}): RemoteNode => {
  const r = new RemoteNode({ url: `${base}/${KEY}`, backoff: 10, ...options })
  clients.push(r)
  return r
}
const tempDir = (): string => {
  const d = mkdtempSync(path.join(tmpdir(), 'rsksim-fork-'))
  dirs.push(d)
  return d
}
const failure = async (p: Promise<unknown>): Promise<RemoteFailed> => {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  )
  expect(e).toBeInstanceOf(RemoteFailed)
  return e as RemoteFailed
}
const batchSizes = (): number[] => seen.map((s) => (Array.isArray(s.body) ? s.body.length : 1))
const rpcError = (c: Envelope, code: number, message: string, data?: unknown): unknown => ({ jsonrpc: '2.0', id: c.id, error: { code, message, data } })
const HASH = `0x${'ab'.repeat(32)}`

describe('batching and dedupe', () => {
  it('sends the calls of one turn as one batch, each answered by id', async () => {
    const r = remote()
    const answers = await Promise.all([r.request('eth_blockNumber', []), r.request('eth_chainId', []), r.request('eth_getBalance', ['0x01', 'latest'])])
    expect(answers).toEqual(['eth_blockNumber:[]', 'eth_chainId:[]', 'eth_getBalance:["0x01","latest"]'])
    expect(seen).toHaveLength(1)
    expect(Array.isArray(seen[0]!.body)).toBe(true)
    expect((seen[0]!.body as Envelope[]).map((c) => c.method)).toEqual(['eth_blockNumber', 'eth_chainId', 'eth_getBalance'])
    expect(seen[0]!.url).toBe(`/${KEY}`)
    expect(seen[0]!.headers['content-type']).toBe('application/json')
    expect(r.stats).toEqual({ httpRequests: 1, calls: 3, cacheHits: 0 })
  })

  it('sends a single call as a plain object, and calls of a later turn in a new request', async () => {
    const r = remote()
    expect(await r.request('eth_blockNumber', [])).toBe('eth_blockNumber:[]')
    expect(await r.request('eth_chainId', [])).toBe('eth_chainId:[]')
    expect(seen.map((s) => Array.isArray(s.body))).toEqual([false, false])
    expect((seen[0]!.body as Envelope).jsonrpc).toBe('2.0')
  })

  it('splits 120 calls into batches of batchSize (50)', async () => {
    const r = remote()
    const calls = Array.from({ length: 120 }, (_, i) => r.request('eth_getBalance', [`0x${i.toString(16)}`, 'latest']))
    const answers = await Promise.all(calls)
    expect(answers[119]).toBe('eth_getBalance:["0x77","latest"]')
    expect(batchSizes()).toEqual([50, 50, 20])
    expect(r.stats.httpRequests).toBe(3)
    expect(r.stats.calls).toBe(120)
  })

  it('shares one call between identical calls in flight', async () => {
    const r = remote()
    const a = r.request('eth_getCode', ['0x01', 'latest'])
    const b = r.request('eth_getCode', ['0x01', 'latest'])
    expect(b).toBe(a)
    expect(await Promise.all([a, b])).toEqual(['eth_getCode:["0x01","latest"]', 'eth_getCode:["0x01","latest"]'])
    expect(seen).toHaveLength(1)
    expect(Array.isArray(seen[0]!.body)).toBe(false)
    expect(r.stats.calls).toBe(1)
    // Once answered, the same call goes out again (only the cache keeps answers).
    await r.request('eth_getCode', ['0x01', 'latest'])
    expect(r.stats.calls).toBe(2)
  })

  it('sends a bigint param (a JSON integer no double holds, as a request body keeps it) as the same integer literal, and keys the cache with it', async () => {
    const dir = tempDir()
    const key = { chainId: 31n, blockNumber: 5_910_000n, blockHash: HASH }
    const r = remote({ cache: ForkCache.open(dir, key) })
    const big = [{ value: 1234567890123456789n, gas: 21000 }, '0x1']
    const a = r.request('eth_call', big, { cache: true })
    // The same digits are the same call (shared); a number JSON writes otherwise is another one.
    expect(r.request('eth_call', [{ value: 1234567890123456789n, gas: 21000 }, '0x1'], { cache: true })).toBe(a)
    const b = r.request('eth_call', [{ value: 1234567890123456800, gas: 21000 }, '0x1'], { cache: true })
    expect(await Promise.all([a, b])).toEqual(['eth_call:[{"value":1234567890123456800,"gas":21000},"0x1"]', 'eth_call:[{"value":1234567890123456800,"gas":21000},"0x1"]'])
    expect(seen).toHaveLength(1)
    expect(seen[0]!.text).toBe(
      '[{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"value":1234567890123456789,"gas":21000},"0x1"]},{"jsonrpc":"2.0","id":2,"method":"eth_call","params":[{"value":1234567890123456800,"gas":21000},"0x1"]}]',
    )
    // Kept under the digits, so the next run finds it without asking.
    const again = remote({ cache: ForkCache.open(dir, key) })
    expect(await again.request('eth_call', big, { cache: true })).toBe(await a)
    expect(again.stats).toEqual({ httpRequests: 0, calls: 0, cacheHits: 1 })
    // A failure names the params with the digits too.
    script = (body) => ({ body: rpcError(body as Envelope, -32000, 'nope') })
    const e = await failure(r.request('eth_estimateGas', [{ value: -12345678901234567891n }]))
    expect(e.message).toContain('eth_estimateGas([{"value":-12345678901234567891}]) failed')
    expect(seen[1]!.text).toBe('{"jsonrpc":"2.0","id":1,"method":"eth_estimateGas","params":[{"value":-12345678901234567891}]}')
  })

  it('sends extra headers', async () => {
    const r = remote({ headers: { 'x-api-key': 'header-secret-value' } })
    await r.request('eth_chainId', [])
    expect(seen[0]!.headers['x-api-key']).toBe('header-secret-value')
  })
})

describe('retries', () => {
  it('retries HTTP 429 and 500, then succeeds', async () => {
    script = (body, n) => (n === 1 ? { status: 429, body: 'slow down' } : n === 2 ? { status: 500, body: 'oops' } : echo(body, n))
    const r = remote()
    expect(await r.request('eth_chainId', [])).toBe('eth_chainId:[]')
    expect(r.stats.httpRequests).toBe(3)
    expect(r.stats.calls).toBe(1)
  })

  it('honours Retry-After over the backoff', async () => {
    script = (body, n) => (n === 1 ? { status: 429, body: '', headers: { 'retry-after': '0' } } : echo(body, n))
    const r = remote({ backoff: 60_000 })
    // The wait the client chose, read from its timer rather than from the clock (a timed assertion fails under load).
    const timers = vi.spyOn(globalThis, 'setTimeout')
    expect(await r.request('eth_chainId', [])).toBe('eth_chainId:[]')
    // Retry-After's 0 s, and no wait of the backoff's length (60 s, capped at 8 s) or near it.
    const delays = timers.mock.calls.map(([, ms]) => ms ?? 0)
    expect(delays).toContain(0)
    expect(delays.filter((ms) => ms >= 1_000)).toEqual([])
    expect(seen).toHaveLength(2)
  })

  it('retries a JSON-RPC rate-limit error, only for the calls that got it', async () => {
    script = (body, n) => {
      const calls = body as Envelope[]
      if (n === 1) return { body: [echoOne(calls[0]!), rpcError(calls[1]!, -32005, 'limit exceeded'), rpcError(calls[2]!, -32000, 'Too Many Requests, slow down')] }
      return echo(body, n)
    }
    const r = remote()
    const answers = await Promise.all([r.request('a', []), r.request('b', []), r.request('c', [])])
    expect(answers).toEqual(['a:[]', 'b:[]', 'c:[]'])
    expect(batchSizes()).toEqual([3, 2])
  })

  it('gives up after `retries` retries, naming the redacted URL and the method, never the key', async () => {
    script = () => ({ status: 503, body: `service ${KEY} unavailable` })
    const r = remote({ retries: 2 })
    const e = await failure(r.request('eth_getBalance', ['0x01', 'latest']))
    expect(seen).toHaveLength(3)
    expect(e.message).toBe(`fork remote ${base}/***: eth_getBalance(["0x01","latest"]) failed: HTTP 503 Service Unavailable (gave up after 3 attempts)`)
    expect(e.message).not.toContain(KEY)
    expect(e.url).toBe(`${base}/***`)
    expect(e.method).toBe('eth_getBalance')
    expect(e.params).toEqual(['0x01', 'latest'])
    expect(e.retryable).toBe(true)
    expect(e.code).toBeUndefined()
  })

  it('retries a request that gets no answer within `timeout`', async () => {
    script = (body, n) => (n === 1 ? 'hang' : echo(body, n))
    // The second attempt must be answered within `timeout` too: 1 s, not less, so that a loaded machine does not
    // time it out as well.
    const r = remote({ timeout: 1_000, retries: 1 })
    expect(await r.request('eth_chainId', [])).toBe('eth_chainId:[]')
    expect(r.stats.httpRequests).toBe(2)
  })

  it('gives up on timeouts, saying so', async () => {
    script = () => 'hang'
    const r = remote({ timeout: 100, retries: 1 })
    const e = await failure(r.request('eth_chainId', []))
    expect(e.message).toMatch(/failed: no answer within 100 ms \(gave up after 2 attempts\)$/)
    expect(e.retryable).toBe(true)
  })

  it('retries network errors, then gives up without the key or header values', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    const r = remote({ url: `http://127.0.0.1:${port}/${KEY}?apikey=secret`, retries: 1, headers: { authorization: 'Bearer tok3n-very-secret' } })
    const e = await failure(r.request('eth_chainId', []))
    expect(e.message).toMatch(/failed: network error: .*ECONNREFUSED.* \(gave up after 2 attempts\)$/)
    for (const secret of [KEY, 'secret', 'tok3n']) expect(e.message).not.toContain(secret)
  })
})

describe('failures without retry', () => {
  it('fails at once on HTTP 400 without a JSON-RPC body', async () => {
    script = () => ({ status: 404, body: 'no such route' })
    const r = remote()
    const e = await failure(r.request('eth_chainId', []))
    expect(e.message).toMatch(/failed: HTTP 404 Not Found$/)
    expect(e.retryable).toBe(false)
    expect(seen).toHaveLength(1)
  })

  it("fails at once on RSKj's HTTP 400 with a JSON-RPC error, carrying its code", async () => {
    script = (body) => ({ status: 400, body: rpcError(body as Envelope, -32602, 'invalid argument 0: hex string has odd length') })
    const r = remote()
    const e = await failure(r.request('eth_getBalance', ['0x1', 'latest']))
    expect(e.code).toBe(-32602)
    expect(e.message).toMatch(/failed: remote error -32602: invalid argument 0: hex string has odd length$/)
    expect(seen).toHaveLength(1)
  })

  it('fails one call of a batch on its JSON-RPC error, with code and data, and answers the others', async () => {
    script = (body) => ({ body: (body as Envelope[]).map((c) => (c.method === 'eth_call' ? rpcError(c, -32015, 'revert: no', '0x08c379a0') : echoOne(c))) })
    const r = remote()
    const call = r.request('eth_call', [{ to: '0x01' }, 'latest'])
    const other = r.request('eth_chainId', [])
    const e = await failure(call)
    expect(await other).toBe('eth_chainId:[]')
    expect(e.code).toBe(-32015)
    expect(e.data).toBe('0x08c379a0')
    expect(e.retryable).toBe(false)
    expect(seen).toHaveLength(1)
  })

  it('fails a call missing from the batch reply, and answers the others', async () => {
    script = (body) => ({ body: (body as Envelope[]).filter((c) => c.method !== 'lost').map(echoOne) })
    const r = remote()
    const lost = r.request('lost', [])
    const kept = r.request('kept', [])
    expect((await failure(lost)).message).toMatch(/lost\(\[\]\) failed: the reply has no answer for this call$/)
    expect(await kept).toBe('kept:[]')
  })

  it('fails at once on a body that is not JSON-RPC, quoting its start without the key', async () => {
    script = () => ({ body: `<html>${KEY} ${'x'.repeat(200)}</html>` })
    const r = remote()
    const e = await failure(r.request('eth_chainId', []))
    expect(e.message).toContain('failed: answered something that is not JSON-RPC: <html>*** xxx')
    expect(e.message).not.toContain(KEY)
    expect(e.message).not.toContain('x'.repeat(100))
    expect(seen).toHaveLength(1)
  })

  it('fails at once, without retrying, on a reply larger than maxReplyBytes', async () => {
    script = (body) => ({ body: { jsonrpc: '2.0', id: (body as Envelope).id, result: `0x${'ab'.repeat(5_000)}` } })
    const r = remote({ maxReplyBytes: 4_096, retries: 3 })
    const e = await failure(r.request('eth_getCode', []))
    expect(e.message).toContain('failed: the reply is larger than 4096 bytes')
    expect(seen).toHaveLength(1)
  })

  it('cuts long params to 120 characters in the message', async () => {
    script = (body) => ({ body: rpcError(body as Envelope, -32000, 'nope') })
    const r = remote()
    const e = await failure(r.request('eth_call', [{ data: `0x${'00'.repeat(200)}` }]))
    const shown = /eth_call\((.*)\) failed/.exec(e.message)![1]!
    expect(shown).toHaveLength(120)
    expect(e.params).toEqual([{ data: `0x${'00'.repeat(200)}` }])
  })
})

describe('a batch too large for the remote', () => {
  const refuseOver = (max: number, status: number): Script => (body, n) =>
    Array.isArray(body) && body.length > max
      ? { status, body: { error: { code: -32600, message: `Cannot dispatch batch requests. ${max} is the max number of supported batch requests` } } }
      : echo(body, n)

  it('halves the batch until the remote takes it (HTTP 400), and keeps the smaller size', async () => {
    script = refuseOver(10, 400)
    const r = remote()
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => r.request('m', [i])))
    expect(answers[39]).toBe('m:[39]')
    expect(batchSizes()).toEqual([40, 20, 20, 10, 10, 10, 10])
    seen = []
    await Promise.all(Array.from({ length: 25 }, (_, i) => r.request('n', [i])))
    expect(batchSizes()).toEqual([10, 10, 5])
  })

  it('halves on the refusal answered with HTTP 200 too', async () => {
    script = refuseOver(2, 200)
    const r = remote()
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => r.request('m', [i])))
    expect(answers).toEqual(['m:[0]', 'm:[1]', 'm:[2]', 'm:[3]', 'm:[4]'])
    expect(batchSizes()).toEqual([5, 2, 2, 1])
  })
})

describe('the URL', () => {
  it('is redacted: no userinfo, no query values, no key-like path segment', () => {
    const raw = `https://user:pw@rpc.testnet.rootstock.io/${KEY}?apikey=secret`
    const r = new RemoteNode({ url: raw })
    expect(r.url).toBe('https://rpc.testnet.rootstock.io/***?apikey=***')
    for (const secret of ['pw', KEY, 'secret', 'user']) expect(r.url).not.toContain(secret)
    expect(redactUrl('https://public-node.testnet.rsk.co/')).toBe('https://public-node.testnet.rsk.co/')
    expect(redactUrl('http://localhost:4444')).toBe('http://localhost:4444/')
    expect(redactUrl('https://h.example/v1/abc123def456/rpc?TOKEN')).toBe('https://h.example/v1/***/rpc?***')
    expect(redactUrl('https://h.example/api-v2_long-segment-name#frag')).toBe('https://h.example/***')
  })

  it('refuses what is not an http(s) URL, without quoting it', () => {
    expect(() => new RemoteNode({ url: `not a url ${KEY}` })).toThrow(/^the fork remote URL is not a valid URL$/)
    expect(() => new RemoteNode({ url: 'ws://localhost:4445' })).toThrow(/must be http\(s\)/)
  })

  it('sends userinfo as Basic auth', async () => {
    const r = remote({ url: `${base.replace('http://', 'http://alice:s3cret@')}/${KEY}` })
    await r.request('eth_chainId', [])
    expect(seen[0]!.headers.authorization).toBe(`Basic ${Buffer.from('alice:s3cret').toString('base64')}`)
    expect(r.url).toBe(`${base}/***`)
  })
})

describe('close', () => {
  it('fails pending and later calls', async () => {
    script = () => 'hang'
    const r = remote()
    const pending = r.request('eth_chainId', [])
    const queued = r.request('eth_blockNumber', [])
    // The first two are at the remote (which holds them) before the client closes; a fixed sleep could end first.
    while (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5))
    const notSent = r.request('eth_gasPrice', [])
    r.close()
    for (const p of [pending, queued, notSent, r.request('eth_syncing', [])]) {
      expect((await failure(p)).message).toMatch(/failed: client closed$/)
    }
    expect(seen).toHaveLength(1)
  })

  it('cancels a backoff wait', async () => {
    script = () => ({ status: 500, body: '' })
    const r = remote({ backoff: 60_000 })
    // Closed once the client waits its backoff (its timer of 60 s, capped at 8 s, is set), not after a fixed sleep
    // that could end before.
    const timers = vi.spyOn(globalThis, 'setTimeout')
    const pending = r.request('eth_chainId', [])
    while (!timers.mock.calls.some(([, ms]) => (ms ?? 0) >= 1_000)) await new Promise((resolve) => setImmediate(resolve))
    r.close()
    expect((await failure(pending)).message).toMatch(/client closed$/)
    expect(seen).toHaveLength(1)
  })
})

describe('ForkCache', () => {
  const key = { chainId: 31n, blockNumber: 5_910_000n, blockHash: HASH }

  it('answers a second client from the file, without HTTP', async () => {
    script = (body) => ({ body: (body as Envelope[]).map((c) => (c.method === 'eth_getTransactionByHash' ? { jsonrpc: '2.0', id: c.id, result: null } : echoOne(c))) })
    const dir = tempDir()
    const first = remote({ cache: ForkCache.open(dir, key) })
    const calls = (r: RemoteNode): Promise<unknown[]> =>
      Promise.all([
        r.request('eth_getBalance', ['0x01', '0x5a2e30'], { cache: true }),
        r.request('eth_getCode', ['0x01', '0x5a2e30'], { cache: true }),
        r.request('eth_getTransactionByHash', [HASH], { cache: true }),
        r.request('eth_blockNumber', []),
      ])
    const answers = await calls(first)
    expect(answers).toEqual(['eth_getBalance:["0x01","0x5a2e30"]', 'eth_getCode:["0x01","0x5a2e30"]', null, 'eth_blockNumber:[]'])
    const cache = ForkCache.open(dir, key)
    expect(cache.path).toBe(path.join(dir, '31', `5910000-${HASH}.jsonl`))
    expect(cache.size).toBe(3)
    expect(cache.get('eth_getTransactionByHash' + JSON.stringify([HASH]))).toBeNull()
    expect(cache.get('eth_blockNumber[]')).toBeUndefined()

    seen = []
    const second = remote()
    second.useCache(cache)
    const cached = await Promise.all([
      second.request('eth_getBalance', ['0x01', '0x5a2e30'], { cache: true }),
      second.request('eth_getCode', ['0x01', '0x5a2e30'], { cache: true }),
      second.request('eth_getTransactionByHash', [HASH], { cache: true }),
    ])
    expect(cached).toEqual(answers.slice(0, 3))
    expect(seen).toHaveLength(0)
    expect(second.stats).toEqual({ httpRequests: 0, calls: 0, cacheHits: 3 })
  })

  it('keeps a deduped call if any of its callers asked for the cache', async () => {
    const cache = ForkCache.open(tempDir(), key)
    const r = remote({ cache })
    await Promise.all([r.request('eth_getCode', ['0x02', '0x1']), r.request('eth_getCode', ['0x02', '0x1'], { cache: true })])
    expect(cache.get('eth_getCode["0x02","0x1"]')).toBe('eth_getCode:["0x02","0x1"]')
  })

  it('skips a cut last line and a damaged line, and does not glue the next entry to the cut line', () => {
    const dir = tempDir()
    const cache = ForkCache.open(dir, key)
    cache.set('a', '0x1')
    cache.set('b', { x: [1, null] })
    cache.flush()
    appendFileSync(cache.path, 'garbage\n["c","0x3"]\n["d","0x')
    const reopened = ForkCache.open(dir, key)
    expect(reopened.size).toBe(3)
    expect(reopened.get('b')).toEqual({ x: [1, null] })
    expect(reopened.has('d')).toBe(false)
    reopened.set('e', '0x5')
    reopened.flush()
    const third = ForkCache.open(dir, key)
    expect(third.get('e')).toBe('0x5')
    expect(third.size).toBe(4)
    expect(readFileSync(cache.path, 'utf8').endsWith('\n["e","0x5"]\n')).toBe(true)
  })

  it('writes each flush as whole lines, and nothing for an entry it already has', () => {
    const cache = ForkCache.open(tempDir(), key)
    cache.set('a', '0x1')
    cache.set('a', '0x1')
    cache.flush()
    cache.set('a', '0x1')
    cache.flush()
    expect(readFileSync(cache.path, 'utf8')).toBe('["a","0x1"]\n')
  })

  it('goes on in memory when its directory cannot be made, warning once', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    const file = path.join(tempDir(), 'a-file')
    writeFileSync(file, '')
    const cache = ForkCache.open(path.join(file, 'cache'), key)
    cache.set('a', '0x1')
    cache.flush()
    cache.set('b', null)
    cache.flush()
    expect(cache.get('a')).toBe('0x1')
    expect(cache.get('b')).toBeNull()
    expect(warn).toHaveBeenCalledTimes(1)
    expect(String(warn.mock.calls[0]![0])).toMatch(/cannot be written .*memory only/)
  })

  it('goes on in memory when a write fails, warning once', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    const dir = tempDir()
    const cache = ForkCache.open(dir, key)
    cache.set('a', '0x1')
    cache.flush()
    rmSync(path.join(dir, '31'), { recursive: true })
    writeFileSync(path.join(dir, '31'), 'not a directory')
    cache.set('b', '0x2')
    expect(() => cache.flush()).not.toThrow()
    cache.set('c', '0x3')
    cache.flush()
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual(['0x1', '0x2', '0x3'])
    expect(warn).toHaveBeenCalledTimes(1)
  })

  it('refuses a malformed block hash', () => {
    expect(() => ForkCache.open(tempDir(), { ...key, blockHash: '0x1234' })).toThrow(/64 hex digits/)
  })

  it('finds its default directory in $RSKSIM_FORK_CACHE, then $XDG_CACHE_HOME, then ~/.cache', () => {
    vi.stubEnv('RSKSIM_FORK_CACHE', '/tmp/own')
    vi.stubEnv('XDG_CACHE_HOME', '/tmp/xdg')
    expect(ForkCache.defaultDir()).toBe('/tmp/own')
    vi.stubEnv('RSKSIM_FORK_CACHE', '')
    expect(ForkCache.defaultDir()).toBe(path.join('/tmp/xdg', 'rsksim', 'fork'))
    vi.stubEnv('XDG_CACHE_HOME', '')
    expect(ForkCache.defaultDir()).toMatch(/[/\\]\.cache[/\\]rsksim[/\\]fork$/)
    vi.unstubAllEnvs()
  })

  it('creates missing directories', () => {
    const dir = path.join(tempDir(), 'deep', 'er')
    const cache = ForkCache.open(dir, key)
    cache.set('a', 1)
    cache.flush()
    mkdirSync(dir, { recursive: true })
    expect(ForkCache.open(dir, key).get('a')).toBe(1)
  })
})
