/**
 * eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter, eth_getFilterChanges, eth_getFilterLogs,
 * eth_uninstallFilter through `provider.request` (spec "Filter lifecycle", "Events"; reference §6).
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Interface, id as keccakId, zeroPadValue, toBeHex } from 'ethers'
import type { Provider } from '../src/index.js'
import { COW, COW1, deploy, fresh, rejects, send, rq as rpc } from './helpers.js'
import { Events } from './fixtures/index.js'

const events = new Interface(Events.abi as never)
const VALUE = keccakId('Value(uint256,uint256)')
const word = (n: number): string => zeroPadValue(toBeHex(n), 32)

const emitOne = (p: Provider, to: string, a: number) => send(p, { to, data: events.encodeFunctionData('emitOne', [a]) })
const emitMany = (p: Provider, to: string, n: number) => send(p, { to, data: events.encodeFunctionData('emitMany', [n]) })

afterEach(() => {
  vi.useRealTimers()
})

describe('eth_newBlockFilter', () => {
  it('numbers filters 0x1, 0x2, … and returns the hashes of blocks mined since the previous poll', async () => {
    const p = await fresh()
    expect(await rpc(p, 'eth_newBlockFilter')).toBe('0x1')
    expect(await rpc(p, 'eth_newPendingTransactionFilter')).toBe('0x2')
    const id = await rpc(p, 'eth_newBlockFilter')
    expect(id).toBe('0x3')
    expect(await rpc(p, 'eth_getFilterChanges', [id])).toEqual([])
    await rpc(p, 'evm_mine')
    await rpc(p, 'evm_mine')
    const b1 = await rpc(p, 'eth_getBlockByNumber', ['0x1', false])
    const b2 = await rpc(p, 'eth_getBlockByNumber', ['0x2', false])
    expect(await rpc(p, 'eth_getFilterChanges', [id])).toEqual([b1.hash, b2.hash])
    expect(await rpc(p, 'eth_getFilterChanges', [id])).toEqual([])
    await rpc(p, 'evm_mine')
    const b3 = await rpc(p, 'eth_getBlockByNumber', ['latest', false])
    // eth_getFilterLogs shows what waits without consuming it; the next poll still returns it.
    expect(await rpc(p, 'eth_getFilterLogs', [id])).toEqual([b3.hash])
    expect(await rpc(p, 'eth_getFilterChanges', ['0x03'])).toEqual([b3.hash])
  })

  it('forgets blocks removed by evm_revert before the client saw them', async () => {
    const p = await fresh()
    const id = await rpc(p, 'eth_newBlockFilter')
    await rpc(p, 'evm_mine')
    const kept = (await rpc(p, 'eth_getBlockByNumber', ['latest', false])).hash
    const snap = await rpc(p, 'evm_snapshot')
    await rpc(p, 'evm_mine')
    await rpc(p, 'evm_revert', [snap])
    await rpc(p, 'evm_mine')
    const after = (await rpc(p, 'eth_getBlockByNumber', ['latest', false])).hash
    expect(await rpc(p, 'eth_getFilterChanges', [id])).toEqual([kept, after])
  })
})

describe('eth_newPendingTransactionFilter', () => {
  it('returns hashes of transactions entering the pending set, not the queued one until promoted', async () => {
    const p = await fresh({ mining: { auto: false } })
    const id = await rpc(p, 'eth_newPendingTransactionFilter')
    const h0 = await rpc(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x1', nonce: '0x0' }])
    const h2 = await rpc(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x1', nonce: '0x2' }])
    expect(await rpc(p, 'eth_getFilterChanges', [id])).toEqual([h0])
    const h1 = await rpc(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x1', nonce: '0x1' }])
    expect(await rpc(p, 'eth_getFilterChanges', [id])).toEqual([h1, h2])
    expect(await rpc(p, 'eth_getFilterChanges', [id])).toEqual([])
    expect(h2).not.toBe(h1)
  })
})

describe('eth_newFilter', () => {
  it('returns matching logs since the previous poll, each with removed: false', async () => {
    const p = await fresh()
    const addr = await deploy(p, Events)
    await emitOne(p, addr, 1) // before the filter: not reported (fromBlock latest)
    const id = await rpc(p, 'eth_newFilter', [{ address: addr, topics: [VALUE] }])
    expect(await rpc(p, 'eth_getFilterChanges', [id])).toEqual([])
    const r = await emitOne(p, addr, 7)
    const changes = await rpc(p, 'eth_getFilterChanges', [id])
    expect(changes).toEqual([
      {
        logIndex: '0x0',
        blockNumber: r.blockNumber,
        blockHash: r.blockHash,
        transactionHash: r.transactionHash,
        transactionIndex: '0x0',
        address: addr.toLowerCase(),
        data: word(14),
        topics: [VALUE, word(7)],
        removed: false,
      },
    ])
    await emitMany(p, addr, 2)
    await emitMany(p, addr, 1)
    const next = await rpc(p, 'eth_getFilterChanges', [id])
    expect(next.map((l: any) => [l.topics[1], l.data])).toEqual([
      [word(0), word(2)],
      [word(1), word(2)],
      [word(0), word(1)],
    ])
    expect(await rpc(p, 'eth_getFilterChanges', [id])).toEqual([])
  })

  it('matches topic positions with null wildcards and OR-lists', async () => {
    const p = await fresh()
    const addr = await deploy(p, Events)
    const id = await rpc(p, 'eth_newFilter', [{ topics: [null, [word(3), word(4)]] }])
    await emitOne(p, addr, 3) // Value(3), Triple(3,4,5) match at position 1; Pair(cow, …) does not
    const logs = await rpc(p, 'eth_getFilterChanges', [id])
    expect(logs.map((l: any) => l.topics[0])).toEqual([VALUE, keccakId('Triple(uint256,uint256,uint256)')])
  })

  it('with a fixed fromBlock collects history, returned by the first poll; eth_getFilterLogs returns all matches', async () => {
    const p = await fresh()
    const addr = await deploy(p, Events)
    await emitMany(p, addr, 2)
    const id = await rpc(p, 'eth_newFilter', [{ fromBlock: '0x0', address: [addr], topics: [VALUE] }])
    expect((await rpc(p, 'eth_getFilterChanges', [id])).map((l: any) => l.topics[1])).toEqual([word(0), word(1)])
    await emitMany(p, addr, 1)
    const changes = await rpc(p, 'eth_getFilterChanges', [id])
    expect(changes).toHaveLength(1)
    const all = await rpc(p, 'eth_getFilterLogs', [id])
    expect(all).toHaveLength(3)
    expect(all.every((l: any) => l.removed === false)).toBe(true)
    expect(all[2]).toEqual(changes[0])
    // A fixed toBlock bounds the filter: later blocks are not reported.
    const head = await rpc(p, 'eth_blockNumber')
    const bounded = await rpc(p, 'eth_newFilter', [{ fromBlock: '0x0', toBlock: head, topics: [VALUE] }])
    expect(await rpc(p, 'eth_getFilterChanges', [bounded])).toHaveLength(3)
    await emitMany(p, addr, 1)
    expect(await rpc(p, 'eth_getFilterChanges', [bounded])).toEqual([])
  })

  it('reports removed: true for logs already returned when evm_revert drops their block, and forgets unseen ones', async () => {
    const p = await fresh()
    const addr = await deploy(p, Events)
    const id = await rpc(p, 'eth_newFilter', [{ address: addr, topics: [VALUE] }])
    const snap = await rpc(p, 'evm_snapshot')
    await emitOne(p, addr, 9)
    const [seen] = await rpc(p, 'eth_getFilterChanges', [id])
    expect(seen.removed).toBe(false)
    await emitOne(p, addr, 10) // not polled before the revert: simply forgotten
    expect(await rpc(p, 'evm_revert', [snap])).toBe(true)
    expect(await rpc(p, 'eth_getFilterChanges', [id])).toEqual([{ ...seen, removed: true }])
    await emitOne(p, addr, 11)
    const [fresh11] = await rpc(p, 'eth_getFilterChanges', [id])
    expect(fresh11.topics[1]).toBe(word(11))
    expect(fresh11.removed).toBe(false)
    await rpc(p, 'evm_reset')
    expect(await rpc(p, 'eth_getFilterChanges', [id])).toEqual([{ ...fresh11, removed: true }])
  })

  it('answers a filtered eth_getLogs as the matching subset of all logs, with block-wide logIndex', async () => {
    // Receipts whose bloom cannot match are skipped unread; the REMASC logs after a user transaction's logs
    // must keep their block-wide positions.
    const p = await fresh()
    const addr = await deploy(p, Events)
    while (BigInt(await rpc(p, 'eth_blockNumber')) < 16n) await rpc(p, 'evm_mine')
    const r = await emitOne(p, addr, 5)
    const all = await rpc(p, 'eth_getLogs', [{ blockHash: r.blockHash }])
    const remasc = '0x0000000000000000000000000000000001000008'
    expect(all.some((l: any) => l.address === remasc)).toBe(true)
    expect(all.some((l: any) => l.address === addr.toLowerCase())).toBe(true)
    const filters = [{ address: remasc }, { address: addr }, { topics: [VALUE] }, { topics: [null, word(5)] }, { address: COW }]
    for (const f of filters) {
      const expected = all.filter(
        (l: any) => (f.address === undefined || l.address === f.address.toLowerCase()) && (f.topics ?? []).every((t, i) => t === null || l.topics[i] === t),
      )
      expect(await rpc(p, 'eth_getLogs', [{ blockHash: r.blockHash, ...f }])).toEqual(expected)
    }
  })

  it('answers the eth_getLogs limits and parameter errors', async () => {
    const p = await fresh({ logsMaxBlockRange: 2, logsMaxResults: 0 })
    for (let i = 0; i < 4; i++) await rpc(p, 'evm_mine')
    await rejects(rpc(p, 'eth_newFilter', [{ fromBlock: '0x0' }]), -32012, 'Cannot query more than 2 blocks at once')
    await rejects(
      rpc(p, 'eth_newFilter', [{ blockHash: '0x' + '11'.repeat(32), fromBlock: '0x0' }]),
      -32602,
      'Cannot specify both blockHash and fromBlock/toBlock',
    )
    await rejects(rpc(p, 'eth_newFilter', [{ address: '0x1234' }]), -32602)
    await rejects(rpc(p, 'eth_newFilter', []), -32602)
    await rejects(rpc(p, 'eth_newBlockFilter', [1]), -32602)
  })
})

describe('filter ids and errors', () => {
  it('eth_uninstallFilter answers true once, then false; the filter is then not found', async () => {
    const p = await fresh()
    const id = await rpc(p, 'eth_newBlockFilter')
    expect(await rpc(p, 'eth_uninstallFilter', [id])).toBe(true)
    expect(await rpc(p, 'eth_uninstallFilter', [id])).toBe(false)
    await rejects(rpc(p, 'eth_getFilterChanges', [id]), -32000, 'filter not found')
    await rejects(rpc(p, 'eth_getFilterLogs', [id]), -32000, 'filter not found')
  })

  it('unknown ids get -32000 filter not found; malformed ids -32602', async () => {
    const p = await fresh()
    await rejects(rpc(p, 'eth_getFilterChanges', ['0x99']), -32000, 'filter not found')
    await rejects(rpc(p, 'eth_getFilterLogs', ['0x' + 'ab'.repeat(40)]), -32000, 'filter not found')
    expect(await rpc(p, 'eth_uninstallFilter', ['0x5'])).toBe(false)
    await rejects(rpc(p, 'eth_getFilterChanges', ['0xzz']), -32602, 'Invalid data format: invalid hex value.')
    await rejects(rpc(p, 'eth_getFilterLogs', [-7]), -32602, 'Invalid data format: invalid hex value.')
    await rejects(rpc(p, 'eth_uninstallFilter', [{}]), -32602)
    await rejects(rpc(p, 'eth_getFilterChanges', []), -32602)
    // JSON null: Jackson gives the method a null HexDataParam (a custom deserializer is not called for null).
    // Web3Impl.eth_uninstallFilter answers false for it (`if (id == null) return false`); eth_getFilterChanges and
    // eth_getFilterLogs call id.getAsHexString() on it, RSKj's -32603, which rsksim answers -32602 (docs/compatibility.md).
    expect(await rpc(p, 'eth_uninstallFilter', [null])).toBe(false)
    await rejects(rpc(p, 'eth_getFilterChanges', [null]), -32602, 'Invalid data format: invalid hex value.')
    await rejects(rpc(p, 'eth_getFilterLogs', [null]), -32602, 'Invalid data format: invalid hex value.')
    // Nothing crashed: the provider still answers.
    expect(await rpc(p, 'eth_newBlockFilter')).toBe('0x1')
  })

  /**
   * RSKj's `HexDataParam.Deserializer` (org/ethereum/rpc/parameters/HexDataParam.java) takes `jp.getText()`: for a JSON
   * number its digits (databind `TreeTraversingParser.getText`: `String.valueOf(numberValue())`), which
   * `HexUtils.stringHexToByteArray` reads as hex (an odd count left-padded), and `FilterManager` looks up
   * `getAsHexString()`. So the number 10 is the id 0x10, not 0xa; 0 is the byte 00, no filter; a sign, a fraction or a
   * boolean is no hex (`Hex.decode` throws: `Invalid data format: invalid hex value.`).
   */
  it('a JSON number as a filter id is its digits read as hex', async () => {
    const p = await fresh()
    for (let i = 1; i <= 17; i++) expect(await rpc(p, 'eth_newBlockFilter')).toBe('0x' + i.toString(16))
    const mined = await send(p, { to: COW1, value: '0x1' })
    expect(await rpc(p, 'eth_getFilterChanges', [1])).toEqual([mined.blockHash])
    expect(await rpc(p, 'eth_getFilterLogs', [11])).toEqual([mined.blockHash]) // 0x11, never polled
    expect(await rpc(p, 'eth_uninstallFilter', [10])).toBe(true)
    await rejects(rpc(p, 'eth_getFilterChanges', ['0x10']), -32000, 'filter not found')
    expect(await rpc(p, 'eth_getFilterChanges', ['0xa'])).toEqual([mined.blockHash])
    for (const missing of [0, 100, 12345678901234567890n]) {
      await rejects(rpc(p, 'eth_getFilterChanges', [missing]), -32000, 'filter not found')
      await rejects(rpc(p, 'eth_getFilterLogs', [missing]), -32000, 'filter not found')
      expect(await rpc(p, 'eth_uninstallFilter', [missing])).toBe(false)
    }
    for (const bad of [-1, 1.5, true]) {
      await rejects(rpc(p, 'eth_getFilterChanges', [bad]), -32602, 'Invalid data format: invalid hex value.')
      await rejects(rpc(p, 'eth_uninstallFilter', [bad]), -32602, 'Invalid data format: invalid hex value.')
    }
  })

  it('a filter not polled for filterTimeout ms is removed', async () => {
    // The system clock is moved past the timeout, not waited for (the expiry reads Date.now()).
    vi.useFakeTimers({ toFake: ['Date'] })
    const p = await fresh({ filterTimeout: 20 })
    const id = await rpc(p, 'eth_newBlockFilter')
    vi.setSystemTime(Date.now() + 60)
    await rejects(rpc(p, 'eth_getFilterChanges', [id]), -32000, 'filter not found')
    expect(await rpc(p, 'eth_uninstallFilter', [id])).toBe(false)
  })

  it('polling keeps a filter alive; idleness past the timeout removes it (system clock faked)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const start = Date.now()
    const p = await fresh({ filterTimeout: 60_000 })
    const blocks = await rpc(p, 'eth_newBlockFilter')
    const logs = await rpc(p, 'eth_newFilter', [{}])
    vi.setSystemTime(start + 50_000)
    expect(await rpc(p, 'eth_getFilterChanges', [blocks])).toEqual([])
    vi.setSystemTime(start + 100_000) // 50 s after the last poll of `blocks`, 100 s after `logs` was created
    expect(await rpc(p, 'eth_getFilterChanges', [blocks])).toEqual([])
    await rejects(rpc(p, 'eth_getFilterChanges', [logs]), -32000, 'filter not found')
    vi.setSystemTime(start + 160_000)
    await rejects(rpc(p, 'eth_getFilterChanges', [blocks]), -32000, 'filter not found')
  })
})
