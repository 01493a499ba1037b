/**
 * The chain in a database (issue 15): a node closed and opened again over the same store answers every block,
 * receipt, log, balance, code, storage slot, historical state, pool entry and setting as before, and keeps going;
 * bad databases are refused with a clear error and left as they were.
 */
import { describe, expect, it } from 'vitest'
import { readdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { MemoryLevel } from 'memory-level'
import { ClassicLevel } from 'classic-level'
import { Interface, JsonRpcProvider, Wallet } from 'ethers'
import { createProvider, startServer, type Provider } from '../src/index.js'
import { Events, Storage, Token } from './fixtures/index.js'
import { COW, COW1, NO_QUOTA, deploy, send, tempDirs, rq as rpc } from './helpers.js'
import { parseCli } from '../src/server/cliArgs.js'
import { serialize } from 'node:v8'
import { unpackBlock } from '../src/node/chain/blockPack.js'
import { remascReceiptParts } from '../src/node/rsk/remasc/remascReceipt.js'
import type { BlockRecord } from '../src/node/chain/types.js'
import type { RskNode } from '../src/node/node.js'

const tempDir = tempDirs('rsksim-db-')


/** Everything a user could read of the chain, block by block, for comparing two nodes. */
async function picture(p: Provider, addresses: string[]): Promise<unknown> {
  const head = Number(await rpc(p, 'eth_blockNumber'))
  const blocks = []
  for (let n = 0; n <= head; n++) {
    const block = await rpc(p, 'eth_getBlockByNumber', ['0x' + n.toString(16), true])
    const receipts = []
    for (const t of block.transactions) receipts.push(await rpc(p, 'eth_getTransactionReceipt', [t.hash]))
    const balances = []
    for (const a of addresses) balances.push(await rpc(p, 'eth_getBalance', [a, '0x' + n.toString(16)]))
    blocks.push({ block, receipts, balances })
  }
  const logs = await rpc(p, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }])
  const codes = []
  for (const a of addresses) codes.push(await rpc(p, 'eth_getCode', [a, 'latest']), await rpc(p, 'eth_getStorageAt', [a, '0x0', 'latest']))
  return { head, blocks, logs, codes, accounts: await rpc(p, 'eth_accounts') }
}

