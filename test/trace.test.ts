/**
 * trace_transaction, trace_block, trace_filter: Parity-style traces (reference §3.7) over the Caller fixture,
 * which calls, delegatecalls, staticcalls, creates, create2s, catches a revert, pays and self-destructs.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { Interface, getCreate2Address, keccak256 } from 'ethers'
import type { Provider } from '../src/index.js'
import { COW, COW1, deploy, fresh, rejects, send, sendFailing as sendFailingAs, useHttpServer } from './helpers.js'
import { Caller, Child, Reverter, Target } from './fixtures/index.js'

const ci = new Interface(Caller.abi as never)
const ti = new Interface(Target.abi as never)
const ri = new Interface(Reverter.abi as never)
const SALT = '0x' + '11'.repeat(32)

let p: Provider
let caller: string
let target: string
let reverter: string
let deployHash: string

const trace = (hash: string) => p.request({ method: 'trace_transaction', params: [hash] }) as Promise<any[]>
const call = async (data: string, extra: Record<string, unknown> = {}) => trace((await send(p, { to: caller, data, ...extra })).transactionHash)
/** Sends a transaction that fails: asserts the -32015 automine answers and returns the hash ethers computed. */
const sendFailing = (tx: Record<string, unknown>) => sendFailingAs(p, tx)

beforeAll(async () => {
  p = await fresh()
  const receipt = await send(p, { data: Caller.bytecode })
  caller = receipt.contractAddress
  deployHash = receipt.transactionHash
  target = await deploy(p, Target)
  reverter = await deploy(p, Reverter)
})

