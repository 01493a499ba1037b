/**
 * What a WebSocket client can do to the server (src/server/ws.ts; the rows of docs/robustness.md "WebSocket").
 * Expected values: RSKj, whose WebSocket server runs every request but eth_subscribe/eth_unsubscribe through the
 * handler of its HTTP server (`Web3WebSocketServer` → `JsonRpcWeb3ServerHandler`): the same -32700/-32600 texts,
 * the batch limit, `rpc.timeout` and `rpc.maxResponseSize` (-32011, bare, `JsonRpcResponseLimitError`), adding up a
 * batch's answers as it runs (`ResponseSizeLimitContext.addResponse`), and a 5 MiB message
 * (`max_aggregated_frame_size` = 5242880); `EthSubscriptionNotificationEmitter.unsubscribe` answers false for an
 * id it does not hold. The HTTP answer of the same server is the second reference where both transports apply.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import type WebSocket from 'ws'
import { Wallet } from 'ethers'
import { createServer, request } from 'node:http'
import { createProvider, startServer, type Provider, type RsksimServer, type ServerOptions } from '../../src/index.js'
import { attachWebSocket } from '../../src/server/ws.js'
import { COW, COW_KEY, NO_QUOTA } from '../helpers.js'
import { openWs, type WsClient } from '../wsClient.js'

const servers: RsksimServer[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close()
})
async function serve(opts: ServerOptions = {}): Promise<RsksimServer> {
  const s = await startServer({ port: 0, ...NO_QUOTA, ...opts })
  servers.push(s)
  return s
}

/** A client without `ws`'s own 100 MiB limit on what it receives: the server's limits are what is tested. */
const open = (url: string, options: WebSocket.ClientOptions = {}): Promise<WsClient> => openWs(url, { maxPayload: 0, ...options })

async function post(url: string, body: unknown): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
  return res.json()
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Deploys `runtime` (hex, no 0x, under 256 bytes) with the smallest init code that returns it. */
async function deployRuntime(p: Provider, runtime: string): Promise<string> {
  const n = (runtime.length / 2).toString(16).padStart(2, '0')
  // PUSH1 n PUSH1 0x0c PUSH1 0 CODECOPY PUSH1 n PUSH1 0 RETURN, then the runtime at offset 12.
  const init = `0x60${n}600c60003960${n}6000f3${runtime}`
  const hash = await p.request({ method: 'eth_sendTransaction', params: [{ from: COW, data: init, gas: '0x100000' }] })
  const receipt = (await p.request({ method: 'eth_getTransactionReceipt', params: [hash] })) as { contractAddress: string }
  return receipt.contractAddress
}

/** Calls `to` as cow with 8,000,000 gas (automine: mined at once). */
const poke = (p: Provider, to: string) => p.request({ method: 'eth_sendTransaction', params: [{ from: COW, to, gas: '0x7a1200' }] })

