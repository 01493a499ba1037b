/**
 * JSON-RPC and eth_subscribe over WebSocket on the HTTP port, with real clients (ethers v6, viem, web3.js v4) and
 * raw `ws` sockets. Expected values come from the same node over HTTP/in process (eth_getBlockByNumber,
 * eth_getLogs); limits are those of src/server/ws.ts (RSKj `Web3WebSocketServer`: 5 MB aggregate messages).
 */
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { Contract, Interface, WebSocketProvider, Wallet, id as keccakId } from 'ethers'
import { createPublicClient, webSocket } from 'viem'
import { Web3 } from 'web3'
import { createServer } from 'node:http'
import type { Socket } from 'node:net'
import { createProvider, startServer, type RsksimServer } from '../src/index.js'
import { attachWebSocket, WS_CLOSE_GRACE_MS } from '../src/server/ws.js'
import { COW, COW_KEY, COW1, deploy, NO_QUOTA } from './helpers.js'
import { Events } from './fixtures/index.js'
import { openWs } from './wsClient.js'

const servers: RsksimServer[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close()
})
async function serve(opts: Parameters<typeof startServer>[0] = {}): Promise<RsksimServer> {
  const s = await startServer({ port: 0, ...NO_QUOTA, ...opts })
  servers.push(s)
  return s
}

const open = (url: string) => openWs(url)

const events = new Interface(Events.abi as never)
const VALUE = keccakId('Value(uint256,uint256)')

