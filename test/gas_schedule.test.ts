/**
 * The RSK gas schedule (reference §7.5, RSKj `GasCost.java`, `VM.java`, `TransactionExecutor.java`) measured on
 * receipts. Most cases deploy a few hand-written opcodes so the derivation next to each case is exact:
 * PUSH1/PUSH2/PUSH20/DUP1/ADDRESS/GAS cost 3/3/3/3/2/2, STOP 0; calldata 4 per zero byte and 16 per other byte.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { createHash } from 'node:crypto'
import { Interface, getCreateAddress } from 'ethers'
import type { Provider } from '../src/index.js'
import { COW, COW1, deploy, deployCode, fresh, initcodeFor, relayTo, send, sendFailing, sendKeptFailure, rq } from './helpers.js'
import { Storage } from './fixtures/index.js'

const used = (r: Record<string, any>) => Number(BigInt(r.gasUsed))
const word = (n: bigint) => n.toString(16).padStart(64, '0')


describe('gas schedule: transaction costs', () => {
  let p: Provider
  beforeAll(async () => {
    p = await fresh()
  })

  it('plain transfer: 21,000', async () => {
    expect(used(await send(p, { to: COW1, value: '0x1' }))).toBe(21_000)
  })

  it('creation: 53,000 + calldata + 2 per initcode word (RSKIP438) + execution + 200 per code byte', async () => {
    // initcode 61 0001 80 600c 6000 39 6000 f3 00: 13 bytes, 4 zero (16) + 9 non-zero (144) = 160; 1 word = 2.
    // Execution: PUSH2 3 + DUP1 3 + PUSH1 3 + PUSH1 3 + CODECOPY (3 + 3 copy + 3 memory) + PUSH1 3 + RETURN 0 = 24.
    // Deposit: 1 byte × 200. Total 53,000 + 160 + 2 + 24 + 200 = 53,386.
    expect(used(await send(p, { data: initcodeFor('00') }))).toBe(53_386)
  })

  it('calldata: 4 per zero byte, 16 per other byte (RSKIP400 = EIP-2028)', async () => {
    // 0x00ff00ff to an account: 2 × 4 + 2 × 16 = 40.
    expect(used(await send(p, { to: COW1, data: '0x00ff00ff' }))).toBe(21_040)
  })
})

describe('gas schedule: state access opcodes', () => {
  let p: Provider
  beforeAll(async () => {
    p = await fresh()
  })

  // Each runtime is run by a call without data: 21,000 + the opcodes.
  it.each([
    // PUSH1 0 (3) + SLOAD (RSK 200; Istanbul's EIP-1884 price is 800).
    ['SLOAD 200', '60005400', 21_000 + 3 + 200],
    // ADDRESS (2) + BALANCE (RSK 400; EIP-1884: 700).
    ['BALANCE 400', '303100', 21_000 + 2 + 400],
    // ADDRESS (2) + EXTCODEHASH (RSK 400; EIP-1884: 700).
    ['EXTCODEHASH 400', '303f00', 21_000 + 2 + 400],
    // ADDRESS (2) + EXTCODESIZE (700).
    ['EXTCODESIZE 700', '303b00', 21_000 + 2 + 700],
    // PUSH1 1 (3) + PUSH1 0 (3) + TSTORE (100) + PUSH1 0 (3) + TLOAD (100).
    ['TSTORE/TLOAD 100', '600160005d60005c00', 21_000 + 3 + 3 + 100 + 3 + 100],
    // ADDRESS (2) + SELFBALANCE (5).
    ['SELFBALANCE 5', '304700', 21_000 + 2 + 5],
  ])('%s', async (_name, runtime, gas) => {
    const at = await deployCode(p, runtime)
    expect(used(await send(p, { to: at }))).toBe(gas)
  })
})

describe('gas schedule: SSTORE is frontier-style (20,000 set, 5,000 reset/clear, 15,000 refund)', () => {
  // Runtime: PUSH1 0, CALLDATALOAD, PUSH1 0, SSTORE, STOP: slot 0 := calldata word; 9 gas besides SSTORE.
  const STORE = '6000356000550000'
  let p: Provider
  let at: string
  const store = (v: bigint) => send(p, { to: at, data: '0x' + word(v) })
  beforeAll(async () => {
    p = await fresh()
    at = await deployCode(p, STORE)
  })

  it('set 0 → 5: 21,000 + 140 calldata (31 × 4 + 16) + 9 + 20,000', async () => {
    expect(used(await store(5n))).toBe(41_149)
  })

  it('reset 5 → 7: 21,000 + 140 + 9 + 5,000', async () => {
    expect(used(await store(7n))).toBe(26_149)
  })

  it('same value 7 → 7: 5,000 as a reset (EIP-2200 would charge 800)', async () => {
    expect(used(await store(7n))).toBe(26_149)
  })

  it('clear 7 → 0: 21,000 + 128 calldata + 9 + 5,000 = 26,137, refund 15,000 capped at 26,137 / 2 = 13,068', async () => {
    expect(used(await store(0n))).toBe(26_137 - 13_068)
  })

  it('zero → zero: 5,000 (EIP-2200 would charge 800)', async () => {
    expect(used(await store(0n))).toBe(21_000 + 128 + 9 + 5_000)
  })

  it('two writes to one slot in a transaction pay twice (no net metering)', async () => {
    // PUSH1 1, PUSH1 0, SSTORE (20,000), PUSH1 2, PUSH1 0, SSTORE (5,000; EIP-2200: 800): 12 + 25,000.
    const twice = await deployCode(p, '6001600055600260005500')
    expect(used(await send(p, { to: twice }))).toBe(21_000 + 12 + 25_000)
  })

  it('Storage fixture: a new slot costs exactly 15,000 more than overwriting it', async () => {
    const s = await deploy(p, Storage)
    const st = new Interface(Storage.abi as never)
    const first = used(await send(p, { to: s, data: st.encodeFunctionData('set', [3, 0x11]) }))
    const again = used(await send(p, { to: s, data: st.encodeFunctionData('set', [3, 0x22]) }))
    expect(first - again).toBe(15_000)
  })
})

describe('gas schedule: calls, creation and self-destruct', () => {
  let p: Provider
  beforeAll(async () => {
    p = await fresh()
  })

  /** CALL(gas = GAS, to, value, 0, 0, 0, 0) then STOP: 5 × PUSH1 (15) + PUSH20 (3) + GAS (2) = 20 besides CALL. */
  const caller = (to: string, value: number) => '6000600060006000' + '60' + value.toString(16).padStart(2, '0') + '73' + to.slice(2) + '5af100'

  it('nested call (contract → contract that stores): 21,000 + 20 + CALL 700 + callee 20,006', async () => {
    // Callee: PUSH1 1, PUSH1 0, SSTORE, STOP = 20,006.
    const target = await deployCode(p, '600160005500')
    const a = await deployCode(p, caller(target, 0))
    const r = await send(p, { to: a })
    expect(used(r)).toBe(21_000 + 20 + 700 + 20_006)
    expect(await rq(p, 'eth_getStorageAt', [target, '0x0', 'latest'])).toBe('0x' + word(1n))
  })

  it('no EIP-150 63/64 rule: gas limit = gas used is enough for a nested call', async () => {
    // With 63/64 the callee would get 19,694 of the 20,006 left and fail; RSK gives it all that remains.
    const target = await deployCode(p, '600260005500')
    const a = await deployCode(p, caller(target, 0))
    const r = await send(p, { to: a, gas: '0x' + (21_000 + 20 + 700 + 20_006).toString(16) })
    expect(r.status).toBe('0x1')
    expect(await rq(p, 'eth_getStorageAt', [target, '0x0', 'latest'])).toBe('0x' + word(2n))
  })

  it('value CALL to an existing account: 700 + 9,000, and the 2,300 stipend is not a discount', async () => {
    // Ethereum nets 700 + 9,000 − 2,300 (the unused stipend comes back free); RSKj charges the stipend as callee gas.
    const a = await deployCode(p, caller(COW1, 1), '0x64')
    expect(used(await send(p, { to: a }))).toBe(21_000 + 20 + 700 + 9_000)
  })

  it('CALL to an account that does not exist: +25,000 even without value', async () => {
    const a = await deployCode(p, caller('0x' + 'ab'.repeat(20), 0))
    expect(used(await send(p, { to: a }))).toBe(21_000 + 20 + 700 + 25_000)
  })

  it('SELFDESTRUCT: 5,000, refund 24,000 capped at half the gas used', async () => {
    // CALLER (2) + SELFDESTRUCT (5,000) to cow (exists) = 26,002; refund min(24,000, 13,001).
    const a = await deployCode(p, '33ff')
    expect(used(await send(p, { to: a }))).toBe(26_002 - 13_001)
    expect(await rq(p, 'eth_getCode', [a, 'latest'])).toBe('0x')
  })

  it('CREATE forwards all remaining gas: gas limit = gas used is enough', async () => {
    // Runtime: PUSH5 6001600055 (3), PUSH1 0 (3), MSTORE (3 + 3 memory), PUSH1 5, PUSH1 27, PUSH1 0 (9), CREATE
    // (32,000 + 2 for its one initcode word, RSKIP438), STOP. The child's initcode PUSH1 1, PUSH1 0, SSTORE costs
    // 20,006: with EIP-150 it would get 20,006 − 20,006 / 64 = 19,694 and fail.
    const factory = await deployCode(p, '6460016000556000526005601b6000f000')
    const gas = 21_000 + 3 + 3 + 6 + 9 + 32_002 + 20_006
    const r = await send(p, { to: factory, gas: '0x' + gas.toString(16) })
    expect(r.status).toBe('0x1')
    expect(used(r)).toBe(gas)
    // The factory, deployed by a transaction, creates at nonce 0 (RSKj TransactionExecutor.create; test/account_rules.test.ts).
    const child = getCreateAddress({ from: factory, nonce: 0 }).toLowerCase()
    expect(await rq(p, 'eth_getStorageAt', [child, '0x0', 'latest'])).toBe('0x' + word(1n))
  })

  it('the sender pays gasPrice × gasUsed', async () => {
    const before = BigInt(await rq(p, 'eth_getBalance', [COW, 'latest']))
    const r = await send(p, { to: COW1, value: '0x0', gasPrice: '0x3' })
    expect(BigInt(await rq(p, 'eth_getBalance', [COW, 'latest']))).toBe(before - 3n * BigInt(r.gasUsed))
  })
})

