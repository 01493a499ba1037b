/**
 * Otterscan's methods (ots_*, erigon_getHeaderByNumber), an extension. Expected values come from elsewhere than the
 * handlers: what eth_getBlockByNumber, eth_getTransactionReceipt, eth_getTransactionByHash, eth_getBalance and
 * eth_call answer, addresses and revert data computed with ethers, values written by hand, and, in the last part,
 * Anvil 1.7.1's answers to the same signed transactions on the same contracts.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { Interface, getCreate2Address, getCreateAddress, keccak256, zeroPadValue } from 'ethers'
import type { Provider } from '../src/index.js'
import { COW, deploy, fresh, rejects, send, sendSigned, useHttpServer } from './helpers.js'
import { Caller, Child, Reverter, Target } from './fixtures/index.js'
import { MAX_SCANNED_BLOCKS } from '../src/node/ots/search.js'

const OTHER = '0x00000000000000000000000000000000000be5ed'
const REMASC = '0x0000000000000000000000000000000001000008'
const SALT = zeroPadValue('0x01', 32)
const ci = new Interface(Caller.abi as never)
const ri = new Interface(Reverter.abi as never)
const rq = (p: Provider, method: string, params: unknown[] = []) => p.request({ method, params }) as Promise<any>
const OTS_METHODS = [
  'ots_getApiLevel',
  'ots_hasCode',
  'ots_getInternalOperations',
  'ots_getTransactionError',
  'ots_traceTransaction',
  'ots_getBlockDetails',
  'ots_getBlockDetailsByHash',
  'ots_getBlockTransactions',
  'ots_searchTransactionsBefore',
  'ots_searchTransactionsAfter',
  'ots_getTransactionBySenderAndNonce',
  'ots_getContractCreator',
  'erigon_getHeaderByNumber',
]

describe('ots_* on a chain of calls, creations, transfers, a revert and a self-destruct', () => {
  let p: Provider
  const at: Record<string, string> = {}
  const tx: Record<string, string> = {}

  beforeAll(async () => {
    p = await fresh()
    at.caller = await deploy(p, Caller)
    at.target = await deploy(p, Target)
    at.reverter = await deploy(p, Reverter)
    const hashOf = async (data: Record<string, unknown>) => (await send(p, data)).transactionHash as string
    tx.call = await hashOf({ to: at.caller, data: ci.encodeFunctionData('callTarget', [at.target, 9]) })
    tx.pay = await hashOf({ to: at.caller, data: ci.encodeFunctionData('pay', [OTHER]), value: '0x4d' })
    tx.create = await hashOf({ to: at.caller, data: ci.encodeFunctionData('create') })
    tx.create2 = await hashOf({ to: at.caller, data: ci.encodeFunctionData('create2', [SALT]) })
    tx.fund = await hashOf({ to: at.caller, value: '0x5' })
    tx.destroy = await hashOf({ to: at.caller, data: ci.encodeFunctionData('destroy', [OTHER]) })
    const failed = await sendSigned(p, { to: at.reverter, data: ri.encodeFunctionData('revertWithReason'), gasPrice: '0x3b9aca00' })
    expect(failed.error?.code).toBe(-32015)
    tx.revert = failed.hash
  })

  it('ots_getApiLevel answers 8, as Anvil', async () => {
    expect(await rq(p, 'ots_getApiLevel')).toBe(8)
  })

  it('ots_hasCode: true for a contract from its block on, false before, after its SELFDESTRUCT, and for an EOA', async () => {
    const destroyed = Number((await rq(p, 'eth_getTransactionReceipt', [tx.destroy])).blockNumber)
    expect(await rq(p, 'ots_hasCode', [at.target, 'latest'])).toBe(true)
    expect(await rq(p, 'ots_hasCode', [at.target])).toBe(true)
    expect(await rq(p, 'ots_hasCode', [at.caller, 1])).toBe(true)
    expect(await rq(p, 'ots_hasCode', [at.caller, '0x0'])).toBe(false)
    expect(await rq(p, 'ots_hasCode', [at.caller, destroyed - 1])).toBe(true)
    expect(await rq(p, 'ots_hasCode', [at.caller, destroyed])).toBe(false)
    expect(await rq(p, 'ots_hasCode', [OTHER, 'latest'])).toBe(false)
    await rejects(rq(p, 'ots_hasCode', [at.caller, '0x999']), -32600, 'Block 0x999 not found')
  })

  it('ots_getInternalOperations: transfers, CREATE, CREATE2 and SELFDESTRUCT below the top frame, typed 0-3', async () => {
    // RSK starts a contract's nonce at 0 (no EIP-161): the caller's first CREATE uses nonce 0.
    const createAt = getCreateAddress({ from: at.caller!, nonce: 0 }).toLowerCase()
    const create2At = getCreate2Address(at.caller!, SALT, keccak256(Child.bytecode)).toLowerCase()
    expect(await rq(p, 'ots_getInternalOperations', [tx.pay])).toEqual([{ type: 0, from: at.caller, to: OTHER, value: '0x4d' }])
    expect(await rq(p, 'ots_getInternalOperations', [tx.create])).toEqual([{ type: 2, from: at.caller, to: createAt, value: '0x0' }])
    expect(await rq(p, 'ots_getInternalOperations', [tx.create2])).toEqual([{ type: 3, from: at.caller, to: create2At, value: '0x0' }])
    expect(await rq(p, 'ots_hasCode', [createAt, 'latest'])).toBe(true)
    // The contract held the 5 wei of tx.fund; OTHER held 77 wei from tx.pay before the self-destruct.
    expect(await rq(p, 'eth_getBalance', [OTHER, 'latest'])).toBe('0x52')
    expect(await rq(p, 'ots_getInternalOperations', [tx.destroy])).toEqual([{ type: 1, from: at.caller, to: OTHER, value: '0x5' }])
    // The top frame is the transaction, not an internal operation: a plain transfer and a deployment have none.
    expect(await rq(p, 'ots_getInternalOperations', [tx.fund])).toEqual([])
    expect(await rq(p, 'ots_getInternalOperations', [tx.call])).toEqual([])
    expect(await rq(p, 'ots_getInternalOperations', ['0x' + 'ab'.repeat(32)])).toBeNull()
  })

  it('ots_getTransactionError: the revert data of a failed transaction, 0x for a successful one', async () => {
    expect(await rq(p, 'ots_getTransactionError', [tx.revert])).toBe(ri.encodeErrorResult('Error', ['nope']))
    expect(await rq(p, 'ots_getTransactionError', [tx.call])).toBe('0x')
    expect(await rq(p, 'ots_getTransactionError', ['0x' + 'ab'.repeat(32)])).toBeNull()
  })

  it('ots_traceTransaction: every frame in order with its depth', async () => {
    const input = ci.encodeFunctionData('callTarget', [at.target, 9])
    expect(await rq(p, 'ots_traceTransaction', [tx.call])).toEqual([
      { type: 'CALL', depth: 0, from: COW, to: at.caller, value: '0x0', input, output: '0x' },
      { type: 'CALL', depth: 1, from: at.caller, to: at.target, value: '0x0', input: new Interface(Target.abi as never).encodeFunctionData('setValue', [9]), output: '0x' },
    ])
    const destroy = await rq(p, 'ots_traceTransaction', [tx.destroy])
    expect(destroy.map((e: any) => [e.type, e.depth])).toEqual([['CALL', 0], ['SELFDESTRUCT', 1]])
    expect(destroy[1]).toEqual({ type: 'SELFDESTRUCT', depth: 1, from: at.caller, to: OTHER, value: '0x5', input: '0x', output: '0x' })
    const create2At = getCreate2Address(at.caller!, SALT, keccak256(Child.bytecode)).toLowerCase()
    const code = await rq(p, 'eth_getCode', [create2At, 'latest'])
    expect((await rq(p, 'ots_traceTransaction', [tx.create2]))[1]).toEqual({ type: 'CREATE2', depth: 1, from: at.caller, to: create2At, value: '0x0', input: Child.bytecode, output: code })
    const revert = await rq(p, 'ots_traceTransaction', [tx.revert])
    expect(revert).toHaveLength(1)
    expect(revert[0].output).toBe(ri.encodeErrorResult('Error', ['nope']))
    expect(await rq(p, 'ots_traceTransaction', ['0x' + 'ab'.repeat(32)])).toBeNull()
  })

  it('ots_getBlockDetails(ByHash): the block without its list, the count, no issuance, the fees its senders paid', async () => {
    const r = await rq(p, 'eth_getTransactionReceipt', [tx.revert])
    const block = await rq(p, 'eth_getBlockByNumber', [r.blockNumber, false])
    const { transactions, ...rest } = block
    // Hand-computed fee: the one paying transaction of the block (REMASC's gas price is 0).
    const fees = BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice)
    expect(fees).toBeGreaterThan(0n)
    const expected = { block: { ...rest, transactionCount: 2 }, issuance: { blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' }, totalFees: '0x' + fees.toString(16) }
    expect(transactions).toHaveLength(2)
    expect(expected.totalFees).toBe(block.paidFees)
    expect(await rq(p, 'ots_getBlockDetails', [Number(r.blockNumber)])).toEqual(expected)
    expect(await rq(p, 'ots_getBlockDetails', [r.blockNumber])).toEqual(expected)
    expect(await rq(p, 'ots_getBlockDetailsByHash', [block.hash])).toEqual(expected)
    expect(await rq(p, 'ots_getBlockDetails', [9999])).toBeNull()
    expect(await rq(p, 'ots_getBlockDetailsByHash', ['0x' + 'ab'.repeat(32)])).toBeNull()
  })

  it('ots_getBlockTransactions: a page of the transactions (input cut to the selector) and receipts without logs', async () => {
    const r = await rq(p, 'eth_getTransactionReceipt', [tx.call])
    const n = Number(r.blockNumber)
    const block = await rq(p, 'eth_getBlockByNumber', [r.blockNumber, true])
    const { transactions, ...rest } = block
    const otsReceipt = async (h: string) => ({ ...(await rq(p, 'eth_getTransactionReceipt', [h])), logs: null, logsBloom: null, timestamp: block.timestamp })
    expect(r.logs.length).toBeGreaterThan(0)
    expect(await rq(p, 'ots_getBlockTransactions', [n, 0, 1])).toEqual({
      fullblock: { ...rest, transactions: [{ ...transactions[0], input: '0x48bce064' }], transactionCount: 2 },
      receipts: [await otsReceipt(tx.call!)],
    })
    // The REMASC system transaction is the block's last, as eth_getBlockByNumber lists it.
    const second = await rq(p, 'ots_getBlockTransactions', [n, 1, 1])
    expect(second.fullblock.transactions).toEqual([{ ...transactions[1], input: transactions[1].input.slice(0, 10) }])
    expect(second.fullblock.transactions[0].to).toBe(REMASC)
    expect(second.receipts).toEqual([await otsReceipt(transactions[1].hash)])
    const all = await rq(p, 'ots_getBlockTransactions', [n, 0, 25])
    expect(all.fullblock.transactions.map((t: any) => t.hash)).toEqual(transactions.map((t: any) => t.hash))
    const past = await rq(p, 'ots_getBlockTransactions', [n, 2, 1])
    expect([past.fullblock.transactions, past.receipts, past.fullblock.transactionCount]).toEqual([[], [], 2])
    expect(await rq(p, 'ots_getBlockTransactions', [n, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER])).toMatchObject({ receipts: [] })
    expect(await rq(p, 'ots_getBlockTransactions', [9999, 0, 1])).toBeNull()
  })

  it('ots_searchTransactionsBefore/After: transactions that mention an address, newest first, with the page ends', async () => {
    const blockOf = async (h: string) => Number((await rq(p, 'eth_getTransactionReceipt', [h])).blockNumber)
    // OTHER is mentioned by the transfer inside tx.pay and by nothing else (a SELFDESTRUCT's beneficiary is not counted).
    const head = Number(await rq(p, 'eth_blockNumber'))
    const before = await rq(p, 'ots_searchTransactionsBefore', [OTHER, 0, 25])
    expect(before.txs.map((t: any) => t.hash)).toEqual([tx.pay])
    expect(before.receipts[0]).toEqual({ ...(await rq(p, 'eth_getTransactionReceipt', [tx.pay])), logs: null, logsBloom: null, timestamp: before.receipts[0].timestamp })
    expect(before.txs[0]).toEqual(await rq(p, 'eth_getTransactionByHash', [tx.pay]))
    expect([before.firstPage, before.lastPage]).toEqual([true, true])
    // The caller, a page of 2 at a time: its blocks newest first (destroy, fund, create2, create, pay, call, deploy).
    const callerTxs = [tx.destroy, tx.fund, tx.create2, tx.create, tx.pay, tx.call]
    const page1 = await rq(p, 'ots_searchTransactionsBefore', [at.caller, 0, 2])
    expect(page1.txs.map((t: any) => t.hash)).toEqual(callerTxs.slice(0, 2))
    expect([page1.firstPage, page1.lastPage]).toEqual([true, false])
    const page2 = await rq(p, 'ots_searchTransactionsBefore', [at.caller, await blockOf(tx.fund!), 2])
    expect(page2.txs.map((t: any) => t.hash)).toEqual(callerTxs.slice(2, 4))
    expect([page2.firstPage, page2.lastPage]).toEqual([false, false])
    const last = await rq(p, 'ots_searchTransactionsBefore', [at.caller, await blockOf(tx.pay!), 25])
    expect(last.txs).toHaveLength(2)
    expect(last.txs[0].hash).toBe(tx.call)
    expect(last.txs[1].to).toBeNull()
    expect([last.firstPage, last.lastPage]).toEqual([false, true])
    // After: from the oldest, still newest first in the page.
    const after0 = await rq(p, 'ots_searchTransactionsAfter', [at.caller, 0, 2])
    expect(after0.txs.map((t: any) => t.hash)).toEqual([tx.call, last.txs[1].hash])
    expect([after0.firstPage, after0.lastPage]).toEqual([false, true])
    const after = await rq(p, 'ots_searchTransactionsAfter', [at.caller, await blockOf(tx.create!), 25])
    expect(after.txs.map((t: any) => t.hash)).toEqual(callerTxs.slice(0, 3))
    expect([after.firstPage, after.lastPage]).toEqual([true, false])
    expect(await rq(p, 'ots_searchTransactionsAfter', [at.caller, head, 25])).toEqual({ txs: [], receipts: [], firstPage: true, lastPage: false })
  })

  it('ots_getTransactionBySenderAndNonce: the hash of the sender’s transaction with that nonce, else null', async () => {
    for (const h of [tx.call, tx.destroy]) {
      const t = await rq(p, 'eth_getTransactionByHash', [h])
      expect(await rq(p, 'ots_getTransactionBySenderAndNonce', [COW, Number(t.nonce)])).toBe(h)
      expect(await rq(p, 'ots_getTransactionBySenderAndNonce', [COW, t.nonce])).toBe(h)
    }
    expect(await rq(p, 'ots_getTransactionBySenderAndNonce', [COW, 9999])).toBeNull()
    expect(await rq(p, 'ots_getTransactionBySenderAndNonce', [OTHER, 0])).toBeNull()
  })

  it('ots_getContractCreator: the deployment and its sender, or the factory and its transaction; null without code', async () => {
    const deployed = await rq(p, 'eth_getTransactionByHash', [(await rq(p, 'ots_searchTransactionsAfter', [at.target, 0, 1])).txs[0].hash])
    expect(deployed.to).toBeNull()
    expect(await rq(p, 'ots_getContractCreator', [at.target])).toEqual({ hash: deployed.hash, creator: COW })
    const create2At = getCreate2Address(at.caller!, SALT, keccak256(Child.bytecode))
    expect(await rq(p, 'ots_getContractCreator', [create2At])).toEqual({ hash: tx.create2, creator: at.caller })
    expect(await rq(p, 'ots_getContractCreator', [getCreateAddress({ from: at.caller!, nonce: 0 })])).toEqual({ hash: tx.create, creator: at.caller })
    // No code at the head: an EOA, and the caller after its SELFDESTRUCT (RSK removes the code, as before EIP-6780).
    expect(await rq(p, 'ots_getContractCreator', [OTHER])).toBeNull()
    expect(await rq(p, 'ots_getContractCreator', [at.caller])).toBeNull()
  })

  it('erigon_getHeaderByNumber: the block as eth_getBlockByNumber(n, false) answers it', async () => {
    expect(await rq(p, 'erigon_getHeaderByNumber', [3])).toEqual(await rq(p, 'eth_getBlockByNumber', ['0x3', false]))
    expect(await rq(p, 'erigon_getHeaderByNumber', ['latest'])).toEqual(await rq(p, 'eth_getBlockByNumber', ['latest', false]))
    expect(await rq(p, 'erigon_getHeaderByNumber', [9999])).toBeNull()
  })

  it('bad input: -32602 with the reason', async () => {
    await rejects(rq(p, 'ots_hasCode', ['0x12', 'latest']), -32602, 'Invalid address: null, empty or invalid hex value.')
    await rejects(rq(p, 'ots_getBlockTransactions', ['x', 0, 1]), -32602, 'Invalid block number x: expected a non-negative integer (a JSON number or a 0x hex string).')
    await rejects(rq(p, 'ots_getBlockTransactions', [1, -1, 1]), -32602, /Invalid page -1/)
    await rejects(rq(p, 'ots_searchTransactionsBefore', [OTHER, 0, 0]), -32602, 'Invalid page size 0: a search page holds 1 to 1000 transactions.')
    await rejects(rq(p, 'ots_searchTransactionsAfter', [OTHER, 0, 1001]), -32602, 'Invalid page size 1001: a search page holds 1 to 1000 transactions.')
    await rejects(rq(p, 'ots_searchTransactionsAfter', [OTHER, 1.5, 1]), -32602, /Invalid block number 1.5/)
    await rejects(rq(p, 'ots_getTransactionError', ['0x12']), -32602, 'Invalid transaction hash: incorrect length.')
    await rejects(rq(p, 'ots_getBlockDetails', ['0xzz']), -32602, 'invalid blocknumber 0xzz')
    await rejects(rq(p, 'ots_getApiLevel', [1]), -32602)
  })
})

describe('ots_* searches walk at most MAX_SCANNED_BLOCKS blocks a request', () => {
  it('refuses a page that found nothing in them, naming the block to go on from, which then finds the rest', async () => {
    const p = await fresh()
    const r = await send(p, { to: OTHER, value: '0x1' })
    expect(r.blockNumber).toBe('0x1')
    await rq(p, 'anvil_mine', [MAX_SCANNED_BLOCKS + 5])
    const head = MAX_SCANNED_BLOCKS + 6
    // Blocks head … 7 are the first 10,000 walked down; block 6 is where the next request starts.
    await rejects(
      rq(p, 'ots_searchTransactionsBefore', [OTHER, 0, 25]),
      -32602,
      `ots_searchTransactionsBefore walks at most ${MAX_SCANNED_BLOCKS} blocks a request and found no transaction in blocks ${head} to 7; ask again from block 7`,
    )
    const rest = await rq(p, 'ots_searchTransactionsBefore', [OTHER, 7, 25])
    expect([rest.txs.map((t: any) => t.hash), rest.lastPage]).toEqual([[r.transactionHash], true])
    // Found within the bound: answered, from the other end too.
    expect((await rq(p, 'ots_searchTransactionsAfter', [OTHER, 0, 25])).txs).toHaveLength(1)
  }, 60_000)
})

describe('ots_* over HTTP with ethers', () => {
  const http = useHttpServer()
  it('JsonRpcProvider.send reaches them', async () => {
    expect(await http.rpc.send('ots_getApiLevel', [])).toBe(8)
    const details = await http.rpc.send('ots_getBlockDetails', [0])
    expect(details.block.number).toBe('0x0')
    expect(details.block.transactionCount).toBe(0)
  })
})

describe('ots_* in hosted mode', () => {
  it('answers -32601 as an unknown method', async () => {
    const p = await fresh({ hosted: true })
    for (const name of OTS_METHODS) await rejects(rq(p, name, []), -32601, 'method not found')
  })
})