describe('WebSocket: bad input of each shape gets a JSON-RPC error', () => {
  it('answers binary frames, and -32700 / -32600 for what is not a request, as over HTTP', async () => {
    const s = await serve()
    const c = await open(s.wsUrl)
    c.ws.send(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}'), { binary: true })
    expect(await c.next()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x21' })
    const parse = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'JSON parse error' } }
    const invalid = { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } }
    for (const [frame, answer] of [
      [Buffer.from([0xff, 0xfe, 0x00]), parse],
      ['{not json', parse],
      ['', parse],
      ['[]', invalid],
      ['5', invalid],
      ['null', invalid],
      [JSON.stringify({ jsonrpc: '2.0', id: { a: 1 }, method: 'eth_chainId' }), invalid],
    ] as const) {
      c.ws.send(frame)
      expect(await c.next()).toEqual(answer)
    }
    // RSKj `JsonRpcRequestValidatorInterceptor`: a batch over max_batch_requests_size (50) is refused whole, bare.
    c.ws.send(JSON.stringify(Array.from({ length: 51 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId' }))))
    expect(await c.next()).toEqual({ error: { code: -32600, message: 'Cannot dispatch batch requests. 50 is the max number of supported batch requests' } })
    // Notifications (no id), single or batched, get no answer: the next message is the answer to the request after.
    c.ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'eth_chainId' }))
    c.ws.send(JSON.stringify([{ jsonrpc: '2.0', method: 'eth_chainId' }, { jsonrpc: '2.0', method: 'eth_blockNumber' }]))
    expect(await c.call('eth_blockNumber')).toEqual({ jsonrpc: '2.0', id: 1, result: '0x0' })
  })

  it('takes a message of exactly 5 MiB and closes with 1009 at one byte more', async () => {
    const s = await serve()
    const c = await open(s.wsUrl)
    const request = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}'
    // JSON allows any amount of whitespace: padding makes a valid request of the exact size.
    c.ws.send(request + ' '.repeat(5 * 1024 * 1024 - request.length))
    expect(await c.next()).toEqual({ jsonrpc: '2.0', id: 1, result: '0x21' })
    c.ws.send(request + ' '.repeat(5 * 1024 * 1024 + 1 - request.length))
    expect(await c.closed).toEqual({ code: 1009, reason: '' })
    const other = await open(s.wsUrl)
    expect((await other.call('eth_chainId')).result).toBe('0x21')
  })

  it('eth_unsubscribe: false for an unknown id and for another socket\'s, whose subscription goes on', async () => {
    const s = await serve()
    const owner = await open(s.wsUrl)
    const other = await open(s.wsUrl)
    const id = (await owner.call('eth_subscribe', ['newHeads'])).result as string
    expect((await other.call('eth_unsubscribe', ['0x' + '12'.repeat(16)])).result).toBe(false)
    expect((await other.call('eth_unsubscribe', [id])).result).toBe(false)
    await s.provider.request({ method: 'evm_mine' })
    expect((await owner.next()).params).toMatchObject({ subscription: id, result: { number: '0x1' } })
    expect((await owner.call('eth_unsubscribe', [id])).result).toBe(true)
    expect((await other.call('eth_unsubscribe', [])).error.code).toBe(-32602)
  })
})

