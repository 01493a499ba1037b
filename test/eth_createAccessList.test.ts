/**
 * eth_createAccessList (geth's; an extension here). Expected values come from elsewhere than the method: Anvil
 * 1.7.1's lists for the same calls on the same contracts at the same addresses (deployed on both by the same signed
 * transactions), slots computed with ethers (Solidity's mapping layout), the receipt's gasUsed of the same call mined
 * as a transaction from the same state, and eth_call's answers to the same bad input.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Interface, Wallet, solidityPackedKeccak256, toBeHex, zeroPadValue } from 'ethers'
import { createPublicClient, http, type Chain } from 'viem'
import type { Provider } from '../src/index.js'
import { COW, deploy, fresh, rejects, send, sendSigned, useHttpServer, rq } from './helpers.js'
import { anvilReceipt, ANVIL_KEY, ANVIL_SENDER, startAnvil, type RunningAnvil } from './anvil.js'
import { Caller, Reverter, Storage, Target } from './fixtures/index.js'

const OTHER = '0x00000000000000000000000000000000000be5ed'
const si = new Interface(Storage.abi as never)
const ci = new Interface(Caller.abi as never)
const ri = new Interface(Reverter.abi as never)
const slotHex = (n: number | bigint): string => zeroPadValue(toBeHex(n), 32)
/** Storage's `slots` mapping is at slot 0: key k lives at keccak256(k . 0). */
const mappingSlot = (k: number): string => solidityPackedKeccak256(['uint256', 'uint256'], [k, 0])
const pad = (a: string): string => '0x' + a.replace(/^0x/, '').padStart(40, '0')
/** Runtime code: BALANCE of each address (popped), then SLOAD of each slot (popped), then SSTORE 1 into `store` if given. */
const toucher = (addresses: string[], loads: number[], store?: number): string =>
  '0x' +
  addresses.map((a) => '73' + pad(a).slice(2) + '3150').join('') +
  loads.map((s) => '60' + s.toString(16).padStart(2, '0') + '5450').join('') +
  (store === undefined ? '' : '600160' + store.toString(16).padStart(2, '0') + '55') + '00'

const byAddress = (list: { address: string; storageKeys: string[] }[]) => [...list].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0))

