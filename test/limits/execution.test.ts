/**
 * Issue D1/D2: no single request holds the node. RSKj caps estimation gas (`rpc.gasEstimationCap` = 6,800,000,
 * reference §5.2), stops a request after `rpc.timeout` with -32011 `Execution has got timeout out.` and refuses a
 * reply over `rpc.maxResponseSize` with -32011 `Response size limit of N bytes exceeded` (reference §1.1–1.2).
 */
import { describe, expect, it } from 'vitest'
import type { Provider } from '../../src/index.js'
import { COW, fresh, rejects, send } from '../helpers.js'

/** Sends a transaction that fails when mined (answered -32015, as RSKj's autominer) and returns its receipt. */
async function sendFailing(p: Provider, tx: Record<string, unknown>): Promise<Record<string, string>> {
  await rejects(p.request({ method: 'eth_sendTransaction', params: [{ from: COW, ...tx }] }), -32015, 'VM Exception while processing transaction: transaction reverted')
  const block = (await p.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as { transactions: string[] }
  return (await p.request({ method: 'eth_getTransactionReceipt', params: [block.transactions[0]] })) as Record<string, string>
}

/** JUMPDEST PUSH1 0 JUMP: an endless loop. */
const LOOP = '0x5b600056'
const MAX_GAS = '0x' + 'f'.repeat(64)

describe('eth_estimateGas with an unbounded gas limit (D1)', () => {
  it('caps the simulated gas at gasEstimationCap and answers instead of hanging', async () => {
    const p = await fresh()
    // The loop runs out of the capped gas: RSKj's estimation fails the same way (6,800,000 is its cap).
    await rejects(p.request({ method: 'eth_estimateGas', params: [{ data: LOOP, gas: MAX_GAS }] }), -32000, 'gas required exceeds allowance (6800000)')
    const q = await fresh({ gasEstimationCap: 100_000n })
    await rejects(q.request({ method: 'eth_estimateGas', params: [{ data: LOOP, gas: MAX_GAS }] }), -32000, 'gas required exceeds allowance (100000)')
  })

  it('still estimates a plain transfer with a huge gas limit given', async () => {
    const p = await fresh()
    const gas = await p.request({ method: 'eth_estimateGas', params: [{ from: COW, to: COW, gas: MAX_GAS }] })
    expect(gas).toBe('0x5208')
  })
})

describe('rpcTimeout (D1)', () => {
  it('stops a long eth_call with -32011 and the node goes on answering', async () => {
    // A 10,000,000-gas loop takes far longer than 1 ms: the deadline stops it.
    const p = await fresh({ rpcTimeout: 1, callGasCap: 10_000_000n })
    const pending = p.request({ method: 'eth_call', params: [{ data: LOOP, gas: '0x989680' }, 'latest'] })
    const after = p.request({ method: 'eth_blockNumber' })
    await rejects(pending, -32011, 'Execution has got timeout out.')
    expect(await after).toBe('0x0')
  })

  it('leaves the live state as it was: a timed-out call at the head changes nothing', async () => {
    const p = await fresh({ rpcTimeout: 1 })
    // SSTORE 1 at slot 0 of the called code, then loop: the write must be undone with the frame.
    const code = '0x60016000555b600556'
    await rejects(p.request({ method: 'eth_call', params: [{ data: code, gas: '0x989680' }, 'latest'] }), -32011)
    const q = await fresh({ rpcTimeout: 0 })
    expect(await p.request({ method: 'eth_getBalance', params: [COW, 'latest'] })).toBe(await q.request({ method: 'eth_getBalance', params: [COW, 'latest'] }))
    const r = await send(p, { to: COW, value: '0x1' })
    expect(r.status).toBe('0x1')
  })

  it('answers a bare error without jsonrpc and id through handleJsonRpc, for a batch too', async () => {
    const p = await fresh({ rpcTimeout: 1 })
    const call = { jsonrpc: '2.0', id: 7, method: 'eth_call', params: [{ data: LOOP, gas: '0x989680' }, 'latest'] }
    expect(await p.handleJsonRpc(call)).toEqual({ error: { code: -32011, message: 'Execution has got timeout out.' } })
    expect(await p.handleJsonRpc([{ jsonrpc: '2.0', id: 1, method: 'eth_chainId' }, call])).toEqual({
      error: { code: -32011, message: 'Execution has got timeout out.' },
    })
  })

  it('never stops block building: a long transaction is mined whatever the timeout', async () => {
    const p = await fresh({ rpcTimeout: 1 })
    // 2,000,000 gas of looping, mined through eth_sendTransaction: runs out of gas in the block, not by the clock.
    const r = await sendFailing(p, { data: LOOP, gas: '0x1e8480' })
    expect(r.status).toBe('0x0')
    expect(r.gasUsed).toBe('0x1e8480')
  })
})

describe('maxResponseSize and tracers (D2)', () => {
  it('stops a struct-log trace as soon as its reply would pass the limit', async () => {
    const p = await fresh({ maxResponseSize: 1_000_000 })
    const r = await sendFailing(p, { data: LOOP, gas: '0x989680' })
    await rejects(p.request({ method: 'debug_traceTransaction', params: [r.transactionHash] }), -32011, 'Response size limit of 1000000 bytes exceeded')
    expect(await p.request({ method: 'eth_blockNumber' })).toBe('0x1')
  })

  it('a trace under the limit is answered whole', async () => {
    const p = await fresh({ maxResponseSize: 1_000_000 })
    const r = await send(p, { to: COW, value: '0x1' })
    const t = (await p.request({ method: 'debug_traceTransaction', params: [r.transactionHash] })) as { structLogs: unknown[] }
    expect(t.structLogs).toEqual([])
  })
})
