/** evm_* (reference §3.3) and the mining modes (automine, interval, stopped). */
import { describe, expect, it, vi } from 'vitest'
import { Interface } from 'ethers'
import type { Provider } from '../src/index.js'
import { COW, COW1, deploy, fresh, rejects, send, useHttpServer, rq } from './helpers.js'
import { Storage } from './fixtures/index.js'

const num = async (p: Provider) => BigInt(await rq(p, 'eth_blockNumber'))
const balance = async (p: Provider, a: string) => BigInt(await rq(p, 'eth_getBalance', [a, 'latest']))

describe('evm_snapshot / evm_revert', () => {
  it('snapshot ids are QUANTITY counters; revert restores head, state and balances', async () => {
    const p = await fresh()
    expect(await rq(p, 'evm_snapshot')).toBe('0x1')
    const before = await balance(p, COW1)
    await send(p, { to: COW1, value: '0x64' })
    await send(p, { to: COW1, value: '0x64' })
    expect(await num(p)).toBe(2n)
    expect(await rq(p, 'evm_snapshot')).toBe('0x2')
    expect(await rq(p, 'evm_revert', ['0x1'])).toBe(true)
    expect(await num(p)).toBe(0n)
    expect(await balance(p, COW1)).toBe(before)
    expect(await rq(p, 'eth_getBlockByNumber', ['0x1', false])).toBeNull()
    expect(await rq(p, 'eth_getTransactionCount', [COW, 'latest'])).toBe('0x0')
  })

  it('an id can be reverted to again (RSKj), later ids are dropped, unknown ids answer false', async () => {
    const p = await fresh()
    const one = await rq(p, 'evm_snapshot')
    await send(p, { to: COW1, value: '0x1' })
    const two = await rq(p, 'evm_snapshot')
    expect(await rq(p, 'evm_revert', [one])).toBe(true)
    await send(p, { to: COW1, value: '0x1' })
    await send(p, { to: COW1, value: '0x1' })
    expect(await rq(p, 'evm_revert', [one])).toBe(true)
    expect(await num(p)).toBe(0n)
    expect(await rq(p, 'evm_revert', [two])).toBe(false)
    expect(await rq(p, 'evm_revert', ['0x99'])).toBe(false)
    expect(await rq(p, 'evm_revert', ['0x0'])).toBe(false)
    await rejects(rq(p, 'evm_revert', ['one']), -32602, 'invalid snapshot id one')
  })

  it('Hardhat-style fixtures give identical state every round', async () => {
    const p = await fresh()
    const storage = await deploy(p, Storage)
    const iface = new Interface(Storage.abi as never)
    const base = await rq(p, 'evm_snapshot')
    const seen = new Set<string>()
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 3; i++) await send(p, { to: storage, data: iface.encodeFunctionData('inc') })
      const block = await rq(p, 'eth_getBlockByNumber', ['latest', false])
      const counter = BigInt(await rq(p, 'eth_call', [{ to: storage, data: iface.encodeFunctionData('counter') }, 'latest']))
      expect(counter).toBe(3n)
      seen.add(block.stateRoot)
      expect(await rq(p, 'evm_revert', [base])).toBe(true)
    }
    expect(seen.size).toBe(1)
  })

  it('restores the pool and the clock offset', async () => {
    const p = await fresh({ mining: { auto: false } })
    await rq(p, 'evm_increaseTime', ['0x64'])
    const id = await rq(p, 'evm_snapshot')
    await rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x1' }])
    await rq(p, 'evm_increaseTime', ['0x64'])
    expect(await rq(p, 'eth_pendingTransactions')).toHaveLength(1)
    expect(await rq(p, 'evm_revert', [id])).toBe(true)
    expect(await rq(p, 'eth_pendingTransactions')).toEqual([])
    expect(await rq(p, 'evm_increaseTime', ['0x0'])).toBe('0x64')
  })

  // Found by test/stateful.test.ts (seed 20261128, in memory, step 187): a block mined after the revert had the time
  // pinned after the snapshot.
  it('evm_revert gives back the next block time as it was at the snapshot (a pin set after it is gone)', async () => {
    const p = await fresh()
    const head = await rq(p, 'eth_getBlockByNumber', ['latest', false])
    const id = await rq(p, 'evm_snapshot')
    const pin = BigInt(head.timestamp) + 1_000_000n
    await rq(p, 'evm_setNextBlockTimestamp', ['0x' + pin.toString(16)])
    expect(await rq(p, 'evm_revert', [id])).toBe(true)
    const w1 = BigInt(Math.floor(Date.now() / 1000))
    await rq(p, 'evm_mine')
    const mined = await rq(p, 'eth_getBlockByNumber', ['latest', false])
    // The wall clock's time (the node's clock had no offset at the snapshot), not the pin.
    expect(BigInt(mined.timestamp)).toBeLessThanOrEqual((w1 > BigInt(head.timestamp) ? w1 : BigInt(head.timestamp)) + 2n)
    // And a pin set before the snapshot, used up after it, is back after the revert.
    const base = await rq(p, 'eth_getBlockByNumber', ['latest', false])
    const pin2 = BigInt(base.timestamp) + 500n
    await rq(p, 'evm_setNextBlockTimestamp', ['0x' + pin2.toString(16)])
    const id2 = await rq(p, 'evm_snapshot')
    await rq(p, 'evm_mine')
    expect((await rq(p, 'eth_getBlockByNumber', ['latest', false])).timestamp).toBe('0x' + pin2.toString(16))
    expect(await rq(p, 'evm_revert', [id2])).toBe(true)
    await rq(p, 'evm_mine')
    expect((await rq(p, 'eth_getBlockByNumber', ['latest', false])).timestamp).toBe('0x' + pin2.toString(16))
    await p.disconnect()
  })
})

