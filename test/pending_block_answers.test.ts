/**
 * The methods that answer `pending` with the pending block itself, as RSKj builds it (`ExecutionBlockRetriever`:
 * `BlockToMineBuilder.buildPending` filled by `BlockExecutor.executeAndFill`): trace_block and trace_filter
 * (`TraceModuleImpl.getByJsonBlockId`, `getBlockByTagOrNumber`), chain_/rsk_getRawBlockHeaderByNumber and
 * debug_traceBlockByNumber (`Web3InformationRetriever.getBlock`). Expected values come from the block the miner then
 * mines with the same clock reading, changed only where RSKj's source says the pending block differs: its header has
 * empty extraData and merged-mining fields (`buildPending` passes no extraData; nobody mined it), and a trace of it has
 * the pending block's hash and a top-level `gasUsed` of `0x0` (`buildBlockTraces` uses an empty receipt).
 */
import { describe, expect, it } from 'vitest'
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { JsonRpcProvider, keccak256 } from 'ethers'
import { startServer, type Provider } from '../src/index.js'
import { COW, NO_QUOTA, deployCode, fresh, rejects, sendSigned, rq } from './helpers.js'

const X = '0x' + '11'.repeat(20)
/** CALL(gas, X, 0, 0, 0, 0, 0), STOP: one inner call, so traces have a subtrace with its own gasUsed. */
const CALLS_X = '6000600060006000600073' + '11'.repeat(20) + '5af100'
/** Initcode that returns the one-byte runtime 0x00 (STOP): a top-level creation. */
const CREATE = '0x6001600c60003960016000f300'
/**
 * extraData is field 12 of RSKj's `BlockHeader.getEncoded()` list (reference §3.6); the merged-mining header is last,
 * and left out of the list when the header has no merged-mining fields (`BlockHeader.hasMiningFields`).
 */
const EXTRA_DATA = 12
/** A header's fields but extraData, and the mined one's merged-mining header: what the pending block shares with it. */
const shared = (f: string[], mined: boolean) => f.filter((_, i) => i !== EXTRA_DATA && !(mined && i === f.length - 1))

const fields = (raw: string): string[] => (RLP.decode(hexToBytes(raw as `0x${string}`)) as Uint8Array[]).map((f) => bytesToHex(f))

/** The mined block's traces as RSKj answers them for the pending block: its hash, top-level gasUsed 0x0. */
function asPending(traces: any[], hash: string): any[] {
  return traces.map((t) => ({
    ...t,
    blockHash: hash,
    ...(t.traceAddress.length === 0 && t.result !== null ? { result: { ...t.result, gasUsed: '0x0' } } : {}),
  }))
}

/** A node with automine off and three pooled transactions: a transfer, a call with an inner call, a creation. */
async function pooled(): Promise<{ p: Provider; caller: string }> {
  const p = await fresh()
  const caller = await deployCode(p, CALLS_X)
  await rq(p, 'evm_setAutomine', [false])
  await rq(p, 'eth_sendTransaction', [{ from: COW, to: X, value: '0x5' }])
  await rq(p, 'eth_sendTransaction', [{ from: COW, to: caller, gas: '0x186a0' }])
  await rq(p, 'eth_sendTransaction', [{ from: COW, data: CREATE, gas: '0x186a0' }])
  return { p, caller }
}