describe('trace_transaction', () => {
  it('CALL → CALL: two traces in RSKj key order, numbers as JSON numbers, traceAddress and subtraces', async () => {
    const r = await send(p, { to: caller, data: ci.encodeFunctionData('callTarget', [target, 5]) })
    const traces = await trace(r.transactionHash)
    expect(traces).toHaveLength(2)
    const [top, sub] = traces
    expect(Object.keys(top)).toEqual(['action', 'blockHash', 'blockNumber', 'transactionHash', 'transactionPosition', 'type', 'subtraces', 'traceAddress', 'result'])
    expect(Object.keys(top.action)).toEqual(['callType', 'from', 'to', 'gas', 'input', 'value'])
    expect(top).toMatchObject({
      blockHash: r.blockHash,
      blockNumber: Number(r.blockNumber),
      transactionHash: r.transactionHash,
      transactionPosition: 0,
      type: 'call',
      subtraces: 1,
      traceAddress: [],
      action: { callType: 'call', from: COW, to: caller, gas: '0x4c4b40', value: '0x0', input: ci.encodeFunctionData('callTarget', [target, 5]) },
      result: { gasUsed: r.gasUsed, output: '0x' },
    })
    expect(sub).toMatchObject({
      type: 'call',
      subtraces: 0,
      traceAddress: [0],
      action: { callType: 'call', from: caller, to: target, value: '0x0', input: ti.encodeFunctionData('setValue', [5]) },
      result: { output: '0x' },
    })
    expect(BigInt(sub.result.gasUsed)).toBeGreaterThan(20_000n) // the SSTORE of a fresh slot
    expect(BigInt(sub.action.gas)).toBeLessThan(BigInt(top.action.gas))
  })

  it('DELEGATECALL: from = the delegating contract, to = the code; the write lands in the caller', async () => {
    const [, sub] = await call(ci.encodeFunctionData('delegate', [target, 9]))
    expect(sub.action).toMatchObject({ callType: 'delegatecall', from: caller, to: target })
    expect(await p.request({ method: 'eth_getStorageAt', params: [caller, '0x0', 'latest'] })).toBe('0x' + '9'.padStart(64, '0'))
  })

  it('STATICCALL with its output', async () => {
    await send(p, { to: target, data: ti.encodeFunctionData('setValue', [42]) })
    const [top, sub] = await call(ci.encodeFunctionData('peek', [target]))
    expect(sub.action).toMatchObject({ callType: 'staticcall', from: caller, to: target, input: ti.encodeFunctionData('value') })
    expect(sub.result.output).toBe('0x' + (42).toString(16).padStart(64, '0'))
    expect(top.result.output).toBe(sub.result.output)
  })

  it('CREATE and CREATE2: create traces with creationMethod, init, code and address', async () => {
    const [, created] = await call(ci.encodeFunctionData('create'))
    const child = ci.decodeFunctionResult('lastChild', (await p.request({ method: 'eth_call', params: [{ to: caller, data: ci.encodeFunctionData('lastChild') }, 'latest'] })) as string)[0].toLowerCase()
    expect(Object.keys(created.action)).toEqual(['from', 'gas', 'init', 'value', 'creationMethod'])
    expect(created).toMatchObject({ type: 'create', traceAddress: [0], action: { from: caller, init: Child.bytecode, value: '0x0', creationMethod: 'create' } })
    expect(Object.keys(created.result)).toEqual(['gasUsed', 'code', 'address'])
    expect(created.result.address).toBe(child)
    expect(created.result.code).toBe(await p.request({ method: 'eth_getCode', params: [child, 'latest'] }))

    const [top2, created2] = await call(ci.encodeFunctionData('create2', [SALT]))
    const expected = getCreate2Address(caller, SALT, keccak256(Child.bytecode)).toLowerCase()
    expect(created2.action).toMatchObject({ creationMethod: 'create2', init: Child.bytecode })
    expect(created2.result.address).toBe(expected)
    expect(top2.result.output).toBe('0x' + expected.slice(2).padStart(64, '0'))
  })

  it('a caught revert: the inner frame has error "Reverted" and result null; the outer one succeeds', async () => {
    const [top, sub] = await call(ci.encodeFunctionData('tryRevert', [reverter]))
    expect(sub).toMatchObject({ type: 'call', action: { callType: 'staticcall', to: reverter }, result: null, error: 'Reverted' })
    expect(top.error).toBeUndefined()
    expect(top.result.output).toContain(ri.encodeErrorResult(ri.getError('Error')!, ['nope']).slice(2))
  })

  it('a value transfer to an account without code is a call trace with the value', async () => {
    const [top, sub] = await call(ci.encodeFunctionData('pay', [COW1]), { value: '0x3e8' })
    expect(top.action.value).toBe('0x3e8')
    expect(sub).toMatchObject({ type: 'call', action: { callType: 'call', from: caller, to: COW1, value: '0x3e8', input: '0x' }, result: { gasUsed: '0x0', output: '0x' } })
  })

  it('SELFDESTRUCT: a suicide trace with address, refundAddress, balance and result null', async () => {
    const victim = (await send(p, { data: Caller.bytecode })).contractAddress
    await send(p, { to: victim, value: '0x64' })
    const traces = await trace((await send(p, { to: victim, data: ci.encodeFunctionData('destroy', [COW1]) })).transactionHash)
    expect(traces[1]).toMatchObject({ type: 'suicide', traceAddress: [0], subtraces: 0, result: null, action: { address: victim, refundAddress: COW1, balance: '0x64' } })
    expect(Object.keys(traces[1].action)).toEqual(['address', 'refundAddress', 'balance'])
  })

  it('a top-level creation is a create trace without creationMethod', async () => {
    const [top] = await trace(deployHash)
    expect(top).toMatchObject({ type: 'create', action: { from: COW, init: Caller.bytecode, value: '0x0' }, result: { address: caller } })
    expect(top.action.creationMethod).toBeUndefined()
    expect(top.result.code).toBe(await p.request({ method: 'eth_getCode', params: [caller, 'latest'] }))
  })

  it('a plain transfer: gas 0x0 (RSKj TransferInvoke), empty input and output', async () => {
    const r = await send(p, { to: COW1, value: '0x1' })
    expect(await trace(r.transactionHash)).toEqual([
      expect.objectContaining({ action: { callType: 'call', from: COW, to: COW1, gas: '0x0', input: '0x', value: '0x1' }, result: { gasUsed: '0x5208', output: '0x' }, subtraces: 0 }),
    ])
  })

  it('a reverted transaction: error "Reverted", result null', async () => {
    const hash = await sendFailing({ to: reverter, gas: '0x30000', data: ri.encodeFunctionData('setAndRevert', [1]) })
    const [top] = await trace(hash)
    expect(top).toMatchObject({ error: 'Reverted', result: null, transactionHash: hash })
  })

  it('an out-of-gas transaction: the Java exception text of RSKj', async () => {
    const hash = await sendFailing({ to: caller, gas: '0x5800', data: ci.encodeFunctionData('callTarget', [target, 1]) })
    const [top] = await trace(hash)
    expect(top.result).toBeNull()
    expect(top.error).toMatch(/^class org\.ethereum\.vm\.program\.Program\$OutOfGasException: Not enough gas for '\w+' operation executing: opGas\[\d+\], programGas\[\d+\], tx\[0x[0-9a-f]{64}\]$/)
  })

  it('unknown transaction → null; bad hash → -32602', async () => {
    expect(await trace('0x' + 'ab'.repeat(32))).toBeNull()
    // RSKj reads the String with HexUtils.stringHexToByteArray (TraceModuleImpl.java 91) and looks those bytes up
    // (receipt store: none for 2 bytes, 92-97): null. Odd digits are left-padded, so 63 digits are a 32-byte hash.
    expect(await trace('0x1234')).toBeNull()
    expect(await trace('0x')).toBeNull()
    expect(await trace('0x' + deployHash.slice(3))).toBeNull() // 0x0 + 63 digits: not the deployment's hash
    // Non-hex text: Hex.decode throws (-32603 in RSKj); rsksim answers -32602.
    await rejects(trace('0xzz'), -32602, 'Invalid transaction hash format: invalid hex value')
    await rejects(p.request({ method: 'trace_transaction', params: [] }), -32602, 'method parameters invalid')
  })
})

