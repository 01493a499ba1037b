/**
 * eth_sendRawTransactionSync (EIP-7966), an extension: the receipt of a raw transaction, once mined. Expected values
 * come from elsewhere than the method: the hash ethers computes from the signed bytes, the receipt
 * eth_getTransactionReceipt answers afterwards, eth_sendRawTransaction's answer to the same bytes, and Anvil 1.7.1's
 * answer to the same failing transaction. Waiting must not hold the node's queue: with automine off a second client's
 * requests (evm_mine among them) are answered while the sync request waits.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { Interface, Transaction, Wallet } from 'ethers'
import { createPublicClient, createWalletClient, http, type Chain } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { Provider } from '../src/index.js'
import { COW, COW_KEY, deploy, fresh, rejects, useHttpServer, rq } from './helpers.js'
import { ANVIL_KEY, ANVIL_SENDER, startAnvil, type RunningAnvil } from './anvil.js'
import { Reverter, Storage } from './fixtures/index.js'

const OTHER = '0x00000000000000000000000000000000000be5ed'
const ri = new Interface(Reverter.abi as never)
const si = new Interface(Storage.abi as never)

/** `tx` signed by cow for chain 33 at cow's pending nonce (or `nonce`), legacy; answers the bytes and ethers' hash. */
async function signed(p: Provider, tx: { to?: string; data?: string; value?: bigint; gasLimit?: bigint }, nonce?: number): Promise<{ raw: string; hash: string }> {
  const n = nonce ?? Number(await rq(p, 'eth_getTransactionCount', [COW, 'pending']))
  const raw = await new Wallet(COW_KEY).signTransaction({ type: 0, chainId: 33, nonce: n, gasLimit: 300_000n, gasPrice: 0n, data: '0x', ...tx })
  return { raw, hash: Transaction.from(raw).hash! }
}

const errorOf = (promise: Promise<unknown>): Promise<any> => promise.then(
  () => {
    throw new Error('expected an error')
  },
  (e: any) => ({ code: e.code, message: e.message, data: e.data }),
)

describe('eth_sendRawTransactionSync under automine', () => {
  let p: Provider
  let reverter: string

  beforeAll(async () => {
    p = await fresh()
    reverter = await deploy(p, Reverter)
  })

  it('answers the receipt eth_getTransactionReceipt answers for the hash ethers computed', async () => {
    const { raw, hash } = await signed(p, { to: OTHER, value: 5n })
    const receipt = await rq(p, 'eth_sendRawTransactionSync', [raw])
    expect(receipt.transactionHash).toBe(hash)
    expect(receipt.status).toBe('0x1')
    expect(receipt).toEqual(await rq(p, 'eth_getTransactionReceipt', [hash]))
    expect(receipt.blockNumber).toBe(await rq(p, 'eth_blockNumber'))
    expect(await rq(p, 'eth_getBalance', [OTHER, 'latest'])).toBe('0x5')
  })

  it('a failed transaction: its receipt with status 0x0, where eth_sendRawTransaction answers -32015', async () => {
    const data = ri.encodeFunctionData('revertWithReason')
    const first = await signed(p, { to: reverter, data })
    const receipt = await rq(p, 'eth_sendRawTransactionSync', [first.raw])
    expect(receipt.status).toBe('0x0')
    expect(receipt).toEqual(await rq(p, 'eth_getTransactionReceipt', [first.hash]))
    const second = await signed(p, { to: reverter, data })
    await rejects(rq(p, 'eth_sendRawTransaction', [second.raw]), -32015)
    expect((await rq(p, 'eth_getTransactionReceipt', [second.hash])).status).toBe('0x0')
  })

  it('refuses what eth_sendRawTransaction refuses, with the same error', async () => {
    const { raw } = await signed(p, { to: OTHER, value: 1n })
    await rq(p, 'eth_sendRawTransactionSync', [raw])
    // The same bytes again (nonce now too low), an unfunded sender, a typed envelope, bytes that are no transaction.
    const unfunded = await new Wallet('0x' + '11'.repeat(32)).signTransaction({ type: 0, chainId: 33, nonce: 0, gasLimit: 21_000n, gasPrice: 1n, to: OTHER })
    const typed = await new Wallet(COW_KEY).signTransaction({ type: 2, chainId: 33, nonce: 0, gasLimit: 21_000n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n, to: OTHER })
    for (const bad of [raw, unfunded, typed, '0xdeadbeef']) {
      const viaSync = await errorOf(rq(p, 'eth_sendRawTransactionSync', [bad]))
      expect(viaSync).toEqual(await errorOf(rq(p, 'eth_sendRawTransaction', [bad])))
      expect(viaSync.code).not.toBe(4)
    }
  })

  it('bad parameters: -32602 saying what is wrong', async () => {
    const { raw } = await signed(p, { to: OTHER, value: 1n })
    for (const t of ['abc', -1, 1.5, true, '0x', {}]) {
      await rejects(
        rq(p, 'eth_sendRawTransactionSync', [raw, t]),
        -32602,
        `Invalid timeout ${typeof t === 'string' ? t : JSON.stringify(t)}: the milliseconds to wait for the receipt, a non-negative JSON integer or a 0x quantity`,
      )
    }
    await rejects(rq(p, 'eth_sendRawTransactionSync', []), -32602)
    await rejects(rq(p, 'eth_sendRawTransactionSync', [raw, 1000, 'extra']), -32602)
    // Nothing was sent by the refused requests.
    expect(await rq(p, 'eth_getTransactionByHash', [Transaction.from(raw).hash])).toBeNull()
  })

  it('hosted mode: -32601, as an unknown method', async () => {
    const h = await fresh({ hosted: true })
    const { raw } = await signed(h, { to: OTHER, value: 1n })
    const unknown = await errorOf(rq(h, 'no_suchMethod'))
    expect(await errorOf(rq(h, 'eth_sendRawTransactionSync', [raw]))).toEqual(unknown)
    expect(await rq(h, 'eth_getTransactionCount', [COW, 'latest'])).toBe('0x0')
  })
})

