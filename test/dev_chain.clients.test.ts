/**
 * The dev-chain methods through viem's test client in its three modes (ganache, hardhat, anvil), in process and over
 * HTTP: every test action viem offers that a chain without forking can support. Expected values are what the action
 * means (a balance set reads back, a mined block count, a timestamp), checked through viem's public client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPublicClient, createTestClient, custom, http, parseEther, type Chain, type PublicClient, type TestClient } from 'viem'
import { Storage } from './fixtures/index.js'
import { COW, COW1, deploy, fresh } from './helpers.js'
import { JsonRpcProvider, Wallet, keccak256, toUtf8Bytes } from 'ethers'
import { startServer, type Provider, type RsksimServer } from '../src/index.js'

const regtest: Chain = {
  id: 33,
  name: 'RSK regtest (rsksim)',
  nativeCurrency: { name: 'RBTC', symbol: 'RBTC', decimals: 18 },
  rpcUrls: { default: { http: ['http://127.0.0.1:4444'] } },
}

const STRANGER = '0x00000000000000000000000000000000000beef1' as const
/** cow1's key: RSKj's regtest accounts are keccak256 of their seed word. */
const COW1_KEY = keccak256(toUtf8Bytes('cow1'))
/** An account without code. */
const WHALE = '0x00000000000000000000000000000000000beef2' as const

let server: RsksimServer
beforeAll(async () => {
  server = await startServer({ port: 0 })
})
afterAll(() => server.close())

type Mode = 'ganache' | 'hardhat' | 'anvil'

