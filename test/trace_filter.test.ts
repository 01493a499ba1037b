/**
 * trace_filter's parameters as RSKj reads them (VETIVER-9.0.3; paths under rskj-core/src/main/java/):
 * `co/rsk/rpc/modules/trace/TraceModuleImpl.java` (traceFilter 135-183, buildBlockTraces 241-288,
 * getBlockByTagOrNumber 290-301), `TraceFilterRequest.java`, `co/rsk/util/HexUtils.java` (stringHexToBigInteger
 * 72-78, stringHexToByteArray 83-91), `co/rsk/core/RskAddress.java`, `org/ethereum/rpc/exception/RskErrorResolver.java`.
 * Each expected answer below is what those lines give; the chain: block 1 a transfer from cow to ALICE, block 2 one to
 * BOB, each block ending with its REMASC transaction (one trace each: no fees to pay yet).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import type { Provider } from '../src/index.js'
import { COW, fresh, rejects, rq, send } from './helpers.js'

const ALICE = '0x' + 'a1'.repeat(20)
const BOB = '0x' + 'b0'.repeat(20)
const REMASC = '0x0000000000000000000000000000000001000008'

let p: Provider
let block1: any[]
let block2: any[]
const filter = (o: Record<string, unknown>): Promise<any[]> => rq(p, 'trace_filter', [o])

beforeAll(async () => {
  p = await fresh()
  await send(p, { to: ALICE, value: '0x1' })
  await send(p, { to: BOB, value: '0x1' })
  block1 = await rq(p, 'trace_block', ['0x1'])
  block2 = await rq(p, 'trace_block', ['0x2'])
  // The fixture as described: a transfer and REMASC's trace in each block.
  expect(block1.map((t) => t.action.to)).toEqual([ALICE, REMASC])
  expect(block2.map((t) => t.action.to)).toEqual([BOB, REMASC])
})

describe('trace_filter block bounds: HexUtils.stringHexToBigInteger(..).longValue() (TraceModuleImpl.java 298)', () => {
  it('a signed number: 0x+1 is block 1; 0x-1 names no block, so as fromBlock [] (the walk never starts, 151-157) and as toBlock the best block (147)', async () => {
    // Java's BigInteger(String, 16) takes a leading sign (HexUtils.java 76-77).
    expect(await filter({ fromBlock: '0x+1', toBlock: '0x+1' })).toEqual(block1)
    // getChainBlockByNumber(-1) finds no block: fromBlock null → no range check (324) and no walk.
    expect(await filter({ fromBlock: '0x-1', toBlock: '0x1' })).toEqual([])
    // toBlock null → no range check, then the best block (147): blocks 1 and 2.
    expect(await filter({ fromBlock: '0x1', toBlock: '0x-1' })).toEqual([...block1, ...block2])
  })

  it('a number past a long keeps its low 64 bits (longValue): 0x10000000000000002 is block 2, 0xffffffffffffffff is -1', async () => {
    expect(await filter({ fromBlock: '0x10000000000000002' })).toEqual(block2)
    expect(await filter({ fromBlock: '0x1', toBlock: '0x10000000000000001' })).toEqual(block1)
    expect(await filter({ fromBlock: '0xffffffffffffffff' })).toEqual([])
    // 0x10000000000000000 is block 0 (genesis): from genesis to block 1; genesis has no traces (244).
    expect(await filter({ toBlock: '0x10000000000000001', fromBlock: '0x10000000000000000' })).toEqual(block1)
  })

  it('an explicit null bound: RSKj calls null.equalsIgnoreCase (291), -32603; rsksim answers -32602', async () => {
    await rejects(filter({ fromBlock: null }), -32602, 'invalid blocknumber null')
    await rejects(filter({ toBlock: null }), -32602, 'invalid blocknumber null')
  })
})

describe('trace_filter addresses (buildBlockTraces 254-262, new RskAddress(String))', () => {
  it('the REMASC transaction never matches fromAddress, not even 0x0…0 (its sender is an RskAddress subclass; equals compares classes)', async () => {
    expect(await filter({ fromAddress: ['0x' + '00'.repeat(20)] })).toEqual([])
    expect(await filter({ fromAddress: [COW, '0x' + '00'.repeat(20)] })).toEqual([block1[0], block2[0]])
    // As a recipient REMASC matches (getReceiveAddress is a plain RskAddress).
    expect(await filter({ toAddress: [REMASC] })).toEqual([block1[1], block2[1]])
  })

  it('HexUtils.stringHexToByteArray: no 0x, and 39 digits (left-padded with a 0), are addresses', async () => {
    expect(await filter({ fromAddress: [COW.slice(2).toUpperCase()] })).toEqual([block1[0], block2[0]])
    const alice39 = '0x' + ALICE.slice(3) // a1a1…a1 without its first digit: 0x0 + 1a1…, not ALICE
    expect(alice39.length).toBe(41)
    expect(await filter({ toAddress: [alice39] })).toEqual([])
    expect(REMASC).toBe('0x' + '0'.repeat(33) + '1000008')
    const zero39 = '0x' + '0'.repeat(32) + '1000008' // REMASC's address, 39 digits
    expect(await filter({ toAddress: [zero39] })).toEqual([block1[1], block2[1]])
  })

  it('another length: InvalidRskAddressException, which RskErrorResolver answers -32602 with the length of argument 0\'s text (the filter object: 0)', async () => {
    await rejects(filter({ fromAddress: ['0x12'] }), -32602, 'invalid argument 0: hex string has length 0, want 40 for RSK address')
    await rejects(filter({ toAddress: [COW + '00'] }), -32602, 'invalid argument 0: hex string has length 0, want 40 for RSK address')
  })
})

describe('trace_filter: what RSKj reads first', () => {
  it('the bounds and the range check before the addresses (traceFilter 142-145; buildBlockTraces reads the addresses while walking, 254-262)', async () => {
    await rejects(filter({ fromBlock: 'safe', fromAddress: ['0x12'] }), -32602, 'invalid blocknumber safe')
    await rejects(filter({ fromBlock: '0x2', toBlock: '0x1', toAddress: ['0x12'] }), -32602, 'fromBlock cannot be greater than toBlock')
    await rejects(filter({ fromBlock: '0x1', toBlock: '0x2', toAddress: ['0x12'] }), -32602, 'invalid argument 0: hex string has length 0, want 40 for RSK address')
  })

  it('a negative count is not checked before the walk (validateTraceFilterRequest 303-321): after\'s checks, the bounds, the range and the addresses come first', async () => {
    await rejects(filter({ count: -1, after: -1 }), -32602, 'After value cannot be negative.')
    await rejects(filter({ count: -1, after: 10001 }), -32602, 'After value too big. Maximum 10000 traces allowed.')
    await rejects(filter({ count: -1, fromBlock: '0x2', toBlock: '0x1' }), -32602, 'fromBlock cannot be greater than toBlock')
    await rejects(filter({ count: -1, fromBlock: '0x1', fromAddress: ['0x12'] }), -32602, 'invalid argument 0: hex string has length 0, want 40 for RSK address')
    // Where RSKj's subList would throw (-32603), rsksim's -32602.
    await rejects(filter({ count: -1, fromBlock: '0x1' }), -32602, 'Count value cannot be negative.')
  })
})

describe('trace_filter after/count as Jackson reads an Integer', () => {
  it('a JSON number with a fraction is truncated toward zero (ACCEPT_FLOAT_AS_INT, on by default)', async () => {
    expect(await filter({ count: 1.9 })).toEqual([block1[0]])
    expect(await filter({ after: 2.5, count: 1.2 })).toEqual([block2[0]])
  })
})
