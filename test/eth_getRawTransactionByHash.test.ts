/**
 * eth_getRawTransactionByHash, eth_getRawTransactionByBlockHashAndIndex, eth_getRawTransactionByBlockNumberAndIndex
 * and debug_getRawTransaction (geth's and Anvil's extensions): the bytes ethers signed and sent come back, and the
 * REMASC system transaction's are RSKj's encoding (its hash, as test/remasc.test.ts builds it, is their keccak).
 */
import { describe, expect, it } from 'vitest'
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { keccak256, Transaction, Wallet } from 'ethers'
import type { Provider } from '../src/index.js'
import { COW_KEY, fresh, rejects, useHttpServer } from './helpers.js'
import { ANVIL_KEY, useAnvil } from './anvil.js'

const TO = '0x' + '5e'.repeat(20)
const REMASC = '0x0000000000000000000000000000000001000008'

async function signed(p: Provider, chainId: number, key: string, extra: Record<string, unknown> = {}): Promise<string> {
  const from = new Wallet(key).address
  const nonce = Number(await p.request({ method: 'eth_getTransactionCount', params: [from, 'pending'] }))
  return new Wallet(key).signTransaction({ type: 0, chainId, nonce, gasLimit: 21_000n, gasPrice: 1_000_000_000n, to: TO, value: 7n, ...extra })
}

describe('raw transactions', async () => {
  const p = await fresh()
  const raw = await signed(p, 33, COW_KEY)
  const hash = (await p.request({ method: 'eth_sendRawTransaction', params: [raw] })) as string
  const receipt = (await p.request({ method: 'eth_getTransactionReceipt', params: [hash] })) as { blockHash: string; blockNumber: string; transactionIndex: string }

  it('answers the bytes sent, by hash and by block and index, under all four names', async () => {
    expect(keccak256(raw)).toBe(hash)
    expect(await p.request({ method: 'eth_getRawTransactionByHash', params: [hash] })).toBe(raw)
    expect(await p.request({ method: 'debug_getRawTransaction', params: [hash] })).toBe(raw)
    expect(await p.request({ method: 'eth_getRawTransactionByBlockHashAndIndex', params: [receipt.blockHash, receipt.transactionIndex] })).toBe(raw)
    expect(await p.request({ method: 'eth_getRawTransactionByBlockNumberAndIndex', params: [receipt.blockNumber, receipt.transactionIndex] })).toBe(raw)
    expect(await p.request({ method: 'eth_getRawTransactionByBlockNumberAndIndex', params: ['latest', receipt.transactionIndex] })).toBe(raw)
  })

  it("answers the REMASC transaction's encoding, which hashes to its hash", async () => {
    const block = (await p.request({ method: 'eth_getBlockByNumber', params: [receipt.blockNumber, true] })) as { transactions: { hash: string; to: string }[] }
    const remasc = block.transactions.at(-1)!
    expect(remasc.to).toBe(REMASC)
    const bytes = (await p.request({ method: 'eth_getRawTransactionByHash', params: [remasc.hash] })) as string
    // [nonce, 0x00, 0x00, REMASC, "" × 5]: nonce = block number - 1 (test/remasc.test.ts `remascHash`).
    const nonce = BigInt(receipt.blockNumber) - 1n
    const nonceRlp = nonce === 0n ? '80' : nonce < 0x80n ? nonce.toString(16).padStart(2, '0') : '81' + nonce.toString(16).padStart(2, '0')
    expect(bytes).toBe('0xdd' + nonceRlp + '0000' + '94' + REMASC.slice(2) + '8080808080')
    expect(keccak256(bytes)).toBe(remasc.hash)
  })

  it('finds a transaction waiting in the pool by hash, and at pending by its place in the pending block', async () => {
    const q = await fresh()
    await q.request({ method: 'evm_setAutomine', params: [false] })
    const waiting = await signed(q, 33, COW_KEY)
    const h = (await q.request({ method: 'eth_sendRawTransaction', params: [waiting] })) as string
    expect(await q.request({ method: 'eth_getRawTransactionByHash', params: [h] })).toBe(waiting)
    expect(await q.request({ method: 'debug_getRawTransaction', params: [h] })).toBe(waiting)
    // The pending block holds it, then REMASC's transaction, as debug_getRawBlock("pending") lists them.
    const atPending = (i: string) => q.request({ method: 'eth_getRawTransactionByBlockNumberAndIndex', params: ['pending', i] })
    const [, txs] = RLP.decode(hexToBytes((await q.request({ method: 'debug_getRawBlock', params: ['pending'] })) as `0x${string}`)) as [unknown, Uint8Array[][]]
    expect(txs).toHaveLength(2)
    expect(await atPending('0x0')).toBe(waiting)
    expect(await atPending('0x0')).toBe(bytesToHex(RLP.encode(txs[0]!)))
    const remasc = await atPending('0x1')
    expect(remasc).toBe(bytesToHex(RLP.encode(txs[1]!)))
    expect(await atPending('0x2')).toBeNull()
    // The block then mined holds the same bytes at the same places.
    await q.request({ method: 'evm_mine', params: [] })
    expect(await q.request({ method: 'eth_getRawTransactionByBlockNumberAndIndex', params: ['latest', '0x0'] })).toBe(waiting)
    expect(await q.request({ method: 'eth_getRawTransactionByBlockNumberAndIndex', params: ['latest', '0x1'] })).toBe(remasc)
  })

  it('answers null for what the chain does not have, and coded errors for bad input', async () => {
    const unknown = '0x' + '11'.repeat(32)
    expect(await p.request({ method: 'eth_getRawTransactionByHash', params: [unknown] })).toBeNull()
    expect(await p.request({ method: 'debug_getRawTransaction', params: [unknown] })).toBeNull()
    expect(await p.request({ method: 'eth_getRawTransactionByBlockHashAndIndex', params: [unknown, '0x0'] })).toBeNull()
    expect(await p.request({ method: 'eth_getRawTransactionByBlockNumberAndIndex', params: [receipt.blockNumber, '0x9'] })).toBeNull()
    expect(await p.request({ method: 'eth_getRawTransactionByBlockNumberAndIndex', params: ['0x99', '0x0'] })).toBeNull()
    await rejects(p.request({ method: 'eth_getRawTransactionByHash', params: ['0x12'] }), -32602)
    await rejects(p.request({ method: 'eth_getRawTransactionByBlockNumberAndIndex', params: ['latest', '1'] }), -32602)
  })

  it('is an extension: hosted mode answers -32601', async () => {
    const hosted = await fresh({ hosted: true })
    for (const m of ['eth_getRawTransactionByHash', 'debug_getRawTransaction']) {
      await rejects(hosted.request({ method: m, params: [hash] }), -32601)
    }
  })
})

