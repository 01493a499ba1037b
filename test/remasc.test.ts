/**
 * REMASC (reference §2.2, §2.3, §7.1, §7.6; RSKj `co/rsk/remasc/*`): the system transaction that ends every block,
 * fees held by the REMASC contract and paid to the miner after maturity, and clients reading such blocks.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { AbiCoder, BrowserProvider, Contract, computeAddress, decodeRlp, encodeRlp, keccak256, toBeHex, zeroPadValue } from 'ethers'
import { createPublicClient, custom } from 'viem'
import type { Provider } from '../src/index.js'
import { COW, COW1, MINER, deployCode, fresh, send, rq } from './helpers.js'

const REMASC = '0x0000000000000000000000000000000001000008'
const ZERO = '0x0000000000000000000000000000000000000000'
const balance = async (p: Provider, a: string) => BigInt(await rq(p, 'eth_getBalance', [a, 'latest']))
/** BridgeRegTestConstants genesis federation; RSK keys = BTC keys on regtest; in payment order (sorted by key). */
const FEDERATORS = [
  '0362634ab57dae9cb373a5d536e66a8c4f67468bbcfb063809bab643072d78a124',
  '03c5946b3fbae03a654237da863c9ed534e0878657175b132b8ca630f245df04db',
  '02cd53fc53a07f211641a677d250f6de99caf620e8e77071e811a28b3bcddf0be1',
]
  .sort()
  .map((k) => computeAddress('0x' + k).toLowerCase())
const utf8Word = (s: string) => zeroPadValue('0x' + Buffer.from(s).toString('hex'), 32)

/** RSKj's unsigned encoding: [nonce, 0x00, 0x00, REMASC, 0x80 × 5] with a one-byte zero gas price and gas limit. */
const remascHash = (nonce: string) => keccak256('0xdd' + nonce + '0000' + '94' + REMASC.slice(2) + '8080808080')

describe('the REMASC transaction ends every block', () => {
  let p: Provider
  let user: Record<string, any>
  beforeAll(async () => {
    p = await fresh()
    user = await send(p, { to: COW1, value: '0x5' })
  })

  it('is listed last and counted; the user transaction stays at index 0', async () => {
    const block = await rq(p, 'eth_getBlockByNumber', ['0x1', false])
    expect(block.transactions).toEqual([user.transactionHash, remascHash('80')])
    expect(await rq(p, 'eth_getBlockTransactionCountByNumber', ['0x1'])).toBe('0x2')
    expect(await rq(p, 'eth_getBlockTransactionCountByHash', [block.hash])).toBe('0x2')
    expect(user.transactionIndex).toBe('0x0')
  })

  it('has RSKj shape: from 0x0…0, nonce = number − 1, zero gas, price and value, input 0x, v/r/s 0x0', async () => {
    const block = await rq(p, 'eth_getBlockByNumber', ['0x1', true])
    const tx = block.transactions[1]
    expect(tx).toEqual({
      hash: remascHash('80'),
      nonce: '0x0',
      blockHash: block.hash,
      blockNumber: '0x1',
      transactionIndex: '0x1',
      from: ZERO,
      to: REMASC,
      gas: '0x0',
      gasPrice: '0x0',
      value: '0x0',
      input: '0x',
      v: '0x0',
      r: '0x0',
      s: '0x0',
      type: '0x0',
    })
    expect(await rq(p, 'eth_getTransactionByHash', [tx.hash])).toEqual(tx)
    expect(await rq(p, 'eth_getTransactionByBlockNumberAndIndex', ['0x1', '0x1'])).toEqual(tx)
    expect(await rq(p, 'eth_getTransactionByBlockHashAndIndex', [block.hash, '0x1'])).toEqual(tx)
  })

  it('has a receipt: success, no gas, cumulativeGasUsed = the block gas', async () => {
    const r = await rq(p, 'eth_getTransactionReceipt', [remascHash('80')])
    expect(r).toMatchObject({ transactionIndex: '0x1', blockNumber: '0x1', cumulativeGasUsed: '0x5208', gasUsed: '0x0', contractAddress: null })
    expect(r).toMatchObject({ logs: [], from: ZERO, to: REMASC, status: '0x1', type: '0x0', effectiveGasPrice: '0x0' })
  })

  it('is alone in an empty block, with nonce = number − 1', async () => {
    await rq(p, 'evm_mine')
    const block = await rq(p, 'eth_getBlockByNumber', ['0x2', true])
    expect(block.transactions.map((t: any) => [t.hash, t.nonce])).toEqual([[remascHash('01'), '0x1']])
    expect(block.gasUsed).toBe('0x0')
  })

  it('ethers and viem read full blocks that contain it', async () => {
    const ethers = new BrowserProvider(p as never)
    const b = await ethers.getBlock(1, true)
    expect(b!.prefetchedTransactions.map((t) => [t.hash, t.from.toLowerCase(), t.to?.toLowerCase(), t.index])).toEqual([
      [user.transactionHash, COW, COW1, 0],
      [remascHash('80'), ZERO, REMASC, 1],
    ])
    const viem = createPublicClient({ transport: custom(p as never) })
    const v = await viem.getBlock({ blockNumber: 1n, includeTransactions: true })
    // v 102: cow's signature (ethers) over RSKj's bytes of the user transaction, its zero gas price written 0x00
    // (eth_sendTransaction_params.test.ts); recovery parity 1, 35 + 2 × 33 + 1.
    expect(v.transactions.map((t) => [t.hash, t.from, t.to, t.v, t.transactionIndex])).toEqual([
      [user.transactionHash, COW, COW1, 102n, 0],
      [remascHash('80'), ZERO, REMASC, 0n, 1],
    ])
  })
})

