/**
 * Issue D3, D4, D5, D9 and the in-process starvation: inputs whose size or value once grew the node without bound
 * or stalled it now get -32602/-32000 with a reason, and a tight in-process loop lets timers run.
 */
import { describe, expect, it } from 'vitest'
import { fresh, rejects } from '../helpers.js'

const deep = (depth: number, leaf: unknown = 1): unknown => {
  let v = leaf
  for (let i = 0; i < depth; i++) v = [v]
  return v
}

describe('eth_submitHashrate client ids (D3)', () => {
  it('refuses an id longer than the spec\'s 32-byte hex', async () => {
    const p = await fresh()
    const rate = '0x' + '1'.padStart(64, '0')
    await rejects(p.request({ method: 'eth_submitHashrate', params: [rate, 'x'.repeat(67)] }), -32602, /Invalid client id/)
  })

  it('keeps at most 1,000 clients: the oldest reports are dropped, the sum stays that of the kept ones', async () => {
    const p = await fresh()
    const rate = '0x' + '1'.padStart(64, '0')
    for (let i = 0; i < 1_100; i++) await p.request({ method: 'eth_submitHashrate', params: [rate, '0x' + i.toString(16).padStart(64, '0')] })
    expect(await p.request({ method: 'eth_hashrate' })).toBe('0x' + (1_000).toString(16))
  })
})

describe('filters (D4)', () => {
  it('refuses more than 1,000 addresses or topics per position', async () => {
    const p = await fresh()
    const addresses = Array.from({ length: 1_001 }, (_, i) => '0x' + i.toString(16).padStart(40, '0'))
    await rejects(p.request({ method: 'eth_newFilter', params: [{ address: addresses }] }), -32602, 'Invalid address: at most 1000 addresses in one filter.')
    await rejects(p.request({ method: 'eth_getLogs', params: [{ address: addresses }] }), -32602)
    const topics = Array.from({ length: 1_001 }, (_, i) => '0x' + i.toString(16).padStart(64, '0'))
    await rejects(p.request({ method: 'eth_newFilter', params: [{ topics: [topics] }] }), -32602, 'Invalid topics: at most 1000 topics per position.')
    expect(await p.request({ method: 'eth_newFilter', params: [{ address: addresses.slice(0, 1_000) }] })).toBe('0x1')
  })

  it('refuses a new filter while 1,000 are installed, and accepts again once one is uninstalled', async () => {
    const p = await fresh()
    for (let i = 0; i < 1_000; i++) await p.request({ method: 'eth_newBlockFilter' })
    await rejects(p.request({ method: 'eth_newBlockFilter' }), -32000, /^too many filters installed \(1000\)/)
    expect(await p.request({ method: 'eth_uninstallFilter', params: ['0x1'] })).toBe(true)
    expect(await p.request({ method: 'eth_newBlockFilter' })).toBe('0x3e9')
  })
})

