/**
 * The engine patches change how the engine runs, never what it computes: the same scenario run with every patch on
 * and with every patch off (setEnginePatches) must give byte-identical receipts (status, gas, logs), return data,
 * block hashes and state roots, struct-log and call traces. The scenario runs the test-contract corpus (token
 * transfers, loops, storage, nested calls, creates, events, reverts, console calls) and random bytecode.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { Interface, getCreateAddress } from 'ethers'
import { engineMatchesPin, setEnginePatches, enginePatchesActive } from '../src/node/enginePatches/index.js'
import { Caller, Compute, ConsoleUser, Events, Reverter, Storage, Target, Token } from './fixtures/index.js'
import { COW, COW1, fresh, initcodeFor } from './helpers.js'
import { prng } from './fuzz/shapes.js'
import type { Provider } from '../src/index.js'

const iface = (a: { abi: readonly unknown[] }) => new Interface(a.abi as never)

/** Opcodes random programs are drawn from: arithmetic, memory, storage, hashing, jumps, calls, logs. */
const OPS = [0x00, 0x01, 0x02, 0x03, 0x04, 0x06, 0x0a, 0x10, 0x11, 0x14, 0x16, 0x17, 0x18, 0x19, 0x1b, 0x1c, 0x20, 0x30, 0x32, 0x33, 0x34, 0x35, 0x36, 0x3d, 0x43, 0x45, 0x47, 0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x5b, 0x5f, 0x80, 0x81, 0x90, 0x91, 0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xf3, 0xfd]

/** Where random programs run as a contract's code (eth_call's state override). */
const PROGRAM = '0x00000000000000000000000000000000000c0de5'

function randomProgram(r: () => number): string {
  let code = ''
  const length = 8 + Math.floor(r() * 40)
  for (let i = 0; i < length; i++) {
    if (r() < 0.35) {
      // Mostly short pushes (offsets, lengths), now and then a full word (storage keys and topics past 2^53).
      const n = r() < 0.15 ? 32 : 1 + Math.floor(r() * 4)
      code += (0x5f + n).toString(16) + Array.from({ length: n }, () => Math.floor(r() * 256).toString(16).padStart(2, '0')).join('')
    } else code += OPS[Math.floor(r() * OPS.length)]!.toString(16).padStart(2, '0')
  }
  return '0x' + code
}

