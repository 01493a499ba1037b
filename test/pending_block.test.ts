/**
 * `pending` for eth_getBalance, eth_getStorageAt, eth_call and eth_estimateGas: the block the miner would build now
 * (spec "Block parameter": "a sample next block built on top of latest, holding transactions usually taken from the
 * local mempool"; RSKj `ExecutionBlockRetriever`), built per request on the live state inside a checkpoint that is
 * reverted when the request ends (src/node/miner/pending.ts). Expected values are what the test's own transactions
 * must leave, or another node's that never read `pending`.
 */
import { beforeEach, describe, expect, it } from 'vitest'
import { BrowserProvider } from 'ethers'
import { createPublicClient, http } from 'viem'
import { startServer, type Provider } from '../src/index.js'
import type { RskNode } from '../src/node/node.js'
import { COW, NO_QUOTA, deployCode, fresh, rq } from './helpers.js'

const word = (n: bigint) => '0x' + n.toString(16).padStart(64, '0')
const X = '0x' + '11'.repeat(20)

/** With call data: SSTORE(0, the first word); without: returns SLOAD(0). */
const STORE = '3615600c5760003560005500' + '5b60005460005260206000f3'
/** Returns NUMBER, then TIMESTAMP, as two words. */
const BLOCK_INFO = '4360005242602052' + '60406000f3'