describe('fees go to REMASC and reach the miner after maturity', () => {
  const GAS_PRICE = 10n ** 9n
  const FEE = 21_000n * GAS_PRICE
  let p: Provider
  beforeAll(async () => {
    p = await fresh()
  })

  it('at inclusion the coinbase gets nothing, REMASC the fee, and paidFees says so', async () => {
    const miner = await balance(p, MINER)
    const r = await send(p, { to: COW1, value: '0x1', gasPrice: toBeHex(GAS_PRICE) })
    expect(r.status).toBe('0x1')
    expect(await balance(p, MINER)).toBe(miner)
    expect(await balance(p, REMASC)).toBe(FEE)
    expect(BigInt((await rq(p, 'eth_getBlockByNumber', ['0x1', false])).paidFees)).toBe(FEE)
  })

  it('block 11 books block 1 fees as rewardBalance; nothing is paid before block 15', async () => {
    for (let i = 2; i <= 14; i++) await rq(p, 'evm_mine')
    expect(await rq(p, 'eth_getStorageAt', [REMASC, utf8Word('rewardBalance'), '0xa'])).toBe(zeroPadValue('0x', 32))
    expect(BigInt(await rq(p, 'eth_getStorageAt', [REMASC, utf8Word('rewardBalance'), '0xb']))).toBe(FEE)
    expect(await balance(p, REMASC)).toBe(FEE)
    const r = await rq(p, 'eth_getTransactionReceipt', [(await rq(p, 'eth_getBlockByNumber', ['0xe', false])).transactions[0]])
    expect(r.logs).toEqual([])
  })

  it('block 15 pays a fifth of the reward: 1/5 to RSK Labs, 1/100 of the rest to the federators, the rest to the miner', async () => {
    const minerBefore = await balance(p, MINER)
    // Before it is mined, the pending block (head + 1 = 15) already ends with those payments (src/node/miner/pending.ts).
    expect(BigInt(await rq(p, 'eth_getBalance', [MINER, 'pending']))).toBe(minerBefore + 3_326_400_000_000n)
    expect(await balance(p, MINER)).toBe(minerBefore)
    await rq(p, 'evm_mine')
    // Remasc.processMinersFees with regtest remasc.json (maturity 10, syntheticSpan 5, rskLabsDivisor 5,
    // federationDivisor 100), worked by hand: the reward is block 1's fee, 21,000 × 10^9 = 21,000,000,000,000;
    // synthetic = reward / 5 = 4,200,000,000,000; RSK Labs 1/5 of it = 840,000,000,000; the federation 1/100 of
    // the remaining 3,360,000,000,000 = 33,600,000,000, split in three = 11,200,000,000 each (no remainder); the
    // miner the rest, 3,326,400,000,000; REMASC keeps 21,000,000,000,000 − 4,200,000,000,000.
    const synthetic = 4_200_000_000_000n
    const labs = 840_000_000_000n
    const federation = 33_600_000_000n
    const toMiner = 3_326_400_000_000n
    expect(labs + federation + toMiner).toBe(synthetic) // the hand-worked split adds up
    const labsAddress = '0xdabadabadabadabadabadabadabadabadaba0001'
    const federators = FEDERATORS
    expect(await balance(p, MINER)).toBe(minerBefore + toMiner)
    expect(await balance(p, labsAddress)).toBe(labs)
    for (const f of federators) expect(await balance(p, f)).toBe(11_200_000_000n)
    expect(await balance(p, REMASC)).toBe(16_800_000_000_000n)
    expect(BigInt(await rq(p, 'eth_getStorageAt', [REMASC, utf8Word('rewardBalance'), 'latest']))).toBe(16_800_000_000_000n)

    // Each payment is logged by REMASC: topics [mining_fee_topic, payee], data RLP[processed block hash, amount].
    const block15 = await rq(p, 'eth_getBlockByNumber', ['0xf', false])
    const block5 = await rq(p, 'eth_getBlockByNumber', ['0x5', false])
    const receipt = await rq(p, 'eth_getTransactionReceipt', [block15.transactions[0]])
    const expected = [
      [labsAddress, labs],
      ...federators.map((f) => [f, 11_200_000_000n] as const),
      [MINER, toMiner],
    ] as const
    expect(receipt.logs.map((l: any) => [l.address, l.topics, l.data])).toEqual(
      expected.map(([to, v]) => [REMASC, [utf8Word('mining_fee_topic'), zeroPadValue(to, 32)], encodeRlp([block5.hash, toBeHex(v)])]),
    )
    const logs = await rq(p, 'eth_getLogs', [{ fromBlock: '0xf', toBlock: '0xf', address: REMASC }])
    expect(logs.map((l: any) => l.transactionHash)).toEqual(Array(5).fill(block15.transactions[0]))
  })

  it('the value is conserved: REMASC + payees = the fees', async () => {
    await rq(p, 'evm_mine')
    const logs = await rq(p, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: REMASC }])
    expect(logs).toHaveLength(10)
    const payees = [...new Set(logs.map((l: any) => '0x' + l.topics[1].slice(26)))] as string[]
    expect(payees).toHaveLength(5)
    let sum = await balance(p, REMASC)
    for (const a of payees) sum += await balance(p, a)
    expect(sum).toBe(FEE)
    const paid = logs.reduce((s: bigint, l: any) => s + BigInt(decodeRlp(l.data)[1] as string), 0n)
    expect(paid).toBe(FEE - (await balance(p, REMASC)))
  })
})

