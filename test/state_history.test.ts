/**
 * Bounded state history (`stateHistory`, issue 13): states of blocks older than the window are released and read
 * as RSKj reads a state it does not have (-32600 `State not found for block with hash …`,
 * co/rsk/rpc/Web3InformationRetriever.java); recent blocks, genesis and snapshots stay readable; memory holds a
 * bounded number of state roots; with a database, released states are read back from disk.
 */
import { describe, expect, it } from 'vitest'
import { MemoryLevel } from 'memory-level'
import type { Provider } from '../src/index.js'
import { COW, COW1, fresh, rejects, send, rq as rpc } from './helpers.js'

const hex = (n: number) => '0x' + n.toString(16)

/** Mines `count` blocks each with a transfer to COW1; returns COW1's balance after each block, by number. */
async function grow(p: Provider, count: number): Promise<Map<number, string>> {
  const balances = new Map<number, string>()
  for (let i = 0; i < count; i++) {
    const r = await send(p, { to: COW1, value: '0x1' })
    balances.set(Number(r.blockNumber), await rpc(p, 'eth_getBalance', [COW1, r.blockNumber]))
  }
  return balances
}

describe('stateHistory', () => {
  it('old states answer State not found; recent ones, genesis and snapshots stay; roots in memory stay bounded', async () => {
    const p = await fresh({ stateHistory: 8 })
    const genesisBalance = await rpc(p, 'eth_getBalance', [COW1, '0x0'])
    await grow(p, 5)
    const snap = await rpc(p, 'evm_snapshot')
    const atSnapshot = await rpc(p, 'eth_getBalance', [COW1, 'latest'])
    const snapshotBlock = Number(await rpc(p, 'eth_blockNumber'))
    const balances = await grow(p, 60)
    const head = Number(await rpc(p, 'eth_blockNumber'))
    const old = await rpc(p, 'eth_getBlockByNumber', [hex(10), false])
    await rejects(rpc(p, 'eth_getBalance', [COW1, hex(10)]), -32600, `State not found for block with hash ${old.hash}`)
    await rejects(rpc(p, 'eth_call', [{ to: COW1 }, hex(10)]), -32600, `State not found for block with hash ${old.hash}`)
    await rejects(rpc(p, 'eth_getProof', [COW1, [], hex(10)]), -32600, `State not found for block with hash ${old.hash}`)
    // A trace replays a block on its parent's state.
    const oldTx = (await rpc(p, 'eth_getBlockByNumber', [hex(11), false])).transactions[0]
    await rejects(rpc(p, 'debug_traceTransaction', [oldTx]), -32600, `State not found for block with hash ${old.hash}`)
    for (let n = head - 7; n <= head; n++) expect(await rpc(p, 'eth_getBalance', [COW1, hex(n)])).toBe(balances.get(n))
    expect(await rpc(p, 'eth_getBalance', [COW1, '0x0'])).toBe(genesisBalance)
    // The blocks themselves, receipts and logs are all kept.
    expect((await rpc(p, 'eth_getTransactionReceipt', [oldTx])).status).toBe('0x1')
    const node = (p as unknown as { node: { chain: { trees: { rootCount: number } } } }).node
    // 8 to 10 blocks' states (released every 2 blocks), genesis, the snapshot's; never one per block mined (66).
    expect(node.chain.trees.rootCount).toBeLessThanOrEqual(14)
    expect(await rpc(p, 'evm_revert', [snap])).toBe(true)
    expect(Number(await rpc(p, 'eth_blockNumber'))).toBe(snapshotBlock)
    expect(await rpc(p, 'eth_getBalance', [COW1, 'latest'])).toBe(atSnapshot)
    await send(p, { to: COW1, value: '0x1' })
    await p.disconnect()
  })

  it('with a database, released states are read back from it', async () => {
    const level = new MemoryLevel()
    const p = await fresh({ stateHistory: 4, database: { level } })
    const balances = await grow(p, 30)
    expect(await rpc(p, 'eth_getBalance', [COW1, hex(3)])).toBe(balances.get(3))
    expect(await rpc(p, 'eth_getBalance', [COW, hex(3)])).not.toBe('0x0')
    await p.disconnect()
  })

  it('is checked: a positive whole number', async () => {
    await expect(fresh({ stateHistory: 0 })).rejects.toThrow(/stateHistory/)
  })
})