describe('pending: the next block, with the pool, on the head state for one request', () => {
  let p: Provider
  beforeEach(async () => {
    p = await fresh()
  })

  it('state reads see pooled transactions; latest does not, and the chain is unchanged until a block is mined', async () => {
    await rq(p, 'evm_setAutomine', [false])
    await rq(p, 'eth_sendTransaction', [{ from: COW, to: X, value: '0x5' }])
    await rq(p, 'eth_sendTransaction', [{ from: COW, to: X, value: '0x7' }])
    expect(await rq(p, 'eth_getBalance', [X, 'pending'])).toBe('0xc')
    expect(await rq(p, 'eth_getBalance', [X, 'latest'])).toBe('0x0')
    // Through ethers' blockTag too.
    expect(await new BrowserProvider(p as never).getBalance(X, 'pending')).toBe(12n)
    // Asked again: the same (each request builds its own pending block; none is kept in the chain).
    expect(await rq(p, 'eth_getBalance', [X, 'pending'])).toBe('0xc')
    expect(await rq(p, 'eth_blockNumber')).toBe('0x0')
    await rq(p, 'evm_mine')
    expect(await rq(p, 'eth_getBalance', [X, 'latest'])).toBe('0xc')
    expect(await rq(p, 'eth_getBalance', [X, 'pending'])).toBe('0xc')
  })

  it('eth_call and eth_getStorageAt run on the pending state; eth_estimateGas too', async () => {
    const store = await deployCode(p, STORE)
    await rq(p, 'evm_setAutomine', [false])
    await rq(p, 'eth_sendTransaction', [{ from: COW, to: store, data: word(42n), gas: '0x186a0' }])
    expect(await rq(p, 'eth_call', [{ to: store }, 'pending'])).toBe(word(42n))
    expect(await rq(p, 'eth_call', [{ to: store }, 'latest'])).toBe(word(0n))
    expect(await rq(p, 'eth_getStorageAt', [store, '0x0', 'pending'])).toBe(word(42n))
    expect(await rq(p, 'eth_getStorageAt', [store, '0x0', 'latest'])).toBe(word(0n))
    // An account funded only by a pooled transaction can pay for an estimate at pending, not at latest.
    const Y = '0x' + '22'.repeat(20)
    await rq(p, 'eth_sendTransaction', [{ from: COW, to: Y, value: '0xde0b6b3a7640000' }])
    expect(await rq(p, 'eth_estimateGas', [{ from: Y, to: X, value: '0x1' }, 'pending'])).toBe('0x5208')
    await expect(rq(p, 'eth_estimateGas', [{ from: Y, to: X, value: '0x1' }, 'latest'])).rejects.toMatchObject({ code: -32000 })
  })

  it('a call at pending runs in block head + 1, at the timestamp the next block would get (which stays set)', async () => {
    const info = await deployCode(p, BLOCK_INFO)
    const head = BigInt(await rq(p, 'eth_blockNumber'))
    const headTime = BigInt((await rq(p, 'eth_getBlockByNumber', ['latest', false])).timestamp)
    const at = async (tag: string) => {
      const out: string = await rq(p, 'eth_call', [{ to: info }, tag])
      return [BigInt('0x' + out.slice(2, 66)), BigInt('0x' + out.slice(66))]
    }
    const [latestNumber, latestTime] = await at('latest')
    expect([latestNumber, latestTime]).toEqual([head, headTime])
    const pinned = headTime + 1_000n
    await rq(p, 'evm_setNextBlockTimestamp', [Number(pinned)])
    expect(await at('pending')).toEqual([head + 1n, pinned])
    // Reading pending did not consume the pinned time: the next block gets it.
    await rq(p, 'evm_mine')
    expect(BigInt((await rq(p, 'eth_getBlockByNumber', ['latest', false])).timestamp)).toBe(pinned)
    // Nor an evm_increaseTime offset, which only the next block consumes (RSKj MinerClock).
    await rq(p, 'evm_increaseTime', [100_000])
    const [pendingNumber, pendingTime] = await at('pending')
    expect(pendingNumber).toBe(head + 2n)
    expect(pendingTime).toBeGreaterThanOrEqual(pinned + 100_000n)
    await rq(p, 'evm_mine')
    expect(BigInt((await rq(p, 'eth_getBlockByNumber', ['latest', false])).timestamp)).toBeGreaterThanOrEqual(pinned + 100_000n)
  })

  it('an estimate that runs its call several times sees the pooled transactions in every run; latest does not', async () => {
    // GAS (so the estimate searches, running the call again), then REVERT unless B has a balance, which only a pooled
    // transaction gives it. Each run's own checkpoint is reverted, never the pending block's under it.
    const B = '0x' + '33'.repeat(20)
    const checker = '0x' + '44'.repeat(20)
    await rq(p, 'anvil_setCode', [checker, '0x5a5073' + B.slice(2) + '31602057' + '60006000fd' + '5b00'])
    await rq(p, 'evm_setAutomine', [false])
    await rq(p, 'eth_sendTransaction', [{ from: COW, to: B, value: '0x5' }])
    const estimate = BigInt(await rq(p, 'eth_estimateGas', [{ from: COW, to: checker }, 'pending']))
    expect(estimate).toBeGreaterThan(21_000n)
    await expect(rq(p, 'eth_estimateGas', [{ from: COW, to: checker }, 'latest'])).rejects.toMatchObject({ code: -32015 })
    expect(await rq(p, 'eth_getBalance', [B, 'latest'])).toBe('0x0')
    await rq(p, 'evm_mine')
    expect(await rq(p, 'eth_getBalance', [B, 'latest'])).toBe('0x5')
    expect(BigInt(await rq(p, 'eth_estimateGas', [{ from: COW, to: checker }, 'latest']))).toBe(estimate)
  })

  it('reading pending leaves the chain as it was: a node that reads it between blocks mines the same blocks as one that never does', async () => {
    const REMASC = '0x0000000000000000000000000000000001000008'
    const run = async (readPending: boolean) => {
      const node = await fresh()
      await rq(node, 'anvil_setBlockTimestampInterval', [1])
      let differed = false
      // Fees paid (1 gwei), so that REMASC pays rewards once blocks mature (10 blocks later): the pending block's
      // REMASC transaction then moves balances that latest does not show yet.
      for (let i = 0; i < 14; i++) {
        await rq(node, 'eth_sendTransaction', [{ from: COW, to: X, value: '0x1', gasPrice: '0x3b9aca00' }])
        if (readPending) {
          const [pending, latest] = [await rq(node, 'eth_getBalance', [REMASC, 'pending']), await rq(node, 'eth_getBalance', [REMASC, 'latest'])]
          if (pending !== latest) differed = true
          await rq(node, 'eth_call', [{ from: COW, to: X, value: '0x2' }, 'pending'])
          await rq(node, 'eth_estimateGas', [{ from: COW, to: X, value: '0x3' }, 'pending'])
        }
      }
      const head = await rq(node, 'eth_getBlockByNumber', ['latest', false])
      await node.disconnect()
      return { differed, hash: head.hash, stateRoot: head.stateRoot, number: head.number }
    }
    const reader = await run(true)
    const other = await run(false)
    expect(reader.differed).toBe(true)
    expect({ hash: reader.hash, stateRoot: reader.stateRoot, number: reader.number }).toEqual({ hash: other.hash, stateRoot: other.stateRoot, number: other.number })
  })

  it("viem over HTTP: estimateGas and getBalance at blockTag 'pending' see a pooled transfer, at 'latest' not", async () => {
    const server = await startServer({ port: 0, ...NO_QUOTA })
    try {
      const client = createPublicClient({ transport: http(server.url) })
      const y = ('0x' + '88'.repeat(20)) as `0x${string}`
      await client.request({ method: 'evm_setAutomine' as never, params: [false] as never })
      await client.request({ method: 'eth_sendTransaction' as never, params: [{ from: COW, to: y, value: '0xde0b6b3a7640000' }] as never })
      expect(await client.getBalance({ address: y, blockTag: 'pending' })).toBe(10n ** 18n)
      expect(await client.getBalance({ address: y, blockTag: 'latest' })).toBe(0n)
      // An account funded only by the pooled transfer pays for a transfer at pending (21,000 gas), not at latest.
      expect(await client.estimateGas({ account: y, to: X as `0x${string}`, value: 1n, blockTag: 'pending' })).toBe(21_000n)
      await expect(client.estimateGas({ account: y, to: X as `0x${string}`, value: 1n, blockTag: 'latest' })).rejects.toThrow(/insufficient funds/i)
    } finally {
      await server.close()
    }
  })

  it('a call at pending stopped by the request deadline (-32011) leaves the chain as it was: the pooled transaction mines as it would', async () => {
    // A 1 ms deadline: a loop of 10,000,000 gas (6,800,000 for the estimate) takes far longer (test/limits/execution.test.ts).
    const q = await fresh({ rpcTimeout: 1 })
    const loop = '0x' + '66'.repeat(20)
    await rq(q, 'anvil_setCode', [loop, '0x5b600056']) // JUMPDEST PUSH1 0 JUMP: runs until the gas or the deadline
    await rq(q, 'evm_setAutomine', [false])
    await rq(q, 'eth_sendTransaction', [{ from: COW, to: X, value: '0x9' }])
    await expect(rq(q, 'eth_call', [{ to: loop, gas: '0x989680' }, 'pending'])).rejects.toMatchObject({ code: -32011 })
    await expect(rq(q, 'eth_estimateGas', [{ to: loop }, 'pending'])).rejects.toMatchObject({ code: -32011 })
    expect(await rq(q, 'eth_getBalance', [X, 'latest'])).toBe('0x0')
    expect(await rq(q, 'eth_getBalance', [X, 'pending'])).toBe('0x9')
    await rq(q, 'evm_mine')
    expect(await rq(q, 'eth_getBalance', [X, 'latest'])).toBe('0x9')
    expect((await rq(q, 'eth_getBlockByNumber', ['latest', false])).transactions).toHaveLength(2)
    await q.disconnect()
  })

  it('EVMs made for one use (pending blocks, older blocks, replays) are not kept reachable by the chain', async () => {
    // The engine's EVM subscribes to its Common's hardforkChanged event: made on the chain's Common, each one stayed
    // reachable with its state (54 MB over 280 calls at older blocks and traces before Chain.vmOver copied it).
    const common = (p as unknown as { node: RskNode }).node.chain.common
    const listeners = () => common.events.listenerCount('hardforkChanged')
    const hash = await rq(p, 'eth_sendTransaction', [{ from: COW, to: X, value: '0x1' }])
    await rq(p, 'evm_mine')
    const before = listeners()
    for (let i = 0; i < 5; i++) {
      await rq(p, 'eth_getBalance', [X, 'pending'])
      await rq(p, 'eth_call', [{ to: X }, '0x1'])
      await rq(p, 'eth_call', [{ to: X }, '0x0'])
      await rq(p, 'debug_traceTransaction', [hash])
    }
    expect(listeners()).toBe(before)
  })
})