describe('the federation share that does not split evenly', () => {
  it('goes to the last federator (Remasc.payToFederation: restToLastFederator)', async () => {
    const p = await fresh()
    // Gas price 10^9 + 2: the fee is 21,000 × 1,000,000,002 = 21,000,000,042,000. Worked by hand from RSKj's rules
    // (see above): synthetic = 4,200,000,008,400; RSK Labs 840,000,001,680; the federation 1/100 of
    // 3,360,000,006,720 = 33,600,000,067 = 3 × 11,200,000,022 + 1, so the last federator gets 11,200,000,023; the
    // miner 3,360,000,006,720 − 33,600,000,067 = 3,326,400,006,653; REMASC keeps 16,800,000,033,600.
    const r = await send(p, { to: COW1, value: '0x1', gasPrice: toBeHex(1_000_000_002n) })
    expect(r.status).toBe('0x1')
    for (let i = 2; i <= 15; i++) await rq(p, 'evm_mine')
    const federators = FEDERATORS
    expect(await Promise.all(federators.map((f) => balance(p, f)))).toEqual([11_200_000_022n, 11_200_000_022n, 11_200_000_023n])
    expect(await balance(p, '0xdabadabadabadabadabadabadabadabadaba0001')).toBe(840_000_001_680n)
    expect(await balance(p, MINER)).toBe(3_326_400_006_653n)
    expect(await balance(p, REMASC)).toBe(16_800_000_033_600n)
  })
})

