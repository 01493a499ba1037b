/**
 * eth_simulateV1 where geth (internal/ethapi/simulate.go, errors.go, api.go `SimulateV1`) and the execution-apis spec
 * (src/schemas/execute.yaml, tests/eth_simulateV1/*.io) set the behaviour: the request's gas budget, `maxUsedGas`,
 * `blockTimestamp` on logs, geth's error codes and texts, and some of the spec's request/response vectors.
 *
 * Vectors converted (ethereum/execution-apis tests/eth_simulateV1/, the request as sent, the answer's fields that do
 * not depend on Ethereum's header or gas table): instrict-gas-38013, block-num-order-38020,
 * block-timestamp-order-38021, big-block-state-calls-array, transaction-too-low-nonce-38010,
 * transaction-too-high-nonce, logs, gas-fees-and-value-error-38014, simple-no-funds, try-to-move-non-precompile,
 * move-two-non-precompiles-accounts-to-same, run-out-of-gas-in-block-38015. Not converted: those that need a base fee,
 * blobs, withdrawals or prevRandao (the -38012 base-fee vectors, blobs, check-invalid-nonce and the validation ones
 * that end in -38012), those that override or move a precompile (RSKj refuses precompile overrides; rsksim does not
 * move them), those that send from a contract (rsksim's engine refuses a sender with code, EIP-3607; geth skips that check), and every expected block hash,
 * size, state root and gas figure (RSK's header and gas table differ from Ethereum's).
 *
 * Expected values: the vectors' answers, geth's texts read in its source, and gas figures computed here from RSK's
 * gas table (reference §7.5: SSTORE clear 5,000 with a 15,000 refund, refunds capped at half the gas used).
 */
import { describe, expect, it } from 'vitest'
import { COW, COW1, fresh, rejects } from './helpers.js'
import type { Provider } from '../src/index.js'

const C0 = '0xc000000000000000000000000000000000000000'
const C1 = '0xc100000000000000000000000000000000000000'
const C2 = '0xc200000000000000000000000000000000000000'
/** JUMPDEST, PUSH1 0, JUMP: loops until its gas is gone. */
const LOOP = '0x5b600056'
/** PUSH1 0, PUSH1 0, SSTORE, STOP: clears slot 0. */
const CLEAR_SLOT_0 = '0x600060005500'
const SLOT_0 = '0x' + '00'.repeat(32)
const ONE = '0x' + '00'.repeat(31) + '01'

const sim = async (p: Provider, payload: Record<string, unknown>, block: unknown = 'latest'): Promise<any[]> =>
  (await p.request({ method: 'eth_simulateV1', params: [payload, block] })) as any[]
const simRejects = (p: Provider, payload: Record<string, unknown>, code: number, message?: string | RegExp) =>
  rejects(p.request({ method: 'eth_simulateV1', params: [payload, 'latest'] }), code, message)

describe('eth_simulateV1 gas budget (geth simulate.go gasBudget)', () => {
  const transfer = { from: COW, to: COW1, value: '0x1' }
  const loop = { stateOverrides: { [C2]: { code: LOOP } } }

  it('spends one budget of callGasCap across the calls and blocks of a request, and says when a call was cut', async () => {
    const p = await fresh({ callGasCap: 100_000n })
    // Two transfers of 21,000 leave 58,000 of the 100,000: the loop, given no gas, gets that, not the block's gas.
    const blocks = await sim(p, { blockStateCalls: [{ calls: [transfer, transfer] }, { ...loop, calls: [{ from: COW, to: C2 }] }] })
    expect(blocks[0].calls.map((c: any) => c.gasUsed)).toEqual(['0x5208', '0x5208'])
    expect(blocks[1].calls[0]).toMatchObject({
      status: '0x0',
      gasUsed: '0x' + (58_000).toString(16),
      error: { code: -32015, message: "out of gas (gas limit was capped by the RPC server's global gas cap)" },
    })
  })

  it('refuses a call once the budget is spent, as the intrinsic gas it cannot pay (-38013)', async () => {
    const p = await fresh({ callGasCap: 100_000n })
    await simRejects(p, { blockStateCalls: [{ ...loop, calls: [{ from: COW, to: C2 }, transfer] }] }, -38013, 'err: intrinsic gas too low: have 0, want 21000 (supplied gas 0)')
  })

  it('a call within the budget fails without the note', async () => {
    const p = await fresh()
    const [b] = await sim(p, { blockStateCalls: [{ ...loop, calls: [{ from: COW, to: C2, gas: '0x186a0' }] }] })
    expect(b.calls[0].error).toEqual({ code: -32015, message: 'out of gas' })
  })

  it('gives a call without gas what its block has left, and refuses more than that (-38015)', async () => {
    const p = await fresh()
    const [b] = await sim(p, { blockStateCalls: [{ blockOverrides: { gasLimit: '0x30d40' }, ...loop, calls: [transfer, { from: COW, to: C2 }] }] })
    expect(b.calls[1].gasUsed).toBe('0x' + (200_000 - 21_000).toString(16))
    expect(b.gasUsed).toBe('0x30d40')
    await simRejects(p, { blockStateCalls: [{ blockOverrides: { gasLimit: '0xc350' }, calls: [transfer, { ...transfer, gas: '0x7530' }] }] }, -38015, 'block gas limit reached: remaining: 29000, required: 30000')
  })
})

