/**
 * trace_replayBlockTransactions and trace_replayTransaction (OpenEthereum's replay, as Anvil, Erigon and Nethermind
 * answer it): `trace` as trace_transaction gives it without the block fields, `stateDiff` checked against the state
 * reads at the block before and the block itself, and against Anvil 1.7.1 replaying the same contract and call.
 */
import { describe, expect, it } from 'vitest'
import { AbiCoder, Interface, keccak256 } from 'ethers'
import { COW, fresh, rejects, send, useHttpServer } from './helpers.js'
import { Storage } from './fixtures/index.js'
import { ANVIL_SENDER, anvilReceipt, useAnvil } from './anvil.js'

const REMASC = '0x0000000000000000000000000000000001000008'
const storage = new Interface(Storage.abi as never)
/** Slot of `slots[k]` (mapping at slot 0): keccak(pad(k) ++ pad(0)). */
const mappingSlot = (k: number): string => keccak256(AbiCoder.defaultAbiCoder().encode(['uint256', 'uint256'], [k, 0]))
const word = (n: number): string => '0x' + n.toString(16).padStart(64, '0')
const hex = (n: bigint | number): string => '0x' + n.toString(16)

describe('trace_replayBlockTransactions and trace_replayTransaction', async () => {
  const p = await fresh()
  const rpc = (method: string, params: unknown[]) => p.request({ method, params }) as Promise<any>
  const fee = { gasPrice: '0x3b9aca00' }
  const deployed = await send(p, { data: Storage.bytecode, ...fee })
  const addr = deployed.contractAddress as string
  const set = await send(p, { to: addr, data: storage.encodeFunctionData('set', [1, 42]), ...fee })
  const at = set.blockNumber as string
  const before = hex(BigInt(at) - 1n)

  it("answers each transaction's state changes as the state reads at the block before and at the block give them", async () => {
    const [entry, remasc] = await rpc('trace_replayBlockTransactions', [at, ['stateDiff']])
    expect(Object.keys(entry)).toEqual(['output', 'stateDiff', 'trace', 'vmTrace', 'transactionHash'])
    expect(entry.transactionHash).toBe(set.transactionHash)
    expect(entry.trace).toEqual([])
    expect(entry.vmTrace).toBeNull()
    const diff = entry.stateDiff
    expect(Object.keys(diff)).toEqual([REMASC, addr.toLowerCase(), COW].sort())
    expect(diff[addr.toLowerCase()]).toEqual({ balance: '=', code: '=', nonce: '=', storage: { [mappingSlot(1)]: { '*': { from: word(0), to: word(42) } } } })
    for (const who of [COW, REMASC]) {
      expect(diff[who].balance).toEqual({ '*': { from: await rpc('eth_getBalance', [who, before]), to: await rpc('eth_getBalance', [who, at]) } })
    }
    expect(diff[COW].nonce).toEqual({ '*': { from: await rpc('eth_getTransactionCount', [COW, before]), to: await rpc('eth_getTransactionCount', [COW, at]) } })
    // The REMASC system transaction ends the block; before maturity it changes nothing.
    expect(remasc.transactionHash).toBe((await rpc('eth_getBlockByNumber', [at, false])).transactions.at(-1))
    expect(remasc.stateDiff).toEqual({})
  })

  it("answers a deployment's created account as born, its output the deployed code", async () => {
    const [entry] = await rpc('trace_replayBlockTransactions', [deployed.blockNumber, ['stateDiff']])
    const code = await rpc('eth_getCode', [addr, 'latest'])
    expect(entry.output).toBe(code)
    expect(entry.stateDiff[addr.toLowerCase()]).toEqual({
      balance: { '+': '0x0' },
      code: { '+': code },
      nonce: { '+': await rpc('eth_getTransactionCount', [addr, deployed.blockNumber]) },
      storage: {},
    })
  })

  it('answers the call traces as trace_transaction does, without the block and transaction fields', async () => {
    const [entry] = await rpc('trace_replayBlockTransactions', [at, ['trace']])
    expect(entry.stateDiff).toBeNull()
    const traced = (await rpc('trace_transaction', [set.transactionHash])) as Record<string, unknown>[]
    expect(entry.trace).toEqual(traced.map(({ blockHash: _h, blockNumber: _n, transactionHash: _t, transactionPosition: _p, ...rest }) => rest))
    expect(Object.keys(entry.trace[0])).toEqual(['type', 'action', 'result', 'subtraces', 'traceAddress'])
  })

  it("trace_replayTransaction answers the block's entry for that transaction, without its hash", async () => {
    const [entry] = await rpc('trace_replayBlockTransactions', [at, ['trace', 'stateDiff']])
    const { transactionHash: _, ...rest } = entry
    expect(await rpc('trace_replayTransaction', [set.transactionHash, ['stateDiff', 'trace']])).toEqual(rest)
  })

  it('answers an unknown block [] and an unknown transaction null; refuses vmTrace and unknown types', async () => {
    expect(await rpc('trace_replayBlockTransactions', ['0x999', ['trace']])).toEqual([])
    expect(await rpc('trace_replayTransaction', ['0x' + '33'.repeat(32), ['trace']])).toBeNull()
    await rejects(rpc('trace_replayBlockTransactions', [at, ['vmTrace']]), -32602, /^vmTrace is not supported/)
    await rejects(rpc('trace_replayTransaction', [set.transactionHash, ['foo']]), -32602, "Invalid trace type foo: expected 'trace', 'stateDiff' or 'vmTrace'.")
    await rejects(rpc('trace_replayBlockTransactions', [at, 'trace']), -32602)
    const hosted = await fresh({ hosted: true })
    await rejects(hosted.request({ method: 'trace_replayBlockTransactions', params: [at, ['trace']] }), -32601)
    await rejects(hosted.request({ method: 'trace_replayTransaction', params: [set.transactionHash, ['trace']] }), -32601)
  })
})