describe('WebSocket: the reply limit (maxResponseSize) applies as over HTTP', () => {
  it('answers a reply over the limit with the bare -32011, single or batched, and the socket goes on', async () => {
    // Ten addresses make an eth_accounts reply of about 500 bytes.
    const s = await serve({ maxResponseSize: 300 })
    const tooLarge = { error: { code: -32011, message: 'Response size limit of 300 bytes exceeded' } }
    const accounts = { jsonrpc: '2.0', id: 1, method: 'eth_accounts', params: [] }
    expect(await post(s.url, accounts)).toEqual(tooLarge)
    const c = await open(s.wsUrl)
    c.ws.send(JSON.stringify(accounts))
    expect(await c.next()).toEqual(tooLarge)
    c.ws.send(JSON.stringify([{ jsonrpc: '2.0', id: 2, method: 'eth_chainId' }, accounts]))
    expect(await c.next()).toEqual(tooLarge)
    expect(await c.call('eth_chainId')).toEqual({ jsonrpc: '2.0', id: 1, result: '0x21' })
  })

  it('cancels what a batch subscribed when the batch is answered by a bare error, which carries no id', async () => {
    const s = await serve({ maxResponseSize: 300, rpcTimeout: 200, callGasCap: 10n ** 12n })
    const c = await open(s.wsUrl)
    const subscribe = { jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }
    c.ws.send(JSON.stringify([subscribe, { jsonrpc: '2.0', id: 2, method: 'eth_accounts' }]))
    expect(await c.next()).toEqual({ error: { code: -32011, message: 'Response size limit of 300 bytes exceeded' } })
    c.ws.send(JSON.stringify([subscribe, { jsonrpc: '2.0', id: 2, method: 'eth_call', params: [{ data: '0x5b600056', gas: '0xe8d4a51000' }, 'latest'] }]))
    expect(await c.next()).toEqual({ error: { code: -32011, message: 'Execution has got timeout out.' } })
    // No subscription is left: a block sends nothing, so the next message is the answer to the request after it.
    await s.provider.request({ method: 'evm_mine' })
    expect(await c.call('eth_chainId')).toEqual({ jsonrpc: '2.0', id: 1, result: '0x21' })
    // A batch answered in full keeps its subscription.
    c.ws.send(JSON.stringify([subscribe, { jsonrpc: '2.0', id: 2, method: 'eth_chainId' }]))
    const [{ result: id }] = await c.next()
    await s.provider.request({ method: 'evm_mine' })
    expect((await c.next()).params).toMatchObject({ subscription: id, result: { number: '0x2' } })
  })

  it('cancels what a body subscribed when only its whole reply (brackets and commas too) is over the limit', async () => {
    // The two answers' own bytes fit the limit exactly; the batch's reply, 3 bytes more, does not (RSKj counts what it
    // sends). A lone eth_subscribe whose answer is over the limit is the same case.
    const idText = '0x' + '0'.repeat(32) // RSKj's SubscriptionId: 16 bytes as DATA
    const answers = JSON.stringify({ jsonrpc: '2.0', id: 1, result: idText }).length + JSON.stringify({ jsonrpc: '2.0', id: 2, result: '0x21' }).length
    const s = await serve({ maxResponseSize: answers })
    const c = await open(s.wsUrl)
    const subscribe = { jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }
    c.ws.send(JSON.stringify([subscribe, { jsonrpc: '2.0', id: 2, method: 'eth_chainId' }]))
    expect(await c.next()).toEqual({ error: { code: -32011, message: `Response size limit of ${answers} bytes exceeded` } })
    const small = await serve({ maxResponseSize: 40 })
    const d = await open(small.wsUrl)
    d.ws.send(JSON.stringify(subscribe))
    expect(await d.next()).toEqual({ error: { code: -32011, message: 'Response size limit of 40 bytes exceeded' } })
    // No subscription is left on either: a block sends nothing, so the next message is the answer to the request after it.
    await s.provider.request({ method: 'evm_mine' })
    await small.provider.request({ method: 'evm_mine' })
    expect(await c.call('eth_chainId')).toEqual({ jsonrpc: '2.0', id: 1, result: '0x21' })
    expect(await d.call('eth_chainId')).toEqual({ jsonrpc: '2.0', id: 1, result: '0x21' })
  })

  it('stops a batch at the limit instead of building a reply larger than a string can hold', async () => {
    const s = await serve()
    // Runtime: PUSH3 600000 PUSH1 0 LOG0 STOP, one 600,000-byte log per call (1.2 MB of hex in a reply).
    const addr = await deployRuntime(s.provider, '620927c06000a000')
    for (let i = 0; i < 20; i++) await poke(s.provider, addr)
    const getLogs = { jsonrpc: '2.0', method: 'eth_getLogs', params: [{ fromBlock: '0x0', toBlock: 'latest', address: addr }] }
    const [one] = (await s.provider.request(getLogs)) as Array<{ data: string }>
    expect(one!.data.length).toBe(2 + 2 * 600_000)
    // Fifty answers of 24 MB each: 1.2 GB of JSON, past V8's longest string (2^29 - 24 characters).
    const batch = Array.from({ length: 50 }, (_, id) => ({ ...getLogs, id }))
    const tooLarge = { error: { code: -32011, message: 'Response size limit of 10485760 bytes exceeded' } }
    // Before the limit applied to WebSocket, the batch threw from JSON.stringify in a promise nobody awaited, which
    // ends a Node process (an unhandled rejection); HTTP answered the catch-all -32099 after using 2.3 GB.
    const c = await open(s.wsUrl)
    c.ws.send(JSON.stringify(batch))
    expect(await c.next()).toEqual(tooLarge)
    c.ws.send(JSON.stringify({ ...getLogs, id: 1 }))
    expect(await c.next()).toEqual(tooLarge)
    expect(await c.call('eth_chainId')).toEqual({ jsonrpc: '2.0', id: 1, result: '0x21' })
    expect(await post(s.url, batch)).toEqual(tooLarge)
  })
})

