/**
 * eth_simulateV1, an extension (src/rpc/namespaces/eth/simulate.ts, src/node/exec/simulate.ts). The same calls on the
 * same contracts (put at the same addresses by state overrides) are sent to Anvil 1.7.1, and return data, logs and
 * status compared; expected values are computed here (ABI encodings, storage keys, create addresses, balances from
 * the amounts sent), and read back through later calls of the same simulation. Also: viem's `simulateBlocks` and
 * `simulateCalls` over HTTP, nothing kept after, the spec's errors, hosted mode.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AbiCoder, Interface, getAddress, getCreateAddress, keccak256, zeroPadValue, toBeHex, id } from 'ethers'
import { createPublicClient, http, parseAbi, type Chain } from 'viem'
import { startServer, type Provider, type RsksimServer } from '../src/index.js'
import { COW, COW1, MINER, fresh, initcodeFor, rejects } from './helpers.js'
import { Caller, Reverter, Token } from './fixtures/index.js'
import { startAnvil, type RunningAnvil } from './anvil.js'

const abi = AbiCoder.defaultAbiCoder()
const token = new Interface(Token.abi as never)
const caller = new Interface(Caller.abi as never)
const reverter = new Interface(Reverter.abi as never)

/** Accounts given their balance and code by state overrides, so that both nodes hold them at the same addresses. */
const ALICE = '0x00000000000000000000000000000000000a11ce'
const BOB = '0x0000000000000000000000000000000000000b0b'
const TOKEN = '0x00000000000000000000000000000000000070c0'
const CALLER = '0x00000000000000000000000000000000000ca11e'
const REVERTER = '0x00000000000000000000000000000000000bad00'
const TRANSFER_TOPIC = keccak256(Buffer.from('Transfer(address,address,uint256)'))
const ETH_PSEUDO = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee'
/** Runtime code answering NUMBER, TIMESTAMP, or BALANCE(addr) as one word. */
const RETURNS_NUMBER = '0x4360005260206000f3'
const RETURNS_TIMESTAMP = '0x4260005260206000f3'
/** A timestamp after any the clock gives now (2106). */
const LATER = 0x1_0000_0000n
const balanceCode = (a: string): string => '0x73' + a.slice(2) + '3160005260206000f3'

const word = (n: bigint | number): string => zeroPadValue(toBeHex(n), 32)
const topicOf = (a: string): string => zeroPadValue(a, 32)
/** Token's `balanceOf` mapping is its fourth slot (name, symbol, totalSupply, balanceOf): keccak256(holder . 3). */
const balanceSlot = (holder: string): string => keccak256(abi.encode(['address', 'uint256'], [holder, 3]))
const errorString = (reason: string): string => new Interface(['function Error(string)']).encodeFunctionData('Error', [reason])

/** Token and Reverter at their addresses, ALICE holding 1,000 tokens and 10 RBTC (10 ETH on Anvil). */
const OVERRIDES = {
  [ALICE]: { balance: '0x8ac7230489e80000' },
  [TOKEN]: { code: Token.deployedBytecode, stateDiff: { [balanceSlot(ALICE)]: word(1000) } },
  [REVERTER]: { code: Reverter.deployedBytecode },
  [CALLER]: { code: Caller.deployedBytecode, balance: '0x3e8' },
}

async function sim(p: Provider, payload: Record<string, unknown>, block?: unknown): Promise<any[]> {
  return (await p.request({ method: 'eth_simulateV1', params: block === undefined ? [payload] : [payload, block] })) as any[]
}