describe('trace_block', () => {
  it('by number, hex tag, latest and hash give the same traces; genesis [] ; unknown null', async () => {
    const r = await send(p, { to: caller, data: ci.encodeFunctionData('callTarget', [target, 3]) })
    const byHash = (await p.request({ method: 'trace_block', params: [r.blockHash] })) as any[]
    // Every transaction is traced, the block's closing REMASC transaction included (TraceModuleImpl.buildBlockTraces).
    const remasc = ((await p.request({ method: 'eth_getBlockByHash', params: [r.blockHash, false] })) as any).transactions[1]
    const own = byHash.filter((t) => t.transactionHash === r.transactionHash)
    expect(own).toEqual(await trace(r.transactionHash))
    const rest = byHash.slice(own.length)
    expect(rest[0]).toMatchObject({ transactionHash: remasc, transactionPosition: 1, traceAddress: [], subtraces: rest.length - 1 })
    expect(rest.every((t) => t.transactionHash === remasc)).toBe(true)
    expect(await p.request({ method: 'trace_block', params: [r.blockNumber] })).toEqual(byHash)
    expect(await p.request({ method: 'trace_block', params: ['latest'] })).toEqual(byHash)
    expect(await p.request({ method: 'trace_block', params: ['earliest'] })).toEqual([])
    expect(await p.request({ method: 'trace_block', params: ['0x' + 'cd'.repeat(32)] })).toBeNull()
    expect(await p.request({ method: 'trace_block', params: ['0xffff'] })).toBeNull()
    await rejects(p.request({ method: 'trace_block', params: ['10'] }), -32602, 'invalid blocknumber 10')
    await rejects(p.request({ method: 'trace_block', params: [7] }), -32602, 'invalid blocknumber 7')
  })

  it('traces every transaction of a block, with positions and block-wide order', async () => {
    await p.request({ method: 'evm_stopMining', params: [] })
    const h1 = await p.request({ method: 'eth_sendTransaction', params: [{ from: COW, to: COW1, value: '0x2' }] })
    const h2 = await p.request({ method: 'eth_sendTransaction', params: [{ from: COW, to: caller, gas: '0x100000', data: ci.encodeFunctionData('callTarget', [target, 8]) }] })
    await p.request({ method: 'evm_mine', params: [] })
    await p.request({ method: 'evm_startMining', params: [] })
    const traces = (await p.request({ method: 'trace_block', params: ['latest'] })) as any[]
    const remasc = ((await p.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as any).transactions[2]
    // REMASC's trace comes last, with one subtrace per fee payment it made (test/remasc_trace.test.ts).
    expect(traces.map((t) => [t.transactionHash, t.transactionPosition, t.traceAddress]).slice(0, 4)).toEqual([
      [h1, 0, []],
      [h2, 1, []],
      [h2, 1, [0]],
      [remasc, 2, []],
    ])
    expect(traces.slice(4).every((t) => t.transactionHash === remasc && t.traceAddress.length === 1)).toBe(true)
  })
})

describe('trace_block ids (TraceModuleImpl.getByJsonBlockId, 220-235)', () => {
  it('a number is HexUtils.stringHexToBigInteger(id).longValue(): a sign is read, a number past a long keeps its low 64 bits, a negative one names no block (null)', async () => {
    const one = await p.request({ method: 'trace_block', params: ['0x1'] })
    expect(await p.request({ method: 'trace_block', params: ['0x+1'] })).toEqual(one)
    // 19 characters: still an id (< 20, line 207), not a hash.
    expect(await p.request({ method: 'trace_block', params: ['0x10000000000000001'] })).toEqual(one)
    // 0x10000000000000000 is block 0: genesis, no traces (buildBlockTraces, 244).
    expect(await p.request({ method: 'trace_block', params: ['0x10000000000000000'] })).toEqual([])
    expect(await p.request({ method: 'trace_block', params: ['0x-1'] })).toBeNull()
    expect(await p.request({ method: 'trace_block', params: ['0xffffffffffffffff'] })).toBeNull()
  })
})

describe('block hashes read as RSKj reads a String (HexUtils.stringHexToByteArray, then Keccak256 wants 32 bytes)', () => {
  it('trace_block and debug_traceBlockByHash: a hash missing its first (zero) digit is left-padded back to the block\'s', async () => {
    const q = await fresh()
    let block: any
    // Mine until a block's hash begins with a zero digit (1 in 16).
    for (let i = 0; i < 400 && !block?.hash.startsWith('0x0'); i++) {
      await q.request({ method: 'evm_mine', params: [] })
      block = await q.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })
    }
    expect(block.hash.startsWith('0x0')).toBe(true)
    const short = '0x' + block.hash.slice(3) // 63 digits: 65 characters, so a hash for trace_block (≥ 20, line 207)
    const traces = await q.request({ method: 'trace_block', params: [block.hash] })
    expect((traces as any[]).length).toBeGreaterThan(0)
    expect(await q.request({ method: 'trace_block', params: [short] })).toEqual(traces)
    const calls = await q.request({ method: 'debug_traceBlockByHash', params: [block.hash, { tracer: 'callTracer' }] })
    expect(await q.request({ method: 'debug_traceBlockByHash', params: [short, { tracer: 'callTracer' }] })).toEqual(calls)
    // Another length is Keccak256's IllegalArgumentException in RSKj (-32603); -32602 here.
    await rejects(q.request({ method: 'trace_block', params: ['0x' + '12'.repeat(20)] }), -32602, 'Invalid block hash: incorrect length.')
    await rejects(q.request({ method: 'debug_traceBlockByHash', params: ['0x1234'] }), -32602, 'Invalid block hash: incorrect length.')
  })
})