describe('gas schedule: precompiles that fail (RSKj Program.callToPrecompiledAddress, RSKIP197, RSKIP516)', () => {
  let p: Provider
  let relay: string
  const word32 = (n: bigint) => n.toString(16).padStart(64, '0')
  // G1 generator (1, 2) twice: valid; (1, 3) twice: not on the curve. Same bytes but the last of each y, so the same
  // calldata cost.
  const g1 = word32(1n) + word32(2n)
  const notOnCurve = word32(1n) + word32(3n)
  // 2·G1 (EIP-196's addition of the generator to itself).
  const twoG1 = '030644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd315ed738c0e0a7c92e7845f96b2ae9c0a68a6a449e3538fc7ff3ebf7a5a18a2c4'

  /** A relay (helpers.ts `relayTo`) to precompile `n`. */
  const relayToPrecompile = (n: number) => relayTo('0x' + n.toString(16).padStart(40, '0'))

  /** eth_call through a relay: [returned data, the CALL's result]. */
  async function viaRelay(to: string, data: string): Promise<[string, bigint]> {
    const out: string = await rq(p, 'eth_call', [{ to, data }, 'latest'])
    return ['0x' + out.slice(2, -64), BigInt('0x' + out.slice(-64))]
  }

  /** blake2f input (EIP-152): 12 rounds over "abc" with BLAKE2b-512's initial state, final block. */
  function blake2fAbc(): string {
    const iv = [0x6a09e667f3bcc908n, 0xbb67ae8584caa73bn, 0x3c6ef372fe94f82bn, 0xa54ff53a5f1d36f1n, 0x510e527fade682d1n, 0x9b05688c2b3e6c1fn, 0x1f83d9abfb41bd6bn, 0x5be0cd19137e2179n]
    iv[0]! ^= 0x01010040n // parameter block: 64-byte digest, no key, fanout 1, depth 1
    const le = (v: bigint) => Buffer.from(v.toString(16).padStart(16, '0'), 'hex').reverse().toString('hex')
    const m = Buffer.alloc(128)
    m.write('abc')
    return '0000000c' + iv.map(le).join('') + m.toString('hex') + le(3n) + le(0n) + '01'
  }

  beforeAll(async () => {
    p = await fresh()
    relay = await deployCode(p, relayToPrecompile(6))
  })

  it('alt_bn128 addition of points not on the curve costs its price (150), as a valid one does', async () => {
    const bad = await deployCode(p, relayToPrecompile(6))
    // Failing first: the failed call leaves the precompile's account missing, so both calls pay the 25,000 of a
    // CALL to a missing account. The engine alone would have the failed call consume all the gas it was given.
    const failed = await send(p, { to: bad, data: '0x' + notOnCurve + notOnCurve })
    const ok = await send(p, { to: bad, data: '0x' + g1 + g1 })
    expect(failed.status).toBe('0x1')
    expect(ok.status).toBe('0x1')
    // The valid one returns 64 bytes, which the relay copies: RETURNDATACOPY's 3 per word, 6 more.
    expect(used(ok) - used(failed)).toBe(6)
    expect(await viaRelay(bad, '0x' + notOnCurve + notOnCurve)).toEqual(['0x', 0n])
    expect(await viaRelay(bad, '0x' + g1 + g1)).toEqual(['0x' + twoG1, 1n])
  })

  it('alt_bn128 addition reads at most 128 bytes: more input gives the same answer', async () => {
    expect(await viaRelay(relay, '0x' + g1 + g1 + 'ff'.repeat(32))).toEqual(['0x' + twoG1, 1n])
  })

  it('alt_bn128 pairing with a length not a multiple of 192 fails for 45,000 + 34,000 per whole pair', async () => {
    const pairing = await deployCode(p, relayToPrecompile(8))
    expect(await viaRelay(pairing, '0x' + '00'.repeat(191))).toEqual(['0x', 0n])
    // The same relay on 191 and on 192 zero bytes (the point at infinity twice: a valid pairing, result 1): 0 pairs
    // priced against 1, and one more zero byte of calldata (4).
    const short = await send(p, { to: pairing, data: '0x' + '00'.repeat(191) })
    const whole = await send(p, { to: pairing, data: '0x' + '00'.repeat(192) })
    expect(await viaRelay(pairing, '0x' + '00'.repeat(192))).toEqual(['0x' + word32(1n), 1n])
    expect(short.status).toBe('0x1')
    expect(whole.status).toBe('0x1')
    // Both pay the 25,000 of a CALL to a missing account (the failed call created none) and copy six calldata words;
    // the whole one pays one pair (34,000), one more zero byte of calldata (4), and one word of return data copied (3).
    expect(used(whole) - used(short)).toBe(34_000 + 4 + 3)
  })

  it('a transaction straight to a failing alt_bn128: mined with status 0x1 (TransactionExecutor.call keeps the failure), the price paid, the value kept', async () => {
    const ADD = '0x' + '6'.padStart(40, '0')
    const data = '0x' + notOnCurve + notOnCurve
    // 21,000, four data words (31 zero bytes at 4 each, the last byte at 16), the price 150.
    const gas = 21_000 + 4 * (31 * 4 + 16) + 150
    expect(Number(await rq(p, 'eth_estimateGas', [{ from: COW, to: ADD, data }, 'latest']))).toBe(gas)
    expect(await rq(p, 'eth_call', [{ from: COW, to: ADD, data }, 'latest'])).toBe('0x')
    const before = BigInt(await rq(p, 'eth_getBalance', [ADD, 'latest']))
    const r = await sendKeptFailure(p, { to: ADD, data, value: '0x3e8', gas: '0x' + (gas + 5_000).toString(16) })
    expect([r.status, used(r)]).toEqual(['0x1', gas])
    expect(BigInt(await rq(p, 'eth_getBalance', [ADD, 'latest']))).toBe(before)
    // Below the price it fails (execError), all its gas used.
    const hash = await sendFailing(p, { to: ADD, data, gas: '0x' + (gas - 1).toString(16) })
    const failed = await rq(p, 'eth_getTransactionReceipt', [hash])
    expect([failed.status, used(failed)]).toEqual(['0x0', gas - 1])
  })

  it('blake2f: 213 bytes give BLAKE2b-512; longer input is cut to 213 (RSKIP516); shorter fails for 0 gas', async () => {
    const blake = await deployCode(p, relayToPrecompile(9))
    const abc = '0x' + createHash('blake2b512').update('abc').digest('hex')
    const input = blake2fAbc()
    expect(await viaRelay(blake, '0x' + input)).toEqual([abc, 1n])
    expect(await viaRelay(blake, '0x' + input + 'ff')).toEqual([abc, 1n])
    expect(await viaRelay(blake, '0x' + input.slice(0, -2))).toEqual(['0x', 0n])
    const r = await send(p, { to: blake, data: '0x' + input.slice(0, -2) })
    expect(r.status).toBe('0x1')
    expect(used(r)).toBeLessThan(100_000)
  })

  it('blake2f straight from a transaction or eth_call: the whole data is priced and run (TransactionExecutor.call), so 214 bytes fail for 0 gas, kept', async () => {
    const BLAKE2F = '0x' + '9'.padStart(40, '0')
    const abc = '0x' + createHash('blake2b512').update('abc').digest('hex')
    const input = blake2fAbc()
    // 213 bytes: the hash, as from code; 12 rounds priced.
    expect(await rq(p, 'eth_call', [{ to: BLAKE2F, data: '0x' + input }, 'latest'])).toBe(abc)
    // 214 bytes: RSKj's Blake2F prices any other length 0 and refuses it; the failure is kept (no execution error).
    const data = '0x' + input + 'ff'
    const bytes = Buffer.from(data.slice(2), 'hex')
    const zeros = bytes.filter((b) => b === 0).length
    const intrinsic = 21_000 + 4 * zeros + 16 * (bytes.length - zeros)
    expect(await rq(p, 'eth_call', [{ to: BLAKE2F, data }, 'latest'])).toBe('0x')
    expect(Number(await rq(p, 'eth_estimateGas', [{ from: COW, to: BLAKE2F, data }, 'latest']))).toBe(intrinsic)
    const r = await sendKeptFailure(p, { to: BLAKE2F, data, gas: '0x' + (intrinsic + 1_000).toString(16) })
    expect([r.status, used(r)]).toEqual(['0x1', intrinsic])
    // The same 214 bytes from code are cut to 213 (RSKIP516), in the same transaction's EVM as before.
    const blake = await deployCode(p, relayToPrecompile(9))
    expect(await viaRelay(blake, data)).toEqual([abc, 1n])
  })
})