describe('eth_simulateV1 against Anvil 1.7.1', () => {
  let anvil: RunningAnvil
  let p: Provider
  beforeAll(async () => {
    anvil = await startAnvil()
    p = await fresh()
  })
  afterAll(() => anvil?.stop())

  const calls = [
    { from: ALICE, to: TOKEN, data: token.encodeFunctionData('transfer', [BOB, 300]) },
    { from: ALICE, to: TOKEN, data: token.encodeFunctionData('balanceOf', [ALICE]) },
    { from: ALICE, to: TOKEN, data: token.encodeFunctionData('balanceOf', [BOB]) },
    { from: ALICE, to: TOKEN, data: token.encodeFunctionData('transfer', [BOB, 5000]) },
    { from: ALICE, to: REVERTER, data: reverter.encodeFunctionData('revertCustom') },
    { from: ALICE, to: BOB, value: '0x7' },
    { from: ALICE, to: CALLER, value: '0x5', data: caller.encodeFunctionData('pay', [BOB]) },
    { from: ALICE, to: CALLER, value: '0x5', data: caller.encodeFunctionData('pay', [REVERTER]) },
  ]
  const payload = { traceTransfers: true, blockStateCalls: [{ stateOverrides: OVERRIDES, calls }] }
  const shape = (l: any) => ({ address: l.address.toLowerCase(), topics: l.topics, data: l.data })

  it('answers the same return data, logs and status, and the values computed here', async () => {
    const [ours] = await sim(p, payload)
    const [theirs] = await anvil.eth.send('eth_simulateV1', [payload, 'latest'])
    expect(ours.calls).toHaveLength(calls.length)
    const transfer = (from: string, to: string, v: number, address = TOKEN) => ({ address, topics: [TRANSFER_TOPIC, topicOf(from), topicOf(to)], data: word(v) })
    // Computed here: the transfer's event, 1,000 - 300 and 300 read back by later calls, the revert payloads.
    expect(ours.calls[0].logs.map(shape)).toEqual([transfer(ALICE, BOB, 300)])
    expect(ours.calls[0].returnData).toBe(word(1))
    expect(ours.calls[1].returnData).toBe(word(700))
    expect(ours.calls[2].returnData).toBe(word(300))
    expect(ours.calls[3].error).toEqual({ code: 3, message: 'execution reverted: ERC20: insufficient balance', data: errorString('ERC20: insufficient balance') })
    expect(ours.calls[4].error).toEqual({ code: 3, message: 'execution reverted', data: reverter.encodeErrorResult('Bad', [42]) })
    expect(ours.calls[5].logs.map(shape)).toEqual([transfer(ALICE, BOB, 7, ETH_PSEUDO)])
    // pay(): ALICE → Caller, then Caller → BOB, in the order they happened; a failed pay() reports neither.
    expect(ours.calls[6].logs.map(shape)).toEqual([transfer(ALICE, CALLER, 5, ETH_PSEUDO), transfer(CALLER, BOB, 5, ETH_PSEUDO)])
    expect(ours.calls[7]).toMatchObject({ status: '0x0', logs: [], error: { code: 3, message: 'execution reverted: pay failed' } })
    for (let i = 0; i < calls.length; i++) {
      const [o, t] = [ours.calls[i], theirs.calls[i]]
      expect({ i, status: o.status }).toEqual({ i, status: t.status })
      // Anvil answers a failed call's revert data as returnData (code -3200 "execution failed"); geth and rsksim in
      // the error's data (code 3), returnData "0x". Anvil also keeps a failed call's transfer logs (the spec: "if the
      // transaction sends ETH but the execution reverts, no log gets issued"), so logs are compared for successes.
      if (o.status === '0x1') expect([o.returnData, o.logs.map(shape)]).toEqual([t.returnData, t.logs.map(shape)])
      else expect([o.returnData, o.error.data ?? '0x']).toEqual(['0x', t.returnData])
    }
    // Log indexes run through the block, transfers included (geth's numbering): the token's Transfer, then three transfers.
    expect(ours.calls.flatMap((c: any) => c.logs.map((l: any) => l.logIndex))).toEqual(['0x0', '0x1', '0x2', '0x3'])
    expect(ours.calls[0].logs[0]).toMatchObject({ blockHash: ours.hash, blockNumber: ours.number, transactionHash: ours.transactions[0], transactionIndex: '0x0', removed: false })
  })

  it('reports a SELFDESTRUCT moving a balance as a transfer, as the spec lists (Anvil 1.7.1 does not)', async () => {
    const destroy = { stateOverrides: OVERRIDES, calls: [{ from: ALICE, to: CALLER, data: caller.encodeFunctionData('destroy', [BOB]) }] }
    const [ours] = await sim(p, { traceTransfers: true, blockStateCalls: [destroy] })
    const [theirs] = await anvil.eth.send('eth_simulateV1', [{ traceTransfers: true, blockStateCalls: [destroy] }, 'latest'])
    expect(ours.calls[0].logs.map(shape)).toEqual([{ address: ETH_PSEUDO, topics: [TRANSFER_TOPIC, topicOf(CALLER), topicOf(BOB)], data: word(1000) }])
    expect([theirs.calls[0].status, theirs.calls[0].logs]).toEqual(['0x1', []])
  })

  it('runs a contract as the sender (geth and Anvil do; execution-apis simple-send-from-contract): the same answers as Anvil', async () => {
    const holder = { [TOKEN]: { code: Token.deployedBytecode, stateDiff: { [balanceSlot(CALLER)]: word(1000) } }, [CALLER]: { code: Caller.deployedBytecode, balance: '0x3e8' } }
    const fromContract = [
      { from: CALLER, to: BOB, value: '0x7' },
      { from: CALLER, to: TOKEN, data: token.encodeFunctionData('transfer', [BOB, 100]) },
      { from: CALLER, to: TOKEN, data: token.encodeFunctionData('balanceOf', [CALLER]) },
    ]
    const request = { traceTransfers: true, blockStateCalls: [{ stateOverrides: holder, calls: fromContract }] }
    const [ours] = await sim(p, request)
    const [theirs] = await anvil.eth.send('eth_simulateV1', [request, 'latest'])
    expect(ours.calls[0].logs.map(shape)).toEqual([{ address: ETH_PSEUDO, topics: [TRANSFER_TOPIC, topicOf(CALLER), topicOf(BOB)], data: word(7) }])
    expect(ours.calls[1].logs.map(shape)).toEqual([{ address: TOKEN, topics: [TRANSFER_TOPIC, topicOf(CALLER), topicOf(BOB)], data: word(100) }])
    expect(ours.calls.map((c: any) => [c.status, c.returnData])).toEqual([['0x1', '0x'], ['0x1', word(1)], ['0x1', word(900)]])
    expect(ours.calls.map((c: any) => [c.status, c.returnData, c.logs.map(shape)])).toEqual(theirs.calls.map((c: any) => [c.status, c.returnData, c.logs.map(shape)]))
  })

  it('reports no transfers without traceTransfers, as Anvil', async () => {
    const plain = { blockStateCalls: [{ stateOverrides: OVERRIDES, calls: calls.slice(5, 7) }] }
    const [ours] = await sim(p, plain)
    const [theirs] = await anvil.eth.send('eth_simulateV1', [plain, 'latest'])
    expect(ours.calls.map((c: any) => c.logs)).toEqual([[], []])
    expect(theirs.calls.map((c: any) => c.logs)).toEqual([[], []])
  })
})

