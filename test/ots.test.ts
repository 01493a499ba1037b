/**
 * Otterscan's methods (ots_*, erigon_getHeaderByNumber), an extension. Expected values come from elsewhere than the
 * handlers: what eth_getBlockByNumber, eth_getTransactionReceipt, eth_getTransactionByHash, eth_getBalance and
 * eth_call answer, addresses and revert data computed with ethers, values written by hand, and, in the last part,
 * Anvil 1.7.1's answers to the same signed transactions on the same contracts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Interface, type JsonRpcProvider, Wallet, getCreate2Address, getCreateAddress, keccak256, zeroPadValue } from 'ethers'
import { startServer, type Provider } from '../src/index.js'
import { COW, deploy, fresh, rejects, send, sendSigned, useHttpServer, rq } from './helpers.js'
import { anvilReceipt, ANVIL_KEY, ANVIL_SENDER, sendRawMined, startAnvil, type RunningAnvil } from './anvil.js'
import { Caller, Child, Reverter, Target } from './fixtures/index.js'
import { MAX_SCANNED_BLOCKS } from '../src/node/ots/search.js'

const OTHER = '0x00000000000000000000000000000000000be5ed'
const REMASC = '0x0000000000000000000000000000000001000008'
const SALT = zeroPadValue('0x01', 32)
const ci = new Interface(Caller.abi as never)
const ri = new Interface(Reverter.abi as never)
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

describe('ots_* on a fork', () => {
  it('answers the remote blocks and transactions from what an RSKj remote answers, and searches its own blocks', async () => {
    const remote = await startServer({ port: 0, accountTxRateLimit: false })
    try {
      const rr = (method: string, params: unknown[] = []) =>
        fetch(remote.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
          .then((x) => x.json())
          .then((j: any) => j.result)
      const remoteTx = await rr('eth_sendTransaction', [{ from: COW, to: OTHER, value: '0x7', gas: '0x5208', gasPrice: '0x3b9aca00' }])
      const target = (await rr('eth_getTransactionReceipt', [await rr('eth_sendTransaction', [{ from: COW, data: Target.bytecode, gas: '0x4c4b40' }])])).contractAddress
      // One more block, so the deployment is below the forked block (the remote's state there).
      await rr('evm_mine')
      const forkNumber = Number(await rr('eth_blockNumber'))
      const p = await fresh({ fork: { url: remote.url, blockNumber: forkNumber, cache: false } } as never)
      const own = await send(p, { to: OTHER, value: '0x1' })
      const remoteBlock = (await rr('eth_getTransactionReceipt', [remoteTx])).blockNumber
      const block = await rr('eth_getBlockByNumber', [remoteBlock, false])
      const { transactions, ...rest } = block
      expect(await rq(p, 'ots_getBlockDetails', [Number(remoteBlock)])).toEqual({
        block: { ...rest, transactionCount: transactions.length },
        issuance: { blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' },
        totalFees: block.paidFees,
      })
      expect(BigInt(block.paidFees)).toBeGreaterThan(0n)
      expect(await rq(p, 'ots_getBlockDetailsByHash', [block.hash])).toEqual(await rq(p, 'ots_getBlockDetails', [remoteBlock]))
      expect(await rq(p, 'erigon_getHeaderByNumber', [Number(remoteBlock)])).toEqual(block)
      expect(await rq(p, 'ots_hasCode', [target, remoteBlock])).toBe(false)
      expect(await rq(p, 'ots_hasCode', [target, forkNumber - 1])).toBe(true)
      expect(await rq(p, 'ots_hasCode', [target, 'latest'])).toBe(true)
      // The remote's transactions and block pages are built from its eth_*, trace_transaction and debug_traceTransaction
      // answers (test/fork.test.ts covers every kind of frame): the remote rsksim's own ots_* answers.
      for (const m of ['ots_traceTransaction', 'ots_getInternalOperations', 'ots_getTransactionError']) {
        expect(await rq(p, m, [remoteTx])).toEqual(await rr(m, [remoteTx]))
      }
      expect(await rq(p, 'ots_traceTransaction', [remoteTx])).toEqual([{ type: 'CALL', depth: 0, from: COW, to: OTHER, value: '0x7', input: '0x', output: '0x' }])
      expect(await rq(p, 'ots_getBlockTransactions', [Number(remoteBlock), 0, 1])).toEqual(await rr('ots_getBlockTransactions', [Number(remoteBlock), 0, 1]))
      expect(await rq(p, 'ots_traceTransaction', [own.transactionHash])).toHaveLength(1)
      // The searches walk rsksim's own blocks: the remote's transfer to OTHER is not found.
      const found = await rq(p, 'ots_searchTransactionsBefore', [OTHER, 0, 25])
      expect([found.txs.map((t: any) => t.hash), found.lastPage]).toEqual([[own.transactionHash], true])
      expect(await rq(p, 'ots_getContractCreator', [target])).toBeNull()
    } finally {
      await remote.close()
    }
  })
})

describe('ots_* over HTTP with ethers', () => {
  const http = useHttpServer()
  it('JsonRpcProvider.send reaches them', async () => {
    expect(await http.rpc.send('ots_getApiLevel', [])).toBe(8)
    const details = await http.rpc.send('ots_getBlockDetails', [0])
    expect(details.block.number).toBe('0x0')
    expect(details.block.transactionCount).toBe(0)
  })

  it('every method answers over HTTP what it answers in process, on a chain with calls, a creation and a revert', async () => {
    const p = http.server.provider
    const caller = await deploy(p, Caller)
    const target = await deploy(p, Target)
    const reverter = await deploy(p, Reverter)
    const pay = (await send(p, { to: caller, data: ci.encodeFunctionData('pay', [OTHER]), value: '0x4d' })).transactionHash
    const create = await send(p, { to: caller, data: ci.encodeFunctionData('create') })
    const failed = await sendSigned(p, { to: reverter, data: ri.encodeFunctionData('revertWithReason') })
    const block = await rq(p, 'eth_getBlockByNumber', [create.blockNumber, false])
    const calls: [string, unknown[]][] = [
      ['ots_hasCode', [target, 'latest']],
      ['ots_getInternalOperations', [pay]],
      ['ots_getTransactionError', [failed.hash]],
      ['ots_traceTransaction', [create.transactionHash]],
      ['ots_getBlockDetails', [Number(create.blockNumber)]],
      ['ots_getBlockDetailsByHash', [block.hash]],
      ['ots_getBlockTransactions', [Number(create.blockNumber), 0, 10]],
      ['ots_searchTransactionsBefore', [OTHER, 0, 10]],
      ['ots_searchTransactionsAfter', [OTHER, 0, 10]],
      ['ots_getTransactionBySenderAndNonce', [COW, 0]],
      ['ots_getContractCreator', [target]],
      ['erigon_getHeaderByNumber', [Number(create.blockNumber)]],
    ]
    for (const [method, params] of calls) expect({ method, answer: await http.rpc.send(method, params) }).toEqual({ method, answer: await rq(p, method, params) })
    // A few values the eth_* methods give independently.
    expect(await http.rpc.send('ots_getInternalOperations', [pay])).toEqual([{ type: 0, from: caller, to: OTHER, value: '0x4d' }])
    expect(await http.rpc.send('ots_getContractCreator', [target])).toMatchObject({ creator: COW })
    expect((await http.rpc.send('erigon_getHeaderByNumber', [Number(create.blockNumber)])).hash).toBe(block.hash)
    expect((await http.rpc.send('ots_searchTransactionsBefore', [OTHER, 0, 10])).txs.map((t: any) => t.hash)).toEqual([pay])
  })
})

describe('ots_* in hosted mode', () => {
  it('answers -32601 as an unknown method', async () => {
    const p = await fresh({ hosted: true })
    for (const name of OTS_METHODS) await rejects(rq(p, name, []), -32601, 'method not found')
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Against Anvil 1.7.1: the same contracts deployed by the same key at the same nonces (so at the same addresses, in
// blocks of the same numbers: both mine each transaction alone), the same transactions, and the answers compared.
// What differs by decision (docs/extensions.md#otterscan) is named where it is removed.

describe('ots_* against Anvil 1.7.1', () => {
  let anvil: RunningAnvil
  let eth: JsonRpcProvider
  let p: Provider
  const at: Record<string, string> = {}
  /** [rsksim hash, Anvil hash] of each transaction. */
  const tx: Record<string, [string, string]> = {}

  const raw = (t: { to?: string; data: string; value?: bigint }, chainId: number, nonce: number, gasPrice: bigint): Promise<string> =>
    new Wallet(ANVIL_KEY).signTransaction({ type: 0, chainId, nonce, gasLimit: 3_000_000n, gasPrice, ...t })

  /**
   * Sends `t` to both nodes at the same nonce and answers both hashes once both have mined it (ours under automine
   * before it answers; Anvil on its own task after, so it is waited for: the next call's nonce check reads it).
   */
  async function both(t: { to?: string; data: string; value?: bigint }): Promise<[string, string]> {
    const nonce = Number(await rq(p, 'eth_getTransactionCount', [ANVIL_SENDER, 'latest']))
    expect(Number(await eth.send('eth_getTransactionCount', [ANVIL_SENDER, 'latest']))).toBe(nonce)
    const signed = await raw(t, 33, nonce, 1n)
    // A reverting transaction is mined and answers -32015 (the service's automine rule).
    await p.request({ method: 'eth_sendRawTransaction', params: [signed] }).catch((e: any) => {
      if (e.code !== -32015) throw e
    })
    return [keccak256(signed), await sendRawMined(eth, await raw(t, 31337, nonce, 10_000_000_000n))]
  }

  beforeAll(async () => {
    anvil = await startAnvil()
    eth = anvil.eth
    p = await fresh()
    await rq(p, 'anvil_setBalance', [ANVIL_SENDER, '0x3635c9adc5dea00000'])
    for (const [name, artifact] of [['caller', Caller], ['target', Target], ['reverter', Reverter]] as const) {
      tx[name] = await both({ data: artifact.bytecode })
      at[name] = (await rq(p, 'eth_getTransactionReceipt', [tx[name]![0]])).contractAddress
      expect((await anvilReceipt(eth, tx[name]![1]!)).contractAddress).toBe(at[name])
    }
    tx.call = await both({ to: at.caller!, data: ci.encodeFunctionData('callTarget', [at.target, 9]) })
    tx.revert = await both({ to: at.reverter!, data: ri.encodeFunctionData('revertWithReason') })
    tx.pay = await both({ to: at.caller!, data: ci.encodeFunctionData('pay', [OTHER]), value: 77n })
    tx.create2 = await both({ to: at.caller!, data: ci.encodeFunctionData('create2', [SALT]) })
    tx.tryRevert = await both({ to: at.caller!, data: ci.encodeFunctionData('tryRevert', [at.reverter]) })
    tx.fund = await both({ to: at.caller!, data: '0x', value: 5n })
    tx.destroy = await both({ to: at.caller!, data: ci.encodeFunctionData('destroy', [OTHER]) })
  }, 60_000)

  afterAll(() => {
    anvil?.stop()
  })

  it('sent the same transactions: each mined in a block of the same number', async () => {
    for (const [ours, theirs] of Object.values(tx)) {
      expect((await rq(p, 'eth_getTransactionReceipt', [ours])).blockNumber).toBe((await anvilReceipt(eth, theirs)).blockNumber)
    }
  })

  it('ots_traceTransaction: the same call frames (Anvil leaves out creations and self-destructs)', async () => {
    for (const [ours, theirs] of Object.values(tx)) {
      const calls = (await rq(p, 'ots_traceTransaction', [ours])).filter((e: any) => !['CREATE', 'CREATE2', 'SELFDESTRUCT'].includes(e.type))
      expect(calls).toEqual(await eth.send('ots_traceTransaction', [theirs]))
    }
  })

  it('ots_getInternalOperations: the same, but for the top frame Anvil also lists (a deployment, a transfer)', async () => {
    for (const [name, [ours, theirs]] of Object.entries(tx)) {
      const anvilOps = await eth.send('ots_getInternalOperations', [theirs])
      const top = await eth.send('eth_getTransactionByHash', [theirs])
      const topListed = top.to === null || BigInt(top.value) > 0n
      expect({ name, ops: await rq(p, 'ots_getInternalOperations', [ours]) }).toEqual({ name, ops: topListed ? anvilOps.slice(1) : anvilOps })
    }
  })

  it('ots_getTransactionError and ots_hasCode: the same answers', async () => {
    for (const [ours, theirs] of Object.values(tx)) {
      expect(await rq(p, 'ots_getTransactionError', [ours])).toBe(await eth.send('ots_getTransactionError', [theirs]))
    }
    expect(await rq(p, 'ots_getTransactionError', [tx.revert![0]])).not.toBe('0x')
    for (const a of [at.target!, at.reverter!, OTHER]) {
      for (const b of ['latest', 2, 4]) expect(await rq(p, 'ots_hasCode', [a, b])).toBe(await eth.send('ots_hasCode', [a, b]))
    }
  })

  it('ots_searchTransactionsBefore/After: the same transactions (by nonce and block) and page ends', async () => {
    const brief = (page: any) => ({ txs: page.txs.map((t: any) => [t.nonce, t.blockNumber]), firstPage: page.firstPage, lastPage: page.lastPage })
    for (const [m, addr, block, size] of [
      ['ots_searchTransactionsBefore', at.caller, 0, 2],
      ['ots_searchTransactionsBefore', at.caller, 9, 2],
      ['ots_searchTransactionsBefore', at.reverter, 0, 25],
      ['ots_searchTransactionsBefore', OTHER, 0, 25],
      ['ots_searchTransactionsAfter', at.caller, 0, 2],
      ['ots_searchTransactionsAfter', at.caller, 6, 25],
      ['ots_searchTransactionsAfter', at.target, 0, 25],
    ] as const) {
      expect({ m, addr, block, ...brief(await rq(p, m, [addr, block, size])) }).toEqual({ m, addr, block, ...brief(await eth.send(m, [addr, block, size])) })
    }
  })

  it('ots_getTransactionBySenderAndNonce and ots_getContractCreator: the same transactions', async () => {
    const nonceOf = async (h: string | null, on: 'ours' | 'theirs') =>
      h === null ? null : (on === 'ours' ? await rq(p, 'eth_getTransactionByHash', [h]) : await eth.send('eth_getTransactionByHash', [h])).nonce
    for (const n of [0, 4, 9, 99]) {
      const ours = await rq(p, 'ots_getTransactionBySenderAndNonce', [ANVIL_SENDER, n])
      const theirs = await eth.send('ots_getTransactionBySenderAndNonce', [ANVIL_SENDER, n])
      expect(await nonceOf(ours, 'ours')).toBe(await nonceOf(theirs, 'theirs'))
    }
    const child = getCreate2Address(at.caller!, SALT, keccak256(Child.bytecode))
    for (const a of [at.target!, child]) {
      const ours = await rq(p, 'ots_getContractCreator', [a])
      const theirs = await eth.send('ots_getContractCreator', [a])
      expect(ours.creator).toBe(theirs.creator)
      expect(await nonceOf(ours.hash, 'ours')).toBe(await nonceOf(theirs.hash, 'theirs'))
    }
  })

  it('ots_getBlockDetails, ots_getBlockTransactions: the same members where RSK has them', async () => {
    const n = Number((await rq(p, 'eth_getTransactionReceipt', [tx.call![0]])).blockNumber)
    const ours = await rq(p, 'ots_getBlockDetails', [n])
    const theirs = await eth.send('ots_getBlockDetails', [n])
    expect(Object.keys(ours)).toEqual(Object.keys(theirs))
    expect(ours.issuance).toEqual(theirs.issuance)
    // REMASC's transaction is one more in each RSK block.
    expect(ours.block.transactionCount).toBe(theirs.block.transactionCount + 1)
    const a = await rq(p, 'ots_getBlockTransactions', [n, 0, 1])
    const b = await eth.send('ots_getBlockTransactions', [n, 0, 1])
    expect(Object.keys(a)).toEqual(Object.keys(b))
    expect(a.fullblock.transactions[0].input).toBe(b.fullblock.transactions[0].input)
    // Anvil keeps the logs Otterscan's spec says are null.
    const { logs, logsBloom, ...rest } = b.receipts[0]
    expect(logs.length).toBeGreaterThan(0)
    expect(logsBloom).toBeDefined()
    // Gas used differs by design (RSK's gas schedule), hashes by chain id.
    for (const k of ['status', 'from', 'to', 'contractAddress', 'transactionIndex', 'blockNumber', 'type']) expect({ k, v: a.receipts[0][k] }).toEqual({ k, v: rest[k] })
    expect(a.receipts[0].timestamp).toMatch(/^0x[0-9a-f]+$/)
    expect(rest.timestamp).toMatch(/^0x[0-9a-f]+$/)
  })
})