describe('remasc: false', () => {
  it('blocks carry only user transactions and the coinbase is paid at once', async () => {
    const p = await fresh({ remasc: false })
    const r = await send(p, { to: COW1, value: '0x1', gasPrice: '0x2' })
    expect(await rq(p, 'eth_getBlockTransactionCountByNumber', ['0x1'])).toBe('0x1')
    expect(await balance(p, MINER)).toBe(2n * BigInt(r.gasUsed))
    expect(await balance(p, REMASC)).toBe(0n)
  })
})

describe('REMASC transaction bytes', () => {
  it('hash is keccak of RSKj getEncoded(): [nonce, 0x00, 0x00, REMASC, "", "", "", "", ""], written out by hand', async () => {
    const p = await fresh()
    await p.request({ method: 'evm_mine' })
    await p.request({ method: 'evm_mine' })
    for (const [number, nonceItem] of [[1, '80'], [2, '01']] as const) {
      const block = (await p.request({ method: 'eth_getBlockByNumber', params: ['0x' + number.toString(16), false] })) as { transactions: string[] }
      // 29-byte body: nonce item, 0x00, 0x00, 0x94 + 20-byte address, five empty strings (0x80).
      const raw = '0xdd' + nonceItem + '0000' + '94' + '0000000000000000000000000000000001000008' + '8080808080'
      expect(block.transactions.at(-1)).toBe(keccak256(raw))
    }
  })
})

describe('REMASC receipt blooms', () => {
  it('each REMASC receipt\'s bloom, and its block\'s, hold exactly its logs (reference: @ethereumjs/vm Bloom)', async () => {
    const { Bloom } = await import('@ethereumjs/vm')
    const { hexToBytes, bytesToHex } = await import('@ethereumjs/util')
    const p = await fresh()
    for (let i = 0; i < 24; i++) await p.request({ method: 'evm_mine', params: [] })
    let withLogs = 0
    for (let n = 1; n <= 24; n++) {
      const block = (await p.request({ method: 'eth_getBlockByNumber', params: ['0x' + n.toString(16), false] })) as any
      const receipt = (await p.request({ method: 'eth_getTransactionReceipt', params: [block.transactions.at(-1)] })) as any
      const bloom = new Bloom()
      for (const log of receipt.logs) for (const item of [log.address, ...log.topics]) bloom.add(hexToBytes(item))
      expect(receipt.logsBloom).toBe(bytesToHex(bloom.bitvector))
      expect(block.logsBloom).toBe(bytesToHex(bloom.bitvector))
      if (receipt.logs.length > 0) withLogs++
    }
    expect(withLogs).toBeGreaterThan(5)
  })
})

describe('REMASC raw receipts', () => {
  it("chain_getRawTransactionReceiptByHash is RSKj's receipt RLP of the JSON receipt's fields (reference: ethers encodeRlp)", async () => {
    const p = await fresh()
    await send(p, { to: COW1, value: '0x5', gasPrice: '0x3b9aca00' })
    for (let i = 0; i < 24; i++) await p.request({ method: 'evm_mine', params: [] })
    let withLogs = 0
    for (let n = 1; n <= 25; n++) {
      const block = await rq(p, 'eth_getBlockByNumber', ['0x' + n.toString(16), false])
      const hash = block.transactions.at(-1)
      const receipt = await rq(p, 'eth_getTransactionReceipt', [hash])
      const quantity = (q: string) => (BigInt(q) === 0n ? '0x' : toBeHex(BigInt(q)))
      const expected = encodeRlp([
        '0x01',
        quantity(receipt.cumulativeGasUsed),
        receipt.logsBloom,
        receipt.logs.map((l: any) => [l.address, l.topics, l.data]),
        '0x',
        '0x01',
      ])
      expect(await rq(p, 'chain_getRawTransactionReceiptByHash', [hash])).toBe(expected)
      if (receipt.logs.length > 0) withLogs++
    }
    expect(withLogs).toBeGreaterThan(5)
  })
})