describe('eth_sendRawTransactionSync without automine', () => {
  it('waits outside the queue: a second client reads and mines meanwhile, and the answer is the mined receipt', async () => {
    const p = await fresh({ mining: { auto: false } })
    const head = await rq(p, 'eth_blockNumber')
    const { raw, hash } = await signed(p, { to: OTHER, value: 7n })
    let answered = false
    const waiting = rq(p, 'eth_sendRawTransactionSync', [raw, 10_000]).then((r) => {
      answered = true
      return r
    })
    // The second client: reads answer while the first waits; the transaction is in the pool, not mined.
    await new Promise((r) => setTimeout(r, 50))
    expect(await rq(p, 'eth_blockNumber')).toBe(head)
    expect((await rq(p, 'eth_getTransactionByHash', [hash])).blockNumber).toBeNull()
    expect(answered).toBe(false)
    await rq(p, 'evm_mine')
    const receipt = await waiting
    expect(receipt).toEqual(await rq(p, 'eth_getTransactionReceipt', [hash]))
    expect(BigInt(receipt.blockNumber)).toBe(BigInt(head) + 1n)
  })

  it('with interval mining: the receipt of the block the timer mined', async () => {
    const p = await fresh({ mining: { auto: false, interval: 100 } })
    const { raw, hash } = await signed(p, { to: OTHER, value: 1n })
    const receipt = await rq(p, 'eth_sendRawTransactionSync', [raw, 5_000])
    expect(receipt.transactionHash).toBe(hash)
    expect(receipt).toEqual(await rq(p, 'eth_getTransactionReceipt', [hash]))
    await p.disconnect()
  })

  it("not mined in time: EIP-7966's code 4 with the hash; the transaction stays in the pool", async () => {
    const p = await fresh({ mining: { auto: false } })
    const { raw, hash } = await signed(p, { to: OTHER, value: 1n })
    const e = await rejects(rq(p, 'eth_sendRawTransactionSync', [raw, '0x12c']), 4, "The transaction was added to the mempool but wasn't processed in 300ms.")
    expect(e.data).toBe(hash)
    expect((await rq(p, 'eth_getTransactionByHash', [hash])).blockNumber).toBeNull()
    await rq(p, 'evm_mine')
    expect((await rq(p, 'eth_getTransactionReceipt', [hash])).status).toBe('0x1')
  })

  it('the provider disconnected while it waits: answered at once (code 4, the hash), not at its deadline', async () => {
    const p = await fresh({ mining: { auto: false } })
    const { raw, hash } = await signed(p, { to: OTHER, value: 1n })
    const waiting = errorOf(rq(p, 'eth_sendRawTransactionSync', [raw, 5_000]))
    // A request queued after it is answered once the submission is done and the wait begun (the node's queue is first
    // in, first out), whatever the load: a fixed sleep could end before, and the disconnect come before the wait.
    expect((await rq(p, 'eth_getTransactionByHash', [hash])).hash).toBe(hash)
    await p.disconnect()
    // At its deadline it would answer "wasn't processed in 5s": the message tells which ended the wait.
    const e = await waiting
    expect({ code: e.code, message: e.message, data: e.data }).toEqual({
      code: 4,
      message: 'The transaction was added to the mempool, and the node was closed before it was processed.',
      data: hash,
    })
  })

  it('a longer wait is cut to 30 s: asked for 60 s, code 4 comes at 30 s and names 30s (clock faked, no real wait)', async () => {
    // EIP-7966 leaves the longest wait to the node; Anvil (1.7.1 waits 30 s, later releases cap the asked wait at 30 s)
    // and reth (`send_raw_transaction_sync_timeout`, 30 s by default) bound it at 30 s. The answer when it passes is
    // EIP-7966's: code 4, its example's words, the hash as data.
    const p = await fresh({ mining: { auto: false } })
    const { raw, hash } = await signed(p, { to: OTHER, value: 1n })
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    try {
      let answered = false
      const answer = errorOf(rq(p, 'eth_sendRawTransactionSync', [raw, 60_000])).finally(() => {
        answered = true
      })
      // A request queued after it is answered once the submission is done and its deadline set (the node's queue is
      // first in, first out): the fake clock starts counting the wait from there.
      expect((await rq(p, 'eth_getTransactionByHash', [hash])).hash).toBe(hash)
      await vi.advanceTimersByTimeAsync(29_999)
      expect(answered).toBe(false)
      await vi.advanceTimersByTimeAsync(1)
      // Answered on microtasks once the timer fired: by the next turn of the (real) event loop, or not at all.
      const nextTurn = new Promise((resolve) => setImmediate(() => resolve('no answer yet')))
      expect(await Promise.race([answer, nextTurn])).toEqual({ code: 4, message: "The transaction was added to the mempool but wasn't processed in 30s.", data: hash })
    } finally {
      vi.useRealTimers()
    }
    // Still in the pool, mined on request.
    await rq(p, 'evm_mine')
    expect((await rq(p, 'eth_getTransactionReceipt', [hash])).status).toBe('0x1')
    await p.disconnect()
  })

  it('without a timeout (or 0): the default of 2 s', async () => {
    const p = await fresh({ mining: { auto: false } })
    for (const params of [[], [0]]) {
      const { raw, hash } = await signed(p, { to: OTHER, value: 1n })
      const e = await rejects(rq(p, 'eth_sendRawTransactionSync', [raw, ...params]), 4, "The transaction was added to the mempool but wasn't processed in 2s.")
      expect(e.data).toBe(hash)
    }
  })

  it("a nonce gap: EIP-7966's code 5 at once, the transaction queued", async () => {
    const p = await fresh()
    const nonce = Number(await rq(p, 'eth_getTransactionCount', [COW, 'latest']))
    const { raw, hash } = await signed(p, { to: OTHER, value: 1n }, nonce + 1)
    const e = await rejects(
      rq(p, 'eth_sendRawTransactionSync', [raw, 10_000]),
      5,
      `The transaction was added to the mempool but wasn't processed due to a missing nonce: its nonce is ${nonce + 1} and the sender's next is ${nonce}, so it waits in the queued set until the nonces between are sent.`,
    )
    expect(e.data).toBe(hash)
    const pool = await rq(p, 'txpool_content')
    expect(Object.keys(pool.queued)).toHaveLength(1)
  })
})