describe('WebSocket endpoint', () => {
  it('answers every method, single and batch, and pushes newHeads in order', async () => {
    const s = await serve()
    expect(s.wsUrl).toBe(`ws://127.0.0.1:${s.port}`)
    const c = await open(s.wsUrl)
    expect(await c.call('eth_chainId')).toEqual({ jsonrpc: '2.0', id: 1, result: '0x21' })
    c.ws.send(JSON.stringify([{ jsonrpc: '2.0', id: 'a', method: 'eth_blockNumber', params: [] }, { jsonrpc: '2.0', id: 'b', method: 'nope', params: [] }]))
    const batch = await c.next()
    expect(batch[0]).toEqual({ jsonrpc: '2.0', id: 'a', result: '0x0' })
    expect(batch[1].error.code).toBe(-32601)
    const sub = (await c.call('eth_subscribe', ['newHeads'])).result
    for (let i = 0; i < 3; i++) await s.provider.request({ method: 'evm_mine' })
    const got = [await c.next(), await c.next(), await c.next()]
    expect(got.map((m) => m.params.result.number)).toEqual(['0x1', '0x2', '0x3'])
    expect(got[0]).toMatchObject({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: sub } })
    const b2 = await s.provider.request({ method: 'eth_getBlockByNumber', params: ['0x2', false] }) as any
    expect(got[1].params.result.hash).toBe(b2.hash)
    c.ws.send('{not json')
    expect((await c.next()).error.code).toBe(-32700)
    c.ws.close()
  })

  it('refuses an upgrade without a valid key, and in hosted mode', async () => {
    const s = await serve({ apiKeys: ['k1'] })
    const status = (url: string): Promise<number> =>
      new Promise((res) => {
        const ws = new WebSocket(url)
        ws.on('unexpected-response', (_req, r) => res(r.statusCode ?? 0))
        ws.on('open', () => res(101))
        ws.on('error', () => undefined)
      })
    // With keys, wsUrl carries the first one (as url does); the base is the same URL without it.
    const base = s.baseUrl.replace('http://', 'ws://')
    expect(s.wsUrl).toBe(`${base}/k1`)
    expect(await status(base)).toBe(401)
    expect(await status(`${base}/bad`)).toBe(401)
    expect(await status(s.wsUrl)).toBe(101)
    const h = await serve({ hosted: true })
    expect(await status(h.wsUrl)).toBe(400)
  })

  it('ethers v6 WebSocketProvider: on(block), a contract event, getBlock, a sent transaction', async () => {
    const s = await serve()
    const addr = await deploy(s.provider, Events)
    // cacheTimeout -1: ethers otherwise reuses a nonce read within 250 ms (its cache, not the node).
    const ep = new WebSocketProvider(s.wsUrl, undefined, { cacheTimeout: -1 })
    const wallet = new Wallet(COW_KEY, ep)
    const blocks: number[] = []
    const values: bigint[] = []
    await ep.on('block', (n: number) => blocks.push(n))
    const c = new Contract(addr, Events.abi as never, wallet)
    await c.on('Value', (a: bigint) => values.push(a))
    const tx = await wallet.sendTransaction({ to: COW1, value: 1n, gasLimit: 21000n, type: 0 })
    const r = await tx.wait()
    expect(r?.status).toBe(1)
    const tx2 = await c.getFunction('emitMany')(3n, { gasLimit: 500000n, type: 0 })
    await tx2.wait()
    const head = Number(await s.provider.request({ method: 'eth_blockNumber' }))
    while (blocks.at(-1) !== head || values.length < 3) await new Promise((r) => setTimeout(r, 20))
    expect(values).toEqual([0n, 1n, 2n])
    expect(new Set(blocks).size).toBe(blocks.length)
    expect((await ep.getBlock(head))?.number).toBe(head)
    await ep.destroy()
  }, 60_000)

  it('viem webSocket: watchBlocks and watchPendingTransactions with poll: false', async () => {
    const s = await serve({ mining: { auto: false } })
    const client = createPublicClient({ transport: webSocket(s.wsUrl, { reconnect: false }) })
    const blocks: bigint[] = []
    const pending: string[] = []
    const un1 = client.watchBlocks({ poll: false, onBlock: (b) => blocks.push(b.number) })
    const un2 = client.watchPendingTransactions({ poll: false, onTransactions: (h) => pending.push(...h) })
    // The subscriptions are set up asynchronously: send and mine until both have reported, then check that what
    // arrived is every block once, consecutive and in order, and the hashes in the order sent.
    const sent: string[] = []
    while (pending.length === 0 || blocks.length < 3) {
      sent.push((await s.provider.request({ method: 'eth_sendTransaction', params: [{ from: COW, to: COW1, value: '0x1' }] })) as string)
      await s.provider.request({ method: 'evm_mine' })
      await new Promise((r) => setTimeout(r, 20))
    }
    const head = BigInt((await s.provider.request({ method: 'eth_blockNumber' })) as string)
    while (blocks.at(-1) !== head || pending.at(-1) !== sent.at(-1)) await new Promise((r) => setTimeout(r, 20))
    expect(blocks).toEqual(Array.from({ length: blocks.length }, (_, i) => blocks[0]! + BigInt(i)))
    expect(pending).toEqual(sent.slice(sent.length - pending.length))
    un1()
    un2()
  }, 60_000)

  it('viem webSocket: watchContractEvent sees every log once, in order', async () => {
    const s = await serve()
    const addr = (await deploy(s.provider, Events)) as `0x${string}`
    const client = createPublicClient({ transport: webSocket(s.wsUrl, { reconnect: false }) })
    const seen: Array<{ block: bigint; a: bigint }> = []
    const un = client.watchContractEvent({
      address: addr,
      abi: Events.abi as never,
      eventName: 'Value',
      poll: false,
      onLogs: (logs: any[]) => {
        for (const l of logs) seen.push({ block: l.blockNumber, a: l.args.a })
      },
    })
    // Emit until the subscription (set up asynchronously) reports, then once more; check order and uniqueness.
    const emit = () => s.provider.request({ method: 'eth_sendTransaction', params: [{ from: COW, to: addr, gas: '0x7a120', data: events.encodeFunctionData('emitMany', [2]) }] })
    while (seen.length === 0) {
      await emit()
      await new Promise((r) => setTimeout(r, 20))
    }
    await emit()
    const head = BigInt((await s.provider.request({ method: 'eth_blockNumber' })) as string)
    while (seen.at(-1)?.block !== head || seen.length % 2 !== 0) await new Promise((r) => setTimeout(r, 20))
    const first = seen[0]!.block
    expect(seen).toEqual(Array.from({ length: seen.length }, (_, i) => ({ block: first + BigInt(i >> 1), a: BigInt(i & 1) })))
    un()
  }, 60_000)

  it('web3.js v4 subscribe(newBlockHeaders) and logs, with removed: true after evm_revert', async () => {
    const s = await serve()
    const addr = await deploy(s.provider, Events)
    const web3 = new Web3(s.wsUrl)
    const heads: bigint[] = []
    const logs: any[] = []
    const hs = await web3.eth.subscribe('newBlockHeaders')
    hs.on('data', (h: any) => {
      heads.push(BigInt(h.number))
    })
    const ls = await web3.eth.subscribe('logs', { address: addr, topics: [VALUE] })
    ls.on('data', (l: any) => {
      logs.push(l)
    })
    const snap = await s.provider.request({ method: 'evm_snapshot' })
    await s.provider.request({ method: 'eth_sendTransaction', params: [{ from: COW, to: addr, gas: '0x7a120', data: events.encodeFunctionData('emitMany', [2]) }] })
    while (logs.length < 2) await new Promise((r) => setTimeout(r, 20))
    const mined = BigInt((await s.provider.request({ method: 'eth_blockNumber' })) as string)
    await s.provider.request({ method: 'evm_revert', params: [snap] })
    while (logs.length < 4) await new Promise((r) => setTimeout(r, 20))
    expect(logs.map((l) => l.removed)).toEqual([false, false, true, true])
    expect(logs.slice(2).map((l) => l.logIndex)).toEqual(logs.slice(0, 2).map((l) => l.logIndex)) // block by block, newest block first
    expect(logs.every((l) => BigInt(l.blockNumber) === mined)).toBe(true)
    expect(heads).toEqual([mined])
    web3.provider?.disconnect()
  }, 60_000)

  it('200 sockets with a subscription each all get 100 newHeads', async () => {
    const s = await serve()
    const socks = await Promise.all(Array.from({ length: 200 }, () => open(s.wsUrl)))
    for (const c of socks) expect((await c.call('eth_subscribe', ['newHeads'])).result).toMatch(/^0x/)
    for (let i = 0; i < 100; i++) await s.provider.request({ method: 'evm_mine' })
    for (const c of socks) {
      const nums: string[] = []
      for (let i = 0; i < 100; i++) nums.push((await c.next()).params.result.number)
      expect(nums).toEqual(Array.from({ length: 100 }, (_, i) => '0x' + (i + 1).toString(16)))
      c.ws.close()
    }
  }, 120_000)

  it('survives a client that never reads, an oversized message and 10,000 subscriptions', async () => {
    const s = await serve()
    const stuck = await open(s.wsUrl)
    await stuck.call('eth_subscribe', ['newHeads'])
    stuck.ws.pause() // never reads again
    const other = await open(s.wsUrl)
    for (let i = 0; i < 50; i++) await s.provider.request({ method: 'evm_mine' })
    expect((await other.call('eth_blockNumber')).result).toBe('0x32')
    const big = await open(s.wsUrl)
    const closed = new Promise<number>((r) => big.ws.on('close', (code) => r(code)))
    big.ws.send('x'.repeat(6 * 1024 * 1024))
    expect(await closed).toBe(1009)
    let errors = 0
    for (let i = 0; i < 10_000; i++) {
      other.ws.send(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_subscribe', params: ['syncing'] }))
    }
    for (let i = 0; i < 10_000; i++) if ((await other.next()).error?.code === -32602) errors++
    expect(errors).toBe(9000)
    expect((await other.call('eth_blockNumber')).result).toBe('0x32')
    other.ws.close()
    stuck.ws.terminate()
  }, 120_000)

  it('closes a client that leaves its send buffer over the bound, and frees its subscriptions', async () => {
    // A small bound (the server's is 16 MB) so that a few hundred headers exceed it; the client never reads.
    const provider = await createProvider(NO_QUOTA)
    const http = createServer()
    const close = attachWebSocket(http, provider, null, { allowedHosts: [], allowedOrigins: [], boundHost: '127.0.0.1' }, { maxBufferedBytes: 64 * 1024 })
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()))
    const port = (http.address() as { port: number }).port
    // Each connection's subscriptions listen to the node's `block` event: the count shows when they are freed.
    const listeners = (): number => provider.node.events.listenerCount('block')
    const base = listeners()
    const stuck = await open(`ws://127.0.0.1:${port}`)
    await stuck.call('eth_subscribe', ['newHeads'])
    expect(listeners()).toBe(base + 1)
    ;(stuck.ws as unknown as { _socket: { pause(): void } })._socket.pause()
    let mined = 0
    while (listeners() > base && mined < 20_000) {
      await provider.request({ method: 'evm_mine' })
      mined++
    }
    expect(listeners()).toBe(base)
    expect(await provider.request({ method: 'eth_blockNumber' })).toBe('0x' + mined.toString(16))
    await close()
    await new Promise((r) => http.close(r))
    await provider.disconnect()
  }, 120_000)
})

