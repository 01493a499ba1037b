/** Block objects field by field (spec "Block object", reference §2.2) and the block/transaction lookups. */
import { beforeAll, describe, expect, it } from 'vitest'
import type { Provider } from '../src/index.js'
import { COW, COW1, MINER, fresh, rejects, send, useHttpServer, rq } from './helpers.js'


const BLOCK_KEYS = [
  'number', 'hash', 'parentHash', 'mixHash', 'nonce', 'sha3Uncles', 'logsBloom', 'transactionsRoot', 'stateRoot', 'receiptsRoot',
  'miner', 'difficulty', 'totalDifficulty', 'extraData', 'size', 'gasLimit', 'gasUsed', 'timestamp', 'transactions', 'uncles',
  'minimumGasPrice', 'bitcoinMergedMiningHeader', 'bitcoinMergedMiningCoinbaseTransaction', 'bitcoinMergedMiningMerkleProof',
  'hashForMergedMining', 'paidFees', 'cumulativeDifficulty', 'rskPteEdges', 'baseEvent',
]

let p: Provider
let receipt: Record<string, any>
beforeAll(async () => {
  p = await fresh()
  receipt = await send(p, { to: COW1, value: '0x1', gasPrice: '0x2' })
})

describe('eth_getBlockByNumber / eth_getBlockByHash', () => {
  it('has every field of the RSK block object in RSKj order and formats', async () => {
    const b = await rq(p, 'eth_getBlockByNumber', ['latest', false])
    expect(Object.keys(b)).toEqual(BLOCK_KEYS)
    expect(b.number).toBe('0x1')
    expect(b.hash).toBe(receipt.blockHash)
    expect(b.mixHash).toBe('0x' + '00'.repeat(32))
    expect(b.nonce).toBe('0x0000000000000000')
    expect(b.sha3Uncles).toBe('0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347')
    expect(b.logsBloom).toBe('0x' + '00'.repeat(256))
    expect(b.miner).toBe(MINER)
    expect(b.difficulty).toBe('0x1')
    expect(b.totalDifficulty).toBe('0x2')
    expect(b.cumulativeDifficulty).toBe('0x1')
    expect(b.gasUsed).toBe('0x5208')
    expect(b.paidFees).toBe('0x' + (21000n * 2n).toString(16))
    expect(b.minimumGasPrice).toBe('0x0')
    expect(b.uncles).toEqual([])
    expect(b.transactions[0]).toBe(receipt.transactionHash)
    expect(BigInt(b.size)).toBeGreaterThan(500n)
    expect(b.bitcoinMergedMiningHeader).toMatch(/^0x[0-9a-f]{160}$/)
    expect(b.bitcoinMergedMiningCoinbaseTransaction.length).toBeGreaterThan(2)
    expect(b.hashForMergedMining).toMatch(/^0x[0-9a-f]{64}$/)
    expect(Array.isArray(b.rskPteEdges)).toBe(true)
    expect(b.baseEvent).toBeNull()
    const genesis = await rq(p, 'eth_getBlockByNumber', ['0x0', false])
    expect(b.parentHash).toBe(genesis.hash)
    expect(await rq(p, 'eth_getBlockByHash', [b.hash, false])).toEqual(b)
  })

  it('full transactions carry block position; the boolean is optional', async () => {
    const b = await rq(p, 'eth_getBlockByNumber', ['0x1', true])
    const t = b.transactions[0]
    expect(t.hash).toBe(receipt.transactionHash)
    expect(t.blockHash).toBe(b.hash)
    expect(t.blockNumber).toBe('0x1')
    expect(t.transactionIndex).toBe('0x0')
    expect(t.from).toBe(COW)
    expect(t.gasPrice).toBe('0x2')
    expect((await rq(p, 'eth_getBlockByNumber', ['0x1'])).transactions[0]).toBe(receipt.transactionHash)
  })

  /**
   * RSKj's `Boolean fullTransactionObjects` (co/rsk/rpc/Web3EthModule.java) as jsonrpc4j 1.6 has Jackson 2.15.4 read it
   * (`JsonRpcBasicServer.convertJsonToParameters`, RSKj's plain `new ObjectMapper()`): databind
   * `NumberDeserializers.BooleanDeserializer` → `StdDeserializer._parseBoolean` (`_isTrue`/`_isFalse` after `trim()`,
   * `_coerceBooleanFromInt`, `_checkTextualNull`) with `CoercionConfigs.findCoercion`'s defaults (empty and blank
   * strings to a scalar: null).
   */
  describe('the second parameter read as Jackson reads a Boolean', () => {
    const both = (full: unknown) => [
      ['eth_getBlockByNumber', ['0x1', full]],
      ['eth_getBlockByHash', [receipt.blockHash, full]],
    ] as const
    const isFull = (b: any) => typeof b.transactions[0] === 'object'

    it('true/True/TRUE (trimmed) and integers other than 0 are true, false/False/FALSE and 0 false; other strings, fractions, objects and arrays are refused (RSKj: Jackson mapping error, -32700)', async () => {
      for (const full of ['true', 'True', 'TRUE', ' true\n', 1, 2, -1]) {
        for (const [m, params] of both(full)) expect(isFull(await rq(p, m, [...params])), `${m} ${JSON.stringify(full)}`).toBe(true)
      }
      for (const full of ['false', 'False', 'FALSE', '\tfalse ', 0]) {
        for (const [m, params] of both(full)) expect(isFull(await rq(p, m, [...params])), `${m} ${JSON.stringify(full)}`).toBe(false)
      }
      for (const full of ['yes', 'tRUE', '1', 1.5, {}, [], [true]]) {
        for (const [m, params] of both(full)) {
          await rejects(rq(p, m, [...params]), -32602, `Invalid argument "${typeof full === 'string' ? full : JSON.stringify(full)}": param should be a boolean.`)
        }
      }
    })

    it('null, "", a blank string and "null" are a null Boolean: null for no block, an error for a block (RSKj: NullPointerException, -32603)', async () => {
      for (const full of [null, '', '  ', 'null', ' null ']) {
        for (const [m, params] of both(full)) {
          await rejects(rq(p, m, [...params]), -32602, 'Invalid argument: fullTransactionObjects is null (JSON null, "" or "null"), which RSKj cannot read for a block it finds; pass true or false.')
        }
        expect(await rq(p, 'eth_getBlockByNumber', ['0x99', full])).toBeNull()
        expect(await rq(p, 'eth_getBlockByHash', ['0x' + 'ab'.repeat(32), full])).toBeNull()
      }
    })

    it('in process, undefined is no JSON value: omitted, so false (spec: optional, default false)', async () => {
      for (const [m, params] of both(undefined)) expect(isFull(await rq(p, m, [...params])), m).toBe(false)
    })
  })
})

