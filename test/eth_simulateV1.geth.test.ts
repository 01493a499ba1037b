/**
 * eth_simulateV1 where geth (internal/ethapi/simulate.go, errors.go, api.go `SimulateV1`) and the execution-apis spec
 * (src/schemas/execute.yaml, tests/eth_simulateV1/*.io) set the behaviour: the request's gas budget, `maxUsedGas`,
 * `blockTimestamp` on logs, geth's error codes and texts, and some of the spec's request/response vectors.
 *
 * Vectors converted (ethereum/execution-apis tests/eth_simulateV1/, the request as sent, the answer's fields that do
 * not depend on Ethereum's header or gas table): instrict-gas-38013, block-num-order-38020,
 * block-timestamp-order-38021, big-block-state-calls-array, transaction-too-low-nonce-38010,
 * transaction-too-high-nonce, logs, gas-fees-and-value-error-38014, simple-no-funds, try-to-move-non-precompile,
 * move-two-non-precompiles-accounts-to-same, run-out-of-gas-in-block-38015, and on a chain of the vectors' shape
 * (head 0x36 at time 0x21c) blocknumber-increment, block-timestamp-auto-increment, empty, the
 * empty-with-block-num-set ones (numbers and timestamps) and make-call-with-future-block; and
 * eth-send-should-not-produce-logs-on-revert (the call as serialized), self-destructive-contract-produces-logs.
 * Not converted: those that need a base fee, blobs, withdrawals or prevRandao (the -38012 base-fee vectors, blobs,
 * check-invalid-nonce and the validation ones that end in -38012), those that override or move a precompile (RSKj refuses precompile overrides; rsksim does not
 * move them), and every expected block hash, size and state root, and the gas figures of code whose opcodes RSK
 * prices otherwise (RSK's header and gas table differ from Ethereum's). Converted since: the vectors that send from a
 * contract (simple-send-from-contract, its -no-balance and -with-validation forms, contract-calls-itself): geth
 * skips the EOA check in a simulation, in both modes (internal/ethapi/simulate.go `processBlock`).
 *
 * Expected values: the vectors' answers, geth's texts read in its source, and gas figures computed here from RSK's
 * gas table (reference §7.5: SSTORE clear 5,000 with a 15,000 refund, refunds capped at half the gas used).
 */
import { describe, expect, it } from 'vitest'
import { getAddress, getCreateAddress, Signature, toBeHex, Transaction } from 'ethers'
import { COW, COW1, MINER, fresh, initcodeFor, rejects } from './helpers.js'
import type { Provider } from '../src/index.js'

