/**
 * Issue D6–D9 and the server items: what an HTTP client can do to the server. RSKj's host filter answers a bad
 * Host with 400 (reference §1.1); the rest is rsksim's policy, documented in docs/compatibility.md.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connect, type Socket } from 'node:net'
import { request } from 'node:http'
import { JsonRpcProvider } from 'ethers'
import { startServer, type RsksimServer } from '../../src/index.js'
import { COW } from '../helpers.js'

const body = (method: string, params: unknown[] = [], id: unknown = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, params })

async function post(url: string, text: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: text })
  return { status: res.status, headers: res.headers, text: await res.text() }
}

/** Sends raw bytes on a new socket and resolves with everything read until the server closes it. */
function raw(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let out = ''
    socket.on('data', (d) => (out += d.toString()))
    socket.on('close', () => resolve(out))
    socket.on('error', reject)
    socket.write(bytes)
  })
}

describe('API keys (D6) and server.url', () => {
  let server: RsksimServer
  beforeAll(async () => {
    server = await startServer({ port: 0, apiKeys: ['secret'] })
  })
  afterAll(() => server.close())

  it('refuses an unknown key before reading the body: headers alone get the 401', async () => {
    // Announces 5 MB and sends none of it: a server that read the body first would wait forever.
    const reply = await raw(
      server.port,
      `POST /wrong HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n`,
    )
    expect(reply).toMatch(/^HTTP\/1\.1 401 /)
    expect(reply).toContain('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid or missing API key"}}')
  })

  it('gives a url that works as it is, key included', async () => {
    expect(server.url).toBe(`${server.baseUrl}/secret`)
    const rpc = new JsonRpcProvider(server.url, undefined, { staticNetwork: true })
    expect(await rpc.send('eth_chainId', [])).toBe('0x21')
    rpc.destroy()
  })
})

