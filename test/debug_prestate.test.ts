/**
 * The prestate tracer (geth's `prestateTracer`, which Anvil and Hardhat answer; an extension here, refused in hosted
 * mode as RSKj refuses any tracer it does not know). Expected values come from elsewhere than the tracer: the state
 * the node answers through eth_getBalance/eth_getTransactionCount/eth_getCode/eth_getStorageAt at the block before
 * and the block of a transaction mined alone, slot keys computed with ethers (Solidity's mapping layout), and, in the
 * last part, Anvil 1.7.1's answers to the same transactions on the same contracts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Interface, type JsonRpcProvider, Wallet, solidityPackedKeccak256, toBeHex, zeroPadValue } from 'ethers'
import type { Provider } from '../src/index.js'
import { COW, deploy, fresh, rejects, send, sendSigned, useHttpServer, rq } from './helpers.js'
import { anvilReceipt, ANVIL_KEY, ANVIL_SENDER, sendRawMined, startAnvil, type RunningAnvil } from './anvil.js'
import { Caller, Reverter, Storage, Target } from './fixtures/index.js'

const REMASC = '0x0000000000000000000000000000000001000008'
const OTHER = '0x00000000000000000000000000000000000be5ed'
const GAS_PRICE = '0x3b9aca00'
const si = new Interface(Storage.abi as never)
const ci = new Interface(Caller.abi as never)
const slotHex = (n: number | bigint): string => zeroPadValue(toBeHex(n), 32)
/** Storage's `slots` mapping is at slot 0: the value of key k lives at keccak256(k . 0). */
const mappingSlot = (k: number): string => solidityPackedKeccak256(['uint256', 'uint256'], [k, 0])
const PRESTATE = { tracer: 'prestateTracer' }
const DIFF = { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }


/** An account as the state API answers it at `block`, in the prestate tracer's shape (geth's omissions). */
async function accountAt(p: Provider, address: string, block: string, slots: string[] = []): Promise<Record<string, unknown>> {
  const [balance, nonce, code] = await Promise.all([
    rq(p, 'eth_getBalance', [address, block]),
    rq(p, 'eth_getTransactionCount', [address, block]),
    rq(p, 'eth_getCode', [address, block]),
  ])
  const storage: Record<string, string> = {}
  for (const s of slots) storage[s] = await rq(p, 'eth_getStorageAt', [address, s, block])
  return {
    balance,
    ...(code !== '0x' ? { code } : {}),
    ...(nonce !== '0x0' ? { nonce: Number(nonce) } : {}),
    ...(slots.length > 0 ? { storage } : {}),
  }
}