describe('time', () => {
  it('evm_increaseTime accumulates, applies to the next block, and is then cleared (RSKj)', async () => {
    // The system clock is faked and held, so the block time is exact rather than within a window of real time.
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      vi.setSystemTime(1_800_000_000_000)
      const p = await fresh()
      expect(await rq(p, 'evm_increaseTime', ['0xe10'])).toBe('0xe10')
      expect(await rq(p, 'evm_increaseTime', [60])).toBe('0xe4c')
      expect(await rq(p, 'evm_increaseTime', ['-5'])).toBe('0xe4c')
      await rq(p, 'evm_mine')
      const ts = BigInt((await rq(p, 'eth_getBlockByNumber', ['latest', false])).timestamp)
      expect(ts).toBe(1_800_000_000n + 3660n)
      expect(await rq(p, 'evm_increaseTime', ['0x0'])).toBe('0x0')
    } finally {
      vi.useRealTimers()
    }
  })

  it('evm_mine takes a timestamp (Ganache style) after the head\'s, and block timestamps always rise', async () => {
    const p = await fresh()
    expect(await rq(p, 'evm_mine', [2_000_000_000])).toBeNull()
    expect((await rq(p, 'eth_getBlockByNumber', ['latest', false])).timestamp).toBe('0x' + (2_000_000_000).toString(16))
    // At or below the head's: refused, with Hardhat's text (Anvil refuses too), and nothing is mined.
    await rejects(rq(p, 'evm_mine', [{ timestamp: '0x10', blocks: 3 }]), -32602, "Timestamp 16 is lower than or equal to previous block's timestamp 2000000000")
    await rejects(rq(p, 'evm_mine', [2_000_000_000]), -32602, "Timestamp 2000000000 is lower than or equal to previous block's timestamp 2000000000")
    expect(await num(p)).toBe(1n)
    // The first block gets the timestamp, the ones after it later ones.
    await rq(p, 'evm_mine', [{ timestamp: '0x77359401', blocks: 3 }])
    expect(await num(p)).toBe(4n)
    expect((await rq(p, 'eth_getBlockByNumber', ['0x2', false])).timestamp).toBe('0x77359401')
    let last = 0n
    for (let n = 1; n <= 4; n++) {
      const ts = BigInt((await rq(p, 'eth_getBlockByNumber', ['0x' + n.toString(16), false])).timestamp)
      expect(ts > last).toBe(true)
      last = ts
    }
    await rejects(rq(p, 'evm_mine', ['soon']), -32602)
  })

  // Found by test/stateful.test.ts (seed 20261128, in memory, step 177: evm_setNextBlockTimestamp, then two
  // evm_setTime; the next block took the pinned time). Anvil 1.7.1, tried by hand: after anvil_increaseTime(50) and
  // anvil_setTime(2200000000), or evm_setNextBlockTimestamp(2000000000) and anvil_setTime(2100000000), the next block
  // is at exactly the time set (Ganache's evm_setTime also replaces its increaseTime adjustment).
  it('evm_setTime ends an evm_increaseTime offset and a pinned next time: the next block is at the time set', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      vi.setSystemTime(1_800_000_000_000)
      const p = await fresh()
      expect(await rq(p, 'evm_increaseTime', [50])).toBe('0x32')
      // The answer: the clock's offset from the wall clock, a JSON number (docs/extensions.md).
      expect(await rq(p, 'anvil_setTime', [2_200_000_000])).toBe(400_000_000)
      await rq(p, 'evm_mine')
      expect((await rq(p, 'eth_getBlockByNumber', ['latest', false])).timestamp).toBe('0x' + (2_200_000_000).toString(16))
      expect(await rq(p, 'evm_setNextBlockTimestamp', [2_300_000_000])).toBe(true)
      expect(await rq(p, 'evm_setTime', [2_250_000_000])).toBe(450_000_000)
      await rq(p, 'evm_mine')
      expect((await rq(p, 'eth_getBlockByNumber', ['latest', false])).timestamp).toBe('0x' + (2_250_000_000).toString(16))
    } finally {
      vi.useRealTimers()
    }
  })

  // Found by test/stateful.test.ts (seed 20261128, on disk, step 58: evm_mine at a time 10^6 s ahead, later
  // anvil_rollback below that block; the next block fell back to the wall clock). Anvil 1.7.1, tried by hand:
  // evm_mine(2300000000), 3 s later evm_mine → 2300000003 (and evm_mine({ timestamp, blocks: 1 }) the same). As after
  // evm_setNextBlockTimestamp, time goes on from it.
  it('after evm_mine with a timestamp the clock goes on from it', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      vi.setSystemTime(1_800_000_000_000)
      const p = await fresh()
      await rq(p, 'evm_mine', [2_300_000_000])
      vi.setSystemTime(1_800_000_003_000)
      await rq(p, 'evm_mine')
      expect((await rq(p, 'eth_getBlockByNumber', ['latest', false])).timestamp).toBe('0x' + (2_300_000_003).toString(16))
      // Rolled back below both blocks, the clock still reads from the last time asked for.
      expect(await rq(p, 'anvil_rollback', [2])).toBeNull()
      await rq(p, 'evm_mine', [{ timestamp: 2_400_000_000, blocks: 1 }])
      vi.setSystemTime(1_800_000_005_000)
      expect(await rq(p, 'anvil_rollback', [1])).toBeNull()
      await rq(p, 'evm_mine')
      expect((await rq(p, 'eth_getBlockByNumber', ['latest', false])).timestamp).toBe('0x' + (2_400_000_002).toString(16))
    } finally {
      vi.useRealTimers()
    }
  })
})