describe('eth_createAccessList against Anvil 1.7.1', () => {
  let anvil: RunningAnvil
  let p: Provider
  const at: Record<string, string> = {}

  /** `tx` signed by Anvil's first key for `chainId` at `nonce`, legacy. */
  const raw = (tx: { data: string }, chainId: number, nonce: number, gasPrice: bigint): Promise<string> =>
    new Wallet(ANVIL_KEY).signTransaction({ type: 0, chainId, nonce, gasLimit: 3_000_000n, gasPrice, ...tx })

  beforeAll(async () => {
    anvil = await startAnvil()
    p = await fresh()
    await rq(p, 'anvil_setBalance', [ANVIL_SENDER, '0x3635c9adc5dea00000'])
    for (const [name, artifact] of [['storage', Storage], ['caller', Caller], ['target', Target], ['reverter', Reverter]] as const) {
      const nonce = Number(await rq(p, 'eth_getTransactionCount', [ANVIL_SENDER, 'latest']))
      const ours = await rq(p, 'eth_sendRawTransaction', [await raw({ data: artifact.bytecode }, 33, nonce, 1n)])
      const theirs = await anvil.eth.send('eth_sendRawTransaction', [await raw({ data: artifact.bytecode }, 31337, nonce, 10_000_000_000n)])
      at[name] = (await rq(p, 'eth_getTransactionReceipt', [ours])).contractAddress
      expect((await anvilReceipt(anvil.eth, theirs)).contractAddress).toBe(at[name])
    }
  })
  afterAll(() => anvil?.stop())

  it('the same accounts and slots for writes, reads, calls, delegate calls, value, self-destruct, creation', async () => {
    const calls: Record<string, unknown>[] = [
      { to: at.storage, data: si.encodeFunctionData('set', [5, 7]) },
      { to: at.storage, data: si.encodeFunctionData('inc') },
      { to: at.caller, data: ci.encodeFunctionData('callTarget', [at.target, 9]) },
      { to: at.caller, data: ci.encodeFunctionData('peek', [at.target]) },
      { to: at.caller, data: ci.encodeFunctionData('delegate', [at.target, 4]) },
      { to: at.caller, data: ci.encodeFunctionData('pay', [OTHER]), value: '0x5' },
      { to: at.caller, data: ci.encodeFunctionData('destroy', [OTHER]) },
      { to: at.caller, data: ci.encodeFunctionData('create') },
      { to: at.caller, data: ci.encodeFunctionData('tryRevert', [at.reverter]) },
      { data: Storage.bytecode },
      { to: OTHER, value: '0x1' },
    ]
    for (const call of calls) {
      const ours = await rq(p, 'eth_createAccessList', [{ from: ANVIL_SENDER, ...call }])
      const theirs = await anvil.eth.send('eth_createAccessList', [{ from: ANVIL_SENDER, ...call }])
      expect(ours.accessList).toEqual(byAddress(theirs.accessList))
      expect(ours.error).toBeUndefined()
    }
    // Checked by hand against the contracts: the mapping slot of key 5, and the delegate call's write in Caller's own
    // storage with Target named by the DELEGATECALL.
    const set = await rq(p, 'eth_createAccessList', [{ from: ANVIL_SENDER, ...calls[0] }])
    expect(set.accessList).toEqual([{ address: at.storage, storageKeys: [mappingSlot(5)] }])
    const delegate = await rq(p, 'eth_createAccessList', [{ from: ANVIL_SENDER, ...calls[4] }])
    expect(delegate.accessList).toEqual(byAddress([{ address: at.caller!, storageKeys: [slotHex(0)] }, { address: at.target!, storageKeys: [] }]))
  })

  it('accounts ascending, slots ascending; the sender and the recipient only with slots (Anvil: a hash order)', async () => {
    const A = '0x00000000000000000000000000000000000c0de1'
    const code = toucher(['0xff00', '0x1f00', '0xaa00', ANVIL_SENDER, A, '0x2200', '0x01'], [3, 1, 2], 0x10)
    await rq(p, 'anvil_setCode', [A, code])
    await anvil.eth.send('anvil_setCode', [A, code])
    const ours = await rq(p, 'eth_createAccessList', [{ from: ANVIL_SENDER, to: A }])
    const theirs = await anvil.eth.send('eth_createAccessList', [{ from: ANVIL_SENDER, to: A }])
    expect(ours.accessList).toEqual(byAddress(theirs.accessList))
    expect(ours.accessList).toEqual([
      { address: pad('0x1f00'), storageKeys: [] },
      { address: pad('0x2200'), storageKeys: [] },
      { address: pad('0xaa00'), storageKeys: [] },
      { address: pad('0xff00'), storageKeys: [] },
      { address: A, storageKeys: [slotHex(1), slotHex(2), slotHex(3), slotHex(0x10)] },
    ])
    // Without slots of its own, the recipient naming itself is left out, as the sender is.
    const B = '0x00000000000000000000000000000000000c0de4'
    const selfish = toucher([B, ANVIL_SENDER, '0xbb00'], [])
    await rq(p, 'anvil_setCode', [B, selfish])
    await anvil.eth.send('anvil_setCode', [B, selfish])
    const mine = await rq(p, 'eth_createAccessList', [{ from: ANVIL_SENDER, to: B }])
    expect(mine.accessList).toEqual((await anvil.eth.send('eth_createAccessList', [{ from: ANVIL_SENDER, to: B }])).accessList)
    expect(mine.accessList).toEqual([{ address: pad('0xbb00'), storageKeys: [] }])
  })

  it("the call's own accessList starts the list, as geth's tracer starts from it (and Anvil)", async () => {
    const given = [
      { address: pad('0xaa00'), storageKeys: [slotHex(1)] },
      { address: pad('0xbb00'), storageKeys: [] },
      // The sender is left out without slots, listed with them.
      { address: ANVIL_SENDER, storageKeys: [slotHex(7)] },
    ]
    const call = { from: ANVIL_SENDER, to: at.storage, data: si.encodeFunctionData('set', [5, 7]), accessList: given }
    const ours = await rq(p, 'eth_createAccessList', [call])
    const theirs = await anvil.eth.send('eth_createAccessList', [call])
    expect(ours.accessList).toEqual(byAddress(theirs.accessList))
    expect(ours.accessList).toEqual(
      byAddress([
        { address: pad('0xaa00'), storageKeys: [slotHex(1)] },
        { address: pad('0xbb00'), storageKeys: [] },
        { address: ANVIL_SENDER, storageKeys: [slotHex(7)] },
        { address: at.storage!, storageKeys: [mappingSlot(5)] },
      ]),
    )
    await rejects(rq(p, 'eth_createAccessList', [{ ...call, accessList: [{ address: '0x12', storageKeys: [] }] }]), -32602)
    await rejects(rq(p, 'eth_createAccessList', [{ ...call, accessList: { address: pad('0xaa00') } }]), -32602, 'Invalid accessList: expected an array of { address, storageKeys }.')
  })

  it('a call that reverts: the list so far and `error` (geth); Anvil 1.7.1 answers its revert error', async () => {
    const call = { from: ANVIL_SENDER, to: at.caller, data: ci.encodeFunctionData('callTarget', [at.reverter, 1]) }
    const ours = await rq(p, 'eth_createAccessList', [call])
    expect(ours.error).toBe('execution reverted')
    expect(ours.accessList).toEqual([{ address: at.reverter, storageKeys: [] }])
    expect(Object.keys(ours)).toEqual(['accessList', 'error', 'gasUsed'])
    const theirs = await anvil.eth.send('eth_createAccessList', [call]).catch((e: any) => e.error)
    expect(theirs.code).toBe(3)
    expect(theirs.message).toBe('execution reverted')
  })
})

