/**
 * HTTP/1.1 framing edge cases of the server (issue 13 item 4), sent as raw bytes on a socket so the test, not a
 * client library, decides what goes on the wire: chunked bodies (RFC 9112 §7.1), `Expect: 100-continue`
 * (RFC 9110 §10.1.1), HTTP/1.0 (RFC 9112 §9.3 persistence), limits, keep-alive, pipelining (RFC 9112 §9.3.2:
 * replies in request order), and a client that drops mid-body.
 *
 * Every case runs with the server's fast path (src/server/fastPath.ts) on and off, and against the raw `net`
 * prototype (bench/lib/raw-http.mjs) when RSKSIM_RAW_PROTO names it:
 * `RSKSIM_RAW_PROTO=$PWD/bench/lib/raw-http.mjs npx vitest run test/http_edge.test.ts` (docs/performance.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, type Socket } from 'node:net'
import { createServer } from 'node:http'
import { createProvider, startServer, type Provider } from '../src/index.js'
import { installFastPath } from '../src/server/fastPath.js'

interface Reply {
  status: number
  headers: Record<string, string>
  body: string
}

/** Splits what a server sent into replies (this server always frames replies with Content-Length). */
function parseReplies(data: string): Reply[] {
  const out: Reply[] = []
  let rest = data
  for (;;) {
    const end = rest.indexOf('\r\n\r\n')
    if (end < 0) return out
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n')
    const headers: Record<string, string> = {}
    for (const l of lines) headers[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim()
    const status = Number(statusLine.split(' ')[1])
    const length = Number(headers['content-length'] ?? 0)
    if (rest.length < end + 4 + length) return out
    out.push({ status, headers, body: rest.slice(end + 4, end + 4 + length) })
    rest = rest.slice(end + 4 + length)
  }
}

/** A raw connection: write bytes, wait for the n-th reply (interim 1xx replies included) or for the close. */
class Conn {
  private socket: Socket
  data = ''
  closed = false
  private waiters: (() => void)[] = []
  constructor(port: number) {
    this.socket = connect(port, '127.0.0.1')
    this.socket.on('data', (d) => {
      this.data += d.toString('latin1')
      this.wake()
    })
    this.socket.on('close', () => {
      this.closed = true
      this.wake()
    })
    this.socket.on('error', () => undefined)
  }
  private wake(): void {
    for (const w of this.waiters.splice(0)) w()
  }
  write(bytes: string): void {
    this.socket.write(bytes, 'latin1')
  }
  /** Resolves once `test` holds on what was received (or the socket closed). */
  async until(test: (c: Conn) => boolean): Promise<void> {
    while (!test(this) && !this.closed) await new Promise<void>((r) => this.waiters.push(r))
  }
  async replies(n: number): Promise<Reply[]> {
    await this.until((c) => parseReplies(c.data).length >= n)
    return parseReplies(this.data)
  }
  async closedByServer(): Promise<boolean> {
    await this.until((c) => c.closed)
    return this.closed
  }
  destroy(): void {
    this.socket.destroy()
  }
}

const rpc = (method: string, id: number): string => JSON.stringify({ jsonrpc: '2.0', id, method, params: [] })
const post = (body: string, extra = '', version = '1.1'): string =>
  `POST / HTTP/${version}\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`
const result = (r: Reply | undefined): unknown => (JSON.parse(r?.body ?? 'null') as { result?: unknown } | null)?.result
const idOf = (r: Reply): unknown => (JSON.parse(r.body) as { id: unknown }).id

interface Served {
  port: number
  close(): Promise<void>
}
type Start = (provider: Provider, maxBodyBytes: number) => Promise<Served>

const servers: [string, Start][] = [
  ['startServer (fast path, then node:http)', (provider, maxBodyBytes) => startServer({ port: 0, provider, maxBodyBytes })],
  ['startServer (node:http only)', (provider, maxBodyBytes) => startServer({ port: 0, provider, maxBodyBytes, fastPath: false })],
]
const proto = process.env.RSKSIM_RAW_PROTO
if (proto !== undefined && proto !== '') {
  type ProtoModule = { startRawServer(p: Provider, o: { maxBodyBytes: number }): Promise<Served> }
  servers.push(['raw net prototype', async (provider, maxBodyBytes) => ((await import(proto)) as ProtoModule).startRawServer(provider, { maxBodyBytes })])
}

// RSK regtest chain id 33 (spec "Networks"; RSKj `RegTestConfig`): the answer every request below expects.
const CHAIN_ID = '0x21'
const MAX_BODY = 4096

describe.each(servers)('HTTP/1.1 edge cases: %s', (_name, start) => {
  let provider: Provider
  let server: Served
  beforeAll(async () => {
    provider = await createProvider()
    server = await start(provider, MAX_BODY)
  })
  afterAll(async () => {
    await server.close()
    await provider.disconnect()
  })
  const open = (): Conn => new Conn(server.port)

  it('reads a chunked body sent in pieces, with a chunk extension and a trailer', async () => {
    const c = open()
    const body = rpc('eth_chainId', 7)
    const [a, b] = [body.slice(0, 10), body.slice(10)]
    c.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`)
    c.write(`${a.length.toString(16)};note=1\r\n${a}\r\n`)
    c.write(`${b.length.toString(16).toUpperCase()}\r\n${b}\r\n`)
    c.write(`0\r\nX-Trailer: t\r\n\r\n`)
    const [r] = await c.replies(1)
    expect(r?.status).toBe(200)
    expect(r && idOf(r)).toBe(7)
    expect(result(r)).toBe(CHAIN_ID)
    c.destroy()
  })

  it('refuses a chunked body that grows past maxBodyBytes with 413 and closes', async () => {
    const c = open()
    c.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`)
    const chunk = 'x'.repeat(1000)
    for (let i = 0; i < 6; i++) c.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`)
    c.write('0\r\n\r\n')
    const [r] = await c.replies(1)
    expect(r?.status).toBe(413)
    expect(await c.closedByServer()).toBe(true)
  })

  it('refuses a Content-Length past maxBodyBytes with 413 and closes', async () => {
    const c = open()
    c.write(post('x'.repeat(MAX_BODY + 1)))
    const [r] = await c.replies(1)
    expect(r?.status).toBe(413)
    expect(await c.closedByServer()).toBe(true)
  })

  it('refuses a Content-Length past maxBodyBytes at once, without 100 Continue, when the client waits to send it', async () => {
    const c = open()
    c.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${MAX_BODY + 1}\r\nExpect: 100-continue\r\n\r\n`)
    const replies = await c.replies(1)
    expect(replies.map((r) => r.status)).toEqual([413])
    expect(await c.closedByServer()).toBe(true)
  })

  it('answers Expect: 100-continue with 100 Continue, then the reply once the body comes', async () => {
    const c = open()
    const body = rpc('eth_chainId', 3)
    c.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`)
    await c.until((x) => x.data.includes('\r\n\r\n'))
    expect(c.data).toMatch(/^HTTP\/1\.1 100 Continue\r\n/)
    c.write(body)
    const replies = await c.replies(2)
    expect(replies.map((r) => r.status)).toEqual([100, 200])
    expect(result(replies[1])).toBe(CHAIN_ID)
    c.destroy()
  })

  it('serves HTTP/1.0 and closes after the reply unless the client asks to keep the connection', async () => {
    const once = open()
    once.write(post(rpc('eth_chainId', 1), '', '1.0'))
    const [r] = await once.replies(1)
    expect(result(r)).toBe(CHAIN_ID)
    expect(await once.closedByServer()).toBe(true)

    const kept = open()
    kept.write(post(rpc('eth_chainId', 1), 'Connection: keep-alive\r\n', '1.0'))
    const [first] = await kept.replies(1)
    expect(first?.headers.connection?.toLowerCase()).toBe('keep-alive')
    kept.write(post(rpc('eth_chainId', 2), 'Connection: keep-alive\r\n', '1.0'))
    const replies = await kept.replies(2)
    expect(replies[1] && idOf(replies[1])).toBe(2)
    expect(kept.closed).toBe(false)
    kept.destroy()
  })

  it('keeps an HTTP/1.1 connection for the next request, and closes it when the client sends Connection: close', async () => {
    const c = open()
    c.write(post(rpc('eth_chainId', 1)))
    await c.replies(1)
    c.write(post(rpc('eth_chainId', 2), 'Connection: close\r\n'))
    const replies = await c.replies(2)
    expect(replies.map(idOf)).toEqual([1, 2])
    expect(await c.closedByServer()).toBe(true)
  })

  it('answers requests arriving on eight connections at once, each connection its own replies in order', async () => {
    // The fast path writes the replies of requests from several connections together (src/server/fastPath.ts).
    const conns = Array.from({ length: 8 }, () => open())
    conns.forEach((c, k) => c.write(post(rpc('eth_chainId', 10 * k + 1)) + post(rpc('net_version', 10 * k + 2)) + post(rpc('eth_mining', 10 * k + 3))))
    const all = await Promise.all(conns.map((c) => c.replies(3)))
    all.forEach((replies, k) => {
      expect(replies.map(idOf)).toEqual([10 * k + 1, 10 * k + 2, 10 * k + 3])
      expect(replies.map((r) => r.status)).toEqual([200, 200, 200])
      expect([result(replies[0]), result(replies[1])]).toEqual([CHAIN_ID, '33'])
    })
    // Then one at a time on one of them, as a lone client sends.
    for (let i = 0; i < 3; i++) {
      conns[0]!.write(post(rpc('net_version', 100 + i)))
      expect((await conns[0]!.replies(4 + i)).map(idOf).slice(3)).toEqual(Array.from({ length: i + 1 }, (_, j) => 100 + j))
    }
    for (const c of conns) c.destroy()
  })

  it('answers pipelined requests in the order they were sent, a notification included', async () => {
    const c = open()
    const notification = JSON.stringify({ jsonrpc: '2.0', method: 'eth_chainId', params: [] })
    c.write(post(rpc('eth_mining', 1)) + post(rpc('eth_chainId', 2)) + post(notification) + post(rpc('net_version', 4)))
    const replies = await c.replies(4)
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200])
    expect(replies[0] && idOf(replies[0])).toBe(1)
    expect(result(replies[1])).toBe(CHAIN_ID)
    expect(replies[2]?.body).toBe('')
    expect(result(replies[3])).toBe('33')
    c.destroy()
  })

  it('refuses header sections over 16 KiB with 431', async () => {
    const c = open()
    c.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`)
    const [r] = await c.replies(1)
    expect(r?.status).toBe(431)
    expect(await c.closedByServer()).toBe(true)
  })

  it('answers an HTTP/1.1 request without Host with 400 (RFC 9112 §3.2), as node:http does', async () => {
    const c = open()
    const body = rpc('eth_chainId', 1)
    c.write(`POST / HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`)
    const [r] = await c.replies(1)
    expect(r?.status).toBe(400)
    expect(await c.closedByServer()).toBe(true)
  })

  it('refuses with 431 a request it would otherwise serve, whose header section is over 16 KiB', async () => {
    const c = open()
    const body = rpc('eth_chainId', 1)
    c.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Big: ${'a'.repeat(17 * 1024)}\r\nContent-Length: ${body.length}\r\n\r\n${body}`)
    const [r] = await c.replies(1)
    expect(r?.status).toBe(431)
    expect(await c.closedByServer()).toBe(true)
  })

  it.each([
    ['both Content-Length and Transfer-Encoding', `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`],
    ['a Content-Length that is not a number', `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1x\r\n\r\n`],
    ['a malformed request line', `P@ST / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`],
    ['a bad chunk size', `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`],
  ])('answers %s with 400 and closes the connection', async (_what, bytes) => {
    const c = open()
    c.write(bytes)
    const [r] = await c.replies(1)
    expect(r?.status).toBe(400)
    expect(await c.closedByServer()).toBe(true)
  })

  it('survives a client that drops the connection in the middle of a body', async () => {
    const c = open()
    c.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc":`)
    await new Promise((r) => setImmediate(r))
    c.destroy()
    const next = open()
    next.write(post(rpc('eth_chainId', 9)))
    const [r] = await next.replies(1)
    expect(result(r)).toBe(CHAIN_ID)
    next.destroy()
  })
})