describe('mining modes', () => {
  it('evm_stopMining holds transactions in the pool until evm_mine; evm_startMining mines what waits', async () => {
    const p = await fresh()
    expect(await rq(p, 'evm_stopMining')).toBeNull()
    expect(await rq(p, 'eth_mining')).toBe(false)
    const h1 = await rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x1' }])
    const h2 = await rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x1' }])
    expect(await num(p)).toBe(0n)
    expect(await rq(p, 'eth_getTransactionReceipt', [h1])).toBeNull()
    const pending = await rq(p, 'eth_getTransactionByHash', [h1])
    expect(pending.blockHash).toBeNull()
    expect(pending.blockNumber).toBeNull()
    expect(await rq(p, 'eth_getTransactionCount', [COW, 'pending'])).toBe('0x2')
    expect(await rq(p, 'eth_getTransactionCount', [COW, 'latest'])).toBe('0x0')
    const list = await rq(p, 'eth_pendingTransactions')
    expect(list.map((t: any) => t.hash)).toEqual([h1, h2])
    expect(list[0].blockHash).toBe('0x' + '00'.repeat(32))
    expect(list[0].blockNumber).toBeNull()
    await rq(p, 'evm_mine')
    const block = await rq(p, 'eth_getBlockByNumber', ['latest', false])
    expect(block.transactions.slice(0, 2)).toEqual([h1, h2])
    const h3 = await rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x1' }])
    expect(await rq(p, 'evm_startMining')).toBeNull()
    expect((await rq(p, 'eth_getTransactionReceipt', [h3])).status).toBe('0x1')
    expect(await rq(p, 'eth_mining')).toBe(true)
  })

  it('a block takes ready transactions by gas price, nonce order within a sender', async () => {
    const p = await fresh({ mining: { auto: false } })
    const a1 = await rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, gasPrice: '0x1' }])
    const a2 = await rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, gasPrice: '0x9' }])
    const b1 = await rq(p, 'eth_sendTransaction', [{ from: COW1, to: COW, gasPrice: '0x5' }])
    await rq(p, 'evm_mine')
    const block = await rq(p, 'eth_getBlockByNumber', ['latest', false])
    expect(block.transactions.slice(0, 3)).toEqual([b1, a1, a2])
  })

  it('a block stops at its gas limit; the rest waits for the next block', async () => {
    const p = await fresh({ mining: { auto: false }, blockGasLimit: 50_000n })
    for (let i = 0; i < 3; i++) await rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, gas: '0x5208' }])
    await rq(p, 'evm_mine')
    expect((await rq(p, 'eth_getBlockByNumber', ['0x1', false])).gasUsed).toBe('0xa410')
    await rq(p, 'evm_mine')
    expect((await rq(p, 'eth_getBlockByNumber', ['0x2', false])).gasUsed).toBe('0x5208')
    expect(await rq(p, 'eth_pendingTransactions')).toEqual([])
  })

  it('interval mining mines blocks on its own', async () => {
    const p = await fresh({ mining: { interval: 20 } })
    const hash = await rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x1' }])
    expect(await rq(p, 'eth_getTransactionReceipt', [hash])).toBeNull()
    // Waits on the provider's `block` events (no fixed delay): each wait is registered before the receipt is read,
    // so the block that includes the transaction cannot slip between the read and the wait.
    for (;;) {
      const next = new Promise((resolve) => p.once('block', resolve))
      if ((await rq(p, 'eth_getTransactionReceipt', [hash])) !== null) break
      await next
    }
    expect((await rq(p, 'eth_getTransactionReceipt', [hash])).status).toBe('0x1')
    await p.disconnect()
  })

  it('evm_reset returns to genesis', async () => {
    const p = await fresh()
    await send(p, { to: COW1, value: '0x1' })
    expect(await rq(p, 'evm_reset')).toBeNull()
    expect(await num(p)).toBe(0n)
    expect(await balance(p, COW1)).toBe(10n ** 30n)
  })
})