describe('WebSocket: a subscription id reaches the client before its notifications', () => {
  // RSKj refuses eth_subscribe in a batch (its `RskWebSocketJsonRpcHandler` reads one request; a batch goes on to
  // jsonrpc4j, which has no eth_subscribe); rsksim serves it (docs/compatibility.md) and, as geth does (its
  // `Notifier` buffers notifications until `activate`, after the reply with the id is sent, rpc/subscription.go),
  // sends a subscription's notifications only after the reply that carries its id.
  it('sends the reply of a batch with eth_subscribe and evm_mine before the mined block\'s notification', async () => {
    const s = await serve()
    const c = await open(s.wsUrl)
    c.ws.send(JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] },
      { jsonrpc: '2.0', id: 2, method: 'evm_mine', params: [] },
      { jsonrpc: '2.0', id: 3, method: 'evm_mine', params: [] },
    ]))
    const reply = await c.next()
    expect(Array.isArray(reply)).toBe(true)
    const [sub, mined] = reply as [{ id: number; result: string }, { id: number }]
    expect(sub).toMatchObject({ jsonrpc: '2.0', id: 1, result: expect.stringMatching(/^0x[0-9a-f]{32}$/) })
    expect(mined.id).toBe(2)
    // The two blocks the batch mined, in order, then one mined after it.
    await s.provider.request({ method: 'evm_mine' })
    const notes = [await c.next(), await c.next(), await c.next()]
    expect(notes.map((m) => [m.method, m.params.subscription, m.params.result.number])).toEqual([
      ['eth_subscription', sub.result, '0x1'],
      ['eth_subscription', sub.result, '0x2'],
      ['eth_subscription', sub.result, '0x3'],
    ])
    const b1 = (await s.provider.request({ method: 'eth_getBlockByNumber', params: ['0x1', false] })) as { hash: string }
    expect(notes[0].params.result.hash).toBe(b1.hash)
  })

  it('sends a lone eth_subscribe\'s reply before the notifications of blocks a request sent with it mines', async () => {
    // Both messages in one TCP write, so the server reads them in one chunk and runs them together: the mining starts
    // first and the subscription is made while its blocks are being built.
    const s = await serve()
    const c = await open(s.wsUrl)
    const socket = (c.ws as unknown as { _socket: Socket })._socket
    socket.cork()
    c.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'hardhat_mine', params: ['0x3'] }))
    c.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }))
    socket.uncork()
    const seen: string[] = []
    let id: string | undefined
    while (seen.filter((m) => m.startsWith('block')).length < 3 || !seen.includes('reply 2')) {
      const m = await c.next()
      if (m.id === 1) id = m.result
      if (m.method === 'eth_subscription') expect(m.params.subscription).toBe(id)
      seen.push(m.id !== undefined ? `reply ${m.id}` : `block ${m.params.result.number}`)
    }
    expect(seen.filter((m) => m !== 'reply 2')).toEqual(['reply 1', 'block 0x1', 'block 0x2', 'block 0x3'])
  })

  it('sends nothing held for the subscriptions of a batch answered by a bare error', async () => {
    // The batch mines a block after subscribing, then its reply passes maxResponseSize: RSKj's bare -32011, which
    // carries no id, so the subscription is cancelled and the block it was told of is never sent.
    const s = await serve({ maxResponseSize: 300 })
    const c = await open(s.wsUrl)
    c.ws.send(JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] },
      { jsonrpc: '2.0', id: 2, method: 'evm_mine', params: [] },
      { jsonrpc: '2.0', id: 3, method: 'eth_accounts', params: [] },
    ]))
    expect(await c.next()).toEqual({ error: { code: -32011, message: 'Response size limit of 300 bytes exceeded' } })
    expect(await s.provider.request({ method: 'eth_blockNumber' })).toBe('0x1')
    await s.provider.request({ method: 'evm_mine' })
    // Nothing came for block 1 nor 2: the next message is the answer to the request after them.
    expect(await c.call('eth_chainId')).toEqual({ jsonrpc: '2.0', id: 1, result: '0x21' })
  })

  it('bounds what it holds for a reply not yet sent: past the send buffer bound the socket is closed (1008)', async () => {
    const provider = await createProvider(NO_QUOTA)
    const http = createServer()
    const close = attachWebSocket(http, provider, null, { allowedHosts: [], allowedOrigins: [], boundHost: '127.0.0.1' }, { maxBufferedBytes: 16 * 1024 })
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()))
    // Each connection's subscriptions listen to the node's `block` event: the count shows when they are freed.
    const listeners = (): number => provider.node.events.listenerCount('block')
    const base = listeners()
    try {
      const c = await open(`ws://127.0.0.1:${(http.address() as { port: number }).port}`)
      // 100 headers of about 1.2 KB each wait for the batch's reply: more than 16 KiB.
      c.ws.send(JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] },
        { jsonrpc: '2.0', id: 2, method: 'hardhat_mine', params: ['0x64'] },
      ]))
      expect(await c.closed).toEqual({ code: 1008, reason: 'send buffer full: notifications wait for the reply that gives their subscription id' })
      expect(await provider.request({ method: 'eth_blockNumber' })).toBe('0x64')
      expect(listeners()).toBe(base)
    } finally {
      await close()
      await new Promise((r) => http.close(r))
      await provider.disconnect()
    }
  })
})

