/**
 * debug_getRawHeader, debug_getRawBlock and debug_getRawReceipts (geth's, in ethereum/execution-apis): RSK's own
 * encodings. Expected values: the chain_* methods' bytes, the block's `size`, and the transactions and receipts roots
 * recomputed from the answered bytes with @ethereumjs/mpt (key RLP(index)), ethers' keccak of each transaction.
 */
import { describe, expect, it } from 'vitest'
import { createMPT } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { decodeRlp, getBytes, hexlify, keccak256 } from 'ethers'
import { COW, fresh, rejects, send, useHttpServer } from './helpers.js'

/** The root of an Ethereum trie holding `values` under RLP(index), as the block's transactions and receipts roots. */
async function orderedRoot(values: string[]): Promise<string> {
  const trie = await createMPT()
  for (let i = 0; i < values.length; i++) await trie.put(RLP.encode(i), getBytes(values[i]!))
  return hexlify(trie.root())
}

describe('debug_getRawHeader, debug_getRawBlock, debug_getRawReceipts', async () => {
  const p = await fresh()
  const rpc = (method: string, params: unknown[]) => p.request({ method, params }) as Promise<any>
  const receipt = await send(p, { to: '0x' + '71'.repeat(20), value: '0x2a', gasPrice: '0x3b9aca00' })
  const block = await rpc('eth_getBlockByNumber', [receipt.blockNumber, false])

  it("answers the block's RLP: its size, its transactions as signed, its transactions root", async () => {
    const raw = (await rpc('debug_getRawBlock', [block.number])) as string
    expect((raw.length - 2) / 2).toBe(Number(block.size))
    const [header, txs, uncles] = decodeRlp(raw) as [string[], string[][], string[]]
    expect(uncles).toEqual([])
    expect(Array.isArray(header)).toBe(true)
    const encoded = txs.map((t) => hexlify(RLP.encode(t.map((f) => getBytes(f)))))
    expect(encoded.map((t) => keccak256(t))).toEqual(block.transactions)
    expect(await orderedRoot(encoded)).toBe(block.transactionsRoot)
    expect(await rpc('debug_getRawBlock', [block.hash])).toBe(raw)
    expect(await rpc('debug_getRawBlock', [{ blockHash: block.hash }])).toBe(raw)
  })

  it("answers the header as chain_getRawBlockHeaderByNumber does, and every receipt as chain_getRawTransactionReceiptByHash", async () => {
    expect(await rpc('debug_getRawHeader', [block.number])).toBe(await rpc('chain_getRawBlockHeaderByNumber', [block.number]))
    expect(await rpc('debug_getRawHeader', ['latest'])).toBe(await rpc('chain_getRawBlockHeaderByHash', [block.hash]))
    const receipts = (await rpc('debug_getRawReceipts', [block.number])) as string[]
    expect(receipts).toHaveLength(2)
    for (let i = 0; i < receipts.length; i++) expect(receipts[i]).toBe(await rpc('chain_getRawTransactionReceiptByHash', [block.transactions[i]]))
    expect(await orderedRoot(receipts)).toBe(block.receiptsRoot)
    // Genesis: no transaction, an empty list; its block is as long as its size says too.
    expect(await rpc('debug_getRawReceipts', ['earliest'])).toEqual([])
    const genesis = (await rpc('debug_getRawBlock', ['earliest'])) as string
    expect((genesis.length - 2) / 2).toBe(Number((await rpc('eth_getBlockByNumber', ['earliest', false])).size))
  })

  it('answers the pending block as trace_block and chain_getRawBlockHeaderByNumber do', async () => {
    const q = await fresh()
    await q.request({ method: 'evm_setAutomine', params: [false] })
    await q.request({ method: 'eth_sendTransaction', params: [{ from: COW, to: '0x' + '72'.repeat(20), value: '0x1', gas: '0x5208' }] })
    const header = await q.request({ method: 'debug_getRawHeader', params: ['pending'] })
    expect(header).toBe(await q.request({ method: 'chain_getRawBlockHeaderByNumber', params: ['pending'] }))
    const [, txs] = decodeRlp((await q.request({ method: 'debug_getRawBlock', params: ['pending'] })) as string) as [string[], string[][]]
    expect(txs).toHaveLength(2) // the transfer, then REMASC's
    expect(await q.request({ method: 'debug_getRawReceipts', params: ['pending'] })).toHaveLength(2)
  })

  it('answers null for an unknown block, -32602 for a bad one, -32601 in hosted mode', async () => {
    for (const m of ['debug_getRawHeader', 'debug_getRawBlock', 'debug_getRawReceipts']) {
      expect(await rpc(m, ['0x999'])).toBeNull()
      await rejects(rpc(m, ['nope']), -32602)
      await rejects((await fresh({ hosted: true })).request({ method: m, params: ['latest'] }), -32601, 'method not found')
    }
  })
})

describe('debug_getRaw* over HTTP (ethers JsonRpcProvider)', () => {
  const http = useHttpServer()

  it("answer what the chain_* methods answer for the same block", async () => {
    await http.rpc.send('evm_mine', [])
    const header = await http.rpc.send('debug_getRawHeader', ['latest'])
    expect(header).toBe(await http.rpc.send('chain_getRawBlockHeaderByNumber', ['latest']))
    const block = await http.rpc.send('eth_getBlockByNumber', ['latest', false])
    expect(((await http.rpc.send('debug_getRawBlock', ['latest'])) as string).length).toBe(2 + 2 * Number(block.size))
    expect(await http.rpc.send('debug_getRawReceipts', ['latest'])).toEqual([await http.rpc.send('chain_getRawTransactionReceiptByHash', [block.transactions[0]])])
  })
})