describe('raw transactions over HTTP, beside Anvil', () => {
  const http = useHttpServer()
  const anvil = useAnvil()

  it('gives back the signed bytes as Anvil 1.7.1 does, null for an unknown hash as Anvil', async () => {
    const rsk = http.rpc
    const raw = await signed({ request: ({ method, params }) => rsk.send(method, params as unknown[]) } as Provider, 33, COW_KEY)
    const hash = await rsk.send('eth_sendRawTransaction', [raw])
    expect(await rsk.send('eth_getRawTransactionByHash', [hash])).toBe(raw)
    const { blockHash, blockNumber, transactionIndex } = await rsk.send('eth_getTransactionReceipt', [hash])
    expect(await rsk.send('eth_getRawTransactionByBlockHashAndIndex', [blockHash, transactionIndex])).toBe(raw)
    expect(await rsk.send('eth_getRawTransactionByBlockNumberAndIndex', [blockNumber, transactionIndex])).toBe(raw)
    const anvilRaw = await signed({ request: ({ method, params }) => anvil.eth.send(method, params as unknown[]) } as Provider, 31337, ANVIL_KEY)
    const anvilHash = await anvil.eth.send('eth_sendRawTransaction', [anvilRaw])
    expect(await anvil.eth.send('eth_getRawTransactionByHash', [anvilHash])).toBe(anvilRaw)
    expect(Transaction.from(anvilRaw).hash).toBe(anvilHash)
    const unknown = '0x' + '22'.repeat(32)
    expect(await rsk.send('eth_getRawTransactionByHash', [unknown])).toBe(await anvil.eth.send('eth_getRawTransactionByHash', [unknown]))
    expect(await rsk.send('debug_getRawTransaction', [unknown])).toBe(await anvil.eth.send('debug_getRawTransaction', [unknown]))
  })
})
