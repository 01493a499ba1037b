import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { connect } from 'node:net'
import { once } from 'node:events'
import { createProvider } from '../src/provider/index.js'
import { startServer, type RsksimServer } from '../src/server/index.js'

interface HttpReply {
  status: number
  headers: Headers
  text: string
}

async function send(url: string, init: RequestInit): Promise<HttpReply> {
  const res = await fetch(url, init)
  return { status: res.status, headers: res.headers, text: await res.text() }
}

function post(url: string, body: string, contentType = 'application/json'): Promise<HttpReply> {
  return send(url, { method: 'POST', headers: { 'Content-Type': contentType }, body })
}

function rpc(url: string, method: string, params: unknown[] = [], id: number | string | null = 1): Promise<HttpReply> {
  return post(url, JSON.stringify({ jsonrpc: '2.0', id, method, params }))
}

async function blockNumber(url: string): Promise<bigint> {
  const reply = await rpc(url, 'eth_blockNumber')
  const body: unknown = JSON.parse(reply.text)
  expect(body).toMatchObject({ result: expect.stringMatching(/^0x[0-9a-f]+$/) })
  return BigInt((body as { result: string }).result)
}

describe('startServer: transport rules (reference §1.1)', () => {
  let server: RsksimServer
  beforeAll(async () => {
    server = await startServer({ port: 0 })
  })
  afterAll(() => server.close())

  it('listens on 127.0.0.1 and reports the bound port in url', () => {
    expect(server.host).toBe('127.0.0.1')
    expect(server.port).toBeGreaterThan(0)
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`)
  })

  it('answers a call with 200, application/json, Content-Length and a trailing newline', async () => {
    const reply = await rpc(server.url, 'eth_chainId', [], 7)
    expect(reply.status).toBe(200)
    expect(reply.headers.get('content-type')).toBe('application/json')
    expect(reply.text).toBe('{"jsonrpc":"2.0","id":7,"result":"0x21"}\n')
    expect(reply.headers.get('content-length')).toBe(String(Buffer.byteLength(reply.text)))
    expect(reply.headers.get('access-control-allow-origin')).toBe('*')
  })

  it('serves any path when no API keys are configured', async () => {
    const reply = await rpc(`${server.url}/whatever/key`, 'eth_chainId')
    expect(reply.status).toBe(200)
  })

  it.each(['GET', 'PUT', 'DELETE'])('answers %s with 501 and an error that says to POST JSON', async (method) => {
    const reply = await send(server.url, { method })
    expect(reply.status).toBe(501)
    expect(JSON.parse(reply.text)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'rsksim serves JSON-RPC 2.0 over POST only: send POST with Content-Type: application/json' },
    })
  })

  it('answers a CORS preflight with 204 and the allowed method and header', async () => {
    const reply = await send(server.url, {
      method: 'OPTIONS',
      headers: { Origin: 'http://localhost:3000', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
    })
    expect(reply.status).toBe(204)
    expect(reply.headers.get('access-control-allow-origin')).toBe('*')
    expect(reply.headers.get('access-control-allow-methods')).toBe('POST')
    expect(reply.headers.get('access-control-allow-headers')).toBe('Content-Type')
    expect(reply.text).toBe('')
  })

  it('refuses a Content-Type other than application/json(-rpc) with 415', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] })
    const plain = await post(server.url, body, 'text/plain')
    expect(plain.status).toBe(415)
    expect(JSON.parse(plain.text).error.message).toMatch(/Content-Type: application\/json/)
    expect((await send(server.url, { method: 'POST', body: new Uint8Array(Buffer.from(body)) })).status).toBe(415)
    expect((await post(server.url, body, 'application/json; charset=UTF-8')).status).toBe(200)
    expect((await post(server.url, body, 'application/json-rpc')).status).toBe(200)
  })

  it('refuses a body over 5 MiB with 413', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: ['x'.repeat(5 * 1024 * 1024)] })
    const reply = await post(server.url, big)
    expect(reply.status).toBe(413)
    expect(JSON.parse(reply.text).error).toEqual({ code: -32600, message: 'the request body is larger than 5242880 bytes (maxBodyBytes / --max-body-bytes)' })
  })

  it('answers malformed JSON with 400 and -32700, id null', async () => {
    const reply = await post(server.url, '{"jsonrpc":"2.0","id":1,')
    expect(reply.status).toBe(400)
    expect(reply.text).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"JSON parse error"}}\n')
  })

  it('answers an empty body as RSKj does: -32099 Unexpected error, 200', async () => {
    const reply = await post(server.url, '')
    expect(reply.status).toBe(200)
    expect(reply.text).toBe('{"error":{"code":-32099,"message":"Unexpected error"}}\n')
  })

  it('answers -32602 (invalid params) with 400', async () => {
    const reply = await rpc(server.url, 'eth_getBalance', ['0x123', 'latest'])
    expect(reply.status).toBe(400)
    expect(JSON.parse(reply.text)).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32602 } })
  })

  it('answers -32601 (unknown method) with 200', async () => {
    const reply = await rpc(server.url, 'eth_noSuchMethod')
    expect(reply.status).toBe(200)
    expect(JSON.parse(reply.text)).toMatchObject({ id: 1, error: { code: -32601 } })
  })

  it('answers a batch with 200 and the replies in order, even when one failed', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'eth_getBalance', params: ['0x123', 'latest'] },
      { jsonrpc: '2.0', id: 3, method: 'net_version', params: [] },
    ]
    const reply = await post(server.url, JSON.stringify(batch))
    expect(reply.status).toBe(200)
    const body: unknown = JSON.parse(reply.text)
    expect(body).toMatchObject([{ id: 1, result: '0x21' }, { id: 2, error: { code: -32602 } }, { id: 3, result: '33' }])
  })

  it('refuses a batch over 50 requests with 400 and a bare error', async () => {
    const batch = Array.from({ length: 51 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId', params: [] }))
    const reply = await post(server.url, JSON.stringify(batch))
    expect(reply.status).toBe(400)
    expect(JSON.parse(reply.text)).toEqual({
      error: { code: -32600, message: 'Cannot dispatch batch requests. 50 is the max number of supported batch requests' },
    })
  })

  it('runs a notification and answers 200 with an empty body', async () => {
    const before = await blockNumber(server.url)
    const reply = await post(server.url, JSON.stringify({ jsonrpc: '2.0', method: 'evm_mine', params: [] }))
    expect(reply.status).toBe(200)
    expect(reply.text).toBe('')
    expect(reply.headers.get('content-length')).toBe('0')
    expect(await blockNumber(server.url)).toBe(before + 1n)
  })

  it('keeps connections alive by default', async () => {
    const reply = await rpc(server.url, 'eth_chainId')
    expect(reply.headers.get('connection')).not.toBe('close')
  })

  it('rejects startServer with a clear error when the port is in use', async () => {
    await expect(startServer({ port: server.port })).rejects.toThrow(/cannot listen on 127\.0\.0\.1:\d+: the address is already in use/)
  })
})

describe('startServer: API keys (spec "Authentication")', () => {
  let server: RsksimServer
  let keyed: string
  beforeAll(async () => {
    server = await startServer({ port: 0, apiKeys: ['secret', 'other'] })
    keyed = `${server.baseUrl}/secret`
  })
  afterAll(() => server.close())

  it('serves POST /<key> for each configured key, the key being the last path segment', async () => {
    expect((await rpc(keyed, 'eth_chainId')).text).toBe('{"jsonrpc":"2.0","id":1,"result":"0x21"}\n')
    expect((await rpc(`${server.baseUrl}/other`, 'eth_chainId')).status).toBe(200)
    expect((await rpc(`${server.baseUrl}/v1/secret`, 'eth_chainId')).status).toBe(200)
    expect((await rpc(`${server.baseUrl}/secret?x=1`, 'eth_chainId')).status).toBe(200)
  })

  it('answers a missing key with 401 and a JSON-RPC error, id null: the body is never read', async () => {
    const reply = await rpc(server.baseUrl, 'eth_chainId', [], 42)
    expect(reply.status).toBe(401)
    expect(reply.headers.get('content-type')).toBe('application/json')
    expect(reply.text).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid or missing API key"}}\n')
  })

  it('answers a wrong key with 401, id null, and closes the connection', async () => {
    const wrong = await rpc(`${server.baseUrl}/secret/wrong`, 'eth_chainId', [], 'a')
    expect(wrong.text).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid or missing API key"}}\n')
    expect(wrong.headers.get('connection')).toBe('close')
    const batch = await post(`${server.baseUrl}/wrong`, JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }]))
    expect(batch.status).toBe(401)
    expect(JSON.parse(batch.text)).toMatchObject({ id: null, error: { code: -32600 } })
    const garbage = await post(`${server.baseUrl}/wrong`, '{nope')
    expect(garbage.status).toBe(401)
    expect(JSON.parse(garbage.text)).toMatchObject({ id: null })
  })

  it('runs nothing on a wrong or missing key', async () => {
    const before = await blockNumber(keyed)
    expect((await rpc(`${server.baseUrl}/wrong`, 'evm_mine')).status).toBe(401)
    expect((await rpc(server.baseUrl, 'evm_mine')).status).toBe(401)
    expect((await post(`${server.baseUrl}/wrong`, JSON.stringify({ jsonrpc: '2.0', method: 'evm_mine', params: [] }))).status).toBe(401)
    expect(await blockNumber(keyed)).toBe(before)
    expect((await rpc(keyed, 'evm_mine')).status).toBe(200)
    expect(await blockNumber(keyed)).toBe(before + 1n)
  })
})

describe('startServer: options and lifecycle', () => {
  it('honours maxBodyBytes', async () => {
    const server = await startServer({ port: 0, maxBodyBytes: 64 })
    try {
      expect((await rpc(server.baseUrl, 'eth_chainId')).status).toBe(200)
      expect((await rpc(server.baseUrl, 'eth_chainId', ['x'.repeat(100)])).status).toBe(413)
    } finally {
      await server.close()
    }
  })

  it('sends Connection: close after each reply when keepAlive is false, as RSKj does', async () => {
    const server = await startServer({ port: 0, keepAlive: false })
    try {
      const reply = await rpc(server.baseUrl, 'eth_chainId')
      expect(reply.status).toBe(200)
      expect(reply.headers.get('connection')).toBe('close')
    } finally {
      await server.close()
    }
  })

  it('passes provider options through (network)', async () => {
    const server = await startServer({ port: 0, network: 'testnet' })
    try {
      expect(JSON.parse((await rpc(server.baseUrl, 'eth_chainId')).text)).toMatchObject({ result: '0x1f' })
    } finally {
      await server.close()
    }
  })

  it('serves an existing provider and leaves it connected on close', async () => {
    const provider = await createProvider()
    const disconnect = vi.spyOn(provider, 'disconnect')
    const server = await startServer({ port: 0, provider })
    expect(server.provider).toBe(provider)
    await rpc(server.baseUrl, 'evm_mine')
    expect(await provider.request({ method: 'eth_blockNumber' })).toBe('0x1')
    await server.close()
    expect(disconnect).not.toHaveBeenCalled()
    await provider.disconnect()
  })

  it('close() disconnects an owned provider, drops kept-alive sockets promptly and is idempotent', async () => {
    const server = await startServer({ port: 0 })
    const disconnect = vi.spyOn(server.provider, 'disconnect')
    expect((await rpc(server.baseUrl, 'eth_chainId')).status).toBe(200) // leaves an idle kept-alive socket
    // A connection in the middle of a request (headers sent, body not): Node's close() alone would wait for it
    // until its request timeout, so close() resolving at all shows connections are dropped, not waited for.
    const { port } = new URL(server.url)
    const open = connect(Number(port), '127.0.0.1')
    await once(open, 'connect')
    open.on('error', () => undefined) // the server resets it: expected
    open.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`)
    const dropped = new Promise((resolve) => open.once('close', resolve)) // events.once would reject on the reset
    await Promise.all([server.close(), server.close()])
    await dropped
    expect(disconnect).toHaveBeenCalledTimes(1)
    await expect(rpc(server.baseUrl, 'eth_chainId')).rejects.toThrow()
  })
})
