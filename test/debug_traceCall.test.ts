/**
 * debug_traceCall (the test author's tracing extension, as Anvil and Hardhat name it): a call run as eth_call runs it
 * and traced with debug_traceTransaction's tracers. Expected values: gas from RSK's schedule (intrinsic 53,000 for a
 * creation, 4 per zero and 16 per other byte, 2 per initcode word; PUSH1 3, MSTORE 3 + 3 for the first memory word),
 * and the trace of the same call sent as a transaction, which test/debug_trace.test.ts holds to RSKj's shapes.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { Interface } from 'ethers'
import type { Provider } from '../src/index.js'
import { COW, deploy, fresh, rejects, send, useHttpServer } from './helpers.js'
import { Caller, Reverter, Target } from './fixtures/index.js'

const ci = new Interface(Caller.abi as never)
const ri = new Interface(Reverter.abi as never)
const word = (n: number | bigint): string => BigInt(n).toString(16).padStart(64, '0')
/** Initcode: PUSH1 0x2a, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN (deploys the 32-byte word 0x2a as code). */
const INITCODE = '0x602a60005260206000f3'
/** Its intrinsic gas: 53,000 + 8 non-zero bytes × 16 + 2 zero bytes × 4 + 1 word × 2. */
const INITCODE_INTRINSIC = 53_000 + 8 * 16 + 2 * 4 + 2

let p: Provider
let caller: string
let target: string
let reverter: string

const rq = (method: string, params: unknown[]) => p.request({ method, params }) as Promise<any>
const traceCall = (call: Record<string, unknown>, block: unknown = 'latest', opts?: unknown) =>
  rq('debug_traceCall', opts === undefined ? [{ from: COW, ...call }, block] : [{ from: COW, ...call }, block, opts])

beforeAll(async () => {
  p = await fresh()
  caller = await deploy(p, Caller)
  target = await deploy(p, Target)
  reverter = await deploy(p, Reverter)
})