describe('eth_createAccessList', () => {
  let p: Provider
  let storage: string
  let reverter: string

  beforeAll(async () => {
    p = await fresh()
    storage = await deploy(p, Storage)
    reverter = await deploy(p, Reverter)
  })

  it('gasUsed is what the receipt of the same call mined from the same state shows (refunds deducted)', async () => {
    for (const data of [si.encodeFunctionData('set', [5, 7]), si.encodeFunctionData('inc'), si.encodeFunctionData('clear', [5])]) {
      const call = { from: COW, to: storage, data, gas: '0x4c4b40' }
      const list = await rq(p, 'eth_createAccessList', [call])
      const r = await send(p, call)
      expect(r.status).toBe('0x1')
      expect(list.gasUsed).toBe(r.gasUsed)
    }
  })

  it('a reverting call: gasUsed is the failed transaction’s, as its receipt shows', async () => {
    const call = { from: COW, to: reverter, data: ri.encodeFunctionData('revertWithReason'), gas: '0x4c4b40' }
    const list = await rq(p, 'eth_createAccessList', [call])
    expect(list.error).toBe('execution reverted')
    const { hash, error } = await sendSigned(p, call)
    expect(error.code).toBe(-32015)
    expect(list.gasUsed).toBe((await rq(p, 'eth_getTransactionReceipt', [hash])).gasUsed)
  })

  it('RSK precompiles are left out (Bridge, REMASC, 0x01); a neighbour address is not', async () => {
    const code = toucher(['0x01000006', '0x01000008', '0x01', '0x01000007'], [], 0)
    const A = '0x00000000000000000000000000000000000c0de2'
    await rq(p, 'anvil_setCode', [A, code])
    const { accessList } = await rq(p, 'eth_createAccessList', [{ from: COW, to: A }])
    expect(accessList).toEqual([{ address: A, storageKeys: [slotHex(0)] }, { address: pad('0x01000007'), storageKeys: [] }])
  })

  it('block forms as eth_call: an older block, pending (the pool first), state overrides', async () => {
    const inc = { from: COW, to: storage, data: si.encodeFunctionData('inc') }
    const counter = { to: storage, data: si.encodeFunctionData('counter') }
    const before = await rq(p, 'eth_blockNumber')
    const count = BigInt(await rq(p, 'eth_call', [counter]))
    // At the block before Storage existed, the call meets no code: no slot, the recipient left out.
    expect(await rq(p, 'eth_createAccessList', [inc, '0x0'])).toEqual({ accessList: [], gasUsed: '0x' + (21_000 + 4 * 16).toString(16) })
    await rq(p, 'evm_setAutomine', [false])
    await rq(p, 'eth_sendTransaction', [{ ...inc, gas: '0x30d40' }])
    const pending = await rq(p, 'eth_createAccessList', [inc, 'pending'])
    const latest = await rq(p, 'eth_createAccessList', [inc, 'latest'])
    await rq(p, 'evm_mine')
    await rq(p, 'evm_setAutomine', [true])
    // What 'pending' saw before the block is what 'latest' sees after it; the block before is still answered as before.
    expect(await rq(p, 'eth_createAccessList', [inc])).toEqual(pending)
    expect(await rq(p, 'eth_createAccessList', [inc, before])).toEqual(latest)
    // State overrides (eth_call's third parameter): code given to an empty address runs.
    const X = '0x00000000000000000000000000000000000c0de3'
    const code = toucher(['0xabcd'], [7], 8)
    const over = await rq(p, 'eth_createAccessList', [{ from: COW, to: X }, 'latest', { [X]: { code } }])
    await rq(p, 'anvil_setCode', [X, code])
    expect(over).toEqual(await rq(p, 'eth_createAccessList', [{ from: COW, to: X }, 'latest']))
    expect(over.accessList).toEqual([{ address: pad('0xabcd'), storageKeys: [] }, { address: X, storageKeys: [slotHex(7), slotHex(8)] }])
    // Nothing was kept: the counter moved by the one mined transaction only.
    expect(BigInt(await rq(p, 'eth_call', [counter]))).toBe(count + 1n)
  })

  it("bad input: eth_call's errors for the same call object, block and overrides", async () => {
    const errorOf = (method: string, params: unknown[]) => rq(p, method, params).then(() => undefined, (e: any) => ({ code: e.code, message: e.message }))
    for (const params of [['x'], [], [{ to: 'nope' }], [{ to: storage }, 'safe'], [{ to: storage }, '0xffffff'], [{ to: storage }, 'latest', { nope: {} }]]) {
      const ours = await errorOf('eth_createAccessList', params)
      if (ours === undefined) throw new Error(`no error for ${JSON.stringify(params)}`)
      expect(ours).toEqual(await errorOf('eth_call', params))
      expect(ours?.code).toBe(-32602)
    }
    await rejects(rq(p, 'eth_createAccessList', [{ to: storage }, 'latest', {}, 'extra']), -32602)
    // Gas below the intrinsic gas where no code runs: eth_call's refusal; where code runs, it runs out of gas.
    const noCode = await errorOf('eth_createAccessList', [{ to: OTHER, gas: '0x1' }])
    expect(noCode).toEqual(await errorOf('eth_call', [{ to: OTHER, gas: '0x1' }]))
    expect(noCode).toBeDefined()
    expect((await rq(p, 'eth_createAccessList', [{ to: storage, gas: '0x1' }])).error).toBe('out of gas')
  })

  it('hosted mode: -32601, as an unknown method', async () => {
    const h = await fresh({ hosted: true })
    const unknown = await rq(h, 'no_suchMethod').catch((e: any) => [e.code, e.message])
    expect(await rq(h, 'eth_createAccessList', [{ to: OTHER }]).catch((e: any) => [e.code, e.message])).toEqual(unknown)
  })

  describe("through viem's createAccessList over HTTP", () => {
    const http_ = useHttpServer()
    it('the list and the gas as bigint; a revert is thrown as viem throws an `error` answer', async () => {
      const regtest: Chain = { id: 33, name: 'rsksim', nativeCurrency: { name: 'RBTC', symbol: 'RBTC', decimals: 18 }, rpcUrls: { default: { http: [http_.server.url] } } }
      const pub = createPublicClient({ chain: regtest, transport: http(http_.server.url, { retryCount: 0 }) })
      const s = await http_.rpc.send('eth_sendTransaction', [{ from: COW, data: Storage.bytecode, gas: '0x4c4b40' }])
      const address = (await http_.rpc.send('eth_getTransactionReceipt', [s])).contractAddress
      const r = await pub.createAccessList({ account: COW, to: address, data: si.encodeFunctionData('set', [2, 3]) as `0x${string}` })
      expect(r.accessList).toEqual([{ address, storageKeys: [mappingSlot(2)] }])
      expect(r.gasUsed).toBe(BigInt((await http_.rpc.send('eth_createAccessList', [{ from: COW, to: address, data: si.encodeFunctionData('set', [2, 3]) }, 'latest'])).gasUsed))
      await expect(pub.createAccessList({ account: COW, to: address, data: '0xdeadbeef' })).rejects.toThrow(/execution reverted/)
    })
  })
})
