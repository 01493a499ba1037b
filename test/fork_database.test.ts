/**
 * A fork kept in a database (docs/forking.md "A fork on disk"): a forked chain closed and opened again over the same
 * database resumes at the same head, at the block it was forked at, with the remote's code and state under what was
 * written locally; mismatched openings are refused before anything is written. The remote is a second rsksim over
 * HTTP, and its own answers at the forked block are the expected values.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MemoryLevel } from 'memory-level'
import { Interface, JsonRpcProvider, Wallet } from 'ethers'
import { createProvider, startServer, type Provider, type RsksimServer } from '../src/index.js'
import { Events, Storage, Token } from './fixtures/index.js'
import { COW, COW_KEY, NO_QUOTA, deploy, rejects, send, tempDirs, rq as rpc } from './helpers.js'
import { parseCli } from '../src/server/cliArgs.js'

const hex = (n: number | bigint) => '0x' + n.toString(16)
const token = new Interface(Token.abi as never)
const storage = new Interface(Storage.abi as never)
const ALICE = '0x00000000000000000000000000000000000a11ce'
const BOB = '0x0000000000000000000000000000000000000b0b'

const tempDir = tempDirs('rsksim-fork-db-')

describe('a fork kept in a database', () => {
  let remote: RsksimServer
  const at: Record<string, any> = {}
  const balanceOf = (p: Provider, who: string, block: string) =>
    rpc(p, 'eth_call', [{ to: at.token, data: token.encodeFunctionData('balanceOf', [who]) }, block]).then((r: string) => BigInt(r))
  const slotOf = (p: Provider, slot: bigint, block: string) =>
    rpc(p, 'eth_call', [{ to: at.storage, data: storage.encodeFunctionData('get', [slot]) }, block]).then((r: string) => BigInt(r))

  beforeAll(async () => {
    remote = await startServer({ port: 0, ...NO_QUOTA })
    const r = remote.provider
    at.token = await deploy(r, Token, [10n ** 24n])
    at.storage = await deploy(r, Storage)
    await send(r, { to: at.token, data: token.encodeFunctionData('transfer', [ALICE, 1234n]) })
    await send(r, { to: at.storage, data: storage.encodeFunctionData('set', [1n, 11n]) })
    await send(r, { to: BOB, value: '0x3039' })
    at.forkNumber = Number(await rpc(r, 'eth_blockNumber'))
    // The remote goes on past the block forked at: a fork without a block number would fork at its latest minus 4.
    await rpc(r, 'hardhat_mine', ['0x10'])
  })
  afterAll(() => remote.close())

  it('reopens at the same chain, the remote\'s code and state under the local writes, and goes on', async () => {
    const dir = tempDir()
    const options = { ...NO_QUOTA, database: { path: dir } }
    const a = await createProvider({ ...options, fork: { url: remote.url, blockNumber: at.forkNumber, cache: false } })
    const forkTag = hex(at.forkNumber)
    const aliceAtFork = await balanceOf(remote.provider, ALICE, forkTag)
    expect(aliceAtFork).toBe(1234n)
    await send(a, { to: at.token, data: token.encodeFunctionData('transfer', [ALICE, 1000n]) })
    await send(a, { to: at.storage, data: storage.encodeFunctionData('set', [2n, 22n]) })
    const events = await deploy(a, Events)
    const before = {
      head: await rpc(a, 'eth_getBlockByNumber', ['latest', false]),
      cowAtFork: await rpc(a, 'eth_getBalance', [COW, forkTag]),
      cow: await rpc(a, 'eth_getBalance', [COW, 'latest']),
      eventsCode: await rpc(a, 'eth_getCode', [events, 'latest']),
    }
    expect(Number(before.head.number)).toBe(at.forkNumber + 3)
    await a.disconnect()

    // Opened again without a block number: the database's own forked block, not the remote's latest minus 4.
    const b = await createProvider({ ...options, fork: { url: remote.url, cache: false } })
    expect(await rpc(b, 'eth_getBlockByNumber', ['latest', false])).toEqual(before.head)
    expect(await rpc(b, 'eth_getBlockByNumber', [forkTag, false]).then((blk: any) => blk.hash)).toBe(
      await rpc(remote.provider, 'eth_getBlockByNumber', [forkTag, false]).then((blk: any) => blk.hash),
    )
    // The token's account is local (its storage was written here) and its code the remote's: the call runs it.
    expect(await rpc(b, 'eth_getCode', [at.token, 'latest'])).toBe(await rpc(remote.provider, 'eth_getCode', [at.token, forkTag]))
    expect(await balanceOf(b, ALICE, 'latest')).toBe(aliceAtFork + 1000n)
    // The mapping's slot set on the remote reads the remote's value; the one set here, the local one.
    expect(await slotOf(remote.provider, 1n, forkTag)).toBe(11n)
    expect(await slotOf(b, 1n, 'latest')).toBe(11n)
    expect(await slotOf(b, 2n, 'latest')).toBe(22n)
    expect(await rpc(b, 'eth_getBalance', [BOB, 'latest'])).toBe(await rpc(remote.provider, 'eth_getBalance', [BOB, forkTag]))
    expect(await rpc(b, 'eth_getCode', [events, 'latest'])).toBe(before.eventsCode)
    expect(await rpc(b, 'eth_getBalance', [COW, 'latest'])).toBe(before.cow)
    // The forked block's state (the funded accounts over the remote's) answers as before.
    expect(await rpc(b, 'eth_getBalance', [COW, forkTag])).toBe(before.cowAtFork)

    // It goes on, through a real client over HTTP.
    const server = await startServer({ provider: b, port: 0 })
    const client = new JsonRpcProvider(server.url, undefined, { staticNetwork: true })
    const tx = await new Wallet(COW_KEY, client).sendTransaction({ to: at.token, data: token.encodeFunctionData('transfer', [ALICE, 5n]), gasLimit: 100_000n })
    const receipt = await tx.wait()
    expect([receipt!.status, receipt!.blockNumber]).toEqual([1, at.forkNumber + 4])
    client.destroy()
    await server.close()
    const next = await rpc(b, 'eth_getBlockByNumber', [hex(at.forkNumber + 4), false])
    expect(next.parentHash).toBe(before.head.hash)
    expect(await balanceOf(b, ALICE, 'latest')).toBe(aliceAtFork + 1005n)

    // hardhat_reset goes back to the forked block, whose state is the one the fork started with.
    expect(await rpc(b, 'hardhat_reset')).toBe(true)
    expect(Number(await rpc(b, 'eth_blockNumber'))).toBe(at.forkNumber)
    expect(await rpc(b, 'eth_getBalance', [COW, 'latest'])).toBe(before.cowAtFork)
    expect(await balanceOf(b, ALICE, 'latest')).toBe(aliceAtFork)
    await b.disconnect()

    // And the reset is what the database holds.
    const c = await createProvider({ ...options, fork: { url: remote.url, cache: false } })
    expect(Number(await rpc(c, 'eth_blockNumber'))).toBe(at.forkNumber)
    expect(await balanceOf(c, ALICE, 'latest')).toBe(aliceAtFork)
    await c.disconnect()
  }, 60_000)

  it('refuses, before writing, a database opened without its fork, at another block, of another remote, or of a chain of its own', async () => {
    const level = new MemoryLevel()
    const fork = { url: remote.url, blockNumber: at.forkNumber, cache: false }
    const a = await createProvider({ ...NO_QUOTA, database: { level }, fork })
    await send(a, { to: BOB, value: '0x1' })
    // One database holds one fork: forking again elsewhere is refused, and the chain stays.
    await rejects(rpc(a, 'hardhat_reset', [{ forking: { jsonRpcUrl: remote.url, blockNumber: hex(at.forkNumber - 1) } }]), -32602, /keeps its chain, forked at block \d+, in a database/)
    expect(Number(await rpc(a, 'eth_blockNumber'))).toBe(at.forkNumber + 1)
    await a.disconnect()
    const keys = async () => {
      const out: string[] = []
      for await (const [k, v] of level.iterator({ keyEncoding: 'view', valueEncoding: 'view' })) out.push(Buffer.from(k).toString('hex') + Buffer.from(v).toString('hex'))
      return out
    }
    const written = await keys()

    await expect(createProvider({ ...NO_QUOTA, database: { level } })).rejects.toThrow(
      new RegExp(`holds a chain forked from a remote at block ${at.forkNumber}: open it with the same fork`),
    )
    await expect(createProvider({ ...NO_QUOTA, database: { level }, fork: { ...fork, blockNumber: at.forkNumber - 1 } })).rejects.toThrow(
      new RegExp(`holds a chain forked at block ${at.forkNumber}, not ${at.forkNumber - 1}`),
    )
    // Another rsksim of the same chain id, at the same height, holds another block there.
    const other = await startServer({ port: 0, ...NO_QUOTA })
    try {
      await rpc(other.provider, 'hardhat_mine', [hex(at.forkNumber + 4)])
      await expect(createProvider({ ...NO_QUOTA, database: { level }, fork: { url: other.url, cache: false } })).rejects.toThrow(
        new RegExp(`was forked at block ${at.forkNumber} with hash 0x[0-9a-f]{64}; the remote's block ${at.forkNumber} is 0x[0-9a-f]{64}`),
      )
    } finally {
      await other.close()
    }
    expect(await keys()).toEqual(written)
    // A database of a chain of its own is not forked over.
    const own = new MemoryLevel()
    await (await createProvider({ ...NO_QUOTA, database: { level: own } })).disconnect()
    await expect(createProvider({ ...NO_QUOTA, database: { level: own }, fork })).rejects.toThrow(/holds a chain of its own \(not forked\)/)
    // A description whose version says fork and holds none (or the reverse) is damaged.
    const damaged = new MemoryLevel()
    await damaged.put('rsksim:meta', JSON.stringify({ format: 'rsksim-db', version: 3, chainId: '33', networkId: '33', genesis: '0x' }))
    await expect(createProvider({ ...NO_QUOTA, database: { level: damaged } })).rejects.toThrow(/damaged description \(rsksim:meta\): its version and its fork disagree/)
  }, 60_000)

  it('with the disk cache on, a restart asks the remote nothing for what the chain read before: it may be gone', async () => {
    const own = await startServer({ port: 0, ...NO_QUOTA })
    const t = await deploy(own.provider, Token, [10n ** 24n])
    const forkNumber = Number(await rpc(own.provider, 'eth_blockNumber'))
    const dir = tempDir()
    const cache = tempDir()
    const fork = { url: own.url, cache }
    const tokenCode = await rpc(own.provider, 'eth_getCode', [t, 'latest'])
    const a = await createProvider({ ...NO_QUOTA, database: { path: dir }, fork: { ...fork, blockNumber: forkNumber } })
    await send(a, { to: t, data: token.encodeFunctionData('transfer', [ALICE, 77n]) })
    await a.disconnect()
    await own.close()
    const b = await createProvider({ ...NO_QUOTA, database: { path: dir }, fork })
    // From COW, whose account the first run read (a caller never read, the zero address say, would need the remote).
    const call = (data: string) => rpc(b, 'eth_call', [{ from: COW, to: t, data }, 'latest'])
    expect(BigInt(await call(token.encodeFunctionData('balanceOf', [ALICE])))).toBe(77n)
    expect(await rpc(b, 'eth_getCode', [t, 'latest'])).toBe(tokenCode)
    expect(Number(await rpc(b, 'eth_blockNumber'))).toBe(forkNumber + 1)
    await b.disconnect()
  }, 60_000)

  it('--fork-url and --db together become both options', () => {
    expect(parseCli(['--fork-url', 'http://127.0.0.1:4444', '--db', '/tmp/chain'])).toMatchObject({
      options: { fork: { url: 'http://127.0.0.1:4444' }, database: { path: '/tmp/chain' } },
    })
  })
})