describe('browser access (D7)', () => {
  let server: RsksimServer
  let trusting: RsksimServer
  beforeAll(async () => {
    server = await startServer({ port: 0 })
    trusting = await startServer({ port: 0, allowedOrigins: ['https://dapp.example'], allowedHosts: ['my-node.test'] })
  })
  afterAll(async () => {
    await server.close()
    await trusting.close()
  })

  it('refuses key export and signing to a page of another origin, naming the method and the option', async () => {
    const r = await post(server.url, body('personal_dumpRawKey', [COW]), { Origin: 'http://evil.example' })
    expect(r.status).toBe(400)
    const error = JSON.parse(r.text).error
    expect(error.code).toBe(-32600)
    expect(error.message).toMatch(/^personal_dumpRawKey is refused to pages from http:\/\/evil\.example: .*allowedOrigins/)
    const sign = await post(server.url, body('eth_sign', [COW, '0x00']), { Origin: 'http://evil.example' })
    expect(JSON.parse(sign.text).error.code).toBe(-32600)
    const sendTx = await post(server.url, body('eth_sendTransaction', [{ from: COW, to: COW }]), { Origin: 'http://evil.example' })
    expect(JSON.parse(sendTx.text).error.code).toBe(-32600)
  })

  it('answers reads to every origin, with Access-Control-Allow-Origin: *', async () => {
    const r = await post(server.url, body('eth_chainId'), { Origin: 'http://evil.example' })
    expect(JSON.parse(r.text).result).toBe('0x21')
    expect(r.headers.get('access-control-allow-origin')).toBe('*')
  })

  it('answers wallet methods to localhost pages, to clients without Origin, and to allowed origins', async () => {
    const local = await post(server.url, body('personal_dumpRawKey', [COW]), { Origin: 'http://localhost:3000' })
    expect(JSON.parse(local.text).result).toMatch(/^0x[0-9a-f]{64}$/)
    const plain = await post(server.url, body('personal_dumpRawKey', [COW]))
    expect(JSON.parse(plain.text).result).toMatch(/^0x[0-9a-f]{64}$/)
    const allowed = await post(trusting.url, body('personal_dumpRawKey', [COW]), { Origin: 'https://dapp.example' })
    expect(JSON.parse(allowed.text).result).toMatch(/^0x[0-9a-f]{64}$/)
    const other = await post(trusting.url, body('personal_dumpRawKey', [COW]), { Origin: 'https://other.example' })
    expect(JSON.parse(other.text).error.code).toBe(-32600)
  })

  it('refuses a Host header naming another site (DNS rebinding) with 400, unless allowed', async () => {
    const rebound = await raw(
      server.port,
      `POST / HTTP/1.1\r\nHost: evil.example:${server.port}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
    )
    expect(rebound).toMatch(/^HTTP\/1\.1 400 /)
    expect(rebound).toContain('DNS rebinding')
    const named = await raw(
      trusting.port,
      `POST / HTTP/1.1\r\nHost: my-node.test:${trusting.port}\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${body('eth_chainId').length}\r\n\r\n${body('eth_chainId')}`,
    )
    expect(named).toMatch(/^HTTP\/1\.1 200 /)
    const local = await post(`http://localhost:${server.port}`, body('eth_chainId'))
    expect(JSON.parse(local.text).result).toBe('0x21')
  })
})

describe('connections (D8)', () => {
  it('closes a connection that sends nothing after idleTimeout', async () => {
    const server = await startServer({ port: 0, idleTimeout: 200 })
    try {
      // Resolves only if the server closes the silent socket.
      const closed = await new Promise<boolean>((resolve) => {
        const s = connect(server.port, '127.0.0.1')
        s.on('close', () => resolve(true))
        s.on('error', () => undefined)
      })
      expect(closed).toBe(true)
    } finally {
      await server.close()
    }
  })

  it('refuses connections past maxConnections and still serves the ones it holds', async () => {
    const server = await startServer({ port: 0, maxConnections: 2 })
    const held: Socket[] = []
    try {
      for (let i = 0; i < 2; i++) {
        held.push(await new Promise<Socket>((resolve) => { const s = connect(server.port, '127.0.0.1', () => resolve(s)) }))
      }
      const refused = await raw(server.port, `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`).catch(() => '')
      expect(refused).toBe('')
      const text = body('eth_chainId')
      const reply = await new Promise<string>((resolve) => {
        const s = held[0]!
        let out = ''
        s.on('data', (d) => {
          out += d.toString()
          if (out.includes('"result"')) resolve(out)
        })
        s.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${text.length}\r\n\r\n${text}`)
      })
      expect(reply).toContain('"result":"0x21"')
    } finally {
      for (const s of held) s.destroy()
      await server.close()
    }
  })
})

describe('bodies with nothing to run (D9)', () => {
  let server: RsksimServer
  beforeAll(async () => {
    server = await startServer({ port: 0 })
  })
  afterAll(() => server.close())

  it('answers {} with -32600, id null, not an empty 200', async () => {
    const r = await post(server.url, '{}')
    expect(r.status).toBe(400)
    expect(JSON.parse(r.text)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } })
  })

  it('keeps a request without a method but with an id at RSKj -32601', async () => {
    const r = await post(server.url, '{"jsonrpc":"2.0","id":3}')
    expect(JSON.parse(r.text)).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'method not found' } })
  })

  it('is served over a plain node:http request too', async () => {
    const text = await new Promise<string>((resolve, reject) => {
      const req = request(server.url, { method: 'POST', headers: { 'Content-Type': 'application/json' } }, (res) => {
        let out = ''
        res.on('data', (d) => (out += d))
        res.on('end', () => resolve(out))
      })
      req.on('error', reject)
      req.end(body('net_version'))
    })
    expect(JSON.parse(text).result).toBe('33')
  })
})

describe('a long hardhat_mine over HTTP', () => {
  it('lets a request on another connection be answered between its turns of 1,000 blocks', async () => {
    const server = await startServer({ port: 0 })
    try {
      // The second request is sent once the first block is mined, so that it reaches the server while the 10,000
      // blocks are being mined (sent on a timer, it could be answered before mining began, at block 0).
      const started = new Promise<void>((resolve) => server.provider.once('block', () => resolve()))
      const mining = post(server.url, body('hardhat_mine', ['0x2710']))
      await started
      const meanwhile = JSON.parse((await post(server.url, body('eth_blockNumber'))).text) as { result: string }
      // Answered while the 10,000 blocks were still being mined, at a turn's end.
      expect(Number(meanwhile.result) % 1_000).toBe(0)
      expect(Number(meanwhile.result)).toBeGreaterThanOrEqual(1_000)
      expect(Number(meanwhile.result)).toBeLessThan(10_000)
      expect(JSON.parse((await mining).text)).toEqual({ jsonrpc: '2.0', id: 1, result: true })
      expect(JSON.parse((await post(server.url, body('eth_blockNumber'))).text).result).toBe('0x2710')
    } finally {
      await server.close()
    }
  })
})