describe('database', () => {
  it('a node reopened over its store answers the same chain, and goes on from it', async () => {
    const level = new MemoryLevel()
    const a = await createProvider({ ...NO_QUOTA, database: { level } })
    const token = await deploy(a, Token, [10n ** 24n])
    const events = await deploy(a, Events)
    const storage = await deploy(a, Storage)
    const tokenAbi = new Interface(Token.abi as never)
    for (let i = 0; i < 5; i++) await send(a, { to: token, data: tokenAbi.encodeFunctionData('transfer', [COW1, 1000n + BigInt(i)]) })
    await send(a, { to: events, data: new Interface(Events.abi as never).encodeFunctionData('emitMany', [4n]) })
    await send(a, { to: storage, data: new Interface(Storage.abi as never).encodeFunctionData('set', [7n, 9n]) })
    // Past REMASC's maturity (10 blocks on regtest), so REMASC receipts carry payment logs to compare.
    for (let i = 0; i < 12; i++) await rpc(a, 'evm_mine')
    // Dev-chain edits between blocks, the clock and a pending transaction are kept too.
    await rpc(a, 'anvil_setBalance', ['0x00000000000000000000000000000000000000aa', '0x1234'])
    await rpc(a, 'evm_increaseTime', [1000])
    await rpc(a, 'evm_setAutomine', [false])
    const pending = await rpc(a, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x5' }])
    const addresses = [COW, COW1, token, events, storage, '0x00000000000000000000000000000000000000aa']
    const before = await picture(a, addresses)
    expect((before as { logs: Array<{ address: string }> }).logs.some((l) => l.address === '0x0000000000000000000000000000000001000008')).toBe(true)
    const poolBefore = await rpc(a, 'txpool_content')
    await a.disconnect()

    const b = await createProvider({ ...NO_QUOTA, database: { level } })
    expect(await picture(b, addresses)).toEqual(before)
    expect(await rpc(b, 'txpool_content')).toEqual(poolBefore)
    expect(await rpc(b, 'eth_getBalance', ['0x00000000000000000000000000000000000000aa', 'latest'])).toBe('0x1234')
    // Mining goes on from the reopened head: the pending transaction is mined, the clock shift applied once.
    const headBefore = await rpc(b, 'eth_getBlockByNumber', ['latest', false])
    const wallBefore = BigInt(Math.floor(Date.now() / 1000))
    await rpc(b, 'evm_mine')
    const mined = await rpc(b, 'eth_getBlockByNumber', ['latest', false])
    expect(mined.parentHash).toBe(headBefore.hash)
    expect(mined.transactions).toEqual([pending, expect.any(String)])
    // evm_increaseTime(1000) survived the restart: the block is 1,000 s past the wall clock.
    expect(BigInt(mined.timestamp) - wallBefore).toBeGreaterThanOrEqual(1000n)
    const receipt = await rpc(b, 'eth_getTransactionReceipt', [pending])
    expect(receipt.status).toBe('0x1')
    await b.disconnect()
    await level.close()
  })

  it('evm_revert removes blocks from the store too; an emptied pool stays empty', async () => {
    const level = new MemoryLevel()
    const a = await createProvider({ ...NO_QUOTA, database: { level } })
    const id = await rpc(a, 'evm_snapshot')
    for (let i = 0; i < 3; i++) await send(a, { to: COW1, value: '0x1' })
    await rpc(a, 'evm_revert', [id])
    await send(a, { to: COW1, value: '0x2' })
    const head = await rpc(a, 'eth_getBlockByNumber', ['latest', false])
    const balance = await rpc(a, 'eth_getBalance', [COW1, 'latest'])
    await a.disconnect()
    const b = await createProvider({ ...NO_QUOTA, database: { level } })
    expect(await rpc(b, 'eth_getBlockByNumber', ['latest', false])).toEqual(head)
    expect(await rpc(b, 'eth_getBlockByNumber', ['0x2', false])).toBeNull()
    expect(head.number).toBe('0x1')
    expect(await rpc(b, 'eth_getBalance', [COW1, 'latest'])).toBe(balance)
    expect(await rpc(b, 'txpool_status')).toEqual({ pending: 0, queued: 0 })
    await b.disconnect()
  })

  it('on disk with --db semantics: a server restarted on the directory answers ethers the same, sealed keys included', async () => {
    const dir = path.join(tempDir(), 'chain')
    const s1 = await startServer({ port: 0, ...NO_QUOTA, database: { path: dir } })
    const client = new JsonRpcProvider(s1.url, undefined, { staticNetwork: true })
    const signer = await client.getSigner(COW)
    const sent = await signer.sendTransaction({ to: COW1, value: 12345n })
    const receipt = await sent.wait()
    const imported = await client.send('personal_importRawKey', ['0x' + '11'.repeat(32), 'pass'])
    client.destroy()
    await s1.close()
    // The directory is released on close: a second server takes it.
    const s2 = await startServer({ port: 0, ...NO_QUOTA, database: { path: dir } })
    const client2 = new JsonRpcProvider(s2.url, undefined, { staticNetwork: true })
    const again = await client2.getTransactionReceipt(sent.hash)
    expect(again?.blockHash).toBe(receipt?.blockHash)
    expect(again?.status).toBe(1)
    expect(await client2.send('eth_accounts', [])).toContain(imported)
    // The sealed key opens with its passphrase only: signed, the transaction reaches the pool, which refuses it because
    // the imported account has no state (RSKj's rule for any price).
    const signed = await client2.send('personal_sendTransaction', [{ from: imported, to: COW1, value: '0x0', gasPrice: '0x0' }, 'pass']).catch((e: Error) => e)
    expect((signed as Error).message).toContain("the sender account doesn't exist")
    const wrong = await client2.send('personal_sendTransaction', [{ from: imported, to: COW1, value: '0x0', gasPrice: '0x0' }, 'nope']).catch((e: Error) => e)
    expect((wrong as Error).message).not.toContain("the sender account doesn't exist")
    expect(new Wallet('0x' + '11'.repeat(32)).address.toLowerCase()).toBe(imported)
    client2.destroy()
    await s2.close()
  })

  it('refuses a directory in use, a non-database directory, another chain id and a newer format, writing nothing', async () => {
    const dir = path.join(tempDir(), 'chain')
    const a = await createProvider({ ...NO_QUOTA, database: { path: dir } })
    await expect(createProvider({ database: { path: dir } })).rejects.toThrow(/in use by another process/)
    await a.disconnect()
    await expect(createProvider({ network: 'testnet', database: { path: dir } })).rejects.toThrow(/chain id 33; this node is chain id 31/)

    const other = tempDir()
    writeFileSync(path.join(other, 'notes.txt'), 'mine')
    await expect(createProvider({ database: { path: other } })).rejects.toThrow(/not empty and holds no database/)
    expect(readdirSync(other)).toEqual(['notes.txt'])

    const foreign = path.join(tempDir(), 'foreign')
    const db = new ClassicLevel(foreign)
    await db.put('hello', 'world')
    await db.close()
    await expect(createProvider({ database: { path: foreign } })).rejects.toThrow(/not rsksim's/)
    const check = new ClassicLevel(foreign)
    expect(await check.get('hello')).toBe('world')
    expect(await check.get('rsksim:meta')).toBeUndefined()
    await check.close()

    const newer = new MemoryLevel()
    await newer.put('rsksim:meta', JSON.stringify({ format: 'rsksim-db', version: 99, chainId: '33', networkId: '33', genesis: '0x' }))
    await expect(createProvider({ database: { level: newer } })).rejects.toThrow(/format version 99, newer than this rsksim reads \(3\)/)
    await expect(createProvider({ database: { path: dir, level: newer } as never })).rejects.toThrow(/either path or level/)
  })
})

describe('database write failures', () => {
  it('a store that fails to write: the request answers -32603 naming it, every later one too, the process lives', async () => {
    const level = new MemoryLevel()
    const p = await createProvider({ ...NO_QUOTA, database: { level } })
    const batch = level.batch.bind(level)
    let fail = false
    ;(level as unknown as { batch: unknown }).batch = (...args: Parameters<typeof batch>) => (fail ? Promise.reject(new Error('disk full (test)')) : batch(...args))
    await send(p, { to: COW1, value: '0x1' })
    fail = true
    const e1 = await rpc(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x1' }]).catch((e: { code: number; message: string }) => e)
    expect(e1).toMatchObject({ code: -32603, message: expect.stringMatching(/the database at the given store could not be written \(disk full \(test\)\)/) })
    // Nothing more is answered: even a read would report what may not have been kept.
    const e2 = await rpc(p, 'eth_blockNumber').catch((e: { code: number }) => e)
    expect(e2).toMatchObject({ code: -32603 })
    await p.disconnect()
  })
})

describe('CLI', () => {
  it('--db <dir> and --state-history <n> reach the options; bad values are usage errors', () => {
    expect(parseCli(['--db', './chain', '--state-history', '64'])).toMatchObject({ options: { database: { path: './chain' }, stateHistory: 64 } })
    expect(() => parseCli(['--db', ''])).toThrow(/--db: needs a directory/)
    expect(() => parseCli(['--state-history', '0'])).toThrow(/state-history/)
  })
})

describe('database with interval mining', () => {
  it('blocks mined by the timer are kept like any other', async () => {
    const level = new MemoryLevel()
    const a = await createProvider({ ...NO_QUOTA, mining: { interval: 20 }, database: { level } })
    let seen = 0
    while (seen < 3) {
      await new Promise((r) => setTimeout(r, 20))
      seen = Number(await rpc(a, 'eth_blockNumber'))
    }
    const before = await rpc(a, 'eth_getBlockByNumber', ['0x3', false])
    await a.disconnect()
    const b = await createProvider({ ...NO_QUOTA, database: { level } })
    expect(Number(await rpc(b, 'eth_blockNumber'))).toBeGreaterThanOrEqual(3)
    expect(await rpc(b, 'eth_getBlockByNumber', ['0x3', false])).toEqual(before)
    await b.disconnect()
  })
})

describe('database formats', () => {
  const VIEW = { keyEncoding: 'view', valueEncoding: 'view' } as const
  const META = new TextEncoder().encode('rsksim:meta')
  const nodeOf = (p: Provider) => (p as unknown as { node: RskNode }).node
  const metaOf = async (level: MemoryLevel) => JSON.parse(new TextDecoder().decode(await level.get(META, VIEW))) as { version: number }

  /** Blocks, receipts, a balance and the token's logs at the given numbers, and lookups of the given transactions. */
  async function sampled(p: Provider, numbers: number[], txs: string[], token: string): Promise<unknown> {
    const out: unknown[] = []
    for (const n of numbers) {
      const block = await rpc(p, 'eth_getBlockByNumber', ['0x' + n.toString(16), true])
      out.push(block, await rpc(p, 'eth_getBlockByHash', [block.hash, false]), await rpc(p, 'eth_getBalance', [COW1, '0x' + n.toString(16)]))
      for (const t of block.transactions) out.push(await rpc(p, 'eth_getTransactionReceipt', [t.hash]))
    }
    for (const t of txs) out.push(await rpc(p, 'eth_getTransactionByHash', [t]), await rpc(p, 'eth_getTransactionReceipt', [t]))
    out.push(await rpc(p, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: token }]))
    return out
  }

  it('a database with more blocks than the store keeps as records opens with the old ones packed as read, and answers as before', async () => {
    const level = new MemoryLevel()
    const a = await createProvider({ ...NO_QUOTA, database: { level } })
    const token = await deploy(a, Token, [10n ** 24n])
    const transfer = (i: number) => send(a, { to: token, data: new Interface(Token.abi as never).encodeFunctionData('transfer', [COW1, 100n + BigInt(i)]) })
    const txs: string[] = []
    for (let i = 0; i < 3; i++) txs.push((await transfer(i)).transactionHash)
    await rpc(a, 'hardhat_mine', ['0x1100'])
    for (let i = 3; i < 5; i++) txs.push((await transfer(i)).transactionHash)
    const head = Number(await rpc(a, 'eth_blockNumber'))
    const recent = nodeOf(a).chain.store.recentLimit
    expect(head).toBeGreaterThan(recent + 100)
    const numbers = [0, 1, 2, 3, 4, 5, 15, 16, 1000, head - recent - 1, head - recent, head - recent + 1, head - 1, head]
    const before = await sampled(a, numbers, txs, token)
    await a.disconnect()

    const b = await createProvider({ ...NO_QUOTA, database: { level } })
    // The blocks below the newest `recent` were appended packed (store.ts appendPacked), not as records.
    expect((nodeOf(b).chain.store as unknown as { packedEnd: number }).packedEnd).toBe(head - recent + 1)
    expect(await sampled(b, numbers, txs, token)).toEqual(before)
    // And mining goes on from there.
    const next = await transfer(9)
    expect(next.status).toBe('0x1')
    expect(Number(next.blockNumber)).toBe(head + 1)
    await b.disconnect()
  }, 60_000)

  /** A block as format 1 stored it: its record in V8's serialization (the layout blockCodec.ts still reads). */
  function formatOne(b: BlockRecord): Uint8Array {
    return serialize({
      header: b.header,
      hash: b.hash,
      number: b.number,
      hashForMergedMining: b.hashForMergedMining,
      transactions: b.transactions.map((t) => (t.system === 'remasc' ? { remasc: true, hash: t.hash } : { raw: t.raw, from: t.from, hash: t.hash })),
      receipts: b.receipts.map((r, i) => {
        const parts = b.transactions[i]!.system === 'remasc' ? remascReceiptParts(r) : undefined
        if (parts !== undefined) return { remasc: parts }
        return {
          status: r.status,
          gasUsed: r.gasUsed,
          cumulativeGasUsed: r.cumulativeGasUsed,
          logs: r.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data })),
          logsBloom: r.logsBloom,
          contractAddress: r.contractAddress,
          ...(r.revertData !== undefined ? { revertData: r.revertData } : {}),
          ...(r.error !== undefined ? { error: r.error } : {}),
        }
      }),
      totalDifficulty: b.totalDifficulty,
      size: b.size,
    })
  }

  it('reads a database of format 1, marks it 2 with its first write, and reads the two formats together', async () => {
    const level = new MemoryLevel()
    const a = await createProvider({ ...NO_QUOTA, database: { level } })
    const common = nodeOf(a).chain.common
    const token = await deploy(a, Token, [10n ** 24n])
    const events = await deploy(a, Events)
    for (let i = 0; i < 3; i++) await send(a, { to: token, data: new Interface(Token.abi as never).encodeFunctionData('transfer', [COW1, 1000n + BigInt(i)]) })
    await send(a, { to: events, data: new Interface(Events.abi as never).encodeFunctionData('emitMany', [3n]) })
    // Past REMASC's maturity, so that REMASC receipts carry payments.
    for (let i = 0; i < 12; i++) await rpc(a, 'evm_mine')
    const addresses = [COW, COW1, token, events]
    const before = await picture(a, addresses)
    await a.disconnect()
    // Every block rewritten as format 1 wrote it, and the description's version set back to 1.
    for await (const [key, value] of level.iterator<Uint8Array, Uint8Array>({ ...VIEW, gte: Uint8Array.of(0x62), lt: Uint8Array.of(0x63) })) {
      await level.put(key, formatOne(unpackBlock(value, common)), VIEW)
    }
    await level.put(META, new TextEncoder().encode(JSON.stringify({ ...(await metaOf(level)), version: 1 })), VIEW)

    const b = await createProvider({ ...NO_QUOTA, database: { level } })
    expect(await picture(b, addresses)).toEqual(before)
    await send(b, { to: COW1, value: '0x7' })
    expect((await metaOf(level)).version).toBe(2)
    const after = await picture(b, addresses)
    await b.disconnect()
    const c = await createProvider({ ...NO_QUOTA, database: { level } })
    expect(await picture(c, addresses)).toEqual(after)
    await c.disconnect()
  })
})