describe('debug_traceTransaction with prestateTracer', () => {
  let p: Provider
  let storage: string
  let caller: string
  let target: string

  beforeAll(async () => {
    p = await fresh()
    storage = await deploy(p, Storage)
    caller = await deploy(p, Caller)
    target = await deploy(p, Target)
  })

  /** Sends `tx` as cow at a gas price (so the fee moves to REMASC) and answers its hash and block (hex). */
  async function mined(tx: Record<string, unknown>): Promise<{ hash: string; block: string; before: string }> {
    const r = await send(p, { gasPrice: GAS_PRICE, gas: '0x2dc6c0', ...tx })
    expect(r.status).toBe('0x1')
    return { hash: r.transactionHash, block: r.blockNumber, before: '0x' + (BigInt(r.blockNumber) - 1n).toString(16) }
  }

  it('a mapping write: the sender, the contract with the slot it wrote, and REMASC (the fee), as the block before holds them', async () => {
    const slot = mappingSlot(5)
    const { hash, before } = await mined({ to: storage, data: si.encodeFunctionData('set', [5, 7]) })
    const trace = await rq(p, 'debug_traceTransaction', [hash, PRESTATE])
    expect(Object.keys(trace)).toEqual([COW, REMASC, storage].sort())
    expect(trace[COW]).toEqual(await accountAt(p, COW, before))
    expect(trace[REMASC]).toEqual(await accountAt(p, REMASC, before))
    expect(trace[storage]).toEqual(await accountAt(p, storage, before, [slot]))
    expect(trace[storage].storage[slot]).toBe(slotHex(0))
  })

  it('diff mode: what changed, before (pre) and after (post), read at the block before and the block itself', async () => {
    const slot = mappingSlot(5)
    const { hash, block, before } = await mined({ to: storage, data: si.encodeFunctionData('set', [5, 9]) })
    const { pre, post } = await rq(p, 'debug_traceTransaction', [hash, DIFF])
    const cowBefore = await accountAt(p, COW, before)
    const cowAfter = await accountAt(p, COW, block)
    expect(pre).toEqual({
      [COW]: cowBefore,
      [REMASC]: await accountAt(p, REMASC, before),
      [storage]: { ...(await accountAt(p, storage, before)), storage: { [slot]: slotHex(7) } },
    })
    expect(post).toEqual({
      [COW]: { balance: cowAfter.balance, nonce: (cowBefore.nonce as number) + 1 },
      [REMASC]: { balance: (await accountAt(p, REMASC, block)).balance },
      [storage]: { storage: { [slot]: slotHex(9) } },
    })
    // The fee is gasUsed × gasPrice, paid by the sender to REMASC.
    const fee = BigInt((await rq(p, 'eth_getTransactionReceipt', [hash])).gasUsed) * BigInt(GAS_PRICE)
    expect(BigInt(post[REMASC].balance) - BigInt(pre[REMASC].balance)).toBe(fee)
  })

  it('a cleared slot is in pre with its old value and left out of post (geth: post lists non-zero values)', async () => {
    const slot = mappingSlot(5)
    const { hash } = await mined({ to: storage, data: si.encodeFunctionData('clear', [5]) })
    const { pre, post } = await rq(p, 'debug_traceTransaction', [hash, DIFF])
    expect(pre[storage].storage).toEqual({ [slot]: slotHex(9) })
    expect(post[storage]).toEqual({})
  })

  it('calls: the callee named by the CALL, its slot written; value sent to an account that did not exist', async () => {
    const { hash, before } = await mined({ to: caller, data: ci.encodeFunctionData('callTarget', [target, 3]) })
    const trace = await rq(p, 'debug_traceTransaction', [hash, PRESTATE])
    expect(Object.keys(trace)).toEqual([COW, REMASC, caller, target].sort())
    expect(trace[target]).toEqual(await accountAt(p, target, before, [slotHex(0)]))
    expect(trace[caller]).toEqual(await accountAt(p, caller, before))

    const paid = await mined({ to: caller, value: '0x64', data: ci.encodeFunctionData('pay', [OTHER]) })
    const { pre, post } = await rq(p, 'debug_traceTransaction', [paid.hash, DIFF])
    // OTHER had no account: a zero balance before (as geth and Anvil show one), the 100 wei after; the caller
    // forwarded what it was sent.
    expect(pre[OTHER]).toEqual({ balance: '0x0' })
    expect(post[OTHER]).toEqual({ balance: '0x64' })
    expect(pre[caller]).toBeUndefined()
    expect(post[caller]).toBeUndefined()
    // Non-diff: an account that did not exist shows a zero balance (as Anvil answers).
    const full = await rq(p, 'debug_traceTransaction', [paid.hash, PRESTATE])
    expect(full[OTHER]).toEqual({ balance: '0x0' })
  })

  it('CREATE from a contract: the new contract is in post with its code; SELFDESTRUCT: the contract in pre only', async () => {
    const { hash, block } = await mined({ to: caller, data: ci.encodeFunctionData('create') })
    const child = '0x' + (await rq(p, 'eth_getStorageAt', [caller, '0x1', block])).slice(26)
    const { pre, post } = await rq(p, 'debug_traceTransaction', [hash, DIFF])
    expect(pre[child]).toBeUndefined()
    const { balance: _, ...made } = await accountAt(p, child, block)
    expect(made.code).toMatch(/^0x6080/)
    expect(post[child]).toEqual(made)
    expect(post[caller].storage).toEqual({ [slotHex(1)]: zeroPadValue(child, 32) })

    await mined({ to: caller, value: '0x10' })
    const gone = await mined({ to: caller, data: ci.encodeFunctionData('destroy', [OTHER]) })
    expect(await rq(p, 'eth_getCode', [caller, gone.block])).toBe('0x')
    const d = await rq(p, 'debug_traceTransaction', [gone.hash, DIFF])
    expect(d.pre[caller]).toEqual({ ...(await accountAt(p, caller, gone.before)) })
    expect(d.post[caller]).toBeUndefined()
    expect(d.pre[caller].balance).toBe('0x10')
    expect(d.post[OTHER]).toEqual({ balance: '0x74' })
    expect(await rq(p, 'eth_getBalance', [OTHER, gone.block])).toBe('0x74')
  })

  it('disableCode and disableStorage leave code and slots out', async () => {
    const { hash } = await mined({ to: storage, data: si.encodeFunctionData('inc') })
    const trace = await rq(p, 'debug_traceTransaction', [hash, { tracer: 'prestateTracer', tracerConfig: { disableCode: true, disableStorage: true } }])
    expect(trace[storage]).toEqual({ balance: '0x0' })
  })

  it('a block of several transactions: each starts from the state the one before left', async () => {
    await rq(p, 'evm_setAutomine', [false])
    const hashes = [
      await rq(p, 'eth_sendTransaction', [{ from: COW, to: storage, data: si.encodeFunctionData('inc'), gas: '0x30d40', gasPrice: GAS_PRICE }]),
      await rq(p, 'eth_sendTransaction', [{ from: COW, to: storage, data: si.encodeFunctionData('inc'), gas: '0x30d40', gasPrice: GAS_PRICE }]),
    ]
    await rq(p, 'evm_mine')
    await rq(p, 'evm_setAutomine', [true])
    const block = await rq(p, 'eth_getBlockByNumber', ['latest', false])
    const traces = await rq(p, 'debug_traceBlockByNumber', [block.number, DIFF])
    // Both transactions, then the REMASC system transaction, each with its hash.
    expect(traces.map((t: any) => t.txHash)).toEqual(block.transactions)
    const counter = slotHex(1)
    const before = BigInt(await rq(p, 'eth_getStorageAt', [storage, counter, '0x' + (BigInt(block.number) - 1n).toString(16)]))
    expect(traces[0].result.post[storage].storage[counter]).toBe(slotHex(before + 1n))
    expect(traces[1].result.pre[storage].storage[counter]).toBe(slotHex(before + 1n))
    expect(traces[1].result.post[storage].storage[counter]).toBe(slotHex(before + 2n))
    expect(traces[1].result.pre[COW]).toEqual({ ...traces[0].result.post[COW] })
    // The same trace as asked for one transaction.
    expect(await rq(p, 'debug_traceTransaction', [hashes[1], DIFF])).toEqual(traces[1].result)
    expect(await rq(p, 'debug_traceBlockByHash', [block.hash, DIFF])).toEqual(traces)
  })

  it('the REMASC transaction: its account and words, and the accounts it pays, before and after', async () => {
    // Regtest REMASC pays from block maturity + syntheticSpan (10 + 5) on: mine past it, then an empty block whose
    // only transaction is REMASC's, so the block before and the block itself are its pre and post states.
    for (let i = 0; i < 16; i++) await mined({ to: storage, data: si.encodeFunctionData('inc') })
    await rq(p, 'evm_mine')
    const block = await rq(p, 'eth_getBlockByNumber', ['latest', false])
    const before = '0x' + (BigInt(block.number) - 1n).toString(16)
    const [{ result }] = await rq(p, 'debug_traceBlockByNumber', [block.number, DIFF])
    const receipt = await rq(p, 'eth_getTransactionReceipt', [block.transactions[0]])
    // Each payment is a log whose second topic is the receiver (RSKj RemascFeesPayer: mining_fee_topic, receiver).
    const paid = receipt.logs.map((l: any) => '0x' + l.topics[1].slice(26))
    expect(paid.length).toBeGreaterThan(0)
    for (const a of paid) {
      expect(post(result, a)).toBe(await rq(p, 'eth_getBalance', [a, block.number]))
      expect(result.pre[a]?.balance).toBe(result.pre[a] === undefined ? undefined : await rq(p, 'eth_getBalance', [a, before]))
    }
    expect(result.post[REMASC].balance).toBe(await rq(p, 'eth_getBalance', [REMASC, block.number]))
    expect(result.pre[REMASC].balance).toBe(await rq(p, 'eth_getBalance', [REMASC, before]))
  })

  it('errors: an unknown transaction, a tracerConfig value of the wrong type, too large a reply', async () => {
    await rejects(rq(p, 'debug_traceTransaction', ['0x' + 'ab'.repeat(32), PRESTATE]), -32603, `No transaction info for 0x${'ab'.repeat(32)}`)
    const { hash } = await mined({ to: storage, data: si.encodeFunctionData('inc') })
    await rejects(rq(p, 'debug_traceTransaction', [hash, { tracer: 'prestateTracer', tracerConfig: { diffMode: 'yes' } }]), -32602, 'Invalid tracerConfig: diffMode must be a boolean, got "yes"')
    const small = await fresh({ maxResponseSize: 200 })
    const r = await send(small, { to: COW, value: '0x1' })
    await rejects(rq(small, 'debug_traceTransaction', [r.transactionHash, PRESTATE]), -32011, 'Response size limit of 200 bytes exceeded')
  })

  it('hosted mode refuses it as RSKj refuses a tracer it does not know', async () => {
    const h = await fresh({ hosted: true })
    const { hash } = await sendSigned(h, { to: COW, value: '0x1', gas: '0x5208' })
    const r = await rq(h, 'eth_getTransactionReceipt', [hash])
    await rejects(rq(h, 'debug_traceTransaction', [hash, PRESTATE]), -32602, 'Invalid tracer type: prestateTracer')
    await rejects(rq(h, 'debug_traceBlockByNumber', [r.blockNumber, PRESTATE]), -32602, 'Invalid tracer type: prestateTracer')
    // The service's own tracers still answer.
    expect((await rq(h, 'debug_traceTransaction', [hash, { tracer: 'callTracer' }])).type).toBe('CALL')
  })
})

