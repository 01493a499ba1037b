/**
 * The extensions (default mode only) that take a block tag answer `pending` with the pending block, as rsksim's
 * hosted methods that serve `pending` do (docs/extensions.md "`pending` in the extensions"): a state read reads its
 * state, as eth_getBalance and eth_getAccountInfo do; a block answer is the complete pending block, as trace_block and
 * debug_getRawHeader answer it. Expected values come from those methods and from the block the miner then mines with
 * the same clock reading, never from the method under test.
 */
import { describe, expect, it } from 'vitest'
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { getCreateAddress, Wallet } from 'ethers'
import { COW, fresh, rq } from './helpers.js'
import { ANVIL_KEY, useAnvil } from './anvil.js'

const X = '0x' + '11'.repeat(20)
/** Initcode that returns the one-byte runtime 0x00 (STOP). */
const CREATE = '0x6001600c60003960016000f300'
const GAS_PRICE = '0x3b9aca00'
/** The header fields a block mined from the same pool at the same time has otherwise (docs/modules/proofs-calls.md). */
const NOT_SHARED = ['hash', 'extraData', 'size', 'bitcoinMergedMiningHeader', 'bitcoinMergedMiningCoinbaseTransaction', 'bitcoinMergedMiningMerkleProof', 'hashForMergedMining']
const shared = (b: Record<string, unknown>) => Object.fromEntries(Object.entries(b).filter(([k]) => !NOT_SHARED.includes(k)))
const fields = (raw: string): string[] => (RLP.decode(hexToBytes(raw as `0x${string}`)) as Uint8Array[]).map((f) => bytesToHex(f))