describe('damaged databases', () => {
  /** A database of a few blocks, closed; returns its store. */
  async function made(): Promise<MemoryLevel> {
    const level = new MemoryLevel()
    const a = await createProvider({ ...NO_QUOTA, database: { level } })
    for (let i = 0; i < 3; i++) await send(a, { to: COW1, value: '0x1' })
    await a.disconnect()
    return level
  }
  const blockKey = (n: number) => Uint8Array.of(0x62, 0, 0, 0, 0, 0, 0, 0, n)

  it('a missing or unreadable block, or a missing state, is refused with what is wrong', async () => {
    const gone = await made()
    await gone.del(blockKey(3), { keyEncoding: 'view' })
    await expect(createProvider({ database: { level: gone } })).rejects.toThrow(/is damaged: the blocks end at 2, the head record names 3/)

    const garbled = await made()
    await garbled.put(blockKey(2), Uint8Array.of(1, 2, 3), { keyEncoding: 'view', valueEncoding: 'view' })
    await expect(createProvider({ database: { level: garbled } })).rejects.toThrow(/is damaged: a block record is unreadable/)

    const stateless = await made()
    for await (const key of stateless.keys({ keyEncoding: 'view', gte: Uint8Array.of(0x6e), lt: Uint8Array.of(0x6f) })) await stateless.del(key, { keyEncoding: 'view' })
    await expect(createProvider({ database: { level: stateless } })).rejects.toThrow(/is damaged: the state 0x[0-9a-f]{64} is missing/)
  })
})

