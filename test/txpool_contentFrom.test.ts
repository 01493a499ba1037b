/**
 * txpool_contentFrom(address) (geth's, Tevm's; an extension): one sender's pending and queued transactions, by decimal
 * nonce, one transaction each. Checked against the hashes eth_sendTransaction answered and against
 * eth_getTransactionByHash of each pooled transaction.
 */
import { describe, expect, it } from 'vitest'
import { getAddress } from 'ethers'
import type { Provider } from '../src/index.js'
import { COW, COW1, fresh, rejects, useHttpServer, rq as rpc } from './helpers.js'


/** cow: nonces 0 and 1 (pending) and 3 (queued, after a gap); cow1: nonce 10 (queued). Answers the hashes by nonce. */
async function fillPool(p: Provider): Promise<{ cow: Record<number, string>; cow1: string }> {
  const send = (tx: Record<string, string>) => rpc(p, 'eth_sendTransaction', [{ gas: '0x5208', gasPrice: '0x0', ...tx }])
  const cow: Record<number, string> = {}
  cow[0] = await send({ from: COW, to: COW1, value: '0x80', nonce: '0x0' })
  cow[1] = await send({ from: COW, to: COW1, value: '0x1', nonce: '0x1', gasPrice: '0x3b9aca00' })
  cow[3] = await send({ from: COW, to: COW1, value: '0x7f', nonce: '0x3', gasPrice: '0x1' })
  const cow1 = await send({ from: COW1, to: COW, value: '0x0', nonce: '0xa' })
  return { cow, cow1 }
}

describe('txpool_contentFrom', () => {
  it("answers one sender's pending and queued transactions by nonce, as eth_getTransactionByHash knows them", async () => {
    const p = await fresh({ mining: { auto: false } })
    const { cow, cow1 } = await fillPool(p)
    const mine = await rpc(p, 'txpool_contentFrom', [COW])
    expect(Object.keys(mine)).toEqual(['pending', 'queued'])
    expect(Object.keys(mine.pending)).toEqual(['0', '1'])
    expect(Object.keys(mine.queued)).toEqual(['3'])
    for (const [nonce, tx] of [...Object.entries(mine.pending), ...Object.entries(mine.queued)] as [string, any][]) {
      expect(tx.hash).toBe(cow[Number(nonce)])
      const known = await rpc(p, 'eth_getTransactionByHash', [tx.hash])
      expect({ from: tx.from, to: tx.to, nonce: tx.nonce, gas: tx.gas, input: tx.input }).toEqual({ from: known.from, to: known.to, nonce: known.nonce, gas: known.gas, input: known.input })
      expect(BigInt(tx.value)).toBe(BigInt(known.value))
      expect(BigInt(tx.gasPrice)).toBe(BigInt(known.gasPrice))
      expect(tx.blockNumber).toBeNull()
    }
    // Each transaction as txpool_content writes it (there in an array, RSKj's nesting).
    const all = await rpc(p, 'txpool_content')
    expect(mine.pending['1']).toEqual(all.pending[COW.slice(2)]['1'][0])
    expect(mine.queued['3']).toEqual(all.queued[COW.slice(2)]['3'][0])
    // The other sender, asked with a checksummed address.
    expect(await rpc(p, 'txpool_contentFrom', [getAddress(COW1)])).toEqual({ pending: {}, queued: { '10': all.queued[COW1.slice(2)]['10'][0] } })
    expect((await rpc(p, 'txpool_contentFrom', [COW1])).queued['10'].hash).toBe(cow1)
  })

  it('answers empty sets for a sender with nothing pooled, and follows the pool as blocks are mined', async () => {
    const p = await fresh({ mining: { auto: false } })
    expect(await rpc(p, 'txpool_contentFrom', [COW])).toEqual({ pending: {}, queued: {} })
    const { cow } = await fillPool(p)
    await rpc(p, 'evm_mine')
    // 0 and 1 mined; 3 still waits for 2.
    const after = await rpc(p, 'txpool_contentFrom', [COW])
    expect(Object.keys(after.pending)).toEqual([])
    expect(after.queued['3'].hash).toBe(cow[3])
    const h2 = await rpc(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x2', nonce: '0x2', gas: '0x5208', gasPrice: '0x0' }])
    const promoted = await rpc(p, 'txpool_contentFrom', [COW])
    expect(Object.fromEntries(Object.entries(promoted.pending).map(([n, t]: [string, any]) => [n, t.hash]))).toEqual({ '2': h2, '3': cow[3] })
    expect(promoted.queued).toEqual({})
  })

  it('refuses a bad address with -32602, and is -32601 in hosted mode', async () => {
    const p = await fresh()
    await rejects(rpc(p, 'txpool_contentFrom', ['0x12']), -32602, 'Invalid address: null, empty or invalid hex value.')
    await rejects(rpc(p, 'txpool_contentFrom', ['0x' + 'zz'.repeat(20)]), -32602, 'Invalid address format: invalid hex value.')
    await rejects(rpc(p, 'txpool_contentFrom', []), -32602)
    const hosted = await fresh({ hosted: true })
    await rejects(rpc(hosted, 'txpool_contentFrom', [COW]), -32601)
  })

  describe('over HTTP with ethers', () => {
    const http = useHttpServer({ mining: { auto: false } })
    it('answers the same through a JsonRpcProvider', async () => {
      const { cow } = await fillPool(http.server.provider)
      const r = await http.rpc.send('txpool_contentFrom', [COW])
      expect(Object.fromEntries(Object.entries(r.pending).map(([n, t]: [string, any]) => [n, t.hash]))).toEqual({ '0': cow[0], '1': cow[1] })
      expect(r.queued['3'].hash).toBe(cow[3])
    })
  })
})
