/**
 * The REMASC system transaction in traces, as RSKj builds them: REMASC is a precompiled contract, so
 * `org/ethereum/core/TransactionExecutor.extractTrace` makes a `SummarizedProgramTrace` over
 * `TransferInvoke(sender 0x0…0, REMASC, gas 0, value 0, data)` with the precompile's subtraces, one CALL per fee
 * payment (`co/rsk/remasc/RemascFeesPayer.transferPayment`: `TransferInvoke(REMASC, payee, gas 0, amount)`, empty
 * `ProgramResult`); `co/rsk/rpc/modules/trace/TraceTransformer` prints it (receipt gas used for the top frame, the
 * transaction's input on every CALL action, `toUnformattedJsonHex` of an empty result = "0x");
 * `TraceModuleImpl.buildBlockTraces` traces every transaction of the block, REMASC's included.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { decodeRlp, keccak256, toBeHex } from 'ethers'
import type { Provider } from '../src/index.js'
import { COW1, fresh, send, rq } from './helpers.js'

const REMASC = '0x0000000000000000000000000000000001000008'
const ZERO = '0x0000000000000000000000000000000000000000'
/** RSKj's unsigned REMASC encoding [nonce, 0x00, 0x00, REMASC, 0x80 × 5] (RemascTransaction), for its hash. */
const remascHash = (nonceRlp: string) => keccak256('0xdd' + nonceRlp + '0000' + '94' + REMASC.slice(2) + '8080808080')

/** The top trace RSKj prints for the REMASC transaction at `position` of a block. */
const remascTop = (block: any, position: number, hash: string, subtraces: number) => ({
  action: { callType: 'call', from: ZERO, to: REMASC, gas: '0x0', input: '0x', value: '0x0' },
  blockHash: block.hash,
  blockNumber: Number(block.number),
  transactionHash: hash,
  transactionPosition: position,
  type: 'call',
  subtraces,
  traceAddress: [],
  result: { gasUsed: '0x0', output: '0x' },
})

/**
 * A node whose block 15 pays block 1's fee (gas price 10^9): regtest maturity 10 and synthetic span 5
 * (remasc.json). Answers block 15, its REMASC transaction's hash and the payments its logs record.
 */
async function payingRemasc(): Promise<{ q: Provider; block: any; hash: string; payments: { to: string; value: bigint }[] }> {
  const q = await fresh()
  await send(q, { to: COW1, value: '0x1', gasPrice: toBeHex(10n ** 9n) })
  for (let i = 2; i <= 15; i++) await rq(q, 'evm_mine')
  const block = await rq(q, 'eth_getBlockByNumber', ['0xf', false])
  const logs = await rq(q, 'eth_getLogs', [{ fromBlock: '0xf', toBlock: '0xf', address: REMASC }])
  expect(logs).toHaveLength(5) // RSK Labs, three federators, the miner
  const payments = logs.map((l: any) => ({ to: l.topics[1].slice(2), value: BigInt(decodeRlp(l.data)[1] as string) }))
  return { q, block, hash: block.transactions[0], payments }
}