const C0 = '0xc000000000000000000000000000000000000000'
const C1 = '0xc100000000000000000000000000000000000000'
const C2 = '0xc200000000000000000000000000000000000000'
/** NUMBER, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN: the block's number as one word (runtime code, no 0x). */
const RETURNS_NUMBER = '4360005260206000f3'
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
    // geth's field order (errors.go `callError`), as the vector run-out-of-gas-in-block-38015 answers it.
    expect(JSON.stringify(b.calls[0].error)).toBe('{"message":"out of gas","code":-32015}')
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

  it('a move is refused when its block\'s overrides are applied, as geth\'s Apply: the numbers\' and times\' checks and earlier blocks\' refusals win', async () => {
    const p = await fresh()
    const move = { stateOverrides: { [C0]: { movePrecompileToAddress: C1 } } }
    // simulate.go `execute`: sanitizeChain checks every block's number and time before any block runs.
    await simRejects(p, { blockStateCalls: [move, { blockOverrides: { number: '0x0' } }] }, -38020, 'block numbers must be in order: 0 <= 1')
    // processBlock applies a block's overrides when its turn comes: a refusal in an earlier block is answered.
    const poor = { calls: [{ from: C2, to: C1, value: '0x3e8' }] }
    await simRejects(p, { blockStateCalls: [poor, move] }, -38014, `err: insufficient funds for gas * price + value: address ${getAddress(C2)} have 0 want 1000 (supplied gas 10000000)`)
    // The move's block comes first: its refusal, before its own calls run.
    await simRejects(p, { blockStateCalls: [{ ...move, ...poor }] }, -32000, 'account 0xC000000000000000000000000000000000000000 is not a precompile')
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
    // A call naming that nonce without validation: geth would show it in the transaction; the engine's cannot carry it.
    await simRejects(p, { blockStateCalls: [{ calls: [{ from: C0, to: C1, nonce: '0xffffffffffffffff' }] }] }, -32603, text)
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

  it('without validation a call\'s nonce is its transaction\'s, and the sender\'s nonce runs it (geth sanitizeCall, state_transition.go)', async () => {
    const p = await fresh()
    // geth keeps a given nonce in the simulated transaction (simulate.go `sanitizeCall` fills it only when absent;
    // `ToMessage(…, skipNonceChecks)`); the execution takes the creation's address and the raise from the state
    // (core/state_transition.go `execute`: `CreateAddress(msg.From, GetNonce(msg.From))`, `SetNonce(…, GetNonce + 1)`).
    // Anvil 1.7.1 also answers the given nonce in the transaction.
    const [b] = await sim(p, {
      returnFullTransactions: true,
      blockStateCalls: [
        {
          calls: [
            { from: C0, to: C1, nonce: '0x64' },
            { from: C0, data: initcodeFor(RETURNS_NUMBER), nonce: '0x64' },
            { from: C0, to: getCreateAddress({ from: C0, nonce: 1 }) },
            { from: C0, to: getCreateAddress({ from: C0, nonce: 100 }) },
          ],
        },
      ],
    })
    expect(b.transactions.map((t: any) => t.nonce)).toEqual(['0x64', '0x64', '0x2', '0x3'])
    // The hash is the transaction's with that nonce: its own fields, with the stand-in signature, hashed by ethers.
    for (const t of b.transactions) {
      const signature = Signature.from({ r: toBeHex(BigInt(t.r), 32), s: toBeHex(BigInt(t.s), 32), v: BigInt(t.v) })
      const fields = { type: 0, chainId: 33n, nonce: Number(t.nonce), gasLimit: t.gas, gasPrice: t.gasPrice, to: t.to, value: t.value, data: t.input, signature }
      expect(Transaction.from(fields).hash).toBe(t.hash)
    }
    // The creation ran on the state's nonce 1: its code answers at getCreateAddress(C0, 1), none at nonce 100's.
    expect(b.calls.map((c: any) => c.status)).toEqual(['0x1', '0x1', '0x1', '0x1'])
    expect(b.calls[2].returnData).toBe('0x' + BigInt(b.number).toString(16).padStart(64, '0'))
    expect(b.calls[3].returnData).toBe('0x')
  })

  it('a nonce over 64 bits is -32602, as geth decodes it (hexutil.Uint64)', async () => {
    const p = await fresh()
    await simRejects(p, { blockStateCalls: [{ calls: [{ from: C0, to: C1, nonce: '0x10000000000000000' }] }] }, -32602, 'Invalid blockStateCalls[0].calls[0].nonce: more than 64 bits.')
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

/** The vectors' contract at C0 (simple-send-from-contract*): `sendViaCall(address)`, the value on to that address. */
const SENDS_ON = '0x60806040526004361061001e5760003560e01c80634b64e49214610023575b600080fd5b61003d6004803603810190610038919061011f565b61003f565b005b60008173ffffffffffffffffffffffffffffffffffffffff166108fc349081150290604051600060405180830381858888f193505050509050806100b8576040517f08c379a00000000000000000000000000000000000000000000000000000000081526004016100af906101a9565b60405180910390fd5b5050565b600080fd5b600073ffffffffffffffffffffffffffffffffffffffff82169050919050565b60006100ec826100c1565b9050919050565b6100fc816100e1565b811461010757600080fd5b50565b600081359050610119816100f3565b92915050565b600060208284031215610135576101346100bc565b5b60006101438482850161010a565b91505092915050565b600082825260208201905092915050565b7f4661696c656420746f2073656e64204574686572000000000000000000000000600082015250565b600061019360148361014c565b915061019e8261015d565b602082019050919050565b600060208201905081810360008301526101c281610186565b905091905056fea2646970667358221220563acd6f5b8ad06a3faf5c27fddd0ecbc198408b99290ce50d15c2cf7043694964736f6c63430008120033'
/**
 * The vector's contract at C0 (contract-calls-itself): its fallback returns abi.encode(BASEFEE, CHAINID, COINBASE,
 * DIFFICULTY, GASLIMIT, NUMBER, TIMESTAMP, GAS, GASPRICE, BLOCKHASH(NUMBER - 1)).
 */
const BLOCK_VALUES = '0x608060405234801561001057600080fd5b506000366060484641444543425a3a60014361002c919061009b565b406040516020016100469a99989796959493929190610138565b6040516020818303038152906040529050915050805190602001f35b6000819050919050565b7f4e487b7100000000000000000000000000000000000000000000000000000000600052601160045260246000fd5b60006100a682610062565b91506100b183610062565b92508282039050818111156100c9576100c861006c565b5b92915050565b6100d881610062565b82525050565b600073ffffffffffffffffffffffffffffffffffffffff82169050919050565b6000610109826100de565b9050919050565b610119816100fe565b82525050565b6000819050919050565b6101328161011f565b82525050565b60006101408201905061014e600083018d6100cf565b61015b602083018c6100cf565b610168604083018b610110565b610175606083018a6100cf565b61018260808301896100cf565b61018f60a08301886100cf565b61019c60c08301876100cf565b6101a960e08301866100cf565b6101b76101008301856100cf565b6101c5610120830184610129565b9b9a505050505050505050505056fea26469706673582212205139ae3ba8d46d11c29815d001b725f9840c90e330884ed070958d5af4813d8764736f6c63430008120033'

describe('eth_simulateV1 execution-apis vectors: transfers', () => {
  it('self-destructive-contract-produces-logs: a SELFDESTRUCT\'s balance is a transfer log (geth logtracer.go, opSelfdestruct\'s OnEnter)', async () => {
    const p = await fresh()
    const destroys =
      '0x6080604052348015600f57600080fd5b506004361060285760003560e01c806383197ef014602d575b600080fd5b60336035565b005b600073ffffffffffffffffffffffffffffffffffffffff16fffea26469706673582212208e566fde20a17fff9658b9b1db37e27876fd8934ccf9b2aa308cabd37698681f64736f6c63430008120033'
    const [b] = await sim(p, { blockStateCalls: [{ stateOverrides: { [C2]: { code: destroys, balance: '0x1e8480' } }, calls: [{ from: C0, to: C2, input: '0x83197ef0' }] }], traceTransfers: true })
    // The vector's log: C2's 2,000,000 to the zero address.
    expect(b.calls[0].logs.map((l: any) => [l.address, l.topics, l.data, l.logIndex])).toEqual([
      [
        '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
        ['0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', '0x000000000000000000000000c200000000000000000000000000000000000000', '0x' + '00'.repeat(32)],
        '0x00000000000000000000000000000000000000000000000000000000001e8480',
        '0x0',
      ],
    ])
    expect([b.calls[0].status, b.calls[0].returnData]).toEqual(['0x1', '0x'])
  })
})

describe('eth_simulateV1 execution-apis vectors: a reverted call', () => {
  it('eth-send-should-not-produce-logs-on-revert: no transfer log, the revert as geth\'s callError (message, code, data)', async () => {
    const p = await fresh()
    const reverts =
      '0x608060405260006042576040517f08c379a0000000000000000000000000000000000000000000000000000000008152600401603990609d565b60405180910390fd5b005b600082825260208201905092915050565b7f416c7761797320726576657274696e6720636f6e747261637400000000000000600082015250565b600060896019836044565b91506092826055565b602082019050919050565b6000602082019050818103600083015260b481607e565b905091905056fea264697066735822122005cbbbc709291f66fadc17416c1b0ed4d72941840db11468a21b8e1a0362024c64736f6c63430008120033'
    const [b] = await sim(p, {
      blockStateCalls: [{ stateOverrides: { [C0]: { balance: '0x7d0' }, [C1]: { code: reverts } }, calls: [{ from: C0, to: C1, value: '0x3e8' }] }],
      traceTransfers: true,
      returnFullTransactions: true,
    })
    // The vector's call, but its gas (0x5355: this code's opcodes cost the same on RSK, so checked too).
    const expected =
      '{"returnData":"0x","logs":[],"gasUsed":"0x5355","maxUsedGas":"0x5355","status":"0x0","error":{"message":"execution reverted: Always reverting contract","code":3,"data":"0x08c379a000000000000000000000000000000000000000000000000000000000000000200000000000000000000000000000000000000000000000000000000000000019416c7761797320726576657274696e6720636f6e747261637400000000000000"}}'
    expect(JSON.stringify(b.calls[0])).toBe(expected)
  })
})

describe('eth_simulateV1 execution-apis vectors: a contract as the sender (geth skips the EOA check, in both modes)', () => {
  const sendFromContract = (extra: Record<string, unknown>, balance?: string) => ({
    ...extra,
    blockStateCalls: [{ stateOverrides: { [C0]: { code: SENDS_ON, ...(balance !== undefined ? { balance } : {}) } }, calls: [{ from: C0, to: C1, value: '0x3e8' }] }],
    traceTransfers: true,
  })
  // The vector's call: a transfer of 1,000 from C0, traced as the ETH pseudo-token's Transfer.
  const vectorCall = (b: any) => ({
    returnData: '0x',
    logs: [
      {
        logIndex: '0x0',
        blockNumber: b.number,
        blockHash: b.hash,
        blockTimestamp: b.timestamp,
        transactionHash: b.transactions[0].hash ?? b.transactions[0],
        transactionIndex: '0x0',
        address: '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
        data: '0x00000000000000000000000000000000000000000000000000000000000003e8',
        topics: ['0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', '0x000000000000000000000000' + C0.slice(2), '0x000000000000000000000000' + C1.slice(2)],
        removed: false,
      },
    ],
    gasUsed: '0x5208',
    maxUsedGas: '0x5208',
    status: '0x1',
  })

  it('simple-send-from-contract: the contract sends its 1,000 as an account would', async () => {
    const p = await fresh()
    const [b] = await sim(p, sendFromContract({}, '0x3e8'))
    expect(b.calls).toEqual([vectorCall(b)])
    expect(b.gasUsed).toBe('0x5208')
    // Nothing kept: C0 has neither the code nor the balance after.
    expect(await p.request({ method: 'eth_getCode', params: [C0, 'latest'] })).toBe('0x')
  })

  it('simple-send-from-contract-no-balance: -38014 with geth\'s text, not an EOA refusal', async () => {
    const p = await fresh()
    await simRejects(p, sendFromContract({}), -38014, 'err: insufficient funds for gas * price + value: address 0xC000000000000000000000000000000000000000 have 0 want 1000 (supplied gas 10000000)')
  })

  it('simple-send-from-contract-with-validation: runs with validation too (geth then stops at the base fee, -38012, which RSK has not)', async () => {
    const p = await fresh()
    const [b] = await sim(p, sendFromContract({ validation: true, returnFullTransactions: true }, '0x3e8'))
    expect(b.calls).toEqual([vectorCall(b)])
    expect(b.transactions[0]).toMatchObject({ from: C0, to: C1, value: '0x3e8', nonce: '0x0' })
  })

  it('contract-calls-itself: the sender\'s code runs, reading the simulated block', async () => {
    // A budget below the block's gas limit, so the call's gas is the budget: 5,000,000.
    const p = await fresh({ callGasCap: 5_000_000n })
    const [b] = await sim(p, { blockStateCalls: [{ stateOverrides: { [C0]: { code: BLOCK_VALUES } }, calls: [{ from: C0, to: C0 }] }], traceTransfers: true })
    const [call] = b.calls
    // The vector's gas: the opcodes this code runs cost the same on RSK (RSKj OpCode.java tiers: base 2, very low 3,
    // mid 8, high 10, ext 20 for BLOCKHASH).
    expect(call).toMatchObject({ logs: [], gasUsed: '0x57bc', maxUsedGas: '0x57bc', status: '0x1' })
    const words = call.returnData.slice(2).match(/.{64}/g).map((w: string) => BigInt('0x' + w))
    expect(words).toEqual([
      0n, // BASEFEE: the node's minimum gas price (RSKIP412), 0 here
      33n, // CHAINID: regtest
      BigInt(b.miner),
      BigInt(b.difficulty),
      BigInt(b.gasLimit),
      BigInt(b.number),
      BigInt(b.timestamp),
      // GAS: 5,000,000 less the intrinsic 21,000 and the 66 gas the code spends up to GAS included (21 opcodes,
      // MSTORE's 3 words of memory among them).
      5_000_000n - 21_000n - 66n,
      0n, // GASPRICE: 0 without validation
      BigInt(b.parentHash),
    ])
    expect([b.number, b.miner]).toEqual(['0x1', MINER])
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

  it('builds on the pending block the node answers elsewhere: its hash, number, time and state (automine off, two pooled transactions)', async () => {
    const p = await fresh()
    await p.request({ method: 'evm_setAutomine', params: [false] })
    await p.request({ method: 'eth_sendTransaction', params: [{ from: COW, to: C1, value: '0x7', gas: '0x5208' }] })
    await p.request({ method: 'eth_sendTransaction', params: [{ from: COW, to: C1, value: '0x9', gas: '0x5208' }] })
    const head = (await p.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as any
    // Every request builds its own pending block: a pinned time makes them the same block.
    await p.request({ method: 'evm_setNextBlockTimestamp', params: [Number(head.timestamp) + 100] })
    const traces = (await p.request({ method: 'trace_block', params: ['pending'] })) as any[]
    const header = (await p.request({ method: 'erigon_getHeaderByNumber', params: ['pending'] })) as any
    // NUMBER, PUSH1 0, MSTORE, TIMESTAMP, PUSH1 32, MSTORE, PUSH1 64, PUSH1 0, RETURN: the block's number and time.
    const numberAndTime = '0x436000524260205260406000f3'
    const called = (await p.request({ method: 'eth_call', params: [{ to: C0 }, 'pending', { [C0]: { code: numberAndTime } }] })) as string
    const balance = (await p.request({ method: 'eth_getBalance', params: [C1, 'pending'] })) as string
    // C2 answers BLOCKHASH(NUMBER - 1); C0 NUMBER and TIMESTAMP; C1's balance is what the pooled transfers paid it.
    const previousHash = '0x600143034060005260206000f3'
    const [first] = await sim(p, { blockStateCalls: [{ stateOverrides: { [C2]: { code: previousHash }, [C0]: { code: numberAndTime } }, calls: [{ to: C2 }, { to: C0 }] }] }, 'pending')
    // One pending block, named alike by every method that answers it (trace_block's traces are of its transactions).
    expect(traces.length).toBeGreaterThan(0)
    expect(new Set(traces.map((t) => t.blockHash))).toEqual(new Set([header.hash]))
    expect(BigInt(header.number)).toBe(BigInt(head.number) + 1n)
    expect(BigInt(balance)).toBe(16n)
    // The first simulated block follows it: parentHash and BLOCKHASH of its number are its hash, and a call there sees
    // NUMBER and TIMESTAMP one block and 12 s after eth_call's at pending.
    expect([first.parentHash, first.calls[0].returnData]).toEqual([header.hash, header.hash])
    const [pendingNumber, pendingTime] = [BigInt(called.slice(0, 66)), BigInt('0x' + called.slice(66))]
    expect([pendingNumber, pendingTime]).toEqual([BigInt(header.number), BigInt(header.timestamp)])
    expect(first.calls[1].returnData).toBe(toBeHex(pendingNumber + 1n, 32) + toBeHex(pendingTime + 12n, 32).slice(2))
    expect([BigInt(first.number), BigInt(first.timestamp)]).toEqual([pendingNumber + 1n, pendingTime + 12n])
    // Its state is the pending block's, the pool's transfers applied.
    const [withBalance] = await sim(p, { blockStateCalls: [{ stateOverrides: { [C2]: { code: '0x73' + C1.slice(2) + '3160005260206000f3' } }, calls: [{ to: C2 }] }] }, 'pending')
    expect(BigInt(withBalance.calls[0].returnData)).toBe(16n)
  })
})

/**
 * The vectors' chain: head 0x36 at time 0x21c, each block 10 s after the one before from a genesis at 0 (the vectors'
 * answers show it: block 0x1's time is 0xa, 0x35's 0x212). Built with rsksim's own dev methods.
 */
async function vectorsChain(): Promise<Provider> {
  const p = await fresh({ genesisTimestamp: 0n })
  await p.request({ method: 'anvil_setBlockTimestampInterval', params: [10] })
  await p.request({ method: 'anvil_mine', params: ['0x36'] })
  return p
}

describe('eth_simulateV1 execution-apis vectors on a chain of their shape (head 0x36 at 0x21c)', () => {
  const numbersAndTimes = (blocks: any[]) => blocks.map((b) => [b.number, b.timestamp])

  it('blocknumber-increment: a block without time is 12 s after the one before, a gap\'s blocks too (geth timestampIncrement)', async () => {
    const p = await vectorsChain()
    const blocks = await sim(p, {
      blockStateCalls: [{ blockOverrides: { number: '0x40', time: '0x410' } }, {}, {}, {}, {}, {}, { blockOverrides: { number: '0x54' } }, {}, {}, {}],
      traceTransfers: true,
      returnFullTransactions: true,
    })
    // The vector's answer, every block's number and timestamp.
    expect(numbersAndTimes(blocks)).toEqual([
      ['0x37', '0x228'], ['0x38', '0x234'], ['0x39', '0x240'], ['0x3a', '0x24c'], ['0x3b', '0x258'], ['0x3c', '0x264'], ['0x3d', '0x270'],
      ['0x3e', '0x27c'], ['0x3f', '0x288'], ['0x40', '0x410'], ['0x41', '0x41c'], ['0x42', '0x428'], ['0x43', '0x434'], ['0x44', '0x440'],
      ['0x45', '0x44c'], ['0x46', '0x458'], ['0x47', '0x464'], ['0x48', '0x470'], ['0x49', '0x47c'], ['0x4a', '0x488'], ['0x4b', '0x494'],
      ['0x4c', '0x4a0'], ['0x4d', '0x4ac'], ['0x4e', '0x4b8'], ['0x4f', '0x4c4'], ['0x50', '0x4d0'], ['0x51', '0x4dc'], ['0x52', '0x4e8'],
      ['0x53', '0x4f4'], ['0x54', '0x500'], ['0x55', '0x50c'], ['0x56', '0x518'], ['0x57', '0x524'],
    ])
  })

  it('block-timestamp-auto-increment: -38021 against the time 12 s after the block before', async () => {
    const p = await vectorsChain()
    await simRejects(p, { blockStateCalls: [{ blockOverrides: { time: '0x227' } }, { blockOverrides: {} }, { blockOverrides: { time: '0x228' } }, { blockOverrides: {} }] }, -38021, 'block timestamps must be in order: 552 <= 563')
  })

  it('make-call-with-future-block and empty-with-block-num-set-plus1: a base past the head is -32000 "header not found"', async () => {
    const p = await vectorsChain()
    const future = { blockStateCalls: [{ calls: [{ from: C0, to: C0 }] }], validation: true }
    await rejects(p.request({ method: 'eth_simulateV1', params: [future, '0x111'] }), -32000, 'header not found')
    await rejects(p.request({ method: 'eth_simulateV1', params: [{ blockStateCalls: [{}] }, '0x37'] }), -32000, 'header not found')
    // An unknown hash: geth's text for it (eth/api_backend.go StateAndHeaderByNumberOrHash), as a string or EIP-1898.
    const hash = '0x' + '12'.repeat(32)
    await rejects(p.request({ method: 'eth_simulateV1', params: [{ blockStateCalls: [{}] }, hash] }), -32000, 'header for hash not found')
    await rejects(p.request({ method: 'eth_simulateV1', params: [{ blockStateCalls: [{}] }, { blockHash: hash }] }), -32000, 'header for hash not found')
  })

  it('empty, empty-with-block-num-set-current, -firstblock, -minusone: the base block\'s time + 12 s', async () => {
    const p = await vectorsChain()
    expect(numbersAndTimes(await sim(p, { blockStateCalls: [{}], returnFullTransactions: true }))).toEqual([['0x37', '0x228']])
    expect(numbersAndTimes(await sim(p, { blockStateCalls: [{}] }, '0x36'))).toEqual([['0x37', '0x228']])
    expect(numbersAndTimes(await sim(p, { blockStateCalls: [{}] }, '0x1'))).toEqual([['0x2', '0x16']])
    expect(numbersAndTimes(await sim(p, { blockStateCalls: [{}] }, '0x35'))).toEqual([['0x36', '0x21e']])
  })
})