describe('eth_sendRawTransactionSync over HTTP', () => {
  const http_ = useHttpServer({ mining: { auto: false } })
  const post = (method: string, params: unknown[]) =>
    fetch(http_.server.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) }).then((r) => r.json() as Promise<any>)

  it('a second connection mines (evm_mine) while the first waits; the first gets the receipt', async () => {
    const nonce = Number((await post('eth_getTransactionCount', [COW, 'pending'])).result)
    const raw = await new Wallet(COW_KEY).signTransaction({ type: 0, chainId: 33, nonce, gasLimit: 21_000n, gasPrice: 0n, to: OTHER, value: 3n })
    const waiting = post('eth_sendRawTransactionSync', [raw, 10_000])
    // Mined once the server has the transaction in its pool: after a fixed sleep, under load, evm_mine could come
    // first and mine an empty block, the transaction then waiting out its 10 s.
    const hash = Transaction.from(raw).hash
    while ((await post('eth_getTransactionByHash', [hash])).result === null) await new Promise((r) => setTimeout(r, 10))
    expect(await post('evm_mine', [])).toEqual({ jsonrpc: '2.0', id: 1, result: null })
    const { result } = await waiting
    expect(result.transactionHash).toBe(hash)
    expect(result).toEqual((await post('eth_getTransactionReceipt', [result.transactionHash])).result)
    expect((await post('evm_setAutomine', [true])).result).toBe(true)
  })

  it("viem's sendRawTransactionSync, sendTransactionSync and writeContractSync (a local account) get the receipt", async () => {
    const regtest: Chain = { id: 33, name: 'rsksim', nativeCurrency: { name: 'RBTC', symbol: 'RBTC', decimals: 18 }, rpcUrls: { default: { http: [http_.server.url] } } }
    const account = privateKeyToAccount(COW_KEY as `0x${string}`)
    // The methods viem sends: each sync action must reach eth_sendRawTransactionSync, not fall back to polling.
    const sent: string[] = []
    const onFetchRequest = async (req: Request): Promise<void> => {
      const body = JSON.parse(await req.clone().text()) as { method: string } | { method: string }[]
      for (const r of Array.isArray(body) ? body : [body]) sent.push(r.method)
    }
    const wallet = createWalletClient({ account, chain: regtest, transport: http(http_.server.url, { retryCount: 0, onFetchRequest }) })
    const pub = createPublicClient({ chain: regtest, transport: http(http_.server.url, { retryCount: 0 }), cacheTime: 0 })
    const nonce = await pub.getTransactionCount({ address: account.address, blockTag: 'pending' })
    const serializedTransaction = await wallet.signTransaction({ to: OTHER, value: 11n, gas: 21_000n, gasPrice: 0n, nonce, type: 'legacy' })
    const r1 = await wallet.sendRawTransactionSync({ serializedTransaction })
    expect(r1.status).toBe('success')
    expect(r1).toEqual(await pub.getTransactionReceipt({ hash: r1.transactionHash }))
    expect(r1.transactionHash).toBe(Transaction.from(serializedTransaction).hash)

    const r2 = await wallet.sendTransactionSync({ to: OTHER, value: 12n, gas: 21_000n })
    expect(r2).toEqual(await pub.getTransactionReceipt({ hash: r2.transactionHash }))
    expect(await pub.getBalance({ address: OTHER })).toBe(3n + 11n + 12n)

    const deployed = await wallet.sendTransactionSync({ data: Storage.bytecode as `0x${string}`, gas: 1_000_000n })
    const storage = deployed.contractAddress!
    const r3 = await wallet.writeContractSync({ address: storage, abi: Storage.abi as never, functionName: 'set', args: [4n, 9n], gas: 200_000n })
    expect(r3.status).toBe('success')
    expect(await pub.readContract({ address: storage, abi: Storage.abi as never, functionName: 'get', args: [4n] })).toBe(9n)
    expect(si.getFunction('set')!.selector).toBe((await pub.getTransaction({ hash: r3.transactionHash })).input.slice(0, 10))
    expect(sent.filter((m) => m.startsWith('eth_send'))).toEqual(Array(4).fill('eth_sendRawTransactionSync'))
    expect(sent).not.toContain('eth_getTransactionReceipt')
  })
})