describe('WebSocket: no client holds the node or the others', () => {
  it('a request that runs to rpcTimeout answers -32011; the other socket is answered after it', async () => {
    // JUMPDEST PUSH1 0 JUMP, an endless loop, with gas enough to run far past the deadline.
    const s = await serve({ rpcTimeout: 200, callGasCap: 10n ** 12n })
    const slow = await open(s.wsUrl)
    const other = await open(s.wsUrl)
    slow.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ data: '0x5b600056', gas: '0xe8d4a51000' }, 'latest'] }))
    const answered = other.call('eth_blockNumber')
    expect(await slow.next()).toEqual({ error: { code: -32011, message: 'Execution has got timeout out.' } })
    expect(await answered).toEqual({ jsonrpc: '2.0', id: 1, result: '0x0' })
  })

  it('drops a client with 1000 subscriptions that stops reading while blocks of many logs are mined', async () => {
    const s = await serve()
    // Runtime: 200 times LOG0 of 32 bytes (a counted loop), so every call makes 200 logs.
    const addr = await deployRuntime(s.provider, '60c85b801560145760206000a0600190036002565b00')
    const r = (await s.provider.request({ method: 'eth_getTransactionReceipt', params: [await poke(s.provider, addr)] })) as { logs: unknown[] }
    expect(r.logs).toHaveLength(200)
    const other = await open(s.wsUrl)
    // Each connection listens to the node's blocks for its subscriptions: the count shows when they are freed.
    const listeners = (): number => s.provider.node.events.listenerCount('block')
    const base = listeners()
    const stuck = await open(s.wsUrl)
    for (let i = 0; i < 1000; i++) stuck.ws.send(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_subscribe', params: ['logs'] }))
    for (let i = 0; i < 1000; i++) expect((await stuck.next()).result).toMatch(/^0x[0-9a-f]{32}$/)
    expect((await stuck.call('eth_subscribe', ['logs'])).error).toEqual({ code: -32602, message: 'too many subscriptions (limit 1000)' })
    expect(listeners()).toBe(base + 1)
    // 1000 subscriptions x 200 logs is 200,000 notifications (about 100 MB) per block: far past the 16 MiB bound.
    ;(stuck.ws as unknown as { _socket: { pause(): void } })._socket.pause()
    await poke(s.provider, addr)
    expect(listeners()).toBe(base)
    expect((await other.call('eth_blockNumber')).result).toBe('0x3')
    // Once it reads again, the client finds what was sent before the bound was passed, then the close.
    ;(stuck.ws as unknown as { _socket: { resume(): void } })._socket.resume()
    expect(await stuck.closed).toEqual({ code: 1008, reason: 'send buffer full: the client does not read' })
  })

  it('bounds the filter values all subscriptions of the node hold, and gives them back when they go', async () => {
    // The largest filter one subscription may name: 1,000 addresses and 4 positions of 1,000 topics (5,000 values,
    // about 2 MB of matchers). 2,110 of them over three sockets ran the node out of memory before the bound.
    const s = await serve()
    const addresses = Array.from({ length: 1000 }, (_, i) => '0x' + (i + 1).toString(16).padStart(40, '0'))
    const topics = addresses.map((a) => '0x' + a.slice(2).padStart(64, '0'))
    const largest = { address: addresses, topics: [topics, topics, topics, topics] }
    const a = await open(s.wsUrl)
    const b = await open(s.wsUrl)
    for (let i = 0; i < 20; i++) expect((await a.call('eth_subscribe', ['logs', largest])).result).toMatch(/^0x[0-9a-f]{32}$/)
    const full = {
      code: -32000,
      message: 'too many filter values held by filters and subscriptions (100000 of 100000 in use, this one names 1): uninstall or unsubscribe some, or name fewer addresses and topics',
    }
    expect((await b.call('eth_subscribe', ['logs', { address: addresses[0] }])).error).toEqual(full)
    await expect(s.provider.request({ method: 'eth_subscribe', params: ['logs', { topics: [topics[0]] }] })).rejects.toMatchObject(full)
    // Subscriptions without values are not held back.
    expect((await b.call('eth_subscribe', ['logs'])).result).toMatch(/^0x/)
    expect((await b.call('eth_subscribe', ['newHeads'])).result).toMatch(/^0x/)
    const first = (await a.call('eth_subscribe', ['newHeads'])).result as string
    expect((await a.call('eth_unsubscribe', [first])).result).toBe(true)
    // A subscription of a closed socket gives its values back.
    a.ws.terminate()
    let answer: any
    do answer = await b.call('eth_subscribe', ['logs', largest])
    while (answer.error !== undefined)
    expect(answer.result).toMatch(/^0x[0-9a-f]{32}$/)
    // And one cancelled by eth_unsubscribe.
    expect((await b.call('eth_unsubscribe', [answer.result])).result).toBe(true)
    for (let i = 0; i < 20; i++) expect((await b.call('eth_subscribe', ['logs', largest])).result).toMatch(/^0x/)
  })

  it('holds eth_newFilter\'s log filters to the same node-wide bound as subscriptions, and gives back what they held', async () => {
    const s = await serve({ filterTimeout: 60_000 })
    const addresses = Array.from({ length: 1000 }, (_, i) => '0x' + (i + 1).toString(16).padStart(40, '0'))
    const topics = addresses.map((a) => '0x' + a.slice(2).padStart(64, '0'))
    const largest = { address: addresses, topics: [topics, topics, topics, topics] }
    const full = (asked: number) => ({
      code: -32000,
      message: `too many filter values held by filters and subscriptions (100000 of 100000 in use, this one names ${asked}): uninstall or unsubscribe some, or name fewer addresses and topics`,
    })
    // 19 filters and one subscription of 5,000 values each: the 100,000 are held.
    const ids: string[] = []
    for (let i = 0; i < 19; i++) ids.push((await s.provider.request({ method: 'eth_newFilter', params: [largest] })) as string)
    const c = await open(s.wsUrl)
    const sub = (await c.call('eth_subscribe', ['logs', largest])).result as string
    await expect(s.provider.request({ method: 'eth_newFilter', params: [{ address: addresses[0] }] })).rejects.toMatchObject(full(1))
    expect((await c.call('eth_subscribe', ['logs', { address: addresses[0] }])).error).toEqual(full(1))
    // Filters without values, and the other kinds, are not held back.
    expect(await s.provider.request({ method: 'eth_newFilter', params: [{}] })).toMatch(/^0x/)
    expect(await s.provider.request({ method: 'eth_newBlockFilter', params: [] })).toMatch(/^0x/)
    // An uninstalled filter gives its values back; so does a cancelled subscription.
    expect(await s.provider.request({ method: 'eth_uninstallFilter', params: [ids[0]] })).toBe(true)
    expect((await c.call('eth_subscribe', ['logs', largest])).result).toMatch(/^0x[0-9a-f]{32}$/)
    expect((await c.call('eth_unsubscribe', [sub])).result).toBe(true)
    expect(await s.provider.request({ method: 'eth_newFilter', params: [largest] })).toMatch(/^0x/)
  })

  it('gives back the filter values of a log filter that expired', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      const p = await createProvider({ ...NO_QUOTA })
      const addresses = Array.from({ length: 1000 }, (_, i) => '0x' + (i + 1).toString(16).padStart(40, '0'))
      const topics = addresses.map((a) => '0x' + a.slice(2).padStart(64, '0'))
      const largest = { address: addresses, topics: [topics, topics, topics, topics] }
      for (let i = 0; i < 20; i++) await p.request({ method: 'eth_newFilter', params: [largest] })
      await expect(p.request({ method: 'eth_newFilter', params: [largest] })).rejects.toMatchObject({ code: -32000 })
      vi.setSystemTime(Date.now() + 5 * 60_000 + 1) // past filterTimeout (5 minutes): all 20 expire unpolled
      expect(await p.request({ method: 'eth_newFilter', params: [largest] })).toMatch(/^0x/)
    } finally {
      vi.useRealTimers()
    }
  })

  it('gives back the filter values of a batch that subscribes after its socket closed', async () => {
    // The batch's first element waits for its transaction's block (mining off); the socket is gone by the time that
    // block comes and the batch's eth_subscribe runs. Nothing could ever cancel that subscription: it must not be made.
    const s = await serve()
    await s.provider.request({ method: 'evm_setAutomine', params: [false] })
    const addresses = Array.from({ length: 1000 }, (_, i) => '0x' + (i + 1).toString(16).padStart(40, '0'))
    const topics = addresses.map((a) => '0x' + a.slice(2).padStart(64, '0'))
    const largest = { address: addresses, topics: [topics, topics, topics, topics] }
    const raw = await new Wallet(COW_KEY).signTransaction({ type: 0, chainId: 33, nonce: 0, gasLimit: 21_000n, gasPrice: 0n, to: COW, value: 1n })
    // Each socket's subscriptions listen to the node's blocks from its opening to its close, and so does the batch's
    // eth_sendRawTransactionSync while it waits for its block (src/node/miner/inclusion.ts).
    const listeners = (): number => s.provider.node.events.listenerCount('block')
    const base = listeners()
    const a = await open(s.wsUrl)
    a.ws.send(JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransactionSync', params: [raw, 10_000] },
      { jsonrpc: '2.0', id: 2, method: 'eth_subscribe', params: ['logs', largest] },
    ]))
    // The transaction is in the pool: the batch has started, and waits (the socket's listener and the wait's). Then the
    // socket goes.
    while ((await s.provider.request({ method: 'eth_getTransactionCount', params: [COW, 'pending'] })) !== '0x1') await sleep(5)
    expect(listeners()).toBe(base + 2)
    a.ws.terminate()
    // The server has seen the close (had it not yet, the subscription made would be dropped with the socket); the
    // batch still waits. (Waiting for `base` here would wait out the 10 s deadline: the batch would go on by its
    // timeout, not by the block below.)
    while (listeners() > base + 1) await sleep(5)
    await s.provider.request({ method: 'evm_mine' }) // the first element's block: the batch goes on to eth_subscribe
    expect(listeners()).toBe(base)
    // The batch's eth_subscribe runs on microtasks once the block is announced: two turns of the loop are past it.
    for (let i = 0; i < 2; i++) await new Promise((r) => setImmediate(r))
    const b = await open(s.wsUrl)
    // The whole node-wide allowance (100,000 values, 20 such subscriptions) is free.
    for (let i = 0; i < 20; i++) expect((await b.call('eth_subscribe', ['logs', largest])).result).toMatch(/^0x[0-9a-f]{32}$/)
  })

  it('frees the subscriptions of a socket closed abruptly', async () => {
    const s = await serve()
    const listeners = (): number => s.provider.node.events.listenerCount('block')
    const base = listeners()
    const c = await open(s.wsUrl)
    await c.call('eth_subscribe', ['newHeads'])
    await c.call('eth_subscribe', ['logs'])
    expect(listeners()).toBe(base + 1)
    c.ws.terminate() // the TCP connection is destroyed, no close frame
    while (listeners() > base) await sleep(10)
    await s.provider.request({ method: 'evm_mine' })
    expect(await s.provider.request({ method: 'eth_blockNumber' })).toBe('0x1')
  })

  it('pings, and drops a socket that did not answer the previous ping', async () => {
    const provider = await createProvider(NO_QUOTA)
    const http = createServer()
    const close = attachWebSocket(http, provider, null, { allowedHosts: [], allowedOrigins: [], boundHost: '127.0.0.1' }, { pingMs: 50 })
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()))
    const url = `ws://127.0.0.1:${(http.address() as { port: number }).port}`
    try {
      const live = await open(url)
      const dead = await open(url, { autoPong: false })
      let pinged = 0
      live.ws.on('ping', () => pinged++)
      // Terminated, not closed: the client sees the abnormal closure code.
      expect((await dead.closed).code).toBe(1006)
      expect(pinged).toBeGreaterThan(0)
      expect(await live.call('eth_chainId')).toEqual({ jsonrpc: '2.0', id: 1, result: '0x21' })
      live.ws.close()
    } finally {
      await close()
      await new Promise((r) => http.close(r))
      await provider.disconnect()
    }
  })

  it('counts sockets against maxConnections: past it a new connection is closed at once', async () => {
    const s = await serve({ maxConnections: 2 })
    const a = await open(s.wsUrl)
    await open(s.wsUrl)
    await expect(open(s.wsUrl)).rejects.toThrow('socket hang up')
    const http = await new Promise<string>((resolve) => {
      const req = request(s.url, { method: 'POST', headers: { 'Content-Type': 'application/json' } }, () => resolve('answered'))
      req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message))
      req.end('{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}')
    })
    expect(http).toBe('ECONNRESET')
    a.ws.close()
    await a.closed
    // The server counts the connection as closed once its socket is: try until it has.
    let again: WsClient | undefined
    while (again === undefined) again = await open(s.wsUrl).catch(() => undefined)
    expect((await again.call('eth_chainId')).result).toBe('0x21')
  })
})
