/**
 * eth_subscribe / eth_unsubscribe in process: EIP-1193 `message` events and the legacy `data` event. Expected
 * shapes: RSKj `BlockHeaderNotification` (its 14 block fields + baseEvent) and `LogsNotification` (the
 * eth_getLogs log with `removed`); values checked against eth_getBlockByNumber / eth_getLogs.
 */
import { describe, expect, it, vi } from 'vitest'
import { Interface, id as keccakId } from 'ethers'
import { startServer, type Provider } from '../src/index.js'
import { COW, COW1, deploy, fresh, NO_QUOTA, rejects, send, rq as rpc } from './helpers.js'
import { openWs } from './wsClient.js'
import { Events } from './fixtures/index.js'

const events = new Interface(Events.abi as never)
const VALUE = keccakId('Value(uint256,uint256)')

function collect(p: Provider): Map<string, unknown[]> {
  const got = new Map<string, unknown[]>()
  p.on('message', (m) => {
    expect(m.type).toBe('eth_subscription')
    const list = got.get(m.data.subscription) ?? []
    list.push(m.data.result)
    got.set(m.data.subscription, list)
  })
  return got
}

describe('eth_subscribe in process', () => {
  it('sends newHeads once per block, in order, with RSKj header notification fields', async () => {
    const p = await fresh()
    const got = collect(p)
    const legacy: any[] = []
    p.on('data', (d) => legacy.push(d))
    const id = await rpc(p, 'eth_subscribe', ['newHeads'])
    expect(id).toMatch(/^0x[0-9a-f]{32}$/)
    for (let i = 0; i < 5; i++) await rpc(p, 'evm_mine')
    const heads = got.get(id) as any[]
    expect(heads.map((h) => h.number)).toEqual(['0x1', '0x2', '0x3', '0x4', '0x5'])
    const block = await rpc(p, 'eth_getBlockByNumber', ['0x3', false])
    const fields = ['difficulty', 'extraData', 'gasLimit', 'gasUsed', 'logsBloom', 'miner', 'number', 'parentHash',
      'receiptsRoot', 'sha3Uncles', 'stateRoot', 'timestamp', 'transactionsRoot', 'hash']
    expect(Object.keys(heads[2])).toEqual([...fields, 'baseEvent'])
    for (const f of fields) expect(heads[2][f]).toBe(block[f])
    expect(legacy).toHaveLength(5)
    expect(legacy[0]).toEqual({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: id, result: heads[0] } })
    expect(await rpc(p, 'eth_unsubscribe', [id])).toBe(true)
    expect(await rpc(p, 'eth_unsubscribe', [id])).toBe(false)
    await rpc(p, 'evm_mine')
    expect(heads).toHaveLength(5)
  })

  it('sends matching logs one per notification, and replays them with removed: true after evm_revert', async () => {
    const p = await fresh()
    const addr = await deploy(p, Events)
    const got = collect(p)
    const id = await rpc(p, 'eth_subscribe', ['logs', { address: addr, topics: [VALUE] }])
    const all = await rpc(p, 'eth_subscribe', ['logs'])
    const snap = await rpc(p, 'evm_snapshot')
    const r = await send(p, { to: addr, data: events.encodeFunctionData('emitMany', [3]) })
    // RSKj's LogsNotification carries the eth_getLogs fields, but numbers each log within its transaction
    // (LogsNotificationEmitter.getLogsNotifications: `logIndex` of the receipt's log list), not within the block.
    const blockLogs: any[] = await rpc(p, 'eth_getLogs', [{ blockHash: r.blockHash }])
    const withinTx = (l: any) => {
      const before = blockLogs.filter((x) => x.transactionIndex === l.transactionIndex && BigInt(x.logIndex) < BigInt(l.logIndex)).length
      return { ...l, logIndex: '0x' + before.toString(16) }
    }
    const expected = (await rpc(p, 'eth_getLogs', [{ blockHash: r.blockHash, address: addr, topics: [VALUE] }])).map(withinTx)
    expect(expected).toHaveLength(3)
    expect(got.get(id)).toEqual(expected.map((l: any) => ({ ...l, removed: false })))
    // The unfiltered subscription sees every log of the block, REMASC's included.
    expect(got.get(all)).toEqual(blockLogs.map(withinTx).map((l: any) => ({ ...l, removed: false })))
    expect(await rpc(p, 'evm_revert', [snap])).toBe(true)
    expect((got.get(id) as any[]).slice(3)).toEqual(expected.map((l: any) => ({ ...l, removed: true })))
  })

  it('sends pending transaction hashes as they enter the pool', async () => {
    const p = await fresh({ mining: { auto: false } })
    const got = collect(p)
    const id = await rpc(p, 'eth_subscribe', ['newPendingTransactions'])
    const hash = await rpc(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x1' }])
    expect(got.get(id)).toEqual([hash])
    expect(await rpc(p, 'eth_getTransactionReceipt', [hash])).toBeNull() // still pending: announced on entry
  })

  it('answers syncing as a synced node, and bad params with -32602', async () => {
    const p = await fresh()
    const got = collect(p)
    const id = await rpc(p, 'eth_subscribe', ['syncing'])
    await rpc(p, 'evm_mine')
    expect(got.get(id)).toBeUndefined()
    await rejects(rpc(p, 'eth_subscribe', ['newBlocks']), -32602)
    await rejects(rpc(p, 'eth_subscribe', []), -32602)
    await rejects(p.request({ method: 'eth_subscribe', params: 'newHeads' as never }), -32602, 'eth_subscribe parameters are expected to be arrays')
    await rejects(rpc(p, 'eth_subscribe', ['logs', {}, {}]), -32602, 'eth_subscribe can only have one object to configure subscription')
    await rejects(rpc(p, 'eth_subscribe', ['logs', 5]), -32602)
    await rejects(rpc(p, 'eth_unsubscribe', []), -32602)
  })

  it('keeps subscriptions per provider, and answers -32601 in hosted mode', async () => {
    const a = await fresh()
    const b = await fresh()
    const gotB = collect(b)
    const gotA = collect(a)
    await rpc(a, 'eth_subscribe', ['newHeads'])
    await rpc(a, 'evm_mine')
    expect(gotA.size).toBe(1)
    expect(gotB.size).toBe(0)
    const h = await fresh({ hosted: true })
    await rejects(rpc(h, 'eth_subscribe', ['newHeads']), -32601)
  })

  it('refuses more than 1000 subscriptions with an error, not a crash', async () => {
    const p = await fresh()
    for (let i = 0; i < 1000; i++) await rpc(p, 'eth_subscribe', ['syncing'])
    await rejects(rpc(p, 'eth_subscribe', ['newHeads']), -32602, /too many subscriptions/)
    expect(await rpc(p, 'eth_blockNumber')).toBe('0x0')
  })
})

describe('subscriptions outlive filterTimeout (Hardhat\'s WebSocket subscriptions stop after 5 minutes: hardhat#2053)', () => {
  it('in process and over WebSocket, newHeads still notifies after an hour without a poll', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const server = await startServer({ port: 0, ...NO_QUOTA })
    try {
      const p = server.provider
      const got = collect(p)
      const id = await rpc(p, 'eth_subscribe', ['newHeads'])
      const ws = await openWs(server.wsUrl!)
      const wsId = (await ws.call('eth_subscribe', ['newHeads'])).result
      // A polling filter made at the same time expires unpolled after filterTimeout (5 minutes); the subscriptions stay.
      const filter = await rpc(p, 'eth_newBlockFilter')
      vi.setSystemTime(Date.now() + 60 * 60_000)
      await rejects(rpc(p, 'eth_getFilterChanges', [filter]), -32000)
      await rpc(p, 'evm_mine')
      expect((got.get(id) as any[]).map((h) => h.number)).toEqual(['0x1'])
      const note = await ws.next()
      expect([note.params.subscription, note.params.result.number]).toEqual([wsId, '0x1'])
      ws.ws.close()
    } finally {
      vi.useRealTimers()
      await server.close()
    }
  })
})