describe('startServer: the fast path hands a connection to node:http mid-stream', () => {
  let server: Awaited<ReturnType<typeof startServer>>
  beforeAll(async () => {
    server = await startServer({ port: 0 })
  })
  afterAll(() => server.close())
  const chunked = (body: string): string =>
    `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`

  it('is installed in front of the node:http of this Node version (its connection listener is the expected one)', () => {
    const http = createServer()
    const core = { listener: () => undefined, admits: () => true, run: () => undefined }
    expect(installFastPath(http, core, 1024, 1000)).toBeTypeOf('function')
    // and declines a server whose connection handling is not node:http's alone
    const other = createServer()
    other.on('connection', () => undefined)
    expect(installFastPath(other, core, 1024, 1000)).toBeUndefined()
  })

  it('answers simple, chunked and simple requests pipelined on one connection, in order', async () => {
    const c = new Conn(server.port)
    c.write(post(rpc('eth_chainId', 1)) + post(rpc('net_version', 2)) + chunked(rpc('eth_chainId', 3)) + post(rpc('net_version', 4)))
    const replies = await c.replies(4)
    expect(replies.map(idOf)).toEqual([1, 2, 3, 4])
    expect(replies.map(result)).toEqual([CHAIN_ID, '33', CHAIN_ID, '33'])
    c.destroy()
  })

  it('answers the same headers on both paths (but Date)', async () => {
    const c = new Conn(server.port)
    c.write(post(rpc('eth_chainId', 1)))
    await c.replies(1)
    c.write(chunked(rpc('eth_chainId', 1)))
    const [fast, slow] = await c.replies(2)
    const strip = (r: Reply | undefined): Record<string, string> => {
      const { date: _date, ...rest } = r?.headers ?? {}
      return rest
    }
    expect(strip(fast)).toEqual(strip(slow))
    expect(fast?.body).toBe(slow?.body)
    c.destroy()
  })

  it('refuses a bad Host arriving on a kept connection with 400, as node:http does', async () => {
    const c = new Conn(server.port)
    c.write(post(rpc('eth_chainId', 1)))
    await c.replies(1)
    c.write(post(rpc('eth_chainId', 2)).replace('Host: 127.0.0.1', 'Host: evil.example'))
    const replies = await c.replies(2)
    expect(replies.map((r) => r.status)).toEqual([200, 400])
    expect(await c.closedByServer()).toBe(true)
  })

  it('checks a head again when one byte of it changes, though it has the length of the heads before', async () => {
    // The fast path compares a head with the connection's last one instead of parsing it again (fastPath.ts).
    const c = new Conn(server.port)
    c.write(post(rpc('eth_chainId', 1)) + post(rpc('eth_chainId', 2)))
    c.write(post(rpc('eth_blockNumber', 3)))
    const same = post(rpc('eth_chainId', 4))
    const wrongType = same.replace('application/json', 'application/jsox')
    expect(wrongType.length).toBe(same.length)
    c.write(wrongType)
    const replies = await c.replies(4)
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 415])
    expect(replies.slice(0, 3).map(idOf)).toEqual([1, 2, 3])
    expect(result(replies[0])).toBe('0x21')
    expect(await c.closedByServer()).toBe(true)
  })

  it('answers 2,000 pipelined bodies that are not JSON, each with its 400, in one write', async () => {
    const c = new Conn(server.port)
    c.write(post('{').repeat(2000))
    const replies = await c.replies(2000)
    expect(replies.length).toBe(2000)
    expect(new Set(replies.map((r) => r.status))).toEqual(new Set([400]))
    c.destroy()
  })
})