describe('trace_replayBlockTransactions at pending', () => {
  it('replays the pending block trace_block traces: the entries of the block then mined, nothing kept', async () => {
    const p = await fresh()
    const rpc = (method: string, params: unknown[] = []) => p.request({ method, params }) as Promise<any>
    const addr = (await send(p, { data: Storage.bytecode })).contractAddress as string
    await rpc('evm_setAutomine', [false])
    const sent = [
      await rpc('eth_sendTransaction', [{ from: COW, to: addr, data: storage.encodeFunctionData('set', [1, 42]), gas: '0x4c4b40', gasPrice: '0x3b9aca00' }]),
      await rpc('eth_sendTransaction', [{ from: COW, to: '0x' + '77'.repeat(20), value: '0x7' }]),
    ]
    const head = await rpc('eth_getBlockByNumber', ['latest', false])
    await rpc('evm_setNextBlockTimestamp', [Number(head.timestamp) + 10])
    const replayed = await rpc('trace_replayBlockTransactions', ['pending', ['trace', 'stateDiff']])
    const pendingTraces = await rpc('trace_block', ['pending'])
    // Read, not kept.
    expect(await rpc('eth_blockNumber')).toBe(head.number)
    expect(await rpc('eth_getStorageAt', [addr, mappingSlot(1), 'latest'])).toBe(word(0))

    await rpc('evm_mine')
    const mined = await rpc('eth_getBlockByNumber', ['latest', false])
    expect(replayed.map((e: any) => e.transactionHash)).toEqual(mined.transactions)
    expect(replayed.map((e: any) => e.transactionHash).slice(0, 2)).toEqual(sent)
    expect(replayed).toEqual(await rpc('trace_replayBlockTransactions', [mined.number, ['trace', 'stateDiff']]))
    expect(replayed[0].stateDiff[addr.toLowerCase()].storage).toEqual({ [mappingSlot(1)]: { '*': { from: word(0), to: word(42) } } })
    // The same frames as trace_block("pending"), which carries the block fields and RSKj's top-level gasUsed 0x0.
    expect(replayed.flatMap((e: any) => e.trace.map((t: any) => t.action))).toEqual(pendingTraces.map((t: any) => t.action))
  })
})

describe('trace_replayBlockTransactions over HTTP, beside Anvil', () => {
  const http = useHttpServer()
  const anvil = useAnvil()

  it("gives the contract's storage change and the deployment's code as Anvil 1.7.1 does", async () => {
    const replayed = []
    for (const [node, from] of [[http.rpc, COW], [anvil.eth, ANVIL_SENDER]] as const) {
      const deployHash = await node.send('eth_sendTransaction', [{ from, data: Storage.bytecode, gas: '0x4c4b40', gasPrice: '0x3b9aca00' }])
      const receiptOf = (h: string) => (node === anvil.eth ? anvilReceipt(anvil.eth, h) : node.send('eth_getTransactionReceipt', [h]))
      const deployment = await receiptOf(deployHash)
      const setHash = await node.send('eth_sendTransaction', [{ from, to: deployment.contractAddress, data: storage.encodeFunctionData('set', [1, 42]), gas: '0x4c4b40', gasPrice: '0x3b9aca00' }])
      const block = (await receiptOf(setHash)).blockNumber
      const [created] = await node.send('trace_replayBlockTransactions', [deployment.blockNumber, ['stateDiff']])
      const [entry] = await node.send('trace_replayBlockTransactions', [block, ['trace', 'stateDiff']])
      // The one-transaction form, where the node has it (Anvil 1.7.1 has not): the block's entry without its hash.
      if (node === http.rpc) {
        const { transactionHash: _, ...one } = entry
        expect(await node.send('trace_replayTransaction', [setHash, ['trace', 'stateDiff']])).toEqual(one)
      }
      replayed.push({ output: created.output, code: created.stateDiff[deployment.contractAddress].code, contract: entry.stateDiff[deployment.contractAddress], keys: Object.keys(entry), traceKeys: Object.keys(entry.trace[0]) })
    }
    expect(replayed[0]).toEqual(replayed[1])
  })
})