async function scenario(): Promise<unknown[]> {
  // Blocks one second apart from genesis at 0: the same timestamps, so the same hashes, in both runs.
  const p: Provider = await fresh()
  await p.request({ method: 'anvil_setBlockTimestampInterval', params: [1] })
  const out: unknown[] = []
  const rq = (method: string, params: unknown[] = []) => p.request({ method, params }).catch((e: { code: number; message: string; data?: string }) => ({ error: e.code, message: e.message, data: e.data }))
  const tx = async (to: string | undefined, data: string, gas = '0x7a1200') => {
    const hash = await rq('eth_sendTransaction', [{ from: COW, ...(to ? { to } : {}), data, gas }])
    const block = (await p.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as { hash: string; stateRoot: string; transactions: string[] }
    const receipt = await rq('eth_getTransactionReceipt', [block.transactions[0]])
    out.push({ hash, block: block.hash, stateRoot: block.stateRoot, receipt })
    return receipt as { contractAddress?: string; transactionHash: string }
  }
  const deploy = async (a: { bytecode: string }, args = '') => (await tx(undefined, a.bytecode + args)).contractAddress!

  const token = await deploy(Token, (1n << 100n).toString(16).padStart(64, '0'))
  for (let i = 0; i < 5; i++) await tx(token, iface(Token).encodeFunctionData('transfer', [COW1, 1000n + BigInt(i)]))
  // EVMs of their own (Chain.vmOver): the pending block's, and one at an older block.
  const balanceOf = { to: token, data: iface(Token).encodeFunctionData('balanceOf', [COW1]) }
  out.push(await rq('eth_call', [balanceOf, 'pending']), await rq('eth_call', [balanceOf, '0x3']))
  out.push(await rq('eth_estimateGas', [{ from: COW, to: token, data: iface(Token).encodeFunctionData('transfer', [COW1, 7n]) }, 'pending']))
  const compute = await deploy(Compute)
  for (const f of ['keccakLoop', 'arithLoop', 'storageLoop']) {
    const r = await tx(compute, iface(Compute).encodeFunctionData(f, [50]))
    out.push(await rq('debug_traceTransaction', [r.transactionHash]))
  }
  const storage = await deploy(Storage)
  await tx(storage, iface(Storage).encodeFunctionData('set', [3, 9]))
  await tx(storage, iface(Storage).encodeFunctionData('clear', [3]))
  const target = await deploy(Target)
  const caller = await deploy(Caller)
  const reverter = await deploy(Reverter)
  for (const data of [
    iface(Caller).encodeFunctionData('callTarget', [target, 5]),
    iface(Caller).encodeFunctionData('delegate', [target, 6]),
    iface(Caller).encodeFunctionData('create'),
    iface(Caller).encodeFunctionData('create2', ['0x' + '01'.repeat(32)]),
    iface(Caller).encodeFunctionData('tryRevert', [reverter]),
  ]) {
    const r = await tx(caller, data)
    out.push(await rq('trace_transaction', [r.transactionHash]))
    out.push(await rq('debug_traceTransaction', [r.transactionHash, { tracer: 'callTracer' }]))
  }
  const events = await deploy(Events)
  await tx(events, iface(Events).encodeFunctionData('emitMany', [5]))
  const consoleUser = await deploy(ConsoleUser)
  await tx(consoleUser, iface(ConsoleUser).encodeFunctionData('run', [3]))
  for (const f of ['revertWithReason', 'revertCustom', 'revertPanic', 'revertEmpty', 'assertFail']) {
    out.push(await rq('eth_call', [{ to: reverter, data: iface(Reverter).encodeFunctionData(f) }, 'latest']))
    await tx(reverter, iface(Reverter).encodeFunctionData(f))
  }
  out.push(await rq('eth_estimateGas', [{ from: COW, to: token, data: iface(Token).encodeFunctionData('transfer', [COW1, 1n]) }]))
  // Calls without code (a value transfer), to precompiles (Ethereum's and the Bridge), and a value the sender lacks.
  await tx(COW1, '0x', '0x5208')
  out.push(await rq('eth_sendTransaction', [{ from: COW, to: COW1, value: '0x3e8' }]))
  const BRIDGE = '0x0000000000000000000000000000000001000006'
  for (const to of ['0x0000000000000000000000000000000000000001', '0x0000000000000000000000000000000000000002', '0x0000000000000000000000000000000000000004', BRIDGE]) {
    out.push(await rq('eth_call', [{ from: COW, to, data: '0x' + 'ab'.repeat(128) }, 'latest']))
    await tx(to, '0x' + 'cd'.repeat(64), '0x30d40')
  }
  out.push(await rq('eth_call', [{ from: '0x000000000000000000000000000000000000dead', to: COW1, value: '0x1' }, 'latest']))

  // A LOG inside a STATICCALL fails the callee only (A stores the call's 0 and its gas left, and returns them).
  const staticA = '0x00000000000000000000000000000000000000aa'
  const staticB = '0x00000000000000000000000000000000000000bb'
  await rq('anvil_setCode', [staticA, '0x5f5f5f5f73' + staticB.slice(2) + '62010000fa5f525a60205260405ff3'])
  await rq('anvil_setCode', [staticB, '0x60015fa000'])
  out.push(await rq('eth_call', [{ from: COW, to: staticA, gas: '0x100000' }, 'latest']))
  await tx(staticA, '0x', '0x100000')

  // RETURN of memory never written: its expansion is charged (33 words: 3 * 33 + 33 * 33 / 512 = 101 gas).
  const returner = '0x00000000000000000000000000000000000000cc'
  await rq('anvil_setCode', [returner, '0x6020610400f3'])
  out.push(await rq('eth_call', [{ from: COW, to: returner }, 'latest']))
  const returned = await tx(returner, '0x', '0x100000')
  out.push((returned as unknown as { gasUsed: string }).gasUsed)

  // SELFDESTRUCT (CALLER SELFDESTRUCT) of a funded account: the balance goes to the sender, the account is deleted.
  const doomed = '0x00000000000000000000000000000000000000dd'
  await rq('anvil_setCode', [doomed, '0x33ff'])
  await rq('anvil_setBalance', [doomed, '0x1234'])
  await tx(doomed, '0x', '0x100000')
  out.push(await rq('eth_getCode', [doomed, 'latest']), await rq('eth_getBalance', [doomed, 'latest']))
  // A sender with code (RSKj has no EIP-3607 rule: it sends), and one that can pay for its first transaction of a
  // block but not its second.
  await rq('anvil_setCode', [COW1, '0x00'])
  out.push(await rq('eth_sendTransaction', [{ from: COW1, to: COW, value: '0x1' }]))
  await rq('anvil_setCode', [COW1, '0x'])
  const poor = '0x00000000000000000000000000000000000000ee'
  await rq('anvil_impersonateAccount', [poor])
  await rq('anvil_setBalance', [poor, '0x' + (21_000n * 2n + 10n).toString(16)])
  await rq('evm_setAutomine', [false])
  const sent = [await rq('eth_sendTransaction', [{ from: poor, to: COW, value: '0xa', gas: '0x5208', gasPrice: '0x1' }])]
  sent.push(await rq('eth_sendTransaction', [{ from: poor, to: COW, value: '0xa', gas: '0x5208', gasPrice: '0x1' }]))
  await rq('evm_mine')
  await rq('evm_setAutomine', [true])
  out.push(sent, await rq('eth_getBlockByNumber', ['latest', false]), await rq('eth_getBalance', [poor, 'latest']))
  for (const h of sent) if (typeof h === 'string') out.push(await rq('eth_getTransactionReceipt', [h]))

  const r = prng(424242)
  for (let i = 0; i < 150; i++) {
    const code = randomProgram(r)
    out.push({ code, call: await rq('eth_call', [{ from: COW, data: code, gas: '0xf4240' }, i % 5 === 0 ? 'pending' : 'latest']) })
    // The same program as a contract's code (a state override), called with call data of any length up to 80 bytes.
    const input = '0x' + Array.from({ length: Math.floor(r() * 81) }, () => Math.floor(r() * 256).toString(16).padStart(2, '0')).join('')
    out.push({ input, call: await rq('eth_call', [{ from: COW, to: PROGRAM, data: input, gas: '0xf4240' }, 'latest', { [PROGRAM]: { code } }]) })
    if (i % 10 === 0) await tx(undefined, code, '0xf4240')
  }
  await p.disconnect()
  return out
}

describe('engine patches on and off', () => {
  afterAll(() => setEnginePatches(true))

  it('ADDRESS, CALLER, ORIGIN and CALLDATALOAD past the end of the data read what they must, patches on and off', async () => {
    // ADDRESS -> m[0], CALLER -> m[32], ORIGIN -> m[64], CALLDATALOAD(5) -> m[96]; RETURN m[0..128).
    const code = '0x305f52' + '33602052' + '32604052' + '600535606052' + '60805ff3'
    const input = '0x' + '0102030405060708090a'
    const word = (hex: string) => hex.replace(/^0x/, '').toLowerCase().padStart(64, '0')
    // Bytes 5..9 of the input, then zeros to 32 bytes.
    const expected = '0x' + word(PROGRAM) + word(COW) + word(COW) + '060708090a'.padEnd(64, '0')
    for (const on of [true, false]) {
      setEnginePatches(on)
      const p = await fresh()
      expect(await p.request({ method: 'eth_call', params: [{ from: COW, to: PROGRAM, data: input }, 'latest', { [PROGRAM]: { code } }] })).toBe(expected)
      await p.disconnect()
    }
    setEnginePatches(true)
  })

  it('RETURN of memory never written charges its expansion, patches on and off', async () => {
    // PUSH1 0x20 PUSH2 0x0400 RETURN: 21,000 + 3 + 3 + memory for 0x420 bytes (33 words: 3 * 33 + floor(33^2 / 512)).
    const code = '0x6020610400f3'
    for (const on of [true, false]) {
      setEnginePatches(on)
      const p = await fresh()
      await p.request({ method: 'anvil_setCode', params: [PROGRAM, code] })
      const hash = await p.request({ method: 'eth_sendTransaction', params: [{ from: COW, to: PROGRAM, gas: '0x100000' }] })
      const receipt = (await p.request({ method: 'eth_getTransactionReceipt', params: [hash] })) as { gasUsed: string; status: string }
      expect(receipt.status).toBe('0x1')
      expect(BigInt(receipt.gasUsed)).toBe(21_000n + 3n + 3n + 3n * 33n + (33n * 33n) / 512n)
      expect(await p.request({ method: 'eth_call', params: [{ from: COW, to: PROGRAM }, 'latest'] })).toBe('0x' + '00'.repeat(32))
      await p.disconnect()
    }
    setEnginePatches(true)
  })

  it('eth_simulateV1 runs a contract as the sender (enginePatches/contractSender.ts) on both runTx paths alike', async () => {
    // A sender whose code answers NUMBER: a transfer of 5 to COW1, a creation (its nonce is then 1, so the contract is
    // at getCreateAddress(sender, 1)), a call of itself, then its balance and the created contract read by COW. The
    // engine's runTx (patches off) and runTx.ts's copy (on) meet the same sender check.
    const sender = '0x00000000000000000000000000000000005e4d00'
    const reader = '0x00000000000000000000000000000000000000aa'
    const number = '4360005260206000f3'
    const calls = [
      { from: sender, to: COW1, value: '0x5' },
      { from: sender, data: initcodeFor(number) },
      { from: sender, to: sender },
      { from: COW, to: reader },
      { from: COW, to: getCreateAddress({ from: sender, nonce: 1 }) },
    ]
    // BALANCE(sender) returned as one word.
    const overrides = { [sender]: { code: '0x' + number, balance: '0x3e8' }, [reader]: { code: '0x73' + sender.slice(2) + '3160005260206000f3' } }
    const answers: Record<string, unknown> = {}
    for (const on of [true, false]) {
      setEnginePatches(on)
      const p = await fresh()
      const payload = { traceTransfers: true, blockStateCalls: [{ blockOverrides: { time: '0x100000000' }, stateOverrides: overrides, calls }] }
      answers[on ? 'on' : 'off'] = await p.request({ method: 'eth_simulateV1', params: [payload] })
      await p.disconnect()
    }
    setEnginePatches(true)
    const word = (n: bigint) => '0x' + n.toString(16).padStart(64, '0')
    const [block] = answers.on as Array<{ calls: Array<{ status: string; returnData: string }> }>
    expect(block!.calls.map((c) => [c.status, c.returnData])).toEqual([
      ['0x1', '0x'],
      ['0x1', '0x' + number],
      ['0x1', word(1n)],
      ['0x1', word(995n)],
      ['0x1', word(1n)],
    ])
    expect(answers.off).toEqual(answers.on)
  })

  it('runs out of gas on the exact opcode, with the gas counted in a Number or not, patches on and off', async () => {
    // PUSH1 1, PUSH1 2, ADD, POP, PC, GAS, POP, POP, STOP: 3 + 3 + 3 + 2 + 2 + 2 + 2 + 2 = 19 gas. GAS reads the gas left
    // in the middle of the static-fee opcodes (interpreter.ts counts those in a Number). A transaction given
    // 21,000 + 19 gas succeeds and uses all of it; given one less, it fails on the last POP and uses all it had.
    const code = '0x60016002015058' + '5a' + '5050' + '00'
    const outcomes: Record<string, unknown> = {}
    for (const on of [true, false]) {
      setEnginePatches(on)
      const p = await fresh()
      await p.request({ method: 'anvil_setCode', params: [PROGRAM, code] })
      const results = []
      for (const gas of [21_019, 21_018, 21_001]) {
        // A failed transaction is mined, and eth_sendTransaction then answers an error (as Ganache does): its
        // receipt is the newest block's.
        await p.request({ method: 'eth_sendTransaction', params: [{ from: COW, to: PROGRAM, gas: '0x' + gas.toString(16) }] }).catch(() => undefined)
        const block = (await p.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as { transactions: string[] }
        const receipt = (await p.request({ method: 'eth_getTransactionReceipt', params: [block.transactions[0]] })) as { status: string; gasUsed: string }
        results.push({ gas, status: receipt.status, gasUsed: Number(BigInt(receipt.gasUsed)) })
      }
      outcomes[on ? 'on' : 'off'] = results
      await p.disconnect()
    }
    setEnginePatches(true)
    expect(outcomes.on).toEqual([
      { gas: 21_019, status: '0x1', gasUsed: 21_019 },
      { gas: 21_018, status: '0x0', gasUsed: 21_018 },
      { gas: 21_001, status: '0x0', gasUsed: 21_001 },
    ])
    expect(outcomes.off).toEqual(outcomes.on)
  })

  it("two-operand arithmetic, comparison and bitwise opcodes give the yellow paper's results, patches on and off", async () => {
    // Each program computes OP(a, b) for every pair of edge operands (a on top of the stack: PUSH32 b, PUSH32 a, OP),
    // stores the results, and returns them. Expected: the yellow paper's definitions, written here.
    const W = 1n << 256n
    const edges = [0n, 1n, 2n, 3n, 255n, 256n, 257n, 2n ** 53n + 1n, 2n ** 128n, 2n ** 255n, W - 2n, W - 1n]
    const spec: Array<[number, (a: bigint, b: bigint) => bigint]> = [
      [0x01, (a, b) => (a + b) % W],
      [0x02, (a, b) => (a * b) % W],
      [0x03, (a, b) => (((a - b) % W) + W) % W],
      [0x04, (a, b) => (b === 0n ? 0n : a / b)],
      [0x06, (a, b) => (b === 0n ? 0n : a % b)],
      [0x10, (a, b) => (a < b ? 1n : 0n)],
      [0x11, (a, b) => (a > b ? 1n : 0n)],
      [0x14, (a, b) => (a === b ? 1n : 0n)],
      [0x16, (a, b) => a & b],
      [0x17, (a, b) => a | b],
      [0x18, (a, b) => a ^ b],
      [0x1b, (shift, value) => (shift >= 256n ? 0n : (value << shift) % W)],
      [0x1c, (shift, value) => (shift >= 256n ? 0n : value >> shift)],
    ]
    const word = (v: bigint) => v.toString(16).padStart(64, '0')
    const results: Record<string, unknown> = {}
    for (const on of [true, false]) {
      setEnginePatches(on)
      const p = await fresh()
      for (const [op, f] of spec) {
        let code = ''
        let expected = ''
        let at = 0
        for (const a of edges) {
          for (const b of edges) {
            // The result, then ISZERO of it: a result left out of range (2^256 itself, say) would be stored as its low
            // 32 bytes, but is not zero.
            const r = f(a, b)
            const offset = (n: number) => '61' + n.toString(16).padStart(4, '0')
            code += '7f' + word(b) + '7f' + word(a) + op.toString(16).padStart(2, '0') + '80' + offset(at) + '52' + '15' + offset(at + 32) + '52'
            expected += word(r) + word(r === 0n ? 1n : 0n)
            at += 64
          }
        }
        code += '61' + at.toString(16).padStart(4, '0') + '5ff3'
        const got = await p.request({ method: 'eth_call', params: [{ from: COW, to: PROGRAM, gas: '0x2000000' }, 'latest', { [PROGRAM]: { code: '0x' + code } }] })
        expect(got, `opcode 0x${op.toString(16)}, patches ${on ? 'on' : 'off'}`).toBe('0x' + expected)
      }
      // Jumps, and operands missing: taken, not taken, refused, on and off alike. eth_call answers an exceptional halt
      // with empty data; eth_estimateGas gives the engine's error text (for a jump: the code's hash and the pc).
      const programs = {
        jumpToJumpdest: '0x60045600' + '5b60015f5260205ff3',
        jumpToNonJumpdest: '0x600356005b00',
        jumpIntoPushData: '0x6004566a5b' + '00'.repeat(10),
        jumpPastCode: '0x6010565b',
        jumpHuge: '0x68' + '01' + '00'.repeat(8) + '56',
        jumpiNotTaken: '0x5f60ff57' + '60025f5260205ff3',
        jumpiTaken: '0x600160065700' + '5b60035f5260205ff3',
        jumpiRefused: '0x6001600557005b00',
        jumpEmpty: '0x56',
        jumpiOneOperand: '0x600157',
        addOneOperand: '0x600101',
        shlOneOperand: '0x60011b',
      }
      const answers: Record<string, unknown> = {}
      for (const [name, code] of Object.entries(programs)) {
        await p.request({ method: 'anvil_setCode', params: [PROGRAM, code] })
        const call = await p.request({ method: 'eth_call', params: [{ from: COW, to: PROGRAM, gas: '0x100000' }, 'latest'] })
        const estimate = await p
          .request({ method: 'eth_estimateGas', params: [{ from: COW, to: PROGRAM }] })
          .catch((e: { code: number; message: string }) => ({ code: e.code, message: e.message }))
        answers[name] = { call, estimate }
      }
      results[on ? 'on' : 'off'] = answers
      await p.disconnect()
    }
    setEnginePatches(true)
    const on = results.on as Record<string, { call: string; estimate: unknown }>
    expect(on.jumpToJumpdest!.call).toBe('0x' + word(1n))
    expect(on.jumpiNotTaken!.call).toBe('0x' + word(2n))
    expect(on.jumpiTaken!.call).toBe('0x' + word(3n))
    for (const jump of ['jumpToNonJumpdest', 'jumpIntoPushData', 'jumpPastCode', 'jumpHuge', 'jumpiRefused']) {
      expect(on[jump], jump).toEqual({ call: '0x', estimate: { code: -32000, message: expect.stringMatching(/^invalid JUMP at 0x[0-9a-f]{64}\/0x0+c0de5:\d+$/) } })
    }
    for (const short of ['jumpEmpty', 'jumpiOneOperand', 'addOneOperand', 'shlOneOperand']) {
      expect(on[short], short).toEqual({ call: '0x', estimate: { code: -32000, message: 'stack underflow' } })
    }
    expect(results.off).toEqual(on)
  })

  it('give identical receipts, returns, hashes, state roots and traces', async () => {
    setEnginePatches(true)
    expect(enginePatchesActive()).toBe(engineMatchesPin)
    const on = await scenario()
    setEnginePatches(false)
    expect(enginePatchesActive()).toBe(false)
    const off = await scenario()
    expect(on.length).toBeGreaterThan(150)
    for (let i = 0; i < on.length; i++) expect(off[i], `item ${i}`).toEqual(on[i])
  })
})