describe('REMASC in trace_block, trace_transaction, trace_get and trace_filter', () => {
  let p: Provider
  beforeAll(async () => {
    p = await fresh()
  })

  it('a block holding only the REMASC transaction traces it (no payment yet: no subtraces)', async () => {
    await rq(p, 'evm_mine')
    const block = await rq(p, 'eth_getBlockByNumber', ['0x1', false])
    const hash = remascHash('80')
    expect(block.transactions).toEqual([hash])
    const expected = [remascTop(block, 0, hash, 0)]
    expect(await rq(p, 'trace_block', ['0x1'])).toEqual(expected)
    expect(await rq(p, 'trace_block', [block.hash])).toEqual(expected)
    expect(await rq(p, 'trace_transaction', [hash])).toEqual(expected)
    expect(await rq(p, 'trace_get', [hash, ['0x0']])).toEqual(expected[0])
    expect(await rq(p, 'trace_filter', [{ fromBlock: '0x1', toBlock: '0x1' }])).toEqual(expected)
    expect(await rq(p, 'trace_filter', [{ fromBlock: '0x1', toBlock: '0x1', toAddress: [REMASC] }])).toEqual(expected)
  })

  it('after a user transaction: the user trace first, then REMASC at position 1', async () => {
    const user = await send(p, { to: COW1, value: '0x1' })
    const block = await rq(p, 'eth_getBlockByNumber', [user.blockNumber, false])
    const traces = await rq(p, 'trace_block', [user.blockNumber])
    expect(traces.map((t: any) => t.transactionHash)).toEqual([user.transactionHash, block.transactions[1]])
    expect(traces[1]).toEqual(remascTop(block, 1, block.transactions[1], 0))
  })

  it('a paying REMASC transaction has one CALL subtrace per payment, in log order', async () => {
    const { q, block, hash, payments: logged } = await payingRemasc()
    const payments = logged.map((pay) => ({ to: '0x' + pay.to.slice(24), value: pay.value }))
    const expected = [
      remascTop(block, 0, hash, 5),
      ...payments.map((pay: { to: string; value: bigint }, k: number) => ({
        action: { callType: 'call', from: REMASC, to: pay.to, gas: '0x0', input: '0x', value: '0x' + pay.value.toString(16) },
        blockHash: block.hash,
        blockNumber: 15,
        transactionHash: hash,
        transactionPosition: 0,
        type: 'call',
        subtraces: 0,
        traceAddress: [k],
        result: { gasUsed: '0x0', output: '0x' },
      })),
    ]
    expect(await rq(q, 'trace_transaction', [hash])).toEqual(expected)
    expect(await rq(q, 'trace_block', ['0xf'])).toEqual(expected)
    expect(await rq(q, 'trace_get', [hash, ['0x3']])).toEqual(expected[3])
  })

  it('debug_traceTransaction of a paying REMASC transaction: rskTracer and callTracer shapes', async () => {
    const { q, hash, payments } = await payingRemasc()
    const word = (v: bigint) => v.toString(16).padStart(64, '0')
    const remascWord = word(BigInt(REMASC))
    // rskTracer: the SummarizedProgramTrace fields as Jackson prints them (DataWord = 64 hex digits, byte[] =
    // Base64, a payment's ProgramResult a fresh one; result, error unset).
    const rsk = await rq(q, 'debug_traceTransaction', [hash])
    expect(rsk).toEqual({
      programInvoke: null,
      transferInvoke: { ownerAddress: remascWord, callerAddress: word(0n), gas: 0, callValue: word(0n), msgData: '' },
      subtraces: payments.map((pay: { to: string; value: bigint }) => ({
        traceType: 'CALL',
        callType: 'CALL',
        creationData: null,
        creationMethod: null,
        invokeData: { ownerAddress: pay.to, callerAddress: remascWord, gas: 0, callValue: word(pay.value), msgData: '' },
        programResult: {
          hReturn: '',
          exception: null,
          revert: false,
          codeChanges: null,
          deleteAccounts: null,
          internalTransactions: null,
          logInfoList: null,
          gasUsed: 0,
          futureRefund: 0,
          deductedRefund: 0,
          callCreateList: null,
          maxGasUsed: 0,
          movedRemainingGasToChild: false,
          callWithValuePerformed: false,
          gasUsedBeforeRefunds: 0,
        },
        codeAddress: null,
        subtraces: [],
      })),
      result: null,
      error: null,
      reverted: false,
    })
    expect(Object.keys(rsk)).toEqual(['programInvoke', 'transferInvoke', 'subtraces', 'result', 'error', 'reverted'])
    // The block variant lists it too, last.
    expect((await rq(q, 'debug_traceBlockByNumber', ['0xf'])).at(-1)).toEqual(rsk)

    // callTracer (CallTraceTransformer): the top frame with the receipt's gas used, a CALL per payment;
    // toQuantityJsonHex of an empty return is 0x0, of an empty input 0x.
    const frame = (from: string, to: string, value: bigint) => ({ type: 'CALL', from, to, value: '0x' + value.toString(16), gas: '0x0', gasUsed: '0x0', input: '0x', output: '0x0' })
    expect(await rq(q, 'debug_traceTransaction', [hash, { tracer: 'callTracer' }])).toEqual({
      ...frame(ZERO, REMASC, 0n),
      calls: payments.map((pay: { to: string; value: bigint }) => frame(REMASC, '0x' + pay.to.slice(24), pay.value)),
    })
    expect(await rq(q, 'debug_traceBlockByNumber', ['0xf', { tracer: 'callTracer' }])).toEqual([
      { txHash: hash, result: await rq(q, 'debug_traceTransaction', [hash, { tracer: 'callTracer' }]) },
    ])
  })
})