describe('debug_traceCall', () => {
  it('struct logs (the default) of a creation: each opcode with the gas RSK charges, nothing kept', async () => {
    const t = await traceCall({ data: INITCODE, gas: '0x186a0' })
    expect(t.structLogs.map((o: any) => [o.op, o.pc, o.gas, o.gasCost])).toEqual([
      ['PUSH1', 0, 100_000 - INITCODE_INTRINSIC, 3],
      ['PUSH1', 2, 100_000 - INITCODE_INTRINSIC - 3, 3],
      ['MSTORE', 4, 100_000 - INITCODE_INTRINSIC - 6, 6],
      ['PUSH1', 5, 100_000 - INITCODE_INTRINSIC - 12, 3],
      ['PUSH1', 7, 100_000 - INITCODE_INTRINSIC - 15, 3],
      ['RETURN', 9, 100_000 - INITCODE_INTRINSIC - 18, 0],
    ])
    expect(t.structLogs[3].memory).toEqual([word(0x2a)])
    expect(t).toMatchObject({ result: word(0x2a), error: '', reverted: false })
    // A call changes nothing: the account's nonce and the chain are as before.
    expect(await rq('eth_getTransactionCount', [COW, 'latest'])).toBe('0x3')
  })

  it('the same trace as the call sent as a transaction (rskTracer and callTracer)', async () => {
    const data = ci.encodeFunctionData('callTarget', [target, 7])
    const struct = await traceCall({ to: caller, data, gas: '0x7a120' })
    const callTree = await traceCall({ to: caller, data, gas: '0x7a120' }, 'latest', { tracer: 'callTracer' })
    const hash = (await send(p, { to: caller, data, gas: '0x7a120' })).transactionHash
    expect(struct).toEqual(await rq('debug_traceTransaction', [hash]))
    expect(callTree).toEqual(await rq('debug_traceTransaction', [hash, { tracer: 'callTracer' }]))
    expect(callTree).toMatchObject({ type: 'CALL', to: caller.toLowerCase(), gas: '0x7a120', calls: [{ type: 'CALL', to: target.toLowerCase() }] })
  })

  it('a reverting call is traced, not refused: the reason in the call tree, reverted in the struct logs', async () => {
    const data = ri.encodeFunctionData('revertWithReason')
    const tree = await traceCall({ to: reverter, data }, 'latest', { tracer: 'callTracer' })
    expect(tree).toMatchObject({ type: 'CALL', error: 'execution reverted', revertReason: 'nope' })
    expect(await traceCall({ to: reverter, data })).toMatchObject({ reverted: true })
  })

  it('at `pending`: the pool\'s transactions are applied first; a number above the head is refused as eth_call refuses it', async () => {
    const q = await fresh()
    const to = '0x' + '7b'.repeat(20)
    await q.request({ method: 'evm_setAutomine', params: [false] })
    await q.request({ method: 'eth_sendTransaction', params: [{ from: COW, to, value: '0x2a', gas: '0x5208' }] })
    // Initcode BALANCE(to) returned: PUSH20 to, BALANCE, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN.
    const data = '0x73' + to.slice(2) + '3160005260206000f3'
    const at = async (block: string) => (await q.request({ method: 'debug_traceCall', params: [{ from: COW, data }, block] })) as any
    expect((await at('pending')).result).toBe(word(0x2a))
    expect((await at('latest')).result).toBe(word(0))
    await rejects(q.request({ method: 'debug_traceCall', params: [{ from: COW, data }, '0x99'] }), -32602, 'Invalid block number 153')
  })

  it('stateOverrides in the options, as eth_call\'s third parameter', async () => {
    const who = '0x' + '7c'.repeat(20)
    const data = '0x73' + who.slice(2) + '3160005260206000f3'
    const t = await traceCall({ data }, 'latest', { stateOverrides: { [who]: { balance: '0x99' } } })
    expect(t.result).toBe(word(0x99))
    expect(await rq('eth_getBalance', [who, 'latest'])).toBe('0x0')
  })

  it('bad input: coded errors; gas below the intrinsic is refused with what happened', async () => {
    await rejects(traceCall({ data: INITCODE, gas: '0x5000' }), -32602, `Invalid gas: 20480 is less than this call's intrinsic gas (${INITCODE_INTRINSIC}): no code runs, so there is nothing to trace`)
    await rejects(traceCall({ data: INITCODE }, 'latest', { tracer: '4byteTracer' }), -32602, 'Invalid tracer type: 4byteTracer')
    await rejects(rq('debug_traceCall', []), -32602, 'method parameters invalid')
    await rejects(traceCall({ data: INITCODE }, 'latest', { stateOverrides: 7 }), -32602, /./)
  })

  it('a traced call stopped by the deadline answers -32011 and leaves the chain as it was', async () => {
    const q = await fresh({ rpcTimeout: 1 })
    // JUMPDEST, PUSH1 0, JUMP: a loop until the 10M gas run out (seconds of traced steps), or the deadline.
    for (const opts of [{ tracer: 'callTracer' }, { disableStack: true, disableMemory: true }]) {
      await rejects(q.request({ method: 'debug_traceCall', params: [{ from: COW, data: '0x5b600056', gas: '0x989680' }, 'latest', opts] }), -32011, 'Execution has got timeout out.')
    }
    expect(await q.request({ method: 'eth_blockNumber' })).toBe('0x0')
    expect(await q.request({ method: 'eth_getTransactionCount', params: [COW, 'latest'] })).toBe('0x0')
  })

  it('is an extension: with hosted: true it is an unknown method', async () => {
    const hosted = await fresh({ hosted: true })
    await rejects(hosted.request({ method: 'debug_traceCall', params: [{ from: COW, data: INITCODE }, 'latest'] }), -32601, 'method not found')
  })
})

describe('debug_traceCall over HTTP (ethers JsonRpcProvider)', () => {
  const http = useHttpServer()

  it('answers a call tree', async () => {
    const { rpc } = http
    const tree = await rpc.send('debug_traceCall', [{ from: COW, to: '0x' + '7d'.repeat(20), value: '0x1' }, 'latest', { tracer: 'callTracer' }])
    expect(tree).toEqual({ type: 'CALL', from: COW.toLowerCase(), to: '0x' + '7d'.repeat(20), value: '0x1', gas: '0x0', gasUsed: '0x5208', input: '0x', output: '0x0' })
    rpc.destroy()
  })
})