describe('eth_simulateV1 call results and logs as geth', () => {
  it('answers maxUsedGas, the gas used before the refund', async () => {
    const p = await fresh()
    const [b] = await sim(p, { blockStateCalls: [{ stateOverrides: { [C2]: { code: CLEAR_SLOT_0, stateDiff: { [SLOT_0]: ONE } } }, calls: [{ from: COW, to: C2 }, { from: COW, to: COW1 }] }] })
    // 21,000 + PUSH1 + PUSH1 + SSTORE clear (3 + 3 + 5,000) = 26,006 before the refund; the 15,000 refund is capped
    // at half of that, 13,003.
    expect(b.calls[0]).toMatchObject({ gasUsed: '0x' + (13_003).toString(16), maxUsedGas: '0x' + (26_006).toString(16), status: '0x1' })
    expect(b.calls[1]).toMatchObject({ gasUsed: '0x5208', maxUsedGas: '0x5208' })
    expect(Object.keys(b.calls[0])).toEqual(['returnData', 'logs', 'gasUsed', 'maxUsedGas', 'status'])
  })

  it('vector logs: a log carries its block\'s timestamp as blockTimestamp', async () => {
    const p = await fresh()
    const [b] = await sim(p, {
      blockStateCalls: [
        {
          stateOverrides: { [C2]: { code: '0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff80600080a1600080f3' } },
          calls: [{ from: C0, to: C2, input: '0x6057361d0000000000000000000000000000000000000000000000000000000000000005' }],
        },
      ],
    })
    const [log] = b.calls[0].logs
    expect(log).toEqual({
      logIndex: '0x0',
      blockNumber: b.number,
      blockHash: b.hash,
      blockTimestamp: b.timestamp,
      transactionHash: b.transactions[0],
      transactionIndex: '0x0',
      address: C2,
      data: '0x',
      topics: ['0x' + 'ff'.repeat(32)],
      removed: false,
    })
    expect([b.calls[0].returnData, b.calls[0].status]).toEqual(['0x', '0x1'])
    // eth_getLogs' fields stay RSKj's: no blockTimestamp there (test/eth_filters.test.ts covers their order).
  })
})

