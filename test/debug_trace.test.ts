/**
 * debug_traceTransaction, debug_traceBlockByHash, debug_traceBlockByNumber (RSKj `rskTracer` struct logs and
 * `callTracer` frames, reference §3.10) and debug_wireProtocolQueueSize.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { Interface } from 'ethers'
import { createPublicClient, custom, type EIP1193Provider } from 'viem'
import type { Provider } from '../src/index.js'
import { COW, COW1, deploy, deployCode, fresh, rejects, send, sendFailing } from './helpers.js'
import { Caller, Reverter, Target } from './fixtures/index.js'

const ci = new Interface(Caller.abi as never)
const ti = new Interface(Target.abi as never)
const ri = new Interface(Reverter.abi as never)
const word = (n: number | bigint | string): string => BigInt(n).toString(16).padStart(64, '0')

let p: Provider
let caller: string
let target: string
let reverter: string
let callHash: string
let createHash: string

const debugTx = (hash: string, opts?: unknown) =>
  p.request({ method: 'debug_traceTransaction', params: opts === undefined ? [hash] : [hash, opts] }) as Promise<any>

beforeAll(async () => {
  p = await fresh()
  caller = await deploy(p, Caller)
  target = await deploy(p, Target)
  reverter = await deploy(p, Reverter)
  callHash = (await send(p, { to: caller, data: ci.encodeFunctionData('callTarget', [target, 5]) })).transactionHash
  createHash = (await send(p, { to: caller, data: ci.encodeFunctionData('create') })).transactionHash
})

describe('debug_traceTransaction (rskTracer, the default)', () => {
  it('has RSKj DetailedProgramTrace fields, no 0x prefixes, numbers for depth/pc/gas/gasCost', async () => {
    const t = await debugTx(callHash)
    expect(Object.keys(t)).toEqual(['contractAddress', 'initStorage', 'structLogs', 'result', 'error', 'reverted', 'storageSize', 'currentStorage'])
    expect(t).toMatchObject({ contractAddress: caller.slice(2), initStorage: {}, result: '', error: '', reverted: false })
    const first = t.structLogs[0]
    expect(Object.keys(first)).toEqual(['op', 'depth', 'pc', 'gas', 'gasCost', 'memory', 'stack', 'storage'])
    expect(first).toEqual({ op: 'PUSH1', depth: 0, pc: 0, gas: first.gas, gasCost: 3, memory: [], stack: [], storage: {} })
    expect(t.structLogs[1]).toMatchObject({ op: 'PUSH1', pc: 2, gas: first.gas - 3, stack: [word(0x80)] })
    const json = JSON.stringify(t.structLogs)
    expect(json).not.toContain('0x')
    // The CALL to Target runs at depth 1 and is followed by Target's code.
    const callAt = t.structLogs.findIndex((o: any) => o.op === 'CALL')
    expect(t.structLogs[callAt].depth).toBe(0)
    expect(t.structLogs[callAt + 1]).toMatchObject({ depth: 1, pc: 0, op: 'PUSH1' })
    expect(t.structLogs.at(-1)).toMatchObject({ op: 'STOP', depth: 0 })
  })

  it('storage shows a slot from the opcode after its SSTORE/SLOAD, per frame; currentStorage is the top frame', async () => {
    const t = await debugTx(callHash)
    const at = t.structLogs.findIndex((o: any) => o.op === 'SSTORE' && o.depth === 1)
    expect(t.structLogs[at].storage).toEqual({})
    expect(t.structLogs[at + 1].storage).toEqual({ [word(0)]: word(5) })
    expect(t.currentStorage).toEqual({})
    // create() writes lastChild (slot 1) in the top frame.
    const c = await debugTx(createHash)
    const child = ci.decodeFunctionResult('create', '0x' + c.result)[0].toLowerCase()
    expect(c.currentStorage).toEqual({ [word(1)]: word(child) })
    expect(c.storageSize).toBe(1)
    expect(c.structLogs.some((o: any) => o.op === 'CREATE')).toBe(true)
  })

  it('disableStack / disableMemory / disableStorage, top level or in tracerConfig, boolean or "true"', async () => {
    const ops = async (opts: unknown) => (await debugTx(callHash, opts)).structLogs[5]
    expect(Object.keys(await ops({ disableStack: true }))).toEqual(['op', 'depth', 'pc', 'gas', 'gasCost', 'memory', 'storage'])
    expect(Object.keys(await ops({ tracerConfig: { disableMemory: 'true' } }))).toEqual(['op', 'depth', 'pc', 'gas', 'gasCost', 'stack', 'storage'])
    expect(Object.keys(await ops({ DisableStorage: 'TRUE', disableStack: 'true', disableMemory: false }))).toEqual(['op', 'depth', 'pc', 'gas', 'gasCost', 'memory'])
    expect(Object.keys(await ops({ disableStack: 'yes', unknownOption: 1 }))).toContain('stack')
  })

  it('a reverted transaction: reverted true, error "", result = the revert data without 0x', async () => {
    const hash = await sendFailing(p, { to: reverter, gas: '0x30000', data: ri.encodeFunctionData('setAndRevert', [1]) })
    const t = await debugTx(hash)
    expect(t.reverted).toBe(true)
    expect(t.error).toBe('')
    expect(t.result).toBe(ri.encodeErrorResult(ri.getError('Error')!, ['reverted after set']).slice(2))
    expect(t.structLogs.at(-1).op).toBe('REVERT')
  })

  it('out of gas: error is RSKj\'s "class <Java exception>: <message>"', async () => {
    const hash = await sendFailing(p, { to: caller, gas: '0x5800', data: ci.encodeFunctionData('callTarget', [target, 1]) })
    const t = await debugTx(hash)
    expect(t.reverted).toBe(false)
    expect(t.error).toMatch(/^class org\.ethereum\.vm\.program\.Program\$OutOfGasException: Not enough gas for '\w+' operation/)
  })

  it('a plain transfer has no struct logs', async () => {
    const r = await send(p, { to: COW1, value: '0x1' })
    expect(await debugTx(r.transactionHash)).toMatchObject({ contractAddress: COW1.slice(2), structLogs: [], result: '', error: '', reverted: false })
  })

  it('unknown transaction → null; bad params → -32602; unknown tracer → -32602', async () => {
    expect(await debugTx('0x' + '12'.repeat(32))).toBeNull()
    // RskTracer.traceTransaction looks the bytes of any hex up as they are (HexUtils.stringHexToByteArray): none → null.
    expect(await debugTx('0x12')).toBeNull()
    await rejects(debugTx(callHash, 'callTracer'), -32602, 'Invalid trace options: expected an object.')
    await rejects(debugTx(callHash, { tracer: '4byteTracer' }), -32602, 'Invalid tracer type: 4byteTracer')
    await rejects(p.request({ method: 'debug_traceTransaction', params: [callHash, {}, 1] }), -32602, 'method parameters invalid')
  })
})

describe('debug_traceTransaction with callTracer', () => {
  it('nested frames in RSKj order, output written as a QUANTITY', async () => {
    const r = (await p.request({ method: 'eth_getTransactionReceipt', params: [callHash] })) as any
    const t = await debugTx(callHash, { tracer: 'callTracer' })
    expect(Object.keys(t)).toEqual(['type', 'from', 'to', 'value', 'gas', 'gasUsed', 'input', 'output', 'calls'])
    expect(t).toMatchObject({ type: 'CALL', from: COW, to: caller, value: '0x0', gas: '0x4c4b40', gasUsed: r.gasUsed, output: '0x0' })
    expect(t.calls).toHaveLength(1)
    expect(t.calls[0]).toMatchObject({ type: 'CALL', from: caller, to: target, input: ti.encodeFunctionData('setValue', [5]), output: '0x0' })
    expect(t.calls[0].calls).toBeUndefined()
    expect(t.logs).toBeUndefined()
  })

  it('a caught revert: error "execution reverted", decoded revertReason, output without leading zeros', async () => {
    const r = await send(p, { to: caller, data: ci.encodeFunctionData('tryRevert', [reverter]) })
    const t = await debugTx(r.transactionHash, { tracer: 'callTracer' })
    const data = ri.encodeErrorResult(ri.getError('Error')!, ['nope'])
    expect(t.calls[0]).toMatchObject({ type: 'STATICCALL', to: reverter, error: 'execution reverted', revertReason: 'nope', output: '0x' + data.slice(3) })
    expect(t.error).toBeUndefined()
  })

  it('DELEGATECALL, CREATE2 and SELFDESTRUCT frames', async () => {
    const d = await debugTx((await send(p, { to: caller, data: ci.encodeFunctionData('delegate', [target, 1]) })).transactionHash, { tracer: 'callTracer' })
    expect(d.calls[0]).toMatchObject({ type: 'DELEGATECALL', from: caller, to: target })
    const c = await debugTx((await send(p, { to: caller, data: ci.encodeFunctionData('create2', ['0x' + '22'.repeat(32)]) })).transactionHash, { tracer: 'callTracer' })
    expect(c.calls[0].type).toBe('CREATE')
    expect(c.calls[0].output).toMatch(/^0x[0-9a-f]{40}$/)
    expect(c.calls[0].to).toBeUndefined()
    const victim = await deploy(p, Caller)
    const s = await debugTx((await send(p, { to: victim, data: ci.encodeFunctionData('destroy', [COW1]) })).transactionHash, { tracer: 'callTracer' })
    expect(s.calls).toEqual([{ type: 'SELFDESTRUCT', from: victim, to: COW1, value: '0x0' }])
  })

  it('withLog adds logs (block-wide index); onlyTopCall drops the calls', async () => {
    const t = await debugTx(callHash, { tracer: 'callTracer', tracerConfig: { withLog: true } })
    const log = { index: 0, address: target, topics: [ti.getEvent('ValueSet')!.topicHash, '0x' + word(caller)], data: '0x' + word(5) }
    expect(t.logs).toEqual([log])
    expect(t.calls[0].logs).toEqual([log])
    const top = await debugTx(callHash, { tracer: 'CALLTRACER', onlyTopCall: 'true' })
    expect(top.calls).toBeUndefined()
  })

  it('a top-level revert carries the reason', async () => {
    const hash = await sendFailing(p, { to: reverter, gas: '0x30000', data: ri.encodeFunctionData('setAndRevert', [1]) })
    expect(await debugTx(hash, { tracer: 'callTracer' })).toMatchObject({ error: 'execution reverted', revertReason: 'reverted after set' })
  })

  it('unknown transaction → -32603 (RSKj CallTracer throws)', async () => {
    await rejects(debugTx('0x' + '12'.repeat(32), { tracer: 'callTracer' }), -32603, /^No transaction info for 0x1212/)
  })
})

describe('the parameters as RSKj reads them', () => {
  it('debug_traceBlockByNumber hands its string to Web3InformationRetriever.getBlock (76-105) as it is: lower-case tags only, signed and wrapping numbers', async () => {
    const block = (id: unknown) => p.request({ method: 'debug_traceBlockByNumber', params: [id, { tracer: 'callTracer' }] })
    const one = await block('0x1')
    expect(one).toHaveLength(2)
    // The tags are a `switch` (79-88): LATEST is read as a number (getBlockNumber, 149-157): NumberFormatException.
    await rejects(block('LATEST'), -32602, 'invalid blocknumber LATEST')
    // HexUtils.stringHexToBigInteger(id).longValue() (152): a sign, and the low 64 bits; -1 names no block → null.
    expect(await block('0x+1')).toEqual(one)
    expect(await block('0x10000000000000001')).toEqual(one)
    expect(await block('0x-1')).toBeNull()
    // 64 to 66 characters of hex are a hash (90-96), 32 bytes once padded, else `invalid block hash`; longer text is
    // no identifier (97-100), quoted by co/rsk/util/StringUtils.trim: its first 66 characters and `...`.
    await rejects(block('1'.repeat(65)), -32602, `invalid block hash ${'1'.repeat(65)}`)
    await rejects(block('0x' + '1'.repeat(65)), -32602, `invalid block identifier 0x${'1'.repeat(64)}...`)
  })

  it('the transaction hash is read with HexUtils.stringHexToByteArray: another length finds no transaction (RskTracer: null, CallTracer: No transaction info)', async () => {
    expect(await debugTx('0x1234')).toBeNull()
    await rejects(debugTx('0x1234', { tracer: 'callTracer' }), -32603, 'No transaction info for 0x1234')
    await rejects(debugTx('0xzz'), -32602, 'Invalid transaction hash format: invalid hex value')
  })

  it('options given as JSON null: no DebugTracerParam, and Web3DebugModule calls getTraceOptions() on it (NullPointerException, -32603 in RSKj; -32602 here)', async () => {
    await rejects(debugTx(callHash, null), -32602, 'Invalid trace options: expected an object.')
    const head = await p.request({ method: 'eth_blockNumber', params: [] })
    await rejects(p.request({ method: 'debug_traceBlockByNumber', params: [head, null] }), -32602, 'Invalid trace options: expected an object.')
  })
})

describe('block variants', () => {
  it('two transactions in one block: struct traces array and [{txHash, result}] with block-wide log indexes', async () => {
    await p.request({ method: 'evm_stopMining', params: [] })
    const h1 = await p.request({ method: 'eth_sendTransaction', params: [{ from: COW, to: target, gas: '0x100000', data: ti.encodeFunctionData('setValue', [7]) }] })
    const h2 = await p.request({ method: 'eth_sendTransaction', params: [{ from: COW, to: caller, gas: '0x100000', data: ci.encodeFunctionData('callTarget', [target, 8]) }] })
    await p.request({ method: 'evm_mine', params: [] })
    await p.request({ method: 'evm_startMining', params: [] })
    const block = (await p.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as any
    // The third transaction is REMASC's (reference §2.2); RSKj traces it too (RskTracer/CallTracer.traceBlock),
    // in its own shapes (test/remasc_trace.test.ts).
    expect(block.transactions.slice(0, 2)).toEqual([h1, h2])
    expect(block.transactions).toHaveLength(3)
    const remasc = block.transactions[2]

    const structs = (await p.request({ method: 'debug_traceBlockByNumber', params: [block.number] })) as any[]
    expect(structs.map((s) => s.contractAddress)).toEqual([target.slice(2), caller.slice(2), undefined])
    expect(structs[2]).toEqual(await debugTx(remasc))
    expect(structs[1]).toEqual(await debugTx(h2 as string))
    expect(await p.request({ method: 'debug_traceBlockByHash', params: [block.hash] })).toEqual(structs)

    const calls = (await p.request({ method: 'debug_traceBlockByHash', params: [block.hash, { tracer: 'callTracer', withLog: true }] })) as any[]
    expect(calls.map((c) => [c.txHash, Object.keys(c)])).toEqual([
      [h1, ['txHash', 'result']],
      [h2, ['txHash', 'result']],
      [remasc, ['txHash', 'result']],
    ])
    expect(calls[0].result.logs[0].index).toBe(0)
    expect(calls[1].result.logs[0].index).toBe(1)
    expect(calls[1].result.calls[0].logs[0].index).toBe(1)
  })

  it('genesis → []; unknown → null; bad ids → -32602', async () => {
    expect(await p.request({ method: 'debug_traceBlockByNumber', params: ['earliest'] })).toEqual([])
    expect(await p.request({ method: 'debug_traceBlockByNumber', params: ['0x0', { tracer: 'callTracer' }] })).toEqual([])
    expect(await p.request({ method: 'debug_traceBlockByNumber', params: ['0xfff'] })).toBeNull()
    expect(await p.request({ method: 'debug_traceBlockByHash', params: ['0x' + 'ee'.repeat(32), { tracer: 'callTracer' }] })).toBeNull()
    await rejects(p.request({ method: 'debug_traceBlockByNumber', params: ['bogus'] }), -32602, 'invalid blocknumber bogus')
    await rejects(p.request({ method: 'debug_traceBlockByHash', params: ['0x12'] }), -32602, 'Invalid block hash: incorrect length.')
  })
})

describe("a call-family opcode's gasCost: its own charge plus the callee's gas (RSKj VM.getMessageCall)", () => {
  // Caller runtime: out 0/0, in 0/0, `value`, PUSH20 `to`, PUSH2 10,000 (the gas asked), `op`, STOP.
  const callerCode = (op: string, to: string, value: boolean) =>
    '6000600060006000' + (op === 'f1' || op === 'f2' ? (value ? '6001' : '6000') : '') + '73' + to.slice(2) + '612710' + op + '00'
  async function callCost(op: string, to: string, value = false): Promise<number> {
    const c = await deployCode(p, callerCode(op, to, value), value ? '0x10' : '0x0')
    const hash = (await send(p, { to: c })).transactionHash
    const ops = (await debugTx(hash)).structLogs as { op: string; gasCost: number }[]
    return ops.find((o) => o.op === { f1: 'CALL', f2: 'CALLCODE', f4: 'DELEGATECALL', fa: 'STATICCALL' }[op])!.gasCost
  }

  it('CALL: 700 + the 10,000 asked; with value 700 + 9,000 + 10,000 + the 2,300 stipend; to a missing account 25,000 more', async () => {
    const stop = await deployCode(p, '00')
    expect(await callCost('f1', stop)).toBe(700 + 10_000)
    expect(await callCost('f1', stop, true)).toBe(700 + 9_000 + 10_000 + 2_300)
    expect(await callCost('f1', '0x' + 'ab'.repeat(20))).toBe(700 + 25_000 + 10_000)
  })

  it('the same through viem (custom transport): CALL 700 + 10,000', async () => {
    const stop = await deployCode(p, '00')
    const c = await deployCode(p, callerCode('f1', stop, false))
    const hash = (await send(p, { to: c })).transactionHash
    const client = createPublicClient({ transport: custom(p as unknown as EIP1193Provider) })
    const trace = (await client.request({ method: 'debug_traceTransaction' as never, params: [hash] as never })) as { structLogs: { op: string; gasCost: number }[] }
    expect(trace.structLogs.find((o) => o.op === 'CALL')!.gasCost).toBe(10_700)
  })

  it('CALLCODE, DELEGATECALL and STATICCALL: 700 + the 10,000 asked (CALLCODE with value: + 9,000 + 2,300)', async () => {
    const stop = await deployCode(p, '00')
    expect(await callCost('f2', stop, true)).toBe(700 + 9_000 + 10_000 + 2_300)
    expect(await callCost('f4', stop)).toBe(700 + 10_000)
    expect(await callCost('fa', stop)).toBe(700 + 10_000)
  })
})

describe('through viem and the small debug methods', () => {
  it('viem custom transport sends debug_traceTransaction; debug_wireProtocolQueueSize is 0x0', async () => {
    const client = createPublicClient({ transport: custom(p as unknown as EIP1193Provider) })
    const t = (await client.request({ method: 'debug_traceTransaction' as never, params: [callHash, { tracer: 'callTracer' }] as never })) as any
    expect(t.calls[0].to).toBe(target)
    expect(await client.request({ method: 'debug_wireProtocolQueueSize' as never })).toBe('0x0')
  })
})