describe('eth_sendRawTransactionSync against Anvil 1.7.1', () => {
  let anvil: RunningAnvil
  let p: Provider

  beforeAll(async () => {
    anvil = await startAnvil()
    p = await fresh()
    await rq(p, 'anvil_setBalance', [ANVIL_SENDER, '0x3635c9adc5dea00000'])
  })
  afterAll(() => anvil?.stop())

  it('a transfer and a failed call: both answer the receipt, status 0x1 then 0x0, with the same fields but RSK’s', async () => {
    const raw = (tx: { to?: string; data?: string; value?: bigint }, chainId: number, nonce: number, gasPrice: bigint) =>
      new Wallet(ANVIL_KEY).signTransaction({ type: 0, chainId, nonce, gasLimit: 3_000_000n, gasPrice, ...tx })
    const both = async (tx: { to?: string; data?: string; value?: bigint }): Promise<[any, any]> => {
      const nonce = Number(await rq(p, 'eth_getTransactionCount', [ANVIL_SENDER, 'latest']))
      return [
        await rq(p, 'eth_sendRawTransactionSync', [await raw(tx, 33, nonce, 1n)]),
        await anvil.eth.send('eth_sendRawTransactionSync', [await raw(tx, 31337, nonce, 10_000_000_000n)]),
      ]
    }
    const [ourDeploy, theirDeploy] = await both({ data: Reverter.bytecode })
    expect(ourDeploy.contractAddress).toBe(theirDeploy.contractAddress)
    const [ours, theirs] = await both({ to: ourDeploy.contractAddress, data: ri.encodeFunctionData('revertWithReason') })
    expect([ours.status, theirs.status]).toEqual(['0x0', '0x0'])
    const [ok, theirOk] = await both({ to: OTHER, value: 9n })
    expect([ok.status, theirOk.status]).toEqual(['0x1', '0x1'])
    // The fields both give (Anvil adds Ethereum's type, effectiveGasPrice, blobGasPrice, blockTimestamp).
    for (const k of ['transactionHash', 'transactionIndex', 'blockHash', 'blockNumber', 'from', 'to', 'cumulativeGasUsed', 'gasUsed', 'contractAddress', 'logs', 'logsBloom', 'status']) {
      expect(Object.hasOwn(ok, k) && Object.hasOwn(theirOk, k)).toBe(true)
    }
    expect([ok.gasUsed, theirOk.gasUsed]).toEqual(['0x5208', '0x5208'])
  })
})