describe('pending in the Otterscan methods', () => {
  it('ots_hasCode reads the pending state: a contract a pooled transaction deploys has code there, not at latest', async () => {
    const p = await fresh()
    await rq(p, 'evm_setAutomine', [false])
    const created = getCreateAddress({ from: COW, nonce: Number(await rq(p, 'eth_getTransactionCount', [COW, 'pending'])) }).toLowerCase()
    await rq(p, 'eth_sendTransaction', [{ from: COW, data: CREATE, gas: '0x186a0' }])
    // The pending state as eth_getAccountInfo reads it holds the code; the head's does not.
    expect((await rq(p, 'eth_getAccountInfo', [created, 'pending'])).code).toBe('0x00')
    expect(await rq(p, 'ots_hasCode', [created, 'pending'])).toBe(true)
    expect(await rq(p, 'ots_hasCode', [created, 'latest'])).toBe(false)
    expect(await rq(p, 'ots_hasCode', [created])).toBe(false)
    expect(await rq(p, 'ots_hasCode', [COW, 'pending'])).toBe(false)
    // Nothing was kept: mining makes it latest.
    expect(await rq(p, 'eth_getCode', [created, 'latest'])).toBe('0x')
    await rq(p, 'evm_mine')
    expect(await rq(p, 'ots_hasCode', [created, 'latest'])).toBe(true)
  })

  it('erigon_getHeaderByNumber and ots_getBlockDetails answer the pending block: the hash trace_block gives it, the fields of the block then mined', async () => {
    const p = await fresh()
    await rq(p, 'evm_setAutomine', [false])
    const sent = [
      await rq(p, 'eth_sendTransaction', [{ from: COW, to: X, value: '0x5', gasPrice: GAS_PRICE }]),
      await rq(p, 'eth_sendTransaction', [{ from: COW, data: CREATE, gas: '0x186a0', gasPrice: GAS_PRICE }]),
    ]
    const head = await rq(p, 'eth_getBlockByNumber', ['latest', false])
    const at = Number(head.timestamp) + 100
    await rq(p, 'evm_setNextBlockTimestamp', [at])

    const header = await rq(p, 'erigon_getHeaderByNumber', ['pending'])
    const details = await rq(p, 'ots_getBlockDetails', ['pending'])
    const traces = await rq(p, 'trace_block', ['pending'])
    const rawHeader = fields(await rq(p, 'debug_getRawHeader', ['pending']))
    const rawBlock: string = await rq(p, 'debug_getRawBlock', ['pending'])
    expect(await rq(p, 'eth_blockNumber')).toBe(head.number)

    // The pending block after the head, named by the hash its traces carry (an RSKj-defined answer).
    expect(BigInt(header.number)).toBe(BigInt(head.number) + 1n)
    expect(header.parentHash).toBe(head.hash)
    expect(header.hash).toBe(traces[0].blockHash)
    expect(header.timestamp).toBe('0x' + at.toString(16))
    // Its header as debug_getRawHeader encodes it: roots, bloom, gas used, empty extraData (RSKj's buildPending).
    expect([header.stateRoot, header.transactionsRoot, header.receiptsRoot, header.logsBloom]).toEqual(rawHeader.slice(3, 7))
    expect(BigInt(header.gasUsed)).toBe(BigInt(rawHeader[10]!))
    expect(header.extraData).toBe('0x')
    expect(rawHeader[12]).toBe('0x')
    expect(BigInt(header.size)).toBe(BigInt((rawBlock.length - 2) / 2))
    expect(header.transactions.slice(0, 2)).toEqual(sent)

    await rq(p, 'evm_mine')
    const mined = await rq(p, 'eth_getBlockByNumber', ['latest', false])
    expect(mined.timestamp).toBe(header.timestamp)
    // Every field but those the mined block's merged mining and extraData change (and the hash, size they feed).
    expect(shared(header)).toEqual(shared(mined))
    expect(header.transactions).toHaveLength(3)
    expect(header.hash).not.toBe(mined.hash)

    // ots_getBlockDetails: that block without its list, with its count, and the fees its senders paid.
    const { transactions: _, ...block } = header
    expect(details).toEqual({ block: { ...block, transactionCount: 3 }, issuance: { blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' }, totalFees: mined.paidFees })
    expect(BigInt(mined.paidFees)).toBeGreaterThan(0n)
  })

  it('with an empty pool the pending block holds the REMASC transaction only', async () => {
    const p = await fresh()
    const head = await rq(p, 'eth_getBlockByNumber', ['latest', false])
    const header = await rq(p, 'erigon_getHeaderByNumber', ['pending'])
    expect(BigInt(header.number)).toBe(BigInt(head.number) + 1n)
    expect(header.transactions).toHaveLength(1)
    expect((await rq(p, 'ots_getBlockDetails', ['pending'])).block.transactionCount).toBe(1)
  })
})

describe('ots_hasCode at pending beside Anvil 1.7.1', () => {
  const anvil = useAnvil(['--no-mining'])

  it('answers as Anvil does for the same signed deployment waiting in the pool: code at pending, none at latest', async () => {
    const p = await fresh({ mining: { auto: false } })
    const sign = (chainId: number) => new Wallet(ANVIL_KEY).signTransaction({ type: 0, chainId, nonce: 0, gasLimit: 100_000n, gasPrice: 10_000_000_000n, data: CREATE })
    await rq(p, 'anvil_setBalance', [new Wallet(ANVIL_KEY).address, '0x56bc75e2d63100000'])
    await rq(p, 'eth_sendRawTransaction', [await sign(33)])
    await anvil.eth.send('eth_sendRawTransaction', [await sign(31337)])
    const created = getCreateAddress({ from: new Wallet(ANVIL_KEY).address, nonce: 0 })
    const ask = async (send: (m: string, params: unknown[]) => Promise<unknown>) => [await send('ots_hasCode', [created, 'pending']), await send('ots_hasCode', [created, 'latest'])]
    const answers = await ask((m, params) => rq(p, m, params))
    expect(answers).toEqual([true, false])
    expect(await ask((m, params) => anvil.eth.send(m, params))).toEqual(answers)
  })
})
