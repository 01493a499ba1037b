/**
 * anvil_setRpcUrl(url) (Anvil's, viem's `setRpcUrl`; an extension): a fork's later remote reads go to the new URL,
 * once it has shown the same chain (chain id, forked block's hash). The remote is an rsksim server A; the new URL a
 * counting proxy to A (the calls it forwards show where reads go); B (testnet, chain 31) and C (regtest, another
 * history) are refused. Expected balances come from A itself. A URL is shown as rsksim prints any remote's: without
 * credentials, a key-like path segment as `***`, a bare origin with its `/`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type Server } from 'node:http'
import { createTestClient, http as viemHttp } from 'viem'
import { startServer, type RsksimServer } from '../src/index.js'
import { fresh, rejects, send, rq as rpc } from './helpers.js'

const hex = (n: number | bigint): string => '0x' + n.toString(16)
const KEY = 'AbCdEf0123456789secretKey'

/** An HTTP proxy to `target` that records the JSON-RPC methods it forwards. */
async function countingProxy(target: string): Promise<{ url: string; calls: string[]; close(): Promise<void> }> {
  const calls: string[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString()
      const parsed = JSON.parse(body) as { method: string } | { method: string }[]
      for (const c of Array.isArray(parsed) ? parsed : [parsed]) calls.push(c.method)
      fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async (r) => res.writeHead(r.status, { 'content-type': 'application/json' }).end(await r.text()))
        .catch(() => res.writeHead(502).end())
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  return { url: `http://user:secretpw@127.0.0.1:${port}/${KEY}`, calls, close: () => new Promise((resolve) => server.close(() => resolve())) }
}

/** Addresses funded on the remote before the fork, each read at most once through the fork. */
const funded = Array.from({ length: 6 }, (_, i) => '0x' + (0xa11ce0 + i).toString(16).padStart(40, '0'))

