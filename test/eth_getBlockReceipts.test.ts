/**
 * eth_getBlockReceipts (an extension: geth's and Anvil's; RSKj answers -32601): a block's receipts, each as
 * eth_getTransactionReceipt answers it, in the order of the block's transactions as eth_getBlockByNumber lists them.
 * Expected values: eth_getTransactionReceipt and eth_getBlockByNumber of the same node, the logs the contracts were
 * asked to emit, and, on a fork, the remote's own answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Interface } from 'ethers'
import { createPublicClient, http, type Hash } from 'viem'
import { startServer, type Provider, type RsksimServer } from '../src/index.js'
import { COW, COW1, fresh, rejects, sendSigned, rq as rpc } from './helpers.js'
import { Events, Reverter } from './fixtures/index.js'

const events = new Interface(Events.abi as never)
const reverter = new Interface(Reverter.abi as never)
const REMASC = '0x0000000000000000000000000000000001000008'
const UNKNOWN_HASH = '0x' + '11'.repeat(32)

/**
 * On a node that does not automine (`mining: { auto: false }`, which hosted mode takes too), deploys Events and
 * Reverter in one block, then mines one block holding, signed by ethers and sent raw: a transfer, a call that logs 3
 * times, a reverting call, a call that logs 5 times and a deployment. Answers that block's number and hash and the hashes
 * sent, in order.
 */
async function busyBlock(p: Provider): Promise<{ number: string; hash: string; sent: string[] }> {
  const sendRaw = async (tx: Record<string, unknown>): Promise<string> => {
    const { hash, error } = await sendSigned(p, tx)
    if (error !== undefined) throw error
    return hash
  }
  const deploys = [await sendRaw({ data: Events.bytecode, gas: '0x200000' }), await sendRaw({ data: Reverter.bytecode, gas: '0x200000' })]
  await rpc(p, 'evm_mine')
  const [eventsAt, reverterAt] = await Promise.all(deploys.map(async (h) => (await rpc(p, 'eth_getTransactionReceipt', [h])).contractAddress as string))
  const sent: string[] = []
  for (const tx of [
    { to: COW1, value: '0x10', gas: '0x5208' },
    { to: eventsAt, data: events.encodeFunctionData('emitMany', [3n]), gas: '0x30000' },
    { to: reverterAt, data: reverter.encodeFunctionData('revertWithReason'), gas: '0x30000' },
    { to: eventsAt, data: events.encodeFunctionData('emitOne', [7n]), gas: '0x30000' },
    { data: Events.bytecode, gas: '0x200000' },
  ]) {
    sent.push(await sendRaw(tx))
  }
  await rpc(p, 'evm_mine')
  const block = await rpc(p, 'eth_getBlockByNumber', ['latest', false])
  return { number: block.number, hash: block.hash, sent }
}

const MANUAL = { mining: { auto: false } } as const

describe('eth_getBlockReceipts', () => {
  let p: Provider
  let b: Awaited<ReturnType<typeof busyBlock>>
  beforeAll(async () => {
    p = await fresh(MANUAL)
    b = await busyBlock(p)
  })

  it("answers each of a block's receipts as eth_getTransactionReceipt does, in the block's order, REMASC's last", async () => {
    const block = await rpc(p, 'eth_getBlockByNumber', [b.number, false])
    const receipts = await rpc(p, 'eth_getBlockReceipts', [b.number])
    // The five sent (in the miner's order, which for one sender is nonce order) and REMASC's system transaction.
    expect(block.transactions.slice(0, 5)).toEqual(b.sent)
    expect(receipts.map((r: any) => r.transactionHash)).toEqual(block.transactions)
    expect(receipts).toHaveLength(6)
    for (const [i, hash] of block.transactions.entries()) {
      expect(receipts[i]).toEqual(await rpc(p, 'eth_getTransactionReceipt', [hash]))
    }
    expect(receipts[5].to).toBe(REMASC)
    expect(receipts.map((r: any) => r.status)).toEqual(['0x1', '0x1', '0x0', '0x1', '0x1', '0x1'])
    // Log indexes run over the whole block: emitMany(3) logs 3 times, emitOne 5 times (test/fixtures/contracts/Events.sol).
    const logs = receipts.flatMap((r: any) => r.logs.map((l: any) => [l.transactionIndex, l.logIndex]))
    expect(logs).toEqual([...[0, 1, 2].map((k) => ['0x1', '0x' + k.toString(16)]), ...[3, 4, 5, 6, 7].map((k) => ['0x3', '0x' + k.toString(16)])])
    expect(receipts[4].contractAddress).toMatch(/^0x[0-9a-f]{40}$/)
  })

  it('takes the block by number, tag, hash or EIP-1898 object', async () => {
    const byNumber = await rpc(p, 'eth_getBlockReceipts', [b.number])
    expect(await rpc(p, 'eth_getBlockReceipts', ['latest'])).toEqual(byNumber)
    expect(await rpc(p, 'eth_getBlockReceipts', [b.hash])).toEqual(byNumber)
    expect(await rpc(p, 'eth_getBlockReceipts', [{ blockHash: b.hash }])).toEqual(byNumber)
    expect(await rpc(p, 'eth_getBlockReceipts', [{ blockNumber: b.number }])).toEqual(byNumber)
    // Genesis has no transactions; block 1 holds the two deployments and REMASC's.
    expect(await rpc(p, 'eth_getBlockReceipts', ['earliest'])).toEqual([])
    const one = await rpc(p, 'eth_getBlockByNumber', ['0x1', false])
    expect(await rpc(p, 'eth_getBlockReceipts', ['0x1'])).toEqual(await Promise.all(one.transactions.map((h: string) => rpc(p, 'eth_getTransactionReceipt', [h]))))
  })

  it('answers null for a block this chain does not have', async () => {
    expect(await rpc(p, 'eth_getBlockReceipts', ['0x' + (Number(b.number) + 1).toString(16)])).toBeNull()
    expect(await rpc(p, 'eth_getBlockReceipts', [UNKNOWN_HASH])).toBeNull()
    expect(await rpc(p, 'eth_getBlockReceipts', [{ blockHash: UNKNOWN_HASH }])).toBeNull()
  })

  it('refuses a bad or missing block, and pending, with -32602', async () => {
    await rejects(rpc(p, 'eth_getBlockReceipts', []), -32602)
    await rejects(rpc(p, 'eth_getBlockReceipts', ['0xzz']), -32602, "Invalid block identifier '0xzz'")
    await rejects(rpc(p, 'eth_getBlockReceipts', [5]), -32602)
    await rejects(rpc(p, 'eth_getBlockReceipts', ['safe']), -32602)
    await rejects(rpc(p, 'eth_getBlockReceipts', [{ blockHash: '0x12' }]), -32602)
    await rejects(rpc(p, 'eth_getBlockReceipts', ['pending']), -32602, /does not answer 'pending'/)
  })

  it('is -32601 in hosted mode, exactly as an unknown method, whatever the block (pending too)', async () => {
    // RSKj (VETIVER-9.0.3 and master) has no eth_getBlockReceipts: JsonRpcCustomServer answers `method not found`
    // before any parameter is read, so `pending` gets no refusal of its own there.
    const hosted = await fresh({ hosted: true })
    const unknown = await rejects(rpc(hosted, 'no_suchMethod'), -32601)
    for (const block of ['latest', 'pending']) {
      const e = await rejects(rpc(hosted, 'eth_getBlockReceipts', [block]), -32601)
      expect(e.message).toBe(unknown.message)
    }
  })
})