describe('WebSocket: closing the server', () => {
  it('sends each client a close frame, 1001 "going away", and frees their subscriptions', async () => {
    // The server is given its provider, so closing it leaves the provider (and the node's listeners) in place.
    const provider = await createProvider(NO_QUOTA)
    const s = await startServer({ port: 0, provider })
    // Each connection's subscriptions listen to the node's `block` event: the count shows when they are freed.
    const listeners = (): number => provider.node.events.listenerCount('block')
    const base = listeners()
    const a = await open(s.wsUrl)
    const b = await open(s.wsUrl)
    await a.call('eth_subscribe', ['newHeads'])
    expect(listeners()).toBe(base + 2)
    await s.close()
    // RFC 6455 §7.4.1: 1001 is an endpoint going away, such as a server going down. Without the frame a client sees
    // 1006 (abnormal closure), as for a network failure.
    expect(await a.closed).toEqual({ code: 1001, reason: 'server shutting down' })
    expect(await b.closed).toEqual({ code: 1001, reason: 'server shutting down' })
    expect(listeners()).toBe(base)
    await provider.disconnect()
  })

  it('does not wait on a client that does not answer the close frame beyond a short grace', async () => {
    const s = await startServer({ port: 0, ...NO_QUOTA })
    const quiet = await open(s.wsUrl)
    const socket = (quiet.ws as unknown as { _socket: Socket })._socket
    socket.pause() // reads nothing, so it never answers the close frame
    const started = Date.now()
    await s.close()
    // `ws` alone would wait 30 s for the answer; the server cuts the client after WS_CLOSE_GRACE_MS (1 s).
    expect(Date.now() - started).toBeGreaterThanOrEqual(WS_CLOSE_GRACE_MS - 50)
    expect(Date.now() - started).toBeLessThan(10_000)
    // What reached the client before the cut: the close frame.
    socket.resume()
    expect((await quiet.closed).code).toBe(1001)
  })
})

describe('WebSocket and the HTTP idle timeout', () => {
  it('keeps a quiet WebSocket open past the server idle timeout (which applies to HTTP connections only)', async () => {
    const s = await startServer({ port: 0, idleTimeout: 100 })
    try {
      const ws = new WebSocket(s.wsUrl)
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve())
        ws.once('error', reject)
      })
      let closed = false
      ws.once('close', () => (closed = true))
      // Several idle periods pass with no traffic; the socket must still answer.
      await new Promise((r) => setTimeout(r, 500))
      expect(closed).toBe(false)
      const reply = await new Promise<string>((resolve) => {
        ws.once('message', (d) => resolve(d.toString()))
        ws.send('{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}')
      })
      expect(JSON.parse(reply)).toEqual({ jsonrpc: '2.0', id: 1, result: '0x21' })
      ws.close()
    } finally {
      await s.close()
    }
  })
})