describe('trace_filter', () => {
  it('filters by sender and recipient, pages with after/count', async () => {
    const all = (await p.request({ method: 'trace_filter', params: [{}] })) as any[]
    expect(all.length).toBeGreaterThan(10)
    expect(all[0].blockNumber).toBe(1)
    const toTarget = (await p.request({ method: 'trace_filter', params: [{ toAddress: [target] }] })) as any[]
    expect(toTarget.length).toBeGreaterThan(0)
    for (const t of toTarget) expect(t.action.to === target || t.traceAddress.length > 0).toBe(true)
    const fromCow1 = await p.request({ method: 'trace_filter', params: [{ fromAddress: [COW1] }] })
    expect(fromCow1).toEqual([])
    const page = await p.request({ method: 'trace_filter', params: [{ after: 2, count: 3 }] })
    expect(page).toEqual(all.slice(2, 5))
    const range = (await p.request({ method: 'trace_filter', params: [{ fromBlock: '0x4', toBlock: '0x4' }] })) as any[]
    expect(range.every((t) => t.blockNumber === 4)).toBe(true)
    expect(range.length).toBeGreaterThan(0)
    expect(await p.request({ method: 'trace_filter', params: [{ fromBlock: '0xffff' }] })).toEqual([])
  })

  it('bad requests answer -32602 with RSKj texts', async () => {
    const f = (o: unknown) => p.request({ method: 'trace_filter', params: [o] })
    await rejects(f({ count: 10001 }), -32602, 'Count value too big. Maximum 10000 traces allowed.')
    await rejects(f({ after: -1 }), -32602, 'After value cannot be negative.')
    await rejects(f({ after: 10001 }), -32602, 'After value too big. Maximum 10000 traces allowed.')
    await rejects(f({ fromBlock: '0x5', toBlock: '0x2' }), -32602, 'fromBlock cannot be greater than toBlock')
    await rejects(f({ fromBlock: 'safe' }), -32602, 'invalid blocknumber safe')
    // RSKj: RskAddress's InvalidRskAddressException, RskErrorResolver's text with argument 0 (the object) as "".
    await rejects(f({ fromAddress: ['0x12'] }), -32602, 'invalid argument 0: hex string has length 0, want 40 for RSK address')
    await rejects(f({ limit: 1 }), -32602, /^Unrecognized field "limit"/)
    await rejects(f({ count: '0x5' }), -32602, /count/)
    await rejects(f('latest'), -32602, 'Invalid trace_filter parameters.')
  })
})