describe('eth_getBlockReceipts through viem over HTTP', () => {
  let server: RsksimServer
  beforeAll(async () => {
    server = await startServer({ port: 0, accountTxRateLimit: false, ...MANUAL })
  })
  afterAll(() => server.close())

  it("getBlockReceipts answers what viem's getTransactionReceipt answers for each transaction", async () => {
    const b = await busyBlock(server.provider)
    const client = createPublicClient({ transport: http(server.url, { retryCount: 0 }), cacheTime: 0 })
    const receipts = await client.getBlockReceipts({ blockNumber: BigInt(b.number) })
    const block = await client.getBlock({ blockNumber: BigInt(b.number) })
    expect(receipts.map((r) => r.transactionHash)).toEqual(block.transactions)
    for (const [i, hash] of block.transactions.entries()) expect(receipts[i]).toEqual(await client.getTransactionReceipt({ hash: hash as Hash }))
    expect(await client.request({ method: 'eth_getBlockReceipts', params: [b.hash as Hash] } as never)).toEqual(await rpc(server.provider, 'eth_getBlockReceipts', [b.number]))
  })
})

describe('eth_getBlockReceipts on a fork', () => {
  // The remote runs in hosted mode: like RSKj, it has no eth_getBlockReceipts, so the fork builds the answer.
  let remote: RsksimServer
  beforeAll(async () => {
    remote = await startServer({ port: 0, hosted: true, accountTxRateLimit: false, ...MANUAL })
  })
  afterAll(() => remote?.close())

  it("answers the remote's blocks from its eth_getBlockByNumber and eth_getTransactionReceipt, rsksim's own above", async () => {
    const r = remote.provider
    await rejects(rpc(r, 'eth_getBlockReceipts', ['latest']), -32601)
    const busy = await busyBlock(r)
    const forkNumber = Number(busy.number)
    const f = await fresh({ fork: { url: remote.url, blockNumber: forkNumber, cache: false } as never })
    try {
      // The forked block itself, one below it, and genesis (no transactions).
      for (const n of [busy.number, '0x1', 'earliest']) {
        const block = await rpc(r, 'eth_getBlockByNumber', [n, false])
        const expected = await Promise.all(block.transactions.map((h: string) => rpc(r, 'eth_getTransactionReceipt', [h])))
        expect(await rpc(f, 'eth_getBlockReceipts', [n])).toEqual(expected)
        expect(await rpc(f, 'eth_getBlockReceipts', [block.hash])).toEqual(expected)
        expect(await rpc(f, 'eth_getBlockReceipts', [{ blockHash: block.hash }])).toEqual(expected)
      }
      const forked = await rpc(f, 'eth_getBlockReceipts', ['latest'])
      expect(forked.map((x: any) => x.transactionHash).slice(0, 5)).toEqual(busy.sent)
      expect(forked).toHaveLength(6)
      // What the remote mines after the forked block is not on this chain.
      await sendSigned(r, { to: COW1, value: '0x3', gas: '0x5208' })
      await rpc(r, 'evm_mine')
      const later = await rpc(r, 'eth_getBlockByNumber', ['latest', false])
      expect(await rpc(f, 'eth_getBlockReceipts', [later.hash])).toBeNull()
      expect(await rpc(f, 'eth_getBlockReceipts', [later.number])).toBeNull()
      // rsksim's own block above the forked one.
      const own = await rpc(f, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x4' }])
      const mined = await rpc(f, 'eth_getBlockReceipts', ['latest'])
      expect(mined[0]).toEqual(await rpc(f, 'eth_getTransactionReceipt', [own]))
      expect(mined[0].blockNumber).toBe('0x' + (forkNumber + 1).toString(16))
      await rejects(rpc(f, 'eth_getBlockReceipts', ['pending']), -32602)
    } finally {
      await f.disconnect()
    }
  })
})