describe('eth_simulateV1 execution-apis vectors: refusals', () => {
  it('instrict-gas-38013', async () => {
    const p = await fresh()
    await simRejects(p, { blockStateCalls: [{ calls: [{ from: C1, to: C1, gas: '0x0' }] }] }, -38013, 'err: intrinsic gas too low: have 0, want 21000 (supplied gas 0)')
  })

  it('block-num-order-38020', async () => {
    const p = await fresh()
    const number = (n: string, from: string) => ({ blockOverrides: { number: n }, calls: [{ from, input: '0x4360005260206000f3' }] })
    await simRejects(p, { blockStateCalls: [number('0x9a', C1), number('0x90', C0)] }, -38020, 'block numbers must be in order: 144 <= 154')
  })

  it('block-timestamp-order-38021 (on a chain whose genesis is older than the vector\'s times)', async () => {
    const p = await fresh({ genesisTimestamp: 0x1fn })
    await simRejects(p, { blockStateCalls: [{ blockOverrides: { time: '0x228' } }, { blockOverrides: { time: '0x227' } }] }, -38021, 'block timestamps must be in order: 551 <= 552')
  })

  it('big-block-state-calls-array: 300 blocks', async () => {
    const p = await fresh()
    await simRejects(p, { blockStateCalls: Array.from({ length: 300 }, () => ({})) }, -38026, 'too many blocks')
  })

  it('gas-fees-and-value-error-38014 and simple-no-funds: geth\'s text, the gas supplied being the block\'s or the budget\'s', async () => {
    const text = (gas: bigint) => `err: insufficient funds for gas * price + value: address 0xC000000000000000000000000000000000000000 have 0 want 1000 (supplied gas ${gas})`
    const one = { blockStateCalls: [{ calls: [{ from: C0, to: C1, value: '0x3e8' }] }] }
    const two = { blockStateCalls: [{ calls: [{ from: C0, to: C1, value: '0x3e8' }, { from: C1, to: C2, value: '0x3e8' }] }] }
    const smallBlocks = await fresh({ blockGasLimit: 8_000_000n })
    await simRejects(smallBlocks, one, -38014, text(8_000_000n))
    await simRejects(smallBlocks, two, -38014, text(8_000_000n))
    await simRejects(await fresh({ callGasCap: 5_000_000n }), one, -38014, text(5_000_000n))
  })

  it('try-to-move-non-precompile and move-two-non-precompiles-accounts-to-same: -32000, as geth', async () => {
    const p = await fresh()
    await simRejects(
      p,
      {
        validation: true,
        blockStateCalls: [
          { stateOverrides: { [C0]: { nonce: '0x5' } } },
          { stateOverrides: { [C0]: { movePrecompileToAddress: C1 } }, calls: [{ from: C0, to: C0, nonce: '0x0' }, { from: C1, to: C1, nonce: '0x5' }] },
        ],
      },
      -32000,
      'account 0xC000000000000000000000000000000000000000 is not a precompile',
    )
    const stateOverrides = { '0x0100000000000000000000000000000000000000': { movePrecompileToAddress: C2 }, '0x0200000000000000000000000000000000000000': { movePrecompileToAddress: C2 } }
    await simRejects(p, { blockStateCalls: [{ stateOverrides }] }, -32000, 'account 0x0100000000000000000000000000000000000000 is not a precompile')
  })

  it('moving a precompile is refused with -32000 (geth moves it; rsksim keeps RSK\'s precompiles in place), eth_call keeps RSKj\'s -32201', async () => {
    const p = await fresh()
    const bridge = '0x0000000000000000000000000000000001000006'
    await simRejects(p, { blockStateCalls: [{ stateOverrides: { '0x0000000000000000000000000000000000000001': { movePrecompileToAddress: C2 } } }] }, -32000, /^account 0x0000000000000000000000000000000000000001 cannot be moved/)
    await simRejects(p, { blockStateCalls: [{ stateOverrides: { [bridge]: { movePrecompileToAddress: C2 } } }] }, -32000, /^account 0x0000000000000000000000000000000001000006 cannot be moved/)
    await rejects(p.request({ method: 'eth_call', params: [{ to: C2 }, 'latest', { [bridge]: { movePrecompileToAddress: C2 } }] }), -32201, 'Move precompile to address is not supported yet')
  })

  it('init code over 49,152 bytes is -38025, as a block refuses it (RSKIP438); 49,152 bytes run', async () => {
    const p = await fresh()
    const create = (n: number) => ({ blockStateCalls: [{ calls: [{ from: COW, data: '0x' + '00'.repeat(n) }] }] })
    const [b] = await sim(p, create(49_152))
    expect(b.calls[0].status).toBe('0x1')
    await simRejects(p, create(49_153), -38025, 'err: max initcode size exceeded: code size 49153 limit 49152 (supplied gas 10000000)')
  })

  it('overflow-nonce-validation: a sender at nonce 2^64 - 1 is -32603 with geth\'s text, in both modes (geth runs it without validation)', async () => {
    const p = await fresh()
    const payload = (validation: boolean) => ({
      validation,
      blockStateCalls: [{ stateOverrides: { [C0]: { nonce: '0xffffffffffffffff' } }, calls: [{ from: C0, to: C1 }, { from: C0, to: C1 }] }],
    })
    const text = 'err: nonce has max value: address 0xC000000000000000000000000000000000000000, nonce: 18446744073709551615 (supplied gas 10000000)'
    await simRejects(p, payload(true), -32603, text)
    await simRejects(p, payload(false), -32603, text)
  })

  it('an empty blockStateCalls is -32602 "empty input", as geth', async () => {
    const p = await fresh()
    await simRejects(p, { blockStateCalls: [] }, -32602, 'empty input')
  })
})