for (const mode of ['ganache', 'hardhat', 'anvil'] as const satisfies readonly Mode[]) {
  describe(`viem test client, ${mode} mode`, () => {
    let p: Provider
    let test: TestClient<Mode>
    let pub: PublicClient
    beforeAll(async () => {
      p = await fresh()
      const transport = custom(p, { retryCount: 0 })
      test = createTestClient({ mode, chain: regtest, transport }) as TestClient<Mode>
      pub = createPublicClient({ chain: regtest, transport, cacheTime: 0 })
    })

    it('setBalance, setNonce, setCode, setStorageAt read back', async () => {
      await test.setBalance({ address: STRANGER, value: parseEther('3') })
      expect(await pub.getBalance({ address: STRANGER })).toBe(parseEther('3'))
      if (mode !== 'ganache') {
        await test.setNonce({ address: STRANGER, nonce: 5 })
        expect(await pub.getTransactionCount({ address: STRANGER })).toBe(5)
      }
      await test.setCode({ address: STRANGER, bytecode: '0x6001600055' })
      expect(await pub.getCode({ address: STRANGER })).toBe('0x6001600055')
      if (mode !== 'ganache') {
        await test.setStorageAt({ address: STRANGER, index: 2, value: '0x' + '42'.padStart(64, '0') as `0x${string}` })
        expect(await pub.getStorageAt({ address: STRANGER, slot: '0x2' })).toBe('0x' + '42'.padStart(64, '0'))
      }
    })

    it('mine, increaseTime, setNextBlockTimestamp', async () => {
      const before = await pub.getBlockNumber()
      await test.mine({ blocks: 3 })
      expect(await pub.getBlockNumber()).toBe(before + 3n)
      const head = await pub.getBlock()
      await test.setNextBlockTimestamp({ timestamp: head.timestamp + 1000n })
      await test.mine({ blocks: 1 })
      expect((await pub.getBlock()).timestamp).toBe(head.timestamp + 1000n)
      await test.increaseTime({ seconds: 3600 })
      await test.mine({ blocks: 1 })
      expect((await pub.getBlock()).timestamp).toBeGreaterThanOrEqual(head.timestamp + 1000n + 3600n)
    })

    it('snapshot and revert undo a setBalance and the blocks after it', async () => {
      const id = await test.snapshot()
      const n = await pub.getBlockNumber()
      await test.setBalance({ address: STRANGER, value: 1n })
      await test.mine({ blocks: 2 })
      await test.revert({ id })
      expect(await pub.getBlockNumber()).toBe(n)
      expect(await pub.getBalance({ address: STRANGER })).toBe(parseEther('3'))
    })

    it('setAutomine / getAutomine, then mine what waited', async () => {
      await test.setAutomine(false)
      if (mode !== 'ganache') expect(await test.getAutomine()).toBe(false)
      const before = await pub.getBlockNumber()
      const hash = await p.request({ method: 'eth_sendTransaction', params: [{ from: COW, to: COW1, value: '0x1' }] })
      expect(await pub.getBlockNumber()).toBe(before)
      await test.mine({ blocks: 1 })
      expect((await pub.getTransactionReceipt({ hash: hash as `0x${string}` })).status).toBe('success')
      await test.setAutomine(true)
      if (mode !== 'ganache') expect(await test.getAutomine()).toBe(true)
    })

    it('impersonateAccount lets eth_sendTransaction send from an address without a key; stop ends it', async () => {
      if (mode === 'ganache') return // Ganache has no impersonation method of its own; viem sends ganache_impersonateAccount.
      await test.setBalance({ address: WHALE, value: parseEther('1') })
      await test.impersonateAccount({ address: WHALE })
      const hash = (await p.request({ method: 'eth_sendTransaction', params: [{ from: WHALE, to: COW1, value: '0x10' }] })) as `0x${string}`
      const receipt = await pub.getTransactionReceipt({ hash })
      expect(receipt.from).toBe(WHALE)
      expect(receipt.status).toBe('success')
      expect(await pub.getBalance({ address: WHALE })).toBe(parseEther('1') - 16n)
      // The node holds no key: signing refuses with a reason.
      await expect(p.request({ method: 'personal_sign', params: ['0x00', WHALE] })).rejects.toMatchObject({ code: -32602, message: expect.stringMatching(/is impersonated/) })
      await test.stopImpersonatingAccount({ address: WHALE })
      await expect(p.request({ method: 'eth_sendTransaction', params: [{ from: WHALE, to: COW1 }] })).rejects.toMatchObject({ code: -32602 })
      // A sender with code sends as any other: RSKj has no EIP-3607 rule, and Hardhat and Anvil let an impersonated
      // contract send. Its code stays, its nonce moves.
      await test.impersonateAccount({ address: STRANGER })
      const nonce = await pub.getTransactionCount({ address: STRANGER })
      const fromContract = (await p.request({ method: 'eth_sendTransaction', params: [{ from: STRANGER, to: COW1 }] })) as `0x${string}`
      const byContract = await pub.getTransactionReceipt({ hash: fromContract })
      expect([byContract.status, byContract.from]).toEqual(['success', STRANGER])
      expect(await pub.getCode({ address: STRANGER })).toBe('0x6001600055')
      expect(await pub.getTransactionCount({ address: STRANGER })).toBe(nonce + 1)
    })

    it('dropTransaction removes a pending transaction', async () => {
      await test.setAutomine(false)
      const hash = (await p.request({ method: 'eth_sendTransaction', params: [{ from: COW, to: COW1, value: '0x2' }] })) as `0x${string}`
      await test.dropTransaction({ hash })
      expect(await p.request({ method: 'eth_getTransactionByHash', params: [hash] })).toBeNull()
      await test.setAutomine(true)
    })

    it('setCoinbase, setMinGasPrice, setBlockGasLimit shape the next block', async () => {
      if (mode !== 'ganache') {
        await test.setCoinbase({ address: STRANGER })
        await test.setMinGasPrice({ gasPrice: 7n })
      }
      await test.setBlockGasLimit({ gasLimit: 8_000_000n })
      await test.mine({ blocks: 1 })
      const block = (await p.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as Record<string, string>
      expect(BigInt(block.gasLimit!)).toBe(8_000_000n)
      if (mode !== 'ganache') {
        expect(block.miner).toBe(STRANGER)
        expect(BigInt(block.minimumGasPrice!)).toBe(7n)
      }
    })

    it('setIntervalMining mines by itself, and 0 stops it', async () => {
      const before = await pub.getBlockNumber()
      // viem converts seconds to ms in hardhat mode; evm_setIntervalMining takes ms, so 1 is 1 ms in the other modes.
      await test.setIntervalMining({ interval: 1 })
      await new Promise<void>((resolve) => {
        const off = () => p.off('block', on)
        const on = () => {
          off()
          resolve()
        }
        p.on('block', on)
      })
      await test.setIntervalMining({ interval: 0 })
      expect(await pub.getBlockNumber()).toBeGreaterThan(before)
    })

    it('reset returns to genesis', async () => {
      await test.reset()
      expect(await pub.getBlockNumber()).toBe(0n)
    })
  })
}

describe('anvil-only actions', () => {
  it('dumpState → loadState into a fresh provider gives the same balances, code, storage and nonces', async () => {
    const a = await fresh()
    const storage = await deploy(a, Storage)
    const test = createTestClient({ mode: 'anvil', chain: regtest, transport: custom(a, { retryCount: 0 }) })
    await test.setBalance({ address: STRANGER, value: 12345n })
    await test.setNonce({ address: STRANGER, nonce: 9 })
    await test.setStorageAt({ address: storage as `0x${string}`, index: 7, value: ('0x' + '99'.padStart(64, '0')) as `0x${string}` })
    const state = await test.dumpState()
    expect(state).toMatch(/^0x1f8b/) // gzip, as Anvil's dump

    const b = await fresh()
    const bt = createTestClient({ mode: 'anvil', chain: regtest, transport: custom(b, { retryCount: 0 }) })
    await bt.loadState({ state })
    const read = (p: Provider, method: string, params: unknown[]) => p.request({ method, params })
    for (const [method, params] of [
      ['eth_getBalance', [STRANGER, 'latest']],
      ['eth_getTransactionCount', [STRANGER, 'latest']],
      ['eth_getBalance', [COW, 'latest']],
      ['eth_getTransactionCount', [COW, 'latest']],
      ['eth_getCode', [storage, 'latest']],
      ['eth_getStorageAt', [storage, '0x7', 'latest']],
      ['eth_getStorageAt', [storage, '0x0', 'latest']],
    ] as const) {
      expect(await read(b, method, [...params])).toBe(await read(a, method, [...params]))
    }
    expect(await read(b, 'eth_getBalance', [STRANGER, 'latest'])).toBe('0x3039')
  })

  it('loadState over edits made since the dump: the larger nonce, the file\'s balance and code, slots the file lacks kept (anvil 1.7.1, checked by hand)', async () => {
    const p = await fresh()
    const read = (method: string, params: unknown[]) => p.request({ method, params })
    const word = (b: string) => '0x' + b.padStart(64, '0')
    await read('anvil_setNonce', [STRANGER, '0x5'])
    await read('anvil_setBalance', [STRANGER, '0x100'])
    await read('anvil_setStorageAt', [STRANGER, '0x1', word('11')])
    const dump = await read('anvil_dumpState', [])
    await read('anvil_setNonce', [STRANGER, '0x9'])
    await read('anvil_setBalance', [STRANGER, '0x999'])
    await read('anvil_setCode', [STRANGER, '0x6001600155'])
    await read('anvil_setStorageAt', [STRANGER, '0x1', word('33')])
    await read('anvil_setStorageAt', [STRANGER, '0x2', word('22')])
    // A second account: its nonce in the file is above the one it has when loaded.
    await read('anvil_setNonce', [COW1, '0x7'])
    const dumpCow1 = await read('anvil_dumpState', [])
    await read('anvil_setNonce', [COW1, '0x2'])
    expect(await read('anvil_loadState', [dump])).toBe(true)
    expect(await read('eth_getTransactionCount', [STRANGER, 'latest'])).toBe('0x9')
    expect(await read('eth_getBalance', [STRANGER, 'latest'])).toBe('0x100')
    expect(await read('eth_getCode', [STRANGER, 'latest'])).toBe('0x')
    expect(await read('eth_getStorageAt', [STRANGER, '0x1', 'latest'])).toBe(word('11'))
    expect(await read('eth_getStorageAt', [STRANGER, '0x2', 'latest'])).toBe(word('22'))
    expect(await read('anvil_loadState', [dumpCow1])).toBe(true)
    expect(await read('eth_getTransactionCount', [COW1, 'latest'])).toBe('0x7')
  })

  it('loadState refuses a file of another chain id and a hand-edited one', async () => {
    const a = await fresh({ network: 'testnet' })
    const dump = await a.request({ method: 'anvil_dumpState' })
    const b = await fresh()
    await expect(b.request({ method: 'anvil_loadState', params: [dump] })).rejects.toMatchObject({
      code: -32602,
      message: 'Invalid state: the state file was made on chain id 31, this node is chain id 33',
    })
    await expect(b.request({ method: 'anvil_loadState', params: [{ format: 'rsksim-state', version: 1, chainId: '0x21', block: { number: '0x0', timestamp: '0x0' }, accounts: { [COW]: { balance: 'lots', nonce: '0x0' } } }] })).rejects.toMatchObject({ code: -32602 })
  })

  it('nodeInfo and hardhat_metadata describe this node', async () => {
    const p = await fresh()
    const info = (await p.request({ method: 'anvil_nodeInfo' })) as Record<string, any>
    expect(info).toMatchObject({ currentBlockNumber: '0x0', hardFork: 'vetiver900', environment: { chainId: 33, gasLimit: 10_000_000 } })
    const meta = (await p.request({ method: 'hardhat_metadata' })) as Record<string, any>
    expect(meta).toMatchObject({ chainId: 33, latestBlockNumber: 0, clientVersion: expect.stringMatching(/^RskJ\//) })
    expect(meta.instanceId).toMatch(/^0x[0-9a-f]{64}$/)
    // Hardhat 3.18's EDR answers these fields, forkedNetwork only on a fork (checked by hand).
    expect(Object.keys(meta)).toEqual(['clientVersion', 'chainId', 'instanceId', 'latestBlockNumber', 'latestBlockHash'])
  })

  it("anvil_metadata in Anvil's shape: forkedNetwork null without a fork, snapshots id → [number, hash] (anvil 1.7.1, checked by hand)", async () => {
    const p = await fresh()
    const rq = (method: string, params: unknown[] = []) => p.request({ method, params }) as Promise<any>
    const genesis = (await rq('eth_getBlockByNumber', ['0x0', false])).hash
    const meta = await rq('anvil_metadata')
    // Anvil 1.7.1 also answers clientSemver and clientCommitSha (its build), after clientVersion.
    expect(Object.keys(meta)).toEqual(['clientVersion', 'chainId', 'instanceId', 'latestBlockNumber', 'latestBlockHash', 'forkedNetwork', 'snapshots'])
    expect(meta).toMatchObject({ chainId: 33, latestBlockNumber: 0, latestBlockHash: genesis, forkedNetwork: null, snapshots: {} })
    expect(meta.instanceId).toBe((await rq('hardhat_metadata')).instanceId)
    const first = await rq('evm_snapshot')
    await rq('evm_mine')
    const second = await rq('anvil_snapshot')
    const one = await rq('eth_getBlockByNumber', ['0x1', false])
    expect((await rq('anvil_metadata')).snapshots).toEqual({ [first]: [0, genesis], [second]: [1, one.hash] })
    // A revert keeps the snapshot reverted to (RSKj's rule) and drops the later ones.
    expect(await rq('evm_revert', [first])).toBe(true)
    expect(await rq('anvil_metadata')).toMatchObject({ latestBlockNumber: 0, snapshots: { [first]: [0, genesis] } })
    expect(Object.keys((await rq('anvil_metadata')).snapshots)).toEqual([first])
  })

  it("Anvil's own names of the evm_ methods, answered as Anvil answers them (anvil 1.7.1, checked by hand)", async () => {
    const p = await fresh()
    const rq = (method: string, params: unknown[] = []) => p.request({ method, params }) as Promise<any>
    expect(await rq('anvil_snapshot')).toBe('0x1')
    // anvil_increaseTime answers the whole offset as a JSON number (evm_increaseTime: RSKj's QUANTITY).
    expect(await rq('anvil_increaseTime', [100])).toBe(100)
    expect(await rq('anvil_increaseTime', ['0x10'])).toBe(116)
    expect(await rq('evm_increaseTime', [4])).toBe('0x78')
    expect(await rq('anvil_setBlockGasLimit', ['0x7a1200'])).toBe(true)
    await rq('evm_mine')
    expect((await rq('eth_getBlockByNumber', ['latest', false])).gasLimit).toBe('0x7a1200')
    expect(await rq('anvil_revert', ['0x1'])).toBe(true)
    expect(await rq('eth_blockNumber')).toBe('0x0')
    expect(await rq('anvil_getIntervalMining')).toBeNull()
    await rq('anvil_setIntervalMining', [2])
    expect(await rq('anvil_getIntervalMining')).toBe(2)
    await rq('anvil_setIntervalMining', [0])
    const meta = await rq('anvil_metadata')
    expect(meta).toMatchObject({ chainId: 33, latestBlockNumber: 0 })
  })

  it('anvil_rollback removes the newest blocks and their state; anvil_removePoolTransactions empties one sender\'s pool', async () => {
    const p = await fresh()
    const rq = (method: string, params: unknown[] = []) => p.request({ method, params }) as Promise<any>
    const snap = await rq('evm_snapshot')
    for (const v of [1, 2, 3]) await rq('eth_sendTransaction', [{ from: COW, to: STRANGER, value: '0x' + v.toString(16) }])
    const late = await rq('evm_snapshot')
    expect(await rq('eth_blockNumber')).toBe('0x3')
    const block1 = await rq('eth_getBlockByNumber', ['0x1', false])
    expect(await rq('anvil_rollback', [2])).toBeNull()
    expect(await rq('eth_blockNumber')).toBe('0x1')
    expect(await rq('eth_getBlockByNumber', ['latest', false])).toEqual(block1)
    expect(await rq('eth_getBalance', [STRANGER, 'latest'])).toBe('0x1')
    expect(await rq('eth_getTransactionCount', [COW, 'latest'])).toBe('0x1')
    // The snapshot taken above the new head is gone; the one below it still reverts.
    expect(await rq('evm_revert', [late])).toBe(false)
    // The next block follows block 1; one more rollback (default depth 1) leaves genesis; past it is refused.
    await rq('eth_sendTransaction', [{ from: COW, to: STRANGER, value: '0x10' }])
    expect((await rq('eth_getBlockByNumber', ['0x2', false])).parentHash).toBe(block1.hash)
    expect(await rq('eth_getBalance', [STRANGER, 'latest'])).toBe('0x11')
    await rq('anvil_rollback', [])
    await rq('anvil_rollback', [])
    expect(await rq('eth_blockNumber')).toBe('0x0')
    await expect(rq('anvil_rollback', [1])).rejects.toMatchObject({ code: -32602, message: 'Rollback depth must not exceed current chain height: current height 0, depth 1' })
    expect(await rq('evm_revert', [snap])).toBe(true)
    // The pool: two of cow's transactions and one of cow1's; removing cow's leaves cow1's.
    await rq('evm_setAutomine', [false])
    for (const from of [COW, COW, COW1]) await rq('eth_sendTransaction', [{ from, to: STRANGER, value: '0x1' }])
    expect(await rq('anvil_removePoolTransactions', [COW])).toBeNull()
    const content = await rq('txpool_content')
    expect(Object.keys(content.pending)).toEqual([COW1.slice(2)]) // RSKj's keys: hex without 0x
  })

  it('anvil_reorg replaces the newest blocks at the same height, with the transactions asked for at each offset', async () => {
    const p = await fresh()
    const rq = (method: string, params: unknown[] = []) => p.request({ method, params }) as Promise<any>
    for (const v of [1, 2, 3]) await rq('eth_sendTransaction', [{ from: COW, to: STRANGER, value: '0x' + v.toString(16) }])
    const [b1, oldHead] = [await rq('eth_getBlockByNumber', ['0x1', false]), await rq('eth_getBlockByNumber', ['0x3', false])]
    const gone = oldHead.transactions[0]
    // Three transfers of cow's (nonces follow its state after the reorged-away blocks: 1, then 2 and 3), one signed by
    // ethers for cow1, and one from an impersonated address without funds, which the engine refuses.
    const raw = await new Wallet(COW1_KEY).signTransaction({ type: 0, chainId: 33, nonce: 0, gasLimit: 21_000n, gasPrice: 0n, to: STRANGER, value: 0x100n })
    await rq('anvil_impersonateAccount', [WHALE])
    // A transaction waiting in the pool stays there, out of the new blocks.
    const [, , other] = await rq('eth_accounts')
    await rq('evm_setAutomine', [false])
    const waiting = await rq('eth_sendTransaction', [{ from: other, to: STRANGER, value: '0x7', gas: '0x5208' }])
    const send = (value: number) => ({ from: COW, to: STRANGER, value: '0x' + value.toString(16), gas: '0x5208' })
    expect(await rq('anvil_reorg', [2, [[send(0x10), 0], [send(0x20), 1], [raw, 1], [send(0x40), 1], [{ from: WHALE, to: STRANGER, value: '0x1' }, 0]]])).toBeNull()
    expect(await rq('eth_blockNumber')).toBe('0x3')
    const [n2, n3] = [await rq('eth_getBlockByNumber', ['0x2', true]), await rq('eth_getBlockByNumber', ['0x3', true])]
    expect(n2.parentHash).toBe(b1.hash)
    expect(n3.parentHash).toBe(n2.hash)
    expect(n3.hash).not.toBe(oldHead.hash)
    const sent = (b: any) => b.transactions.filter((t: any) => t.value !== '0x0').map((t: any) => [t.from, t.nonce, t.value])
    expect(sent(n2)).toEqual([[COW, '0x1', '0x10']])
    // In the miner's order (RSKj's: price, then each sender's nonces; on a tie the sender first in the pool).
    expect(sent(n3)).toEqual([[COW, '0x2', '0x20'], [COW, '0x3', '0x40'], [COW1, '0x0', '0x100']])
    expect(await rq('eth_getBalance', [STRANGER, 'latest'])).toBe('0x' + (1 + 0x10 + 0x20 + 0x100 + 0x40).toString(16))
    expect(await rq('eth_getTransactionReceipt', [gone])).toBeNull()
    expect(Object.keys((await rq('txpool_content')).pending)).toEqual([other.slice(2)])
    await rq('evm_mine')
    expect((await rq('eth_getTransactionReceipt', [waiting])).blockNumber).toBe('0x4')
    await expect(rq('anvil_reorg', [2, [[send(1), 2]]])).rejects.toMatchObject({ code: -32602, message: 'Block number for reorg tx will exceed the reorged chain height. Block number 2 must not exceed (depth-1) 1' })
    await expect(rq('anvil_reorg', [5, []])).rejects.toMatchObject({ code: -32602, message: 'Reorg depth must not exceed current chain height: current height 4, depth 5' })
    await expect(rq('anvil_reorg', [1, [['0x1234', 0]]])).rejects.toMatchObject({ code: -32602 })
    await expect(rq('anvil_reorg', [1001, []])).rejects.toMatchObject({ code: -32602, message: /^Invalid reorg depth 1001: at most 1000 blocks per request/ })
    // A price below the blocks' minimum would make a block RSKj refuses.
    await rq('anvil_setMinGasPrice', ['0x10'])
    await expect(rq('anvil_reorg', [1, [[send(1), 0]]])).rejects.toMatchObject({ code: -32602, message: "Invalid reorg transaction: transaction's gas price lower than block's minimum (16)" })
    expect(await rq('eth_getBlockByNumber', ['0x3', false])).toMatchObject({ hash: n3.hash })
  })

  it('evm_mine_detailed and anvil_mine_detailed mine as evm_mine and answer the blocks as eth_getBlockByNumber(n, true) (an array, as anvil 1.7.1 answers)', async () => {
    const p = await fresh()
    const rq = (method: string, params: unknown[] = []) => p.request({ method, params }) as Promise<any>
    await rq('evm_setAutomine', [false])
    const waiting = [await rq('eth_sendTransaction', [{ from: COW, to: STRANGER, value: '0x1' }]), await rq('eth_sendTransaction', [{ from: COW1, to: STRANGER, value: '0x2' }])]
    const [mined] = await rq('evm_mine_detailed')
    expect(mined).toEqual(await rq('eth_getBlockByNumber', ['0x1', true]))
    // The two that waited, then REMASC's system transaction, which ends every block.
    expect(mined.transactions).toHaveLength(3)
    expect(mined.transactions.slice(0, 2).map((t: any) => t.hash).sort()).toEqual([...waiting].sort())
    // { timestamp, blocks }: the first block at that time, then the clock's.
    const head = await rq('eth_getBlockByNumber', ['latest', false])
    const ts = Number(head.timestamp) + 1000
    const three = await rq('anvil_mine_detailed', [{ timestamp: ts, blocks: 3 }])
    expect(three.map((b: any) => b.number)).toEqual(['0x2', '0x3', '0x4'])
    for (const b of three) expect(b).toEqual(await rq('eth_getBlockByNumber', [b.number, true]))
    expect(Number(three[0].timestamp)).toBe(ts)
    const [alone] = await rq('evm_mine_detailed', [ts + 50])
    expect([alone.number, Number(alone.timestamp)]).toEqual(['0x5', ts + 50])
    // evm_mine's checks.
    await expect(rq('evm_mine_detailed', [ts])).rejects.toMatchObject({ code: -32602, message: `Timestamp ${ts} is lower than or equal to previous block's timestamp ${ts + 50}` })
    await expect(rq('anvil_mine_detailed', [{ blocks: 10_001 }])).rejects.toMatchObject({ code: -32602 })
    // Its reply holds every block: at most 1,000, refused before anything is mined.
    const height = await rq('eth_blockNumber')
    await expect(rq('evm_mine_detailed', [{ blocks: 1_001 }])).rejects.toMatchObject({
      code: -32602,
      message: 'evm_mine_detailed mines at most 1000 blocks per request (its reply holds each block); use evm_mine or anvil_mine for more',
    })
    expect(await rq('eth_blockNumber')).toBe(height)
    expect(await rq('eth_blockNumber')).toBe('0x5')
    const thousand = await rq('anvil_mine_detailed', [{ blocks: 1_000 }])
    expect([thousand.length, thousand[999].number]).toEqual([1000, '0x3ed'])
  })

  it('eth_sendUnsignedTransaction sends from any address', async () => {
    const p = await fresh()
    const test = createTestClient({ mode: 'anvil', chain: regtest, transport: custom(p, { retryCount: 0 }) })
    await test.setBalance({ address: STRANGER, value: 1000n })
    const hash = await test.sendUnsignedTransaction({ from: STRANGER, to: COW1, value: 10n, gas: 21_000n })
    const receipt = (await p.request({ method: 'eth_getTransactionReceipt', params: [hash] })) as Record<string, string>
    expect(receipt.from).toBe(STRANGER)
    expect(await p.request({ method: 'eth_getBalance', params: [STRANGER, 'latest'] })).toBe('0x3de')
  })
})

describe('over HTTP', () => {
  it("Anvil's names, anvil_rollback, anvil_reorg and anvil_mine_detailed through ethers' JsonRpcProvider", async () => {
    const own = await startServer({ port: 0 })
    const rpc = new JsonRpcProvider(own.url, undefined, { staticNetwork: true, cacheTimeout: -1 })
    try {
      expect(await rpc.send('anvil_snapshot', [])).toBe('0x1')
      expect(await rpc.send('anvil_increaseTime', [60])).toBe(60)
      expect(await rpc.send('anvil_setBlockGasLimit', ['0x7a1200'])).toBe(true)
      expect(await rpc.send('anvil_getIntervalMining', [])).toBeNull()
      for (const v of [1, 2, 3]) await rpc.send('eth_sendTransaction', [{ from: COW, to: STRANGER, value: '0x' + v.toString(16) }])
      expect(await rpc.send('anvil_rollback', [1])).toBeNull()
      expect(await rpc.getBlockNumber()).toBe(2)
      expect(await rpc.send('anvil_reorg', [1, [[{ from: COW, to: STRANGER, value: '0x10' }, 0]]])).toBeNull()
      expect(await rpc.getBlockNumber()).toBe(2)
      expect(await rpc.getBalance(STRANGER)).toBe(0x11n)
      expect(await rpc.send('anvil_metadata', [])).toMatchObject({ chainId: 33, latestBlockNumber: 2 })
      const detailed = await rpc.send('anvil_mine_detailed', [{ blocks: 2 }])
      expect(detailed).toEqual([await rpc.send('eth_getBlockByNumber', ['0x3', true]), await rpc.send('eth_getBlockByNumber', ['0x4', true])])
      expect(await rpc.send('evm_mine_detailed', [])).toEqual([await rpc.send('eth_getBlockByNumber', ['0x5', true])])
      // RSKj answers invalid parameters with HTTP 400, which ethers reports with the body.
      const refused = await rpc.send('anvil_reorg', [1, Array.from({ length: 1001 }, () => [{ from: COW, to: STRANGER }, 0])]).catch((e: any) => e)
      expect(JSON.parse(refused.response.bodyText).error).toEqual({ code: -32602, message: 'Invalid reorg transactions: at most 1000 per request, got 1001' })
      expect(await rpc.send('anvil_revert', ['0x1'])).toBe(true)
      expect(await rpc.send('eth_blockNumber', [])).toBe('0x0') // (ethers' getBlockNumber caches)
    } finally {
      rpc.destroy()
      await own.close()
    }
  })

  it('hardhat mode works through viem http transport', async () => {
    const test = createTestClient({ mode: 'hardhat', chain: regtest, transport: http(server.url, { retryCount: 0 }) })
    const pub = createPublicClient({ chain: regtest, transport: http(server.url, { retryCount: 0 }), cacheTime: 0 })
    await test.setBalance({ address: STRANGER, value: 77n })
    expect(await pub.getBalance({ address: STRANGER })).toBe(77n)
    const n = await pub.getBlockNumber()
    await test.mine({ blocks: 5, interval: 12 })
    expect(await pub.getBlockNumber()).toBe(n + 5n)
    const [a, b] = await Promise.all([pub.getBlock({ blockNumber: n + 4n }), pub.getBlock({ blockNumber: n + 5n })])
    expect(b.timestamp - a.timestamp).toBe(12n)
  })

  it('viem mine() of more than 10,000 blocks (as a Governor test mines its voting period), answered over HTTP', async () => {
    const test = createTestClient({ mode: 'hardhat', chain: regtest, transport: http(server.url, { retryCount: 0 }) })
    const pub = createPublicClient({ chain: regtest, transport: http(server.url, { retryCount: 0 }), cacheTime: 0 })
    const n = await pub.getBlockNumber()
    await test.mine({ blocks: 12_001, interval: 12 })
    expect(await pub.getBlockNumber()).toBe(n + 12_001n)
    const [first, last] = await Promise.all([pub.getBlock({ blockNumber: n + 1n }), pub.getBlock({ blockNumber: n + 12_001n })])
    expect(last.timestamp - first.timestamp).toBe(12n * 12_000n)
  })

  it('evm_mine with a timestamp through ethers over HTTP: a later one is the block\'s, one not after the head\'s is refused', async () => {
    const ethers = new JsonRpcProvider(server.url, undefined, { cacheTimeout: -1, staticNetwork: true })
    const head = (await ethers.getBlock('latest'))!
    const n = head.number
    await ethers.send('evm_mine', [head.timestamp + 100])
    expect((await ethers.getBlock('latest'))!.timestamp).toBe(head.timestamp + 100)
    // Invalid params come with HTTP 400, as RSKj answers them; ethers keeps the body.
    const e = await ethers.send('evm_mine', [head.timestamp]).then(
      () => undefined,
      (err: { info?: { responseBody?: string } }) => err,
    )
    expect(JSON.parse(e?.info?.responseBody ?? '{}').error).toEqual({
      code: -32602,
      message: `Timestamp ${head.timestamp} is lower than or equal to previous block's timestamp ${head.timestamp + 100}`,
    })
    expect(await ethers.getBlockNumber()).toBe(n + 1)
    ethers.destroy()
  })
})

describe('anvil_loadState bounds', () => {
  it('refuses a gzip that expands past 32 MiB with -32602, before parsing anything', async () => {
    const { gzipSync } = await import('node:zlib')
    const p = await fresh()
    const bomb = '0x' + gzipSync(Buffer.alloc(40 * 1024 * 1024, 0x20)).toString('hex')
    await expect(p.request({ method: 'anvil_loadState', params: [bomb] })).rejects.toMatchObject({
      code: -32602,
      message: 'Invalid state: more than 33554432 bytes once unzipped; load larger files with --load-state or provider.loadState',
    })
    expect(await p.request({ method: 'eth_chainId' })).toBe('0x21')
  })
})