describe('timestamps and numbers (D5)', () => {
  it('mines at most 100,000 blocks per hardhat_mine/anvil_mine request and 10,000 per evm_mine', async () => {
    const p = await fresh()
    const over = 'Invalid number of blocks: at most 100000 per request (each block is built in full, about 0.1 ms each); mine more with several requests.'
    await rejects(p.request({ method: 'hardhat_mine', params: ['0x186a1'] }), -32602, over)
    await rejects(p.request({ method: 'anvil_mine', params: [100_001] }), -32602, over)
    await rejects(p.request({ method: 'evm_mine', params: [{ blocks: 10_001 }] }), -32602, 'invalid blocks: expected 1 to 10000')
    expect(await p.request({ method: 'eth_blockNumber' })).toBe('0x0')
  })

  it('mines in turns of 1,000 blocks: a request sent meanwhile is answered between two turns, and the chain is whole', async () => {
    const p = await fresh()
    const mining = p.request({ method: 'hardhat_mine', params: ['0xbb8'] })
    // Queued behind the first turn, ahead of the second.
    expect(await p.request({ method: 'eth_blockNumber' })).toBe('0x3e8')
    expect(await mining).toBe(true)
    expect(await p.request({ method: 'eth_blockNumber' })).toBe('0xbb8')
    for (const n of [0x3e8, 0x3e9, 0xbb8]) {
      const block = (await p.request({ method: 'eth_getBlockByNumber', params: ['0x' + n.toString(16), false] })) as { parentHash: string }
      const parent = (await p.request({ method: 'eth_getBlockByNumber', params: ['0x' + (n - 1).toString(16), false] })) as { hash: string }
      expect(block.parentHash).toBe(parent.hash)
    }
  })

  it('stops a long hardhat_mine at its next turn when the provider disconnects, with an error that says where', async () => {
    const p = await fresh()
    const mining = p.request({ method: 'anvil_mine', params: [5_000] }).then(() => 'answered', (e: { code: number; message: string }) => e)
    await p.request({ method: 'eth_blockNumber' })
    await p.disconnect()
    const outcome = await mining
    expect(outcome).toMatchObject({ code: -32603 })
    expect((outcome as { message: string }).message).toMatch(/closed after \d+ of the 5000 blocks/)
  })

  it('refuses an evm_mine timestamp of a million digits, and the chain keeps sane timestamps', async () => {
    const p = await fresh()
    await rejects(p.request({ method: 'evm_mine', params: ['9'.repeat(1_000_000)] }), -32602, /^invalid number of seconds 9{100}…: expected a whole number of at most 2\^63 - 1$/)
    await p.request({ method: 'evm_mine' })
    const block = (await p.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as { timestamp: string }
    expect(BigInt(block.timestamp)).toBeLessThan(2n ** 63n)
  })

  it('refuses evm_increaseTime past a long (2^63 - 1), as RSKj reads seconds into a Java long', async () => {
    const p = await fresh()
    await rejects(p.request({ method: 'evm_increaseTime', params: ['0x' + 'f'.repeat(64)] }), -32602)
    await rejects(p.request({ method: 'evm_increaseTime', params: ['0x7fffffffffffffff'] }), -32602, 'invalid number of seconds: the block time would pass 2^63 - 1')
    expect(await p.request({ method: 'evm_increaseTime', params: ['0x10'] })).toBe('0x10')
  })

  it('refuses a 5-million-digit block number at once with -32602', async () => {
    const p = await fresh()
    // BlockIdentifierParam takes any decimal; Web3InformationRetriever.getBlock refuses text past 66 characters, quoted
    // by StringUtils.trim (66 characters and `...`).
    await rejects(p.request({ method: 'eth_getBlockByNumber', params: ['1'.repeat(5_000_000), false] }), -32602, /^invalid block identifier 1{66}\.\.\.$/)
    await rejects(p.request({ method: 'eth_getBalance', params: ['0x' + '0'.repeat(40), '1'.repeat(5_000_000)] }), -32602)
  })
})

describe('deeply nested parameters (D9)', () => {
  it('answers -32602, not -32603, for 100,000 levels inside trace_filter and other methods', async () => {
    const p = await fresh()
    await rejects(p.request({ method: 'trace_filter', params: [{ fromBlock: deep(100_000) }] }), -32602)
    await rejects(p.request({ method: 'trace_filter', params: [{ count: deep(100_000) }] }), -32602)
    await rejects(p.request({ method: 'evm_revert', params: [deep(100_000)] }), -32602)
    await rejects(p.request({ method: 'sco_banAddress', params: [deep(100_000)] }), -32602)
  })
})

describe('in-process requests let timers run', () => {
  it('a tight await loop does not starve the interval miner', async () => {
    const p = await fresh({ mining: { interval: 20 } })
    let n = 0
    // Bounded by iterations, not time: without yields the miner's timer never fires and the loop runs out.
    for (let i = 0; i < 2_000_000 && n < 2; i++) n = Number(await p.request({ method: 'eth_blockNumber' }))
    await p.disconnect()
    expect(n).toBeGreaterThanOrEqual(2)
  })
})