describe('anvil_setRpcUrl', () => {
  let a: RsksimServer
  let b: RsksimServer
  let c: RsksimServer
  let proxy: Awaited<ReturnType<typeof countingProxy>>
  let forkNumber: number

  beforeAll(async () => {
    a = await startServer({ port: 0, accountTxRateLimit: false })
    for (const [i, addr] of funded.entries()) await send(a.provider, { to: addr, value: hex(1000 + i) })
    forkNumber = Number(await rpc(a.provider, 'eth_blockNumber'))
    proxy = await countingProxy(a.url)
    b = await startServer({ port: 0, accountTxRateLimit: false, network: 'testnet' })
    // Regtest as A, with another history: a different transaction, then as many blocks.
    c = await startServer({ port: 0, accountTxRateLimit: false })
    await send(c.provider, { to: funded[0], value: '0x7' })
    while (Number(await rpc(c.provider, 'eth_blockNumber')) < forkNumber) await rpc(c.provider, 'evm_mine')
  })
  afterAll(async () => {
    await proxy?.close()
    await Promise.all([a?.close(), b?.close(), c?.close()])
  })

  const forkOfA = () => fresh({ fork: { url: a.url, blockNumber: forkNumber, cache: false } } as never)
  const remoteBalance = async (addr: string) => rpc(a.provider, 'eth_getBalance', [addr, hex(forkNumber)])

  it('sends later remote reads to the new URL, shown without its credentials', async () => {
    const f = await forkOfA()
    expect(await rpc(f, 'eth_getBalance', [funded[0], 'latest'])).toBe(await remoteBalance(funded[0]!))
    expect(proxy.calls).toEqual([])
    expect(await rpc(f, 'anvil_setRpcUrl', [proxy.url])).toBeNull()
    const info = await rpc(f, 'anvil_nodeInfo')
    expect(info.forkConfig.forkUrl).toBe(proxy.url.replace('user:secretpw@', '').replace(KEY, '***'))
    // The check asked the new URL once for each fact; the read goes there too.
    expect(proxy.calls.sort()).toEqual(['eth_chainId', 'eth_getBlockByNumber'])
    proxy.calls.length = 0
    expect(await rpc(f, 'eth_getBalance', [funded[1], 'latest'])).toBe(await remoteBalance(funded[1]!))
    expect(proxy.calls).toContain('eth_getBalance')
    // A request about the remote's history is routed there as well.
    proxy.calls.length = 0
    expect((await rpc(f, 'eth_getBlockByNumber', [hex(forkNumber - 1), false])).hash).toBe((await rpc(a.provider, 'eth_getBlockByNumber', [hex(forkNumber - 1), false])).hash)
    expect(proxy.calls).toEqual(['eth_getBlockByNumber'])
    // A reset forks again from the URL in use.
    proxy.calls.length = 0
    await rpc(f, 'anvil_reset', [{ forking: { blockNumber: forkNumber } }])
    expect(proxy.calls).toContain('eth_chainId')
    expect(await rpc(f, 'eth_getBalance', [funded[2], 'latest'])).toBe(await remoteBalance(funded[2]!))
    await f.disconnect()
  })

  it('refuses a URL of another chain, with what differs, and keeps its remote', async () => {
    const f = await forkOfA()
    await rpc(f, 'anvil_setRpcUrl', [proxy.url])
    const kept = proxy.url.replace('user:secretpw@', '').replace(KEY, '***')
    await rejects(rpc(f, 'anvil_setRpcUrl', [b.url]), -32602, `anvil_setRpcUrl: ${b.url}/ serves chain id 31, the fork's chain id is 33; the fork keeps reading from ${kept}`)
    const forked = (await rpc(a.provider, 'eth_getBlockByNumber', [hex(forkNumber), false])).hash
    const other = (await rpc(c.provider, 'eth_getBlockByNumber', [hex(forkNumber), false])).hash
    expect(other).not.toBe(forked)
    await rejects(rpc(f, 'anvil_setRpcUrl', [c.url]), -32602, `anvil_setRpcUrl: ${c.url}/ has block ${forkNumber} with hash ${other}, the forked block's hash is ${forked}: not the same chain; the fork keeps reading from ${kept}`)
    expect((await rpc(f, 'anvil_nodeInfo')).forkConfig.forkUrl).toBe(kept)
    proxy.calls.length = 0
    expect(await rpc(f, 'eth_getBalance', [funded[3], 'latest'])).toBe(await remoteBalance(funded[3]!))
    expect(proxy.calls).toContain('eth_getBalance')
    await f.disconnect()
  })

  it('refuses a URL that does not answer or lacks the forked block, without printing its key', async () => {
    const f = await forkOfA()
    const young = await startServer({ port: 0, accountTxRateLimit: false })
    try {
      await rejects(rpc(f, 'anvil_setRpcUrl', [young.url]), -32602, `anvil_setRpcUrl: ${young.url}/ has no block ${forkNumber} (the forked block, ${(await rpc(a.provider, 'eth_getBlockByNumber', [hex(forkNumber), false])).hash}); the fork keeps reading from ${a.url}/`)
    } finally {
      await young.close()
    }
    const e = await rejects(rpc(f, 'anvil_setRpcUrl', [`http://user:secretpw@127.0.0.1:1/${KEY}`]), -32602, /^anvil_setRpcUrl: http:\/\/127\.0\.0\.1:1\/\*\*\* did not answer: .*; the fork keeps reading from /)
    expect(e.message).not.toContain('secretpw')
    expect(e.message).not.toContain(KEY)
    await rejects(rpc(f, 'anvil_setRpcUrl', ['not a url']), -32602, 'Invalid argument 0: the RPC URL must be an http:// or https:// URL.')
    await rejects(rpc(f, 'anvil_setRpcUrl', ['ftp://127.0.0.1/x']), -32602, 'Invalid argument 0: the RPC URL must be an http:// or https:// URL.')
    await rejects(rpc(f, 'anvil_setRpcUrl', []), -32602)
    expect(await rpc(f, 'eth_getBalance', [funded[4], 'latest'])).toBe(await remoteBalance(funded[4]!))
    await f.disconnect()
  })

  it('a URL that does not answer holds no other request while it is asked', async () => {
    // A server that takes the connection and never answers: the check waits for the fork's timeout (1 s here).
    const silent = createServer(() => undefined)
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const f = await fresh({ fork: { url: a.url, blockNumber: forkNumber, cache: false, timeout: 1000 } } as never)
    try {
      const order: string[] = []
      const switching = rpc(f, 'anvil_setRpcUrl', [`http://127.0.0.1:${(silent.address() as { port: number }).port}`]).then(
        () => order.push('switched'),
        (e: any) => order.push(`refused ${e.code}`),
      )
      // Asked after the switch started: answered while the new URL is still silent.
      expect(await rpc(f, 'eth_blockNumber')).toBe(hex(forkNumber))
      order.push('answered')
      await switching
      expect(order).toEqual(['answered', 'refused -32602'])
      expect(await rpc(f, 'eth_getBalance', [funded[4], 'latest'])).toBe(await remoteBalance(funded[4]!))
    } finally {
      silent.closeAllConnections()
      await new Promise<void>((resolve) => silent.close(() => resolve()))
      await f.disconnect()
    }
  })

  it('is refused without a fork (-32602), and -32601 in hosted mode', async () => {
    await rejects(rpc(await fresh(), 'anvil_setRpcUrl', [a.url]), -32602, 'anvil_setRpcUrl: this rsksim was not started with a fork (fork.url, --fork-url), so there is no remote to replace')
    await rejects(rpc(await fresh({ hosted: true }), 'anvil_setRpcUrl', [a.url]), -32601)
  })

  it("works through viem's test client over HTTP", async () => {
    const server = await startServer({ port: 0, accountTxRateLimit: false, fork: { url: a.url, blockNumber: forkNumber, cache: false } } as never)
    try {
      const client = createTestClient({ mode: 'anvil', transport: viemHttp(server.url, { retryCount: 0 }) })
      await client.setRpcUrl(proxy.url)
      proxy.calls.length = 0
      expect(await rpc(server.provider, 'eth_getBalance', [funded[5], 'latest'])).toBe(await remoteBalance(funded[5]!))
      expect(proxy.calls).toContain('eth_getBalance')
    } finally {
      await server.close()
    }
  })
})