/** The balance `trace.post` gives `a`, or the pre one when the payment did not change it. */
function post(trace: { pre: any; post: any }, a: string): string | undefined {
  return trace.post[a]?.balance ?? trace.pre[a]?.balance
}

describe('debug_traceCall with prestateTracer', () => {
  let p: Provider
  let storage: string

  beforeAll(async () => {
    p = await fresh()
    storage = await deploy(p, Storage)
    await send(p, { to: storage, data: si.encodeFunctionData('inc') })
  })

  it('the state the call starts from and, in diff mode, what it would change; nothing is kept', async () => {
    const call = { from: COW, to: storage, data: si.encodeFunctionData('inc') }
    const trace = await rq(p, 'debug_traceCall', [call, 'latest', PRESTATE])
    expect(trace).toEqual({ [COW]: await accountAt(p, COW, 'latest'), [storage]: await accountAt(p, storage, 'latest', [slotHex(1)]) })
    const { pre, post } = await rq(p, 'debug_traceCall', [call, 'latest', DIFF])
    // No fee (eth_call's rules); the engine counts the caller's nonce for the call, as Anvil shows it; the counter
    // moves 1 → 2.
    const cow = await accountAt(p, COW, 'latest')
    expect(pre).toEqual({ [COW]: cow, [storage]: { ...(await accountAt(p, storage, 'latest')), storage: { [slotHex(1)]: slotHex(1) } } })
    expect(post).toEqual({ [COW]: { nonce: (cow.nonce as number) + 1 }, [storage]: { storage: { [slotHex(1)]: slotHex(2) } } })
    expect(await rq(p, 'eth_getStorageAt', [storage, '0x1', 'latest'])).toBe(slotHex(1))
  })

  it('state overrides are the state the call starts from', async () => {
    const call = { from: COW, to: storage, data: si.encodeFunctionData('inc') }
    const { pre, post } = await rq(p, 'debug_traceCall', [call, 'latest', { ...DIFF, stateOverrides: { [storage]: { stateDiff: { [slotHex(1)]: slotHex(41) } } } }])
    expect(pre[storage].storage).toEqual({ [slotHex(1)]: slotHex(41) })
    expect(post[storage].storage).toEqual({ [slotHex(1)]: slotHex(42) })
  })

  describe('over HTTP through ethers', () => {
    const http = useHttpServer()
    it('answers the same shape', async () => {
      const [from] = await http.rpc.send('eth_accounts', [])
      const trace = await http.rpc.send('debug_traceCall', [{ from, to: OTHER, value: '0x5' }, 'latest', DIFF])
      expect(trace.post[OTHER]).toEqual({ balance: '0x5' })
      expect(trace.pre[OTHER]).toEqual({ balance: '0x0' })
      // A mined transaction and its block, traced over HTTP as in process.
      const hash = await http.rpc.send('eth_sendTransaction', [{ from, to: OTHER, value: '0x5' }])
      const mined = await http.rpc.send('debug_traceTransaction', [hash, DIFF])
      expect(mined.post[OTHER]).toEqual({ balance: '0x5' })
      expect(mined).toEqual(await rq(http.server.provider, 'debug_traceTransaction', [hash, DIFF]))
      const { blockNumber } = await http.rpc.send('eth_getTransactionReceipt', [hash])
      const block = await http.rpc.send('debug_traceBlockByNumber', [blockNumber, PRESTATE])
      expect(block[0]).toEqual({ txHash: hash, result: await rq(http.server.provider, 'debug_traceTransaction', [hash, PRESTATE]) })
    })
  })
})