/** A provider whose first `held` bodies are answered only after `release()` (the others at once). */
async function gatedProvider(held: number): Promise<{ provider: Provider; release: () => void }> {
  const provider = await createProvider()
  let release: () => void = () => undefined
  const gate = new Promise<void>((r) => (release = r))
  const handle = provider.handleJsonRpc.bind(provider)
  let count = 0
  provider.handleJsonRpc = async (payload, transport) => {
    if (count++ < held) await gate
    return handle(payload, transport)
  }
  return { provider, release }
}

describe('startServer: a client that keeps sending while its reply is owed', () => {
  it.each([
    ['fast path', true],
    ['node:http only', false],
  ])('is paused, then served in order once the reply is out (%s)', async (_name, fastPath) => {
    const { provider, release } = await gatedProvider(1)
    const server = await startServer({ port: 0, provider, fastPath })
    try {
      const c = new Conn(server.port)
      // 300 requests of ~10 KB each (JSON allows the trailing whitespace): 3 MB sent while the first waits.
      const many = Array.from({ length: 300 }, (_, i) => post(rpc('eth_chainId', i) + ' '.repeat(10_000))).join('')
      c.write(many)
      await new Promise((r) => setTimeout(r, 100))
      release()
      const replies = await c.replies(300)
      expect(replies.map(idOf)).toEqual(Array.from({ length: 300 }, (_, i) => i))
      c.destroy()
    } finally {
      await server.close()
      await provider.disconnect()
    }
  })
})