describe('over HTTP with ethers JsonRpcProvider', () => {
  const http = useHttpServer()

  it('trace_transaction and trace_block through a real client', async () => {
    const { rpc: client } = http
    const signer = await client.getSigner(COW)
    const deployed = await signer.sendTransaction({ data: Caller.bytecode, gasLimit: 3_000_000 })
    const c = (await deployed.wait())!.contractAddress!.toLowerCase()
    const tx = await signer.sendTransaction({ to: c, data: ci.encodeFunctionData('create'), gasLimit: 1_000_000 })
    const receipt = (await tx.wait())!
    const traces = await client.send('trace_transaction', [tx.hash])
    expect(traces.map((t: any) => t.type)).toEqual(['call', 'create'])
    expect(traces[1].action.from).toBe(c)
    expect(traces[0].blockNumber).toBe(receipt.blockNumber)
    // trace_block adds the block's REMASC transaction after it (TraceModuleImpl.buildBlockTraces).
    expect((await client.send('trace_block', [receipt.blockHash])).filter((t: any) => t.transactionHash === tx.hash)).toEqual(traces)
    // trace_filter's bounds as RSKj reads them (TraceModuleImpl 147-157, HexUtils 72-78): a signed number, and the
    // REMASC transaction (sender 0x0…0) never matching fromAddress.
    const n = '0x' + receipt.blockNumber.toString(16)
    const inBlock = await client.send('trace_filter', [{ fromBlock: n, toBlock: n }])
    expect(inBlock.map((t: any) => t.action.to)).toEqual([c, undefined, '0x0000000000000000000000000000000001000008'])
    expect(await client.send('trace_filter', [{ fromBlock: '0x-1', toBlock: n }])).toEqual([])
    expect(await client.send('trace_filter', [{ fromBlock: n, toBlock: n, fromAddress: ['0x0000000000000000000000000000000000000000'] }])).toEqual([])
    client.destroy()
  })
})