describe("REMASC's contract for users (RemascContract: getStateForDebugging; processMinersFees only in the block's REMASC transaction)", () => {
  const GAS_PRICE = 10n ** 9n
  const selector = (sig: string) => keccak256(Buffer.from(sig)).slice(0, 10)
  const DEBUG = selector('getStateForDebugging()')
  const PROCESS = selector('processMinersFees()')
  /** A contract that forwards its call data and value to REMASC and returns the answer followed by CALL's result word. */
  const relayWithValue = '36600060003760006000366000' + '34' + '73' + REMASC.slice(2) + '5af13d600060003e3d523d6020016000f3'
  /** getStateForDebugging's `bytes` answer, decoded. */
  const stateAt = async (p: Provider, block: string) => AbiCoder.defaultAbiCoder().decode(['bytes'], await rq(p, 'eth_call', [{ to: REMASC, data: DEBUG }, block]))[0]

  it("answers RemascState.getEncoded: RLP [reward balance, burned balance, [], the broken-selection-rule byte], at any block", async () => {
    const p = await fresh()
    // RLP.encodeCoin of 0 is 0x80; the siblings an empty list; the flag one raw byte 0.
    expect(await stateAt(p, 'latest')).toBe(encodeRlp(['0x', '0x', [], '0x00']))
    await send(p, { to: COW1, value: '0x1', gasPrice: toBeHex(GAS_PRICE) })
    for (let i = 2; i <= 15; i++) await rq(p, 'evm_mine')
    // The figures of the test above: block 1's fee booked at block 11, a fifth of it paid at block 15.
    expect(await stateAt(p, '0xb')).toBe(encodeRlp([toBeHex(21_000n * GAS_PRICE), '0x', [], '0x00']))
    expect(await stateAt(p, 'latest')).toBe(encodeRlp([toBeHex(16_800_000_000_000n), '0x', [], '0x00']))
    expect(decodeRlp(await stateAt(p, 'latest'))[0]).toBe(await rq(p, 'eth_getStorageAt', [REMASC, utf8Word('rewardBalance'), 'latest']).then((w: string) => toBeHex(BigInt(w))))
    // Price 0: the estimate is the intrinsic gas alone (21,000 and the selector's four non-zero bytes).
    expect(BigInt(await rq(p, 'eth_estimateGas', [{ to: REMASC, data: DEBUG }]))).toBe(21_064n)
    // Through ethers' Contract.
    const contract = new Contract(REMASC, ['function getStateForDebugging() view returns (bytes)'], new BrowserProvider(p as never))
    expect(await contract.getFunction('getStateForDebugging')()).toBe(encodeRlp([toBeHex(16_800_000_000_000n), '0x', [], '0x00']))
  })

  it('refuses processMinersFees from users, and any other data: value sent straight to REMASC stays with the sender', async () => {
    const p = await fresh()
    // A transaction straight to REMASC with value and no data (processMinersFees): RSKj keeps the failure without an
    // execution error (status 0x1) and transfers nothing.
    const before = await balance(p, COW)
    const r = await send(p, { to: REMASC, value: '0x3e8', gasPrice: '0x0' })
    expect([r.status, Number(r.gasUsed)]).toEqual(['0x1', 21_000])
    expect(await balance(p, REMASC)).toBe(0n)
    expect(await balance(p, COW)).toBe(before)
    // From a contract: the CALL answers 0 and the value goes back to the caller.
    const relay = await deployCode(p, relayWithValue)
    await send(p, { to: relay, value: '0x3e8', gasPrice: '0x0' })
    expect(await balance(p, relay)).toBe(1000n)
    expect(await balance(p, REMASC)).toBe(0n)
    const viaRelay = async (data: string) => BigInt('0x' + (await rq(p, 'eth_call', [{ to: relay, data }, 'latest'])).slice(-64))
    expect(await viaRelay(DEBUG)).toBe(1n)
    for (const data of ['0x', PROCESS, DEBUG + '00', '0x12345678', DEBUG.slice(0, 8)]) expect([data, await viaRelay(data)]).toEqual([data, 0n])
  })
})