describe('eth_simulateV1 execution-apis vectors: answers', () => {
  it('transaction-too-low-nonce-38010 and transaction-too-high-nonce: without validation the nonce is not checked', async () => {
    const p = await fresh()
    const low = await sim(p, { blockStateCalls: [{ stateOverrides: { [C0]: { nonce: '0xa' } }, calls: [{ from: C1, to: C1, nonce: '0x0' }] }] })
    const high = await sim(p, { blockStateCalls: [{ calls: [{ from: C1, to: C1, nonce: '0x64' }] }] })
    const expected = [{ returnData: '0x', logs: [], gasUsed: '0x5208', maxUsedGas: '0x5208', status: '0x1' }]
    expect([low[0].calls, high[0].calls]).toEqual([expected, expected])
    expect([low[0].gasUsed, high[0].gasUsed]).toEqual(['0x5208', '0x5208'])
  })

  it('run-out-of-gas-in-block-38015: the second call gets what the first left of the block, and runs out of it', async () => {
    const p = await fresh()
    const [first, second] = await sim(p, {
      blockStateCalls: [
        {
          blockOverrides: { gasLimit: '0x16e360' },
          stateOverrides: {
            [C0]: { balance: '0x1e8480' },
            [C2]: {
              code: '0x608060405234801561001057600080fd5b506004361061002b5760003560e01c8063815b8ab414610030575b600080fd5b61004a600480360381019061004591906100b6565b61004c565b005b60005a90505b60011561007657815a826100669190610112565b106100715750610078565b610052565b505b50565b600080fd5b6000819050919050565b61009381610080565b811461009e57600080fd5b50565b6000813590506100b08161008a565b92915050565b6000602082840312156100cc576100cb61007b565b5b60006100da848285016100a1565b91505092915050565b7f4e487b7100000000000000000000000000000000000000000000000000000000600052601160045260246000fd5b600061011d82610080565b915061012883610080565b92508282039050818111156101405761013f6100e3565b5b9291505056fea2646970667358221220a659ba4db729a6ee4db02fcc5c1118db53246b0e5e686534fc9add6f2e93faec64736f6c63430008120033',
            },
          },
        },
        {
          calls: [
            { from: C0, to: C2, input: '0x815b8ab400000000000000000000000000000000000000000000000000000000000f4240' },
            { from: C0, to: C2, input: '0x815b8ab400000000000000000000000000000000000000000000000000000000000f4240' },
          ],
        },
      ],
    })
    expect([first.calls, first.gasLimit, second.gasLimit]).toEqual([[], '0x16e360', '0x16e360'])
    const [a, b] = second.calls
    expect(a.status).toBe('0x1')
    expect(b).toMatchObject({ status: '0x0', logs: [], returnData: '0x', error: { message: 'out of gas', code: -32015 } })
    expect(BigInt(a.gasUsed) + BigInt(b.gasUsed)).toBe(0x16e360n)
    expect([second.gasUsed, b.maxUsedGas]).toEqual(['0x16e360', b.gasUsed])
  })
})

describe('eth_simulateV1 on pending (geth simulates on its pending block\'s header)', () => {
  it('chains the first block to a pending block of its own hash, which BLOCKHASH answers', async () => {
    const p = await fresh()
    await p.request({ method: 'evm_setAutomine', params: [false] })
    await p.request({ method: 'eth_sendTransaction', params: [{ from: COW, to: COW1, value: '0x5', gas: '0x5208' }] })
    const head = (await p.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as any
    // PUSH1 1, NUMBER, SUB, BLOCKHASH, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN: the hash of the block before.
    const previousHash = { stateOverrides: { [C2]: { code: '0x600143034060005260206000f3' } }, calls: [{ to: C2 }] }
    const [first, second] = await sim(p, { blockStateCalls: [previousHash, { calls: [{ to: C2 }] }] }, 'pending')
    // The pending block is head + 1: the simulated ones follow it.
    expect([BigInt(first.number), BigInt(second.number)]).toEqual([BigInt(head.number) + 2n, BigInt(head.number) + 3n])
    expect(first.parentHash).not.toBe(head.hash)
    expect(first.parentHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(first.parentHash).not.toBe('0x' + '00'.repeat(32))
    expect(first.calls[0].returnData).toBe(first.parentHash)
    expect([second.parentHash, second.calls[0].returnData]).toEqual([first.hash, first.hash])
    // On latest, the head is the parent.
    const [onLatest] = await sim(p, { blockStateCalls: [previousHash] })
    expect([onLatest.parentHash, onLatest.calls[0].returnData]).toEqual([head.hash, head.hash])
  })
})