describe('transaction pool', () => {
  it('a nonce gap queues; filling it promotes and mines both', async () => {
    const p = await fresh()
    const later = await rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, nonce: '0x1' }])
    expect(await rq(p, 'eth_getTransactionReceipt', [later])).toBeNull()
    expect(await rq(p, 'eth_getTransactionCount', [COW, 'pending'])).toBe('0x0')
    const first = await rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, nonce: '0x0' }])
    expect((await rq(p, 'eth_getTransactionReceipt', [first])).status).toBe('0x1')
    expect((await rq(p, 'eth_getTransactionReceipt', [later])).status).toBe('0x1')
    expect(await rq(p, 'eth_getTransactionCount', [COW, 'latest'])).toBe('0x2')
  })

  it('same-nonce replacement needs a 40% higher gas price (RSKj bump rule)', async () => {
    const p = await fresh({ mining: { auto: false } })
    const old = await rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, gasPrice: '0x64' }])
    await rejects(rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, gasPrice: '0x8b', nonce: '0x0' }]), -32010, 'gas price not enough to bump transaction')
    const replacement = await rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, gasPrice: '0x8c', nonce: '0x0' }])
    expect(await rq(p, 'eth_getTransactionByHash', [old])).toBeNull()
    expect((await rq(p, 'eth_pendingTransactions')).map((t: any) => t.hash)).toEqual([replacement])
    await rejects(rq(p, 'eth_sendRawTransaction', [await rawOf(p, replacement)]), -32010, 'pending transaction with same hash already exists')
  })
})

/** Re-serializes a pending transaction from its JSON fields (it is signed by the node, so rebuild from RLP fields). */
async function rawOf(p: Provider, hash: string): Promise<string> {
  const { Transaction } = await import('ethers')
  const t = await rq(p, 'eth_getTransactionByHash', [hash])
  return Transaction.from({
    type: 0, chainId: 33, nonce: Number(t.nonce), gasPrice: BigInt(t.gasPrice), gasLimit: BigInt(t.gas), to: t.to, value: BigInt(t.value), data: t.input,
    signature: { r: '0x' + BigInt(t.r).toString(16).padStart(64, '0'), s: '0x' + BigInt(t.s).toString(16).padStart(64, '0'), v: Number(t.v) },
  }).serialized
}

describe('evm_* and txpool_* through ethers over HTTP', () => {
  const http = useHttpServer({ mining: { auto: false } })

  it('a fixture round trip: snapshot, queued transfer, mine, revert', async () => {
    const { rpc } = http
    const id = await rpc.send('evm_snapshot', [])
    expect(id).toBe('0x1')
    await rpc.send('eth_sendTransaction', [{ from: COW, to: COW1, value: '0x1' }])
    expect(await rpc.send('txpool_status', [])).toEqual({ pending: 1, queued: 0 })
    expect(await rpc.send('evm_increaseTime', ['0x3c'])).toBe('0x3c')
    expect(await rpc.send('evm_mine', [])).toBeNull()
    expect(await rpc.send('eth_blockNumber', [])).toBe('0x1')
    expect(await rpc.send('evm_revert', [id])).toBe(true)
    expect(await rpc.send('eth_blockNumber', [])).toBe('0x0')
    expect(await rpc.send('txpool_status', [])).toEqual({ pending: 0, queued: 0 })
  })
})