describe('counts and positional lookups', () => {
  it('eth_getBlockTransactionCountBy*, eth_getTransactionBy*AndIndex, uncles', async () => {
    const b = await rq(p, 'eth_getBlockByNumber', ['0x1', false])
    const count = await rq(p, 'eth_getBlockTransactionCountByHash', [b.hash])
    expect(count).toBe(await rq(p, 'eth_getBlockTransactionCountByNumber', ['0x1']))
    expect(BigInt(count)).toBe(BigInt(b.transactions.length))
    expect(await rq(p, 'eth_getBlockTransactionCountByHash', ['0x' + '12'.repeat(32)])).toBeNull()
    expect((await rq(p, 'eth_getTransactionByBlockHashAndIndex', [b.hash, '0x0'])).hash).toBe(receipt.transactionHash)
    expect((await rq(p, 'eth_getTransactionByBlockNumberAndIndex', ['0x1', '0x0'])).hash).toBe(receipt.transactionHash)
    expect(await rq(p, 'eth_getTransactionByBlockNumberAndIndex', ['0x1', '0x9'])).toBeNull()
    expect(await rq(p, 'eth_getUncleCountByBlockHash', [b.hash])).toBe('0x0')
    expect(await rq(p, 'eth_getUncleCountByBlockNumber', ['0x1'])).toBe('0x0')
    expect(await rq(p, 'eth_getUncleByBlockHashAndIndex', [b.hash, '0x0'])).toBeNull()
    expect(await rq(p, 'eth_getUncleByBlockNumberAndIndex', ['latest', '0x0'])).toBeNull()
    await rejects(rq(p, 'eth_getUncleCountByBlockHash', ['0x' + '12'.repeat(32)]), -32600, /Block with hash 1212.* not found/)
    await rejects(rq(p, 'eth_getUncleCountByBlockNumber', ['0x99']), -32600, 'Block 0x99 not found')
    // RSKj's Web3InformationRetriever.getTransactions: an unknown block is an error, not null.
    await rejects(rq(p, 'eth_getBlockTransactionCountByNumber', ['0x99']), -32600, 'Block 0x99 not found')
  })

  it('eth_getBlockTransactionCountByNumber at pending counts the pool\'s pending transactions, not the queued', async () => {
    const q = await fresh()
    await rq(q, 'evm_setAutomine', [false])
    const next = BigInt(await rq(q, 'eth_getTransactionCount', [COW, 'latest']))
    await rq(q, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x1' }])
    await rq(q, 'eth_sendTransaction', [{ from: COW1, to: COW, value: '0x1' }])
    // A nonce gap: queued.
    await rq(q, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x1', nonce: '0x' + (next + 5n).toString(16) }])
    expect(await rq(q, 'txpool_status')).toEqual({ pending: 2, queued: 1 })
    expect(await rq(q, 'eth_getBlockTransactionCountByNumber', ['pending'])).toBe('0x2')
    // The head (genesis) holds none.
    expect(await rq(q, 'eth_getBlockTransactionCountByNumber', ['latest'])).toBe('0x0')
  })

  describe('through ethers over HTTP', () => {
    const http = useHttpServer()
    it('eth_getBlockTransactionCountByNumber: pending counts the pool, an unknown block is -32600', async () => {
      const [from] = await http.rpc.send('eth_accounts', [])
      await http.rpc.send('evm_setAutomine', [false])
      await http.rpc.send('eth_sendTransaction', [{ from, to: COW1, value: '0x1' }])
      expect(await http.rpc.send('eth_getBlockTransactionCountByNumber', ['pending'])).toBe('0x1')
      const e = await http.rpc.send('eth_getBlockTransactionCountByNumber', ['0x99']).catch((x: any) => x)
      expect(JSON.parse(e.response.bodyText).error).toEqual({ code: -32600, message: 'Block 0x99 not found' })
    })
  })

  it('state reads follow the block selector', async () => {
    expect(await rq(p, 'eth_getBalance', [COW1, '0x0'])).toBe('0x' + (10n ** 30n).toString(16))
    expect(await rq(p, 'eth_getBalance', [COW1, '0x1'])).toBe('0x' + (10n ** 30n + 1n).toString(16))
    expect(await rq(p, 'eth_getTransactionCount', [COW, '0x0'])).toBe('0x0')
    expect(await rq(p, 'eth_getTransactionCount', [COW, { blockNumber: '0x1' }])).toBe('0x1')
  })
})
