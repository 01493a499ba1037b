/** txpool_status, txpool_content, txpool_inspect in RSKj's shapes (reference §3.8, `TxPoolModuleImpl.java`). */
import { describe, expect, it } from 'vitest'
import { COW, COW1, fresh, rejects, rq as rpc } from './helpers.js'
import { Storage } from './fixtures/index.js'

const ZERO_HASH = '0x' + '00'.repeat(32)
const cow = COW.slice(2)

describe('txpool_*', () => {
  it('answers empty sets and zero counts on an empty pool', async () => {
    const p = await fresh()
    expect(await rpc(p, 'txpool_status')).toEqual({ pending: 0, queued: 0 })
    expect(await rpc(p, 'txpool_content')).toEqual({ pending: {}, queued: {} })
    expect(await rpc(p, 'txpool_inspect')).toEqual({ pending: {}, queued: {} })
    await rejects(rpc(p, 'txpool_status', ['x']), -32602)
  })

  it('groups pending and queued transactions by sender and decimal nonce, with RSKj encodings', async () => {
    const p = await fresh({ mining: { auto: false } })
    const transfer = { from: COW, to: COW1, value: '0x80', gas: '0x5208', gasPrice: '0x0', nonce: '0x0' }
    const h0 = await rpc(p, 'eth_sendTransaction', [transfer])
    const h1 = await rpc(p, 'eth_sendTransaction', [{ from: COW, data: Storage.bytecode, gas: '0x30d40', gasPrice: '0x3b9aca00', nonce: '0x1' }])
    // Nonce 3 leaves a gap after 1: queued.
    const h3 = await rpc(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x7f', gas: '0x5208', gasPrice: '0x1', nonce: '0x3' }])
    // A second sender, nonce 10 out of 0: queued.
    const h10 = await rpc(p, 'eth_sendTransaction', [{ from: COW1, to: COW, value: '0x0', gas: '0x5208', nonce: '0xa' }])

    expect(await rpc(p, 'txpool_status')).toEqual({ pending: 2, queued: 2 })

    const content = await rpc(p, 'txpool_content')
    expect(Object.keys(content)).toEqual(['pending', 'queued'])
    expect(content.pending).toEqual({
      [cow]: {
        '0': [
          {
            blockHash: ZERO_HASH,
            blockNumber: null,
            transactionIndex: null,
            from: COW,
            gas: '0x5208',
            gasPrice: '0x00', // toJsonHex of BigInteger.toByteArray(0)
            hash: h0,
            input: '0x',
            nonce: '0x0',
            to: COW1,
            value: '0x0080', // two's complement: a leading zero byte for 128
          },
        ],
        '1': [
          {
            blockHash: ZERO_HASH,
            blockNumber: null,
            transactionIndex: null,
            from: COW,
            gas: '0x30d40',
            gasPrice: '0x3b9aca00',
            hash: h1,
            input: Storage.bytecode.toLowerCase(),
            nonce: '0x1',
            to: '0x00', // creation: the empty address
            value: '0x00',
          },
        ],
      },
    })
    expect(Object.keys(content.pending[cow]['0'][0])).toEqual([
      'blockHash', 'blockNumber', 'transactionIndex', 'from', 'gas', 'gasPrice', 'hash', 'input', 'nonce', 'to', 'value',
    ])
    expect(content.queued[cow]).toEqual({ '3': [expect.objectContaining({ hash: h3, nonce: '0x3', value: '0x7f', gasPrice: '0x01' })] })
    expect(content.queued[COW1.slice(2)]).toEqual({ '10': [expect.objectContaining({ hash: h10, from: COW1, nonce: '0xa' })] })

    expect(await rpc(p, 'txpool_inspect')).toEqual({
      pending: {
        [cow]: {
          '0': [`${COW1.slice(2)}: 128 wei + 21000 x 0 gas`],
          '1': [': 0 wei + 200000 x 1000000000 gas'],
        },
      },
      queued: {
        [cow]: { '3': [`${COW1.slice(2)}: 127 wei + 21000 x 1 gas`] },
        [COW1.slice(2)]: { '10': [`${cow}: 0 wei + 21000 x 0 gas`] },
      },
    })

    // Mining takes the pending ones; the queued stay.
    await rpc(p, 'evm_mine')
    expect(await rpc(p, 'txpool_status')).toEqual({ pending: 0, queued: 2 })
    // Filling the gap promotes nonce 3.
    await rpc(p, 'eth_sendTransaction', [{ ...transfer, nonce: '0x2' }])
    expect(await rpc(p, 'txpool_status')).toEqual({ pending: 2, queued: 1 })
    expect(Object.keys((await rpc(p, 'txpool_content')).pending[cow])).toEqual(['2', '3'])
  })
})

describe('block order of the pool', () => {
  it("merges senders by the price of each one's next transaction, nonce order within a sender (RSKj PendingState.sortByPriceTakingIntoAccountSenderAndNonce)", async () => {
    const p = await fresh()
    const accounts: string[] = await rpc(p, 'eth_accounts')
    const [a, b, c] = [accounts[0]!, accounts[1]!, accounts[2]!]
    await rpc(p, 'evm_setAutomine', [false])
    const to = '0x' + '55'.repeat(20)
    const sent = new Map<string, string>()
    const send = async (name: string, from: string, gwei: number) =>
      sent.set(await rpc(p, 'eth_sendTransaction', [{ from, to, value: '0x1', gas: '0x5208', gasPrice: '0x' + (BigInt(gwei) * 10n ** 9n).toString(16) }]), name)
    // a: nonce 0 at 1 gwei, nonce 1 at 9 gwei; b: 3 gwei; c: nonce 0 at 2 gwei, nonce 1 at 4 gwei.
    await send('a0', a, 1)
    await send('a1', a, 9)
    await send('b0', b, 3)
    await send('c0', c, 2)
    await send('c1', c, 4)
    await rpc(p, 'evm_mine')
    const block = await rpc(p, 'eth_getBlockByNumber', ['latest', false])
    // Heads a0 1, b0 3, c0 2: b0; then c0 (2 > 1); then c1 (4 > 1); then a0, and a1 behind it whatever its price.
    expect(block.transactions.slice(0, -1).map((h: string) => sent.get(h))).toEqual(['b0', 'c0', 'c1', 'a0', 'a1'])
  })
})

describe('anvil_dropTransaction and the pool', () => {
  // Found by test/stateful.test.ts (seed 20261129, in memory, step 373; seed 20261128 on disk, step 562): after a drop
  // from the middle of a sender's pending transactions, txpool_content still listed the later ones as pending, though
  // no block could take them (the miner skipped them; the next block moved them to queued).
  it('anvil_dropTransaction of a pending transaction moves the sender\'s later ones to queued; filling the gap brings them back', async () => {
    const p = await fresh()
    await rpc(p, 'evm_setAutomine', [false])
    const hashes: string[] = []
    for (let i = 0; i < 3; i++) hashes.push(await rpc(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x1', gasPrice: '0x0' }]))
    expect(await rpc(p, 'anvil_dropTransaction', [hashes[0]])).toBe(hashes[0])
    const content = await rpc(p, 'txpool_content')
    expect(content.pending).toEqual({})
    expect(Object.keys(content.queued[cow])).toEqual(['1', '2'])
    expect(await rpc(p, 'txpool_status')).toEqual({ pending: 0, queued: 2 })
    expect(await rpc(p, 'eth_getTransactionCount', [COW, 'pending'])).toBe('0x0')
    // The gap filled (eth_sendTransaction takes the pending nonce, 0): all three are pending and mined.
    const filler = await rpc(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x2', gasPrice: '0x0' }])
    expect(Object.keys((await rpc(p, 'txpool_content')).pending[cow])).toEqual(['0', '1', '2'])
    await rpc(p, 'evm_mine')
    const block = await rpc(p, 'eth_getBlockByNumber', ['latest', false])
    expect(block.transactions.slice(0, -1)).toEqual([filler, hashes[1], hashes[2]])
    await p.disconnect()
  })
})