describe('eth_simulateV1 blocks and state', () => {
  let p: Provider
  beforeAll(async () => {
    p = await fresh()
  })

  it('runs each block on the state the one before left, a deployment at its sender\'s next address', async () => {
    const nonce = BigInt((await p.request({ method: 'eth_getTransactionCount', params: [COW, 'latest'] })) as string)
    const deployed = getCreateAddress({ from: COW, nonce })
    const initcode = Token.bytecode + abi.encode(['uint256'], [1000]).slice(2)
    const blocks = await sim(p, {
      blockStateCalls: [
        { calls: [{ from: COW, data: initcode }] },
        { calls: [{ from: COW, to: deployed, data: token.encodeFunctionData('transfer', [COW1, 1]) }, { from: COW, to: deployed, data: token.encodeFunctionData('balanceOf', [COW]) }] },
      ],
    })
    expect(blocks[0].calls[0]).toMatchObject({ status: '0x1', returnData: Token.deployedBytecode })
    expect(blocks[0].calls[0].logs[0].address).toBe(deployed.toLowerCase())
    expect(blocks[1].calls.map((c: any) => c.returnData)).toEqual([word(1), word(999)])
  })

  it('numbers blocks from the base, fills a gap, and runs calls at each block\'s number and time', async () => {
    const head = (await p.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as any
    const n = BigInt(head.number)
    const probe = [{ to: TOKEN, data: '0x' }]
    const blocks = await sim(p, {
      blockStateCalls: [
        { stateOverrides: { [TOKEN]: { code: RETURNS_NUMBER }, [BOB]: { code: RETURNS_TIMESTAMP } }, calls: [...probe, { to: BOB }] },
        { blockOverrides: { number: toBeHex(n + 4n), time: toBeHex(LATER) }, calls: [...probe, { to: BOB }] },
      ],
    })
    expect(blocks.map((b) => BigInt(b.number))).toEqual([n + 1n, n + 2n, n + 3n, n + 4n])
    expect(blocks[0].parentHash).toBe(head.hash)
    for (let i = 1; i < blocks.length; i++) expect(blocks[i].parentHash).toBe(blocks[i - 1].hash)
    for (let i = 1; i < blocks.length; i++) expect(BigInt(blocks[i].timestamp)).toBeGreaterThan(BigInt(blocks[i - 1].timestamp))
    expect(BigInt(blocks[3].timestamp)).toBe(LATER)
    expect([blocks[1].calls, blocks[2].calls]).toEqual([[], []])
    for (const b of [blocks[0], blocks[3]]) expect(b.calls.map((c: any) => c.returnData)).toEqual([word(BigInt(b.number)), word(BigInt(b.timestamp))])
  })

  it('BLOCKHASH of an earlier simulated block answers its hash, of a mined one the chain\'s', async () => {
    // PUSH1 1, NUMBER, SUB, BLOCKHASH, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN: the hash of the block before.
    const PREVIOUS_HASH = '0x600143034060005260206000f3'
    const head = (await p.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as any
    const blocks = await sim(p, {
      blockStateCalls: [{ stateOverrides: { [TOKEN]: { code: PREVIOUS_HASH } }, calls: [{ to: TOKEN }] }, { calls: [{ to: TOKEN }] }, { calls: [{ to: TOKEN }] }],
    })
    expect(blocks.map((b) => b.calls[0].returnData)).toEqual([head.hash, blocks[0].hash, blocks[1].hash])
    // RSK's BlockHeader precompile: getBlockHash(0) is the parent's hash, ABI bytes (offset, length 32, the hash).
    const parentHash = { to: '0x0000000000000000000000000000000001000010', data: id('getBlockHash(int256)').slice(0, 10) + '00'.repeat(32) }
    const viaPrecompile = await sim(p, { blockStateCalls: [{ calls: [parentHash] }, { calls: [parentHash] }] })
    expect(viaPrecompile.map((b) => '0x' + b.calls[0].returnData.slice(130))).toEqual([head.hash, viaPrecompile[0].hash])
    // Nothing of the simulation is left: the chain has no block above its head.
    expect(await p.request({ method: 'eth_getBlockByNumber', params: [blocks[0].number, false] })).toBeNull()
  })

  it('answers each block as eth_getBlockByNumber formats one, its transactions the calls, with returnFullTransactions', async () => {
    const [b] = await sim(p, { returnFullTransactions: true, blockStateCalls: [{ calls: [{ from: COW, to: COW1, value: '0x1' }] }] })
    const mined = (await p.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as any
    expect(Object.keys(b)).toEqual([...Object.keys(mined), 'calls'])
    expect(b.transactions).toHaveLength(1)
    expect(b.transactions[0]).toMatchObject({ from: COW, to: COW1, value: '0x1', blockHash: b.hash, blockNumber: b.number, transactionIndex: '0x0' })
    expect(b).toMatchObject({ gasUsed: '0x5208', miner: MINER, bitcoinMergedMiningHeader: '0x', stateRoot: '0x' + '00'.repeat(32) })
    expect(await p.request({ method: 'eth_getBlockByHash', params: [b.hash, false] })).toBeNull()
  })

  it('keeps nothing', async () => {
    const read = () =>
      Promise.all([
        p.request({ method: 'eth_getBalance', params: [COW, 'latest'] }),
        p.request({ method: 'eth_getBalance', params: [COW1, 'latest'] }),
        p.request({ method: 'eth_getTransactionCount', params: [COW, 'latest'] }),
        p.request({ method: 'eth_blockNumber' }),
        p.request({ method: 'eth_getCode', params: [TOKEN, 'latest'] }),
      ])
    const before = await read()
    const blocks = await sim(p, {
      validation: true,
      blockStateCalls: [{ stateOverrides: { [TOKEN]: { code: RETURNS_NUMBER } }, calls: [{ from: COW, to: COW1, value: '0x100' }, { from: COW, data: Token.bytecode + word(5).slice(2) }] }],
    })
    expect(blocks[0].calls.map((c: any) => c.status)).toEqual(['0x1', '0x1'])
    expect(await read()).toEqual(before)
  })

  it('simulates on the pending block with the pool\'s transactions, and on an older block', async () => {
    const q = await fresh()
    const at = async (block: unknown) => (await sim(q, { blockStateCalls: [{ stateOverrides: { [BOB]: { code: balanceCode(COW1) } }, calls: [{ to: BOB }] }] }, block))[0]
    const start = BigInt((await q.request({ method: 'eth_getBalance', params: [COW1, 'latest'] })) as string)
    await q.request({ method: 'eth_sendTransaction', params: [{ from: COW, to: COW1, value: '0x64', gas: '0x5208' }] })
    await q.request({ method: 'evm_setAutomine', params: [false] })
    await q.request({ method: 'eth_sendTransaction', params: [{ from: COW, to: COW1, value: '0x5', gas: '0x5208' }] })
    expect((await at('latest')).calls[0].returnData).toBe(word(start + 100n))
    const pending = await at('pending')
    expect(pending.calls[0].returnData).toBe(word(start + 105n))
    expect(BigInt(pending.number)).toBe(3n)
    const old = await at('0x0')
    expect([old.number, old.calls[0].returnData]).toEqual(['0x1', word(start)])
  })
})

describe('eth_simulateV1 validation', () => {
  it('checks nonces and the price, and charges the fee, only with validation', async () => {
    const p = await fresh({ minimumGasPrice: 10n })
    const transfer = { from: COW, to: COW1, value: '0x1' }
    // Without validation: a free transfer, whatever nonce it names.
    const [free] = await sim(p, { blockStateCalls: [{ calls: [{ ...transfer, nonce: '0x9' }] }] })
    expect(free.calls[0].status).toBe('0x1')
    expect(free.paidFees).toBe('0x0')
    await rejects(p.request({ method: 'eth_simulateV1', params: [{ validation: true, blockStateCalls: [{ calls: [{ ...transfer, nonce: '0x9' }] }] }] }), -38011, new RegExp(`^err: nonce too high: address ${getAddress(COW)}, tx: 9 state: \\d+ \\(supplied gas \\d+\\)$`))
    await rejects(p.request({ method: 'eth_simulateV1', params: [{ validation: true, blockStateCalls: [{ calls: [transfer, { ...transfer, nonce: '0x0' }] }] }] }), -38010, /^err: nonce too low/)
    await rejects(p.request({ method: 'eth_simulateV1', params: [{ validation: true, blockStateCalls: [{ calls: [{ ...transfer, gasPrice: '0x9' }] }] }] }), -38012)
    // With validation the price defaults to the block's minimum: 21,000 × 10 wei paid, seen by a later call.
    const start = BigInt((await p.request({ method: 'eth_getBalance', params: [COW, 'latest'] })) as string)
    const [paid] = await sim(p, {
      validation: true,
      blockStateCalls: [{ stateOverrides: { [BOB]: { code: balanceCode(COW) } }, calls: [{ ...transfer, gas: '0x5208' }, { from: COW1, to: BOB }] }],
    })
    expect(BigInt(paid.paidFees)).toBe(21000n * 10n + BigInt(paid.calls[1].gasUsed) * 10n)
    expect(paid.calls[1].returnData).toBe(word(start - 1n - 21000n * 10n))
  })

  it('refuses what no block could hold, in both modes', async () => {
    const p = await fresh()
    const one = (block: Record<string, unknown>, extra: Record<string, unknown> = {}) => p.request({ method: 'eth_simulateV1', params: [{ ...extra, blockStateCalls: [block] }] })
    const poor = '0x00000000000000000000000000000000000f00d0'
    await rejects(one({ calls: [{ from: poor, to: COW, value: '0x1' }] }), -38014, /^err: insufficient funds for gas \* price \+ value/)
    await rejects(one({ calls: [{ from: COW, to: COW1, gas: '0x5207' }] }), -38013, 'err: intrinsic gas too low: have 20999, want 21000 (supplied gas 20999)')
    await rejects(one({ blockOverrides: { gasLimit: '0x7530' }, calls: [{ from: COW, to: COW1, gas: '0x5208' }, { from: COW, to: COW1, gas: '0x5208' }] }), -38015)
  })

  it('runs a contract as the sender in both modes, as geth: its nonce taken and checked, its fee paid, its code kept', async () => {
    const p = await fresh({ minimumGasPrice: 10n })
    const start = 10n ** 18n
    const contract = { [CALLER]: { code: Caller.deployedBytecode, balance: toBeHex(start) }, [BOB]: { code: balanceCode(CALLER) } }
    const created = getCreateAddress({ from: CALLER, nonce: 1 })
    const calls = (validation: boolean) => [
      { from: CALLER, to: COW1, value: '0x7', gas: '0x5208' },
      // Its second transaction: nonce 1 (checked with validation), so its creation is at getCreateAddress(CALLER, 1).
      { from: CALLER, data: initcodeFor(RETURNS_NUMBER.slice(2)), ...(validation ? { nonce: '0x1' } : {}) },
      { from: COW, to: created },
      { from: COW, to: BOB },
      { from: COW, to: CALLER, data: caller.encodeFunctionData('value') },
    ]
    for (const validation of [false, true]) {
      const [b] = await sim(p, { validation, blockStateCalls: [{ stateOverrides: contract, calls: calls(validation) }] })
      expect(b.calls.map((c: any) => c.status)).toEqual(['0x1', '0x1', '0x1', '0x1', '0x1'])
      expect(b.calls[2].returnData).toBe(word(BigInt(b.number)))
      // The fee, at the minimum price with validation, none without: the contract's balance after its two calls.
      const fee = validation ? (BigInt(b.calls[0].gasUsed) + BigInt(b.calls[1].gasUsed)) * 10n : 0n
      expect(b.calls[3].returnData).toBe(word(start - 7n - fee))
      // The block's fees: every call's gas at 10 wei with validation (COW's too), none without.
      const gas = b.calls.reduce((n: bigint, c: any) => n + BigInt(c.gasUsed), 0n)
      expect(BigInt(b.paidFees)).toBe(validation ? gas * 10n : 0n)
      // Its code still runs after it sent: Caller's `value()`, 0.
      expect(b.calls[4].returnData).toBe(word(0))
    }
    await rejects(
      p.request({ method: 'eth_simulateV1', params: [{ validation: true, blockStateCalls: [{ stateOverrides: contract, calls: [calls(true)[0], { ...calls(true)[1], nonce: '0x0' }] }] }] }),
      -38010,
      `err: nonce too low: address ${getAddress(CALLER)}, tx: 0 state: 1 (supplied gas 9979000)`,
    )
  })

  it('a sender with code sends outside a simulation too, as RSKj (no EIP-3607 rule) and an impersonated contract in Anvil', async () => {
    const p = await fresh()
    await p.request({ method: 'anvil_setCode', params: [CALLER, Caller.deployedBytecode] })
    await p.request({ method: 'anvil_setBalance', params: [CALLER, '0xde0b6b3a7640000'] })
    await p.request({ method: 'anvil_impersonateAccount', params: [CALLER] })
    const [b] = await sim(p, { blockStateCalls: [{ calls: [{ from: CALLER, to: COW1, value: '0x1' }] }] })
    expect(b.calls[0].status).toBe('0x1')
    const hash = await p.request({ method: 'eth_sendTransaction', params: [{ from: CALLER, to: COW1, value: '0x1' }] })
    expect(await p.request({ method: 'eth_getTransactionReceipt', params: [hash] })).toMatchObject({ status: '0x1', from: CALLER.toLowerCase() })
    expect(await p.request({ method: 'eth_getCode', params: [CALLER, 'latest'] })).toBe(Caller.deployedBytecode)
    // Its transaction replays for traces as it ran.
    expect(await p.request({ method: 'trace_transaction', params: [hash] })).toMatchObject([{ action: { from: CALLER.toLowerCase(), value: '0x1' } }])
  })
})

describe('eth_simulateV1 bad input', () => {
  let p: Provider
  beforeAll(async () => {
    p = await fresh()
  })
  const call = (params: unknown[]) => p.request({ method: 'eth_simulateV1', params })

  it('answers the spec\'s codes, -32602 where it has none', async () => {
    await rejects(call([{ blockStateCalls: [{ blockOverrides: { number: '0x10' } }, { blockOverrides: { number: '0x10' } }] }]), -38020, 'block numbers must be in order: 16 <= 16')
    const late = toBeHex(LATER)
    await rejects(call([{ blockStateCalls: [{ blockOverrides: { time: late } }, { blockOverrides: { time: late } }] }]), -38021, `block timestamps must be in order: ${LATER} <= ${LATER}`)
    await rejects(call([{ blockStateCalls: [{ blockOverrides: { number: '0x102' } }] }]), -38026, 'too many blocks')
    await rejects(call([{ blockStateCalls: Array.from({ length: 257 }, () => ({})) }]), -38026, 'too many blocks')
    await rejects(call([{ blockStateCalls: [{ calls: Array.from({ length: 1001 }, () => ({ to: COW })) }] }]), -38026, 'too many calls: 1001 > 1000')
    await rejects(call([{}]), -32602)
    await rejects(call([{ blockStateCalls: [{ calls: {} }] }]), -32602)
    await rejects(call([{ blockStateCalls: [{ blockOverrides: { baseFeePerGas: '0x1' } }] }]), -32602, /baseFeePerGas cannot be overridden/)
    await rejects(call([{ blockStateCalls: [{ blockOverrides: { prevRandao: '0x' + '00'.repeat(32) } }] }]), -32602)
    await rejects(call([{ validation: 'yes', blockStateCalls: [{}] }]), -32602)
    // A base the chain does not have: geth's -32000 (test/eth_simulateV1.geth.test.ts).
    await rejects(call([{ blockStateCalls: [{}] }, '0x99']), -32000, 'header not found')
  })

  it('is an extension: -32601 in hosted mode, as an unknown method', async () => {
    const hosted = await fresh({ hosted: true })
    await rejects(hosted.request({ method: 'eth_simulateV1', params: [{ blockStateCalls: [{}] }] }), -32601, 'method not found')
  })
})

describe('eth_simulateV1 through viem over HTTP', () => {
  let server: RsksimServer
  const regtest: Chain = { id: 33, name: 'rsksim', nativeCurrency: { name: 'RBTC', symbol: 'RBTC', decimals: 18 }, rpcUrls: { default: { http: [] } } }
  beforeAll(async () => {
    server = await startServer({ port: 0 })
  })
  afterAll(() => server.close())
  const erc20 = parseAbi(['function transfer(address,uint256) returns (bool)', 'function balanceOf(address) view returns (uint256)'])
  const stateOverrides = [{ address: TOKEN, code: Token.deployedBytecode, stateDiff: [{ slot: balanceSlot(ALICE), value: word(1000) }] }] as never

  it('simulateBlocks decodes each call\'s result and error', async () => {
    const client = createPublicClient({ chain: regtest, transport: http(server.url, { retryCount: 0 }) })
    const [block] = await client.simulateBlocks({
      blocks: [
        {
          stateOverrides,
          calls: [
            { from: ALICE, to: TOKEN, abi: erc20, functionName: 'transfer', args: [BOB, 300n] },
            { from: ALICE, to: TOKEN, abi: erc20, functionName: 'balanceOf', args: [ALICE] },
            { from: ALICE, to: TOKEN, abi: erc20, functionName: 'transfer', args: [BOB, 5000n] },
          ],
        },
      ],
    })
    expect(block!.calls.map((c) => c.status)).toEqual(['success', 'success', 'failure'])
    expect([block!.calls[0]!.result, block!.calls[1]!.result]).toEqual([true, 700n])
    expect((block!.calls[2] as { error: Error }).error.message).toContain('ERC20: insufficient balance')
    expect(block!.calls[0]!.logs![0]!.topics[0]).toBe(TRANSFER_TOPIC)
    // geth's maxUsedGas (the gas before the refund), which viem reports when the node answers it: no refund here.
    expect(block!.calls.map((c) => c.maxUsedGas)).toEqual(block!.calls.map((c) => c.gasUsed))
    expect(typeof block!.calls[0]!.maxUsedGas).toBe('bigint')
    // geth's blockTimestamp on logs, which viem's formatLog reads.
    expect(block!.calls[0]!.logs![0]!.blockTimestamp).toBe(block!.timestamp)
  })

  it('simulateCalls runs an account\'s calls and reports its transfers', async () => {
    const client = createPublicClient({ chain: regtest, transport: http(server.url, { retryCount: 0 }) })
    const { results } = await client.simulateCalls({
      account: COW,
      traceTransfers: true,
      calls: [{ to: COW1, value: 5n }, { to: TOKEN, abi: erc20, functionName: 'balanceOf', args: [ALICE] }],
      stateOverrides,
    })
    expect(results.map((r) => r.status)).toEqual(['success', 'success'])
    expect(results[0]!.logs!.map((l) => [l.address, l.topics, l.data])).toEqual([[ETH_PSEUDO, [TRANSFER_TOPIC, topicOf(COW), topicOf(COW1)], word(5)]])
    expect(results[1]!.result).toBe(1000n)
  })

  it('simulateCalls runs the calls of a smart account (a contract address as account)', async () => {
    const client = createPublicClient({ chain: regtest, transport: http(server.url, { retryCount: 0 }) })
    const smart = CALLER as `0x${string}`
    const { results } = await client.simulateCalls({
      account: smart,
      traceTransfers: true,
      calls: [
        { to: COW1, value: 5n },
        { to: TOKEN, abi: erc20, functionName: 'transfer', args: [BOB, 300n] },
        { to: TOKEN, abi: erc20, functionName: 'balanceOf', args: [smart] },
      ],
      stateOverrides: [
        { address: smart, code: Caller.deployedBytecode as `0x${string}`, balance: 1000n },
        { address: TOKEN, code: Token.deployedBytecode as `0x${string}`, stateDiff: [{ slot: balanceSlot(smart) as `0x${string}`, value: word(1000) as `0x${string}` }] },
      ],
    })
    expect(results.map((r) => r.status)).toEqual(['success', 'success', 'success'])
    expect(results[0]!.logs!.map((l) => [l.address, l.topics, l.data])).toEqual([[ETH_PSEUDO, [TRANSFER_TOPIC, topicOf(smart), topicOf(COW1)], word(5)]])
    expect(results[1]!.logs!.map((l) => [l.address, l.topics, l.data])).toEqual([[TOKEN, [TRANSFER_TOPIC, topicOf(smart), topicOf(BOB)], word(300)]])
    expect([results[1]!.result, results[2]!.result]).toEqual([true, 700n])
  })
})