describe('pending: the block RSKj builds, for the methods that answer with a block', () => {
  it('trace_block, trace_filter and the raw header at pending are those of the block then mined, but for what RSKj leaves out', async () => {
    const { p, caller } = await pooled()
    const head = await rq(p, 'eth_getBlockByNumber', ['latest', false])
    const at = Number(head.timestamp) + 1000
    await rq(p, 'evm_setNextBlockTimestamp', [at])

    const traces = await rq(p, 'trace_block', ['pending'])
    const filtered = await rq(p, 'trace_filter', [{ fromBlock: 'pending', toBlock: 'pending' }])
    const header = await rq(p, 'chain_getRawBlockHeaderByNumber', ['pending'])
    const rskHeader = await rq(p, 'rsk_getRawBlockHeaderByNumber', ['pending'])
    const callTracer = await rq(p, 'debug_traceBlockByNumber', ['pending', { tracer: 'callTracer' }])
    const structLogs = await rq(p, 'debug_traceBlockByNumber', ['pending'])
    const prestate = await rq(p, 'debug_traceBlockByNumber', ['pending', { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }])
    // Nothing was mined or kept by reading pending.
    expect(await rq(p, 'eth_blockNumber')).toBe(head.number)
    expect(await rq(p, 'eth_getBalance', [X, 'latest'])).toBe('0x0')

    await rq(p, 'evm_mine')
    const mined = await rq(p, 'eth_getBlockByNumber', ['latest', false])
    expect(Number(mined.timestamp)).toBe(at)
    // Three pool transactions and the REMASC one.
    expect(mined.transactions).toHaveLength(4)
    const minedTraces = await rq(p, 'trace_block', [mined.number])

    // Every trace names one block hash: the pending block's, neither the head's nor the mined block's.
    const pendingHash = traces[0].blockHash
    expect(pendingHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(new Set(traces.map((t: any) => t.blockHash))).toEqual(new Set([pendingHash]))
    expect(pendingHash).not.toBe(head.hash)
    expect(pendingHash).not.toBe(mined.hash)
    expect(traces).toEqual(asPending(minedTraces, pendingHash))
    // The inner call keeps its own gasUsed; the top-level ones are 0x0, as the REMASC one is in a mined block too.
    const inner = traces.find((t: any) => t.traceAddress.length === 1)
    expect(inner.action.from).toBe(caller)
    expect(inner.result.gasUsed).toBe(minedTraces.find((t: any) => t.traceAddress.length === 1).result.gasUsed)
    expect(minedTraces.find((t: any) => t.action.to === caller).result.gasUsed).not.toBe('0x0')
    expect(traces.map((t: any) => t.blockNumber)).toEqual(minedTraces.map((t: any) => t.blockNumber))
    expect(filtered).toEqual(traces)

    // The header: every field the mined block's, but extraData, empty, and no merged-mining header.
    expect(rskHeader).toBe(header)
    const pendingFields = fields(header)
    const minedFields = fields(await rq(p, 'chain_getRawBlockHeaderByNumber', [mined.number]))
    expect(pendingFields).toHaveLength(minedFields.length - 1)
    expect(pendingFields[EXTRA_DATA]).toBe('0x')
    expect(minedFields[EXTRA_DATA]).not.toBe('0x')
    expect(minedFields.at(-1)).toHaveLength(2 + 2 * 80)
    expect(shared(pendingFields, false)).toEqual(shared(minedFields, true))
    // The traces' block hash is this header's, by RSKj's rules (test/chain.test.ts does the same for mined blocks):
    // getEncodedForHash() puts RLP[2, keccak(RLP[keccak(bloom), baseEvent, edges])] in the bloom's place and drops
    // version, edges and base event; without merged-mining fields nothing follows the UMM root.
    const raw = RLP.decode(hexToBytes(header)) as Uint8Array[]
    expect(raw).toHaveLength(20)
    const extensionHash = keccak256(RLP.encode([keccak256(raw[6]!), raw[19]!, raw[18]!]))
    expect(keccak256(RLP.encode([...raw.slice(0, 6), RLP.encode([Uint8Array.of(2), extensionHash]), ...raw.slice(7, 17)]))).toBe(pendingHash)
    // Among them the roots, bloom, gas used and paid fees of the executed block.
    expect(pendingFields[3]).toBe(mined.stateRoot)
    expect(pendingFields[4]).toBe(mined.transactionsRoot)
    expect(pendingFields[5]).toBe(mined.receiptsRoot)
    const int = (f: string) => (f === '0x' ? 0n : BigInt(f))
    expect(int(pendingFields[10]!)).toBe(BigInt(mined.gasUsed))
    expect(int(pendingFields[10]!)).toBeGreaterThan(0n)
    expect(pendingFields[6]).toBe(mined.logsBloom)

    // debug_traceBlockByNumber replays the pending block as the mined one: the same traces.
    expect(callTracer).toEqual(await rq(p, 'debug_traceBlockByNumber', [mined.number, { tracer: 'callTracer' }]))
    expect(structLogs).toEqual(await rq(p, 'debug_traceBlockByNumber', [mined.number]))
    expect(prestate).toEqual(await rq(p, 'debug_traceBlockByNumber', [mined.number, { tracer: 'prestateTracer', tracerConfig: { diffMode: true } }]))
  })

  it('with an empty pool (automine) the pending block holds only the REMASC transaction, as the next block mined', async () => {
    const p = await fresh()
    await deployCode(p, CALLS_X)
    const head = await rq(p, 'eth_getBlockByNumber', ['latest', false])
    await rq(p, 'evm_setNextBlockTimestamp', [Number(head.timestamp) + 50])
    const traces = await rq(p, 'trace_block', ['pending'])
    const header = await rq(p, 'chain_getRawBlockHeaderByNumber', ['pending'])
    expect(traces).toHaveLength(1)
    expect(traces[0]).toMatchObject({ type: 'call', action: { callType: 'call', from: '0x0000000000000000000000000000000000000000', to: '0x0000000000000000000000000000000001000008' }, transactionPosition: 0, blockNumber: Number(head.number) + 1 })
    await rq(p, 'evm_mine')
    const mined = await rq(p, 'eth_getBlockByNumber', ['latest', false])
    expect(traces).toEqual(asPending(await rq(p, 'trace_block', [mined.number]), traces[0].blockHash))
    const minedFields = fields(await rq(p, 'chain_getRawBlockHeaderByNumber', [mined.number]))
    expect(shared(fields(header), false)).toEqual(shared(minedFields, true))
  })

  it('trace_filter: a pending toBlock bounds the walk at head + 1 without tracing the pending block; a pending fromBlock after latest is refused', async () => {
    const { p } = await pooled()
    const head = await rq(p, 'eth_getBlockByNumber', ['latest', false])
    const upToHead = await rq(p, 'trace_filter', [{ fromBlock: head.number, toBlock: 'latest' }])
    expect(upToHead.length).toBeGreaterThan(0)
    expect(await rq(p, 'trace_filter', [{ fromBlock: head.number, toBlock: 'pending' }])).toEqual(upToHead)
    await rejects(rq(p, 'trace_filter', [{ fromBlock: 'pending' }]), -32602, 'fromBlock cannot be greater than toBlock')
    // Paging through the pending block's traces.
    const all = await rq(p, 'trace_filter', [{ fromBlock: 'pending', toBlock: 'pending' }])
    expect(await rq(p, 'trace_filter', [{ fromBlock: 'pending', toBlock: 'pending', after: 1, count: 2 }])).toEqual(all.slice(1, 3))
  })

  it('a dev-chain edit since the head: the pending block is traced from the edited state it was built on', async () => {
    const p = await fresh()
    await rq(p, 'evm_setAutomine', [false])
    const target = '0x' + '33'.repeat(20)
    // The code exists only through the edit: replayed from the head's state, the call would run no code.
    await rq(p, 'anvil_setCode', [target, '0x' + CALLS_X])
    await rq(p, 'eth_sendTransaction', [{ from: COW, to: target, gas: '0x186a0' }])
    const head = await rq(p, 'eth_getBlockByNumber', ['latest', false])
    await rq(p, 'evm_setNextBlockTimestamp', [Number(head.timestamp) + 10])
    const traces = await rq(p, 'trace_block', ['pending'])
    expect(traces.filter((t: any) => t.traceAddress.length === 1)).toHaveLength(1)
    await rq(p, 'evm_mine')
    expect(traces).toEqual(asPending(await rq(p, 'trace_block', ['latest']), traces[0].blockHash))
  })

  it('hosted mode answers the same; over HTTP too', async () => {
    // A genesis time far ahead of the clock: each node's pending block is one second after it, whatever the clock says.
    const options = { mining: { auto: false }, genesisTimestamp: 1n << 40n }
    const hosted = await fresh({ ...options, hosted: true })
    const local = await fresh(options)
    for (const p of [hosted, local]) {
      await sendSigned(p, { to: X, value: '0x5' })
      await sendSigned(p, { data: CREATE, gas: '0x186a0' })
    }
    const ask = (p: Provider) =>
      Promise.all([
        rq(p, 'trace_block', ['pending']),
        rq(p, 'trace_filter', [{ fromBlock: 'pending', toBlock: 'pending' }]),
        rq(p, 'chain_getRawBlockHeaderByNumber', ['pending']),
        rq(p, 'debug_traceBlockByNumber', ['pending', { tracer: 'callTracer' }]),
      ])
    const answers = await ask(local)
    expect(answers[0]).toHaveLength(3)
    expect(await ask(hosted)).toEqual(answers)

    const server = await startServer({ port: 0, ...NO_QUOTA, ...options, hosted: true })
    try {
      const post = async (method: string, params: unknown[]) => {
        const r = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
        return ((await r.json()) as { result: unknown }).result
      }
      for (const t of [{ to: X, value: '0x5' }, { data: CREATE, gas: '0x186a0' }]) await sendSigned(server.provider, t)
      expect(await post('trace_block', ['pending'])).toEqual(answers[0])
      expect(await post('rsk_getRawBlockHeaderByNumber', ['pending'])).toBe(answers[2])
      // A real client sends the same requests: ethers' JsonRpcProvider.
      const ethers = new JsonRpcProvider(server.url, undefined, { staticNetwork: true })
      try {
        expect(await ethers.send('trace_filter', [{ fromBlock: 'pending', toBlock: 'pending' }])).toEqual(answers[1])
        expect(await ethers.send('debug_traceBlockByNumber', ['pending', { tracer: 'callTracer' }])).toEqual(answers[3])
      } finally {
        ethers.destroy()
      }
    } finally {
      await server.close()
    }
  })
})