// ---------------------------------------------------------------------------------------------------------------
// Against Anvil: the same contracts deployed by the same address at the same nonces (so at the same addresses), the
// same transactions, and each trace compared. What differs by design is left out: the fee receiver (Anvil's coinbase,
// RSK's REMASC), the sender's balance (gas schedules differ), contracts' nonces (EIP-161 starts them at 1, RSK at 0).

const ANVIL_COINBASE = '0x0000000000000000000000000000000000000000'

/** Removes what differs by design (see above) from a non-diff state or one side of a diff. */
function comparable(state: Record<string, any>, contracts: Set<string>): Record<string, any> {
  const out: Record<string, any> = {}
  for (const [a, acct] of Object.entries(state)) {
    if (a === REMASC || a === ANVIL_COINBASE) continue
    const copy = { ...acct }
    if (a === ANVIL_SENDER) delete copy.balance
    if (contracts.has(a)) delete copy.nonce
    out[a] = copy
  }
  return out
}

describe('prestateTracer against Anvil 1.7.1', () => {
  let anvil: RunningAnvil
  let eth: JsonRpcProvider
  let p: Provider
  const at: Record<string, string> = {}

  beforeAll(async () => {
    anvil = await startAnvil()
    eth = anvil.eth
    p = await fresh()
    await rq(p, 'anvil_setBalance', [ANVIL_SENDER, '0x3635c9adc5dea00000'])
    for (const [name, artifact] of [['storage', Storage], ['caller', Caller], ['target', Target], ['reverter', Reverter]] as const) {
      const [ours, theirs] = await both({ data: artifact.bytecode })
      at[name] = (await rq(p, 'eth_getTransactionReceipt', [ours])).contractAddress
      expect((await anvilReceipt(eth, theirs)).contractAddress).toBe(at[name])
    }
  })

  afterAll(() => {
    anvil?.stop()
  })

  /** `tx` signed by Anvil's first key as a legacy transaction for `chainId` at `nonce`. */
  const raw = (tx: { to?: string; data: string; value?: bigint }, chainId: number, nonce: number, gasPrice: bigint): Promise<string> =>
    new Wallet(ANVIL_KEY).signTransaction({ type: 0, chainId, nonce, gasLimit: 3_000_000n, gasPrice, ...tx })

  /**
   * Sends `tx` to both nodes at the same nonce and answers both hashes once both have mined it (ours under automine
   * before it answers; Anvil on its own task after, so it is waited for).
   */
  async function both(tx: { to?: string; data: string; value?: bigint }): Promise<[string, string]> {
    const nonce = Number(await rq(p, 'eth_getTransactionCount', [ANVIL_SENDER, 'latest']))
    expect(Number(await eth.send('eth_getTransactionCount', [ANVIL_SENDER, 'latest']))).toBe(nonce)
    const ours = await rq(p, 'eth_sendRawTransaction', [await raw(tx, 33, nonce, 1n)])
    const theirs = await sendRawMined(eth, await raw(tx, 31337, nonce, 10_000_000_000n))
    return [ours, theirs]
  }

  it('the same accounts, code and slots, before and after, for writes, calls, delegate calls, reverts and value', async () => {
    const contracts = new Set([at.storage!, at.caller!, at.target!, at.reverter!])
    const txs = [
      { to: at.storage!, data: si.encodeFunctionData('set', [5, 7]) },
      { to: at.storage!, data: si.encodeFunctionData('set', [5, 8]) },
      { to: at.storage!, data: si.encodeFunctionData('clear', [5]) },
      { to: at.storage!, data: si.encodeFunctionData('inc') },
      { to: at.caller!, data: ci.encodeFunctionData('callTarget', [at.target, 9]) },
      { to: at.caller!, data: ci.encodeFunctionData('delegate', [at.target, 4]) },
      { to: at.caller!, data: ci.encodeFunctionData('tryRevert', [at.reverter]) },
      { to: at.caller!, data: ci.encodeFunctionData('pay', [OTHER]), value: 77n },
    ]
    for (const tx of txs) {
      const [ours, theirs] = await both(tx)
      for (const opts of [PRESTATE, DIFF]) {
        const a = await rq(p, 'debug_traceTransaction', [ours, opts])
        const b = await eth.send('debug_traceTransaction', [theirs, opts])
        if (opts === PRESTATE) expect(comparable(a, contracts)).toEqual(comparable(b, contracts))
        else {
          expect(comparable(a.pre, contracts)).toEqual(comparable(b.pre, contracts))
          expect(comparable(a.post, contracts)).toEqual(comparable(b.post, contracts))
        }
      }
    }
  })

  it('debug_traceCall of a view call: the same accounts and slots', async () => {
    const contracts = new Set([at.caller!, at.target!])
    const call = { from: ANVIL_SENDER, to: at.caller!, data: ci.encodeFunctionData('peek', [at.target]) }
    const a = await rq(p, 'debug_traceCall', [call, 'latest', PRESTATE])
    const b = await eth.send('debug_traceCall', [call, 'latest', PRESTATE])
    expect(comparable(a, contracts)).toEqual(comparable(b, contracts))
  })
})
