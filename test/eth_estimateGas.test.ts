/**
 * eth_estimateGas (spec "Transaction call object", "Errors"; reference §5.2): the estimate is enough for the
 * transaction to succeed when sent with exactly that gas, including calls that need headroom beyond the gas they
 * use (contract creation from a contract, nested calls, a refund); -32000 when the sender cannot pay; -32015 on
 * revert.
 */
import { describe, expect, it } from 'vitest'
import { Contract, Interface } from 'ethers'
import { createPublicClient, custom, type Abi, type Address } from 'viem'
import type { Provider } from '../src/index.js'
import { COW, COW1, deploy, fresh, rejects, useHttpServer } from './helpers.js'
import { Caller, Reverter, Storage, Target, Token } from './fixtures/index.js'

const st = new Interface(Storage.abi as never)
const cl = new Interface(Caller.abi as never)
const rv = new Interface(Reverter.abi as never)
const EMPTY = '0x00000000000000000000000000000000000c0ffe'
const SALT = '0x' + '11'.repeat(32)

const estimate = (p: Provider, obj: Record<string, unknown>, ...rest: unknown[]) =>
  p.request({ method: 'eth_estimateGas', params: [obj, ...rest] }) as Promise<string>

/** Sends `tx` from cow with exactly `gas` and returns the receipt. */
async function sendWith(p: Provider, tx: Record<string, unknown>, gas: string): Promise<Record<string, any>> {
  const hash = await p.request({ method: 'eth_sendTransaction', params: [{ from: COW, ...tx, gas }] }).catch((e: any) => {
    throw new Error(`sending with the estimate ${BigInt(gas)} failed: ${e.message}`)
  })
  return (await p.request({ method: 'eth_getTransactionReceipt', params: [hash] })) as Record<string, any>
}