describe('a state file of a reopened database', () => {
  // Found by test/stateful.test.ts (seed 20261128, on disk, step 5): anvil_dumpState after a restart listed no
  // account (the node knew only the addresses written in its own process), so loading that file restored nothing.
  it('anvil_dumpState after the node reopened its database lists every account, as before', async () => {
    const dir = path.join(tempDir(), 'chain')
    const a = await createProvider({ ...NO_QUOTA, database: { path: dir } })
    const token = await deploy(a, Token, [1000n])
    await rpc(a, 'eth_sendTransaction', [{ from: COW, to: token, data: new Interface(Token.abi as never).encodeFunctionData('transfer', [COW1, 7n]), gas: '0x186a0' }])
    const KEYLESS = '0x00000000000000000000000000000000000000aa'
    await rpc(a, 'anvil_setBalance', [KEYLESS, '0x1234'])
    const before = await rpc(a, 'anvil_dumpState')
    await a.disconnect()
    const b = await createProvider({ ...NO_QUOTA, database: { path: dir } })
    expect(await rpc(b, 'anvil_dumpState')).toBe(before)
    // Loaded into a new node, the file gives the accounts back.
    const c = await createProvider(NO_QUOTA)
    await rpc(c, 'anvil_loadState', [await rpc(b, 'anvil_dumpState')])
    expect(await rpc(c, 'eth_getBalance', [KEYLESS, 'latest'])).toBe('0x1234')
    expect(await rpc(c, 'eth_call', [{ to: token, data: new Interface(Token.abi as never).encodeFunctionData('balanceOf', [COW1]) }, 'latest'])).toBe('0x' + '7'.padStart(64, '0'))
    expect(await rpc(c, 'eth_getTransactionCount', [COW, 'latest'])).toBe('0x2')
    await Promise.all([b.disconnect(), c.disconnect()])
  })
})