describe('node:http server: Expect and the idle timeout', () => {
  it('refuses a wrong API key without first inviting the body with 100 Continue', async () => {
    const server = await startServer({ port: 0, apiKeys: ['k'] })
    try {
      const c = new Conn(server.port)
      c.write(`POST /wrong HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n`)
      const replies = await c.replies(1)
      expect(replies.map((r) => r.status)).toEqual([401])
      expect(await c.closedByServer()).toBe(true)
    } finally {
      await server.close()
    }
  })

  it.each([
    ['fast path', true],
    ['node:http only', false],
  ])('does not cut a connection that waits for its reply past idleTimeout, and closes it once idle after (%s)', async (_name, fastPath) => {
    // A reply that takes longer than the idle timeout: the provider answers only once the timer below fires.
    const { provider, release } = await gatedProvider(Infinity)
    const server = await startServer({ port: 0, provider, idleTimeout: 20, fastPath })
    try {
      const c = new Conn(server.port)
      c.write(post(rpc('eth_chainId', 5)))
      // Wait for several idle periods to pass while the reply is owed, then let the provider answer.
      await new Promise((r) => setTimeout(r, 200))
      release()
      const [r] = await c.replies(1)
      expect(result(r)).toBe(CHAIN_ID)
      expect(await c.closedByServer()).toBe(true)
    } finally {
      await server.close()
      await provider.disconnect()
    }
  })
})