/** Sends `tx` with `gas` and expects it to fail: refused at once (-32015 under automine) or mined with status 0. */
async function expectFailure(p: Provider, tx: Record<string, unknown>, gas: bigint): Promise<void> {
  const before = (await p.request({ method: 'eth_blockNumber' })) as string
  const answer = await p
    .request({ method: 'eth_sendTransaction', params: [{ from: COW, ...tx, gas: '0x' + gas.toString(16) }] })
    .then((hash) => ({ hash }), (e: any) => ({ code: e.code }))
  if ('code' in answer) {
    expect(answer.code).toBe(-32015)
    const block = (await p.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as any
    expect(BigInt(block.number)).toBe(BigInt(before) + 1n)
    const receipt = (await p.request({ method: 'eth_getTransactionReceipt', params: [block.transactions[0]] })) as any
    expect(receipt.status).toBe('0x0')
  } else {
    const receipt = (await p.request({ method: 'eth_getTransactionReceipt', params: [answer.hash] })) as any
    expect(receipt.status).toBe('0x0')
  }
}

/** Estimates `tx`, sends it with exactly the estimate, expects success; returns [estimate, gasUsed]. */
async function roundTrip(p: Provider, tx: Record<string, unknown>): Promise<[bigint, bigint]> {
  const gas = await estimate(p, { from: COW, ...tx })
  const receipt = await sendWith(p, tx, gas)
  expect(receipt.status).toBe('0x1')
  return [BigInt(gas), BigInt(receipt.gasUsed)]
}

describe('eth_estimateGas: the estimate lets the transaction succeed', async () => {
  const p = await fresh()
  const s = await deploy(p, Storage)
  const c = await deploy(p, Caller)
  const t = await deploy(p, Target)

  it('a plain transfer is 21,000', async () => {
    expect(await roundTrip(p, { to: COW1, value: '0x1' })).toEqual([21_000n, 21_000n])
  })

  it('a fresh storage write uses exactly the estimate', async () => {
    const [gas, used] = await roundTrip(p, { to: s, data: st.encodeFunctionData('set', [3, 99]) })
    expect(gas).toBe(used)
    expect(gas).toBeGreaterThan(41_000n)
  })

  it('clearing a slot (refund): the estimate covers the gas before the refund', async () => {
    const [gas, used] = await roundTrip(p, { to: s, data: st.encodeFunctionData('clear', [3]) })
    expect(gas).toBeGreaterThan(used) // the refund is paid back after execution, the gas must be there first
  })

  it('a contract creating a child (CREATE and CREATE2)', async () => {
    const [gas, used] = await roundTrip(p, { to: c, data: cl.encodeFunctionData('create') })
    expect(gas).toBeGreaterThanOrEqual(used)
    await roundTrip(p, { to: c, data: cl.encodeFunctionData('create2', [SALT]) })
  })

  it('nested calls: RSK has no EIP-150 63/64 rule, so the estimate is the gas used; one gas less fails', async () => {
    const tx = { to: c, data: cl.encodeFunctionData('callTarget', [t, 7]) }
    const gas = BigInt(await estimate(p, { from: COW, ...tx }))
    await expectFailure(p, tx, gas - 1n)
    const [again, used] = await roundTrip(p, tx)
    expect(again).toBe(gas)
    // The callee gets all the remaining gas (RSKj VM.getMessageCall), so no headroom is needed (evm-profile notes).
    expect(gas).toBe(used)
    await roundTrip(p, { to: c, data: cl.encodeFunctionData('delegate', [t, 8]) })
    await roundTrip(p, { to: c, data: cl.encodeFunctionData('pay', [COW1]), value: '0x64' })
  })

  it('deployments', async () => {
    const initcode = Token.bytecode + (1000n).toString(16).padStart(64, '0')
    const [gas, used] = await roundTrip(p, { data: initcode })
    // At most RSKIP438's 2 gas per initcode word above what the engine charged (docs/modules/proofs-calls.md).
    expect(gas - used).toBeGreaterThanOrEqual(0n)
    expect(gas - used).toBeLessThanOrEqual(2n * BigInt(Math.ceil((initcode.length - 2) / 64)))
  })

  it('is answered for the selected block, and at the head by default', async () => {
    const setData = st.encodeFunctionData('set', [4, 1])
    const latest = await estimate(p, { from: COW, to: s, data: setData })
    expect(await estimate(p, { from: COW, to: s, data: setData }, 'latest')).toBe(latest)
    expect(await estimate(p, { from: COW, to: s, data: setData }, 'pending')).toBe(latest)
    // At genesis there is no contract yet: the call costs only its intrinsic gas (21,000 + 16/4 per data byte).
    const bytes = Buffer.from(setData.slice(2), 'hex')
    const intrinsic = 21_000 + [...bytes].reduce((g, b) => g + (b === 0 ? 4 : 16), 0)
    expect(await estimate(p, { from: COW, to: s, data: setData }, '0x0')).toBe('0x' + intrinsic.toString(16))
  })
})

describe('eth_estimateGas: code whose path depends on the gas it holds', async () => {
  const p = await fresh()
  const code = async (runtime: string, balance = '0x0') => {
    const at = '0x' + (0xe57000n + BigInt(Math.floor(Math.random() * 1_000_000))).toString(16).padStart(40, '0')
    await p.request({ method: 'anvil_setCode', params: [at, runtime] })
    await p.request({ method: 'anvil_setBalance', params: [at, balance] })
    return at
  }

  it('GAS read and branched on: below 100,000 held it hits INVALID; the estimate is the least gas that passes', async () => {
    // GAS, PUSH3 100000, GT (100000 > gas), PUSH1 0x0a, JUMPI; STOP; 0x0a: JUMPDEST, INVALID. The run at the upper
    // bound takes the STOP path having used about 21,000: that amount fails here.
    const to = await code('0x5a620186a011600a57005bfe')
    const gas = BigInt(await estimate(p, { from: COW, to }))
    expect(gas).toBeGreaterThan(121_000n)
    expect(gas).toBeLessThan(121_100n)
    await expectFailure(p, { to }, gas - 1n)
    expect((await roundTrip(p, { to }))[0]).toBe(gas)
  })

  it('a CALL moving value as its last step: the 2,300 stipend must be held at the call, above the gas finally used', async () => {
    // PUSH1 0 x4 (return and argument areas), PUSH1 1 (value), PUSH20 cow1, PUSH1 0 (gas: the stipend only), CALL, STOP.
    const to = await code(`0x6000600060006000600173${COW1.slice(2)}6000f100`, '0x10')
    const gas = BigInt(await estimate(p, { from: COW, to }))
    await expectFailure(p, { to }, gas - 1n)
    const [again, used] = await roundTrip(p, { to })
    expect(again).toBe(gas)
    // The stipend is handed back unused (cow1 has no code): the transaction ends up using less than it had to hold.
    expect(gas - used).toBeGreaterThan(0n)
    expect(gas - used).toBeLessThanOrEqual(2_300n)
  })
})

describe('eth_estimateGas: errors', async () => {
  const p = await fresh()
  const r = await deploy(p, Reverter)
  const s = await deploy(p, Storage)

  it('-32000 insufficient funds for transfer when the sender cannot pay', async () => {
    await rejects(estimate(p, { from: EMPTY, to: COW1, value: '0x1' }), -32000, 'insufficient funds for transfer')
    const balance = BigInt((await p.request({ method: 'eth_getBalance', params: [COW, 'latest'] })) as string)
    await rejects(estimate(p, { from: COW, to: COW1, value: '0x' + (balance + 1n).toString(16) }), -32000, 'insufficient funds for transfer')
    await rejects(estimate(p, { from: COW1, to: COW, gas: '0x5208', gasPrice: '0x' + (10n ** 40n).toString(16) }), -32000, 'insufficient funds for transfer')
    // Zero value from an empty account is fine.
    expect(await estimate(p, { from: EMPTY, to: COW1 })).toBe('0x5208')
  })

  it('-32015 with the revert data when the call reverts', async () => {
    const e = await rejects(estimate(p, { from: COW, to: r, data: rv.encodeFunctionData('revertWithReason') }), -32015, 'VM Exception while processing transaction: revert nope')
    expect(e.data).toBe(rv.encodeErrorResult('Error', ['nope']))
    const c = await rejects(estimate(p, { from: COW, to: r, data: rv.encodeFunctionData('revertCustom') }), -32015, 'VM Exception while processing transaction: transaction reverted')
    expect(rv.parseError(c.data)?.name).toBe('Bad')
  })

  it('-32000 when the given gas is not enough', async () => {
    await rejects(estimate(p, { from: COW, to: s, data: st.encodeFunctionData('set', [1, 1]), gas: '0x6000' }), -32000, 'gas required exceeds allowance (24576)')
  })

  it('-32602 for bad input and blocks it cannot use', async () => {
    await rejects(estimate(p, { from: COW, to: s }, '0x99'), -32602, 'Invalid block number 153')
    await rejects(
      estimate(p, { from: COW, to: s }, 'safe'),
      -32602,
      "Unsupported block specifier 'safe'. Can only be either 'earliest', 'latest', 'pending' or a specific block number (either hex - prepending '0x' or decimal).",
    )
    await rejects(estimate(p, { from: '0x1', to: s }), -32602, 'Invalid address: null, empty or invalid hex value.')
    await rejects(p.request({ method: 'eth_estimateGas', params: [] }), -32602, 'method parameters invalid')
  })
})

describe('eth_estimateGas through clients', () => {
  const http = useHttpServer()

  it('ethers over HTTP: estimateGas then send with exactly that gasLimit', async () => {
    const { server, rpc: client } = http
    const signer = await client.getSigner(COW)
    const caller = new Contract(await deploy(server.provider, Caller), Caller.abi as never, signer) as any
    const gasLimit = await caller.create.estimateGas()
    const receipt = await (await caller.create({ gasLimit })).wait()
    expect(receipt.status).toBe(1)
    expect(receipt.gasUsed).toBeLessThanOrEqual(gasLimit)
    client.destroy()
  })

  it('viem in process: estimateContractGas then writeContract with exactly that gas', async () => {
    const p = await fresh()
    const address = (await deploy(p, Caller)) as Address
    const target = (await deploy(p, Target)) as Address
    const client = createPublicClient({ transport: custom(p, { retryCount: 0 }) })
    const abi = Caller.abi as Abi
    const gas = await client.estimateContractGas({ address, abi, functionName: 'callTarget', args: [target, 5n], account: COW as Address })
    const receipt = await sendWith(p, { to: address, data: cl.encodeFunctionData('callTarget', [target, 5]) }, '0x' + gas.toString(16))
    expect(receipt.status).toBe('0x1')
  })
})
