/**
 * RSK's secp256k1 addition (0x01000016) and multiplication (0x01000017) precompiles
 * (src/node/rsk/evm/secp256k1Precompiles.ts). Expected points are RSKj's own test vectors
 * (rskj-core/src/test/java/org/ethereum/crypto/signature/Secp256k1ServiceTest.java), prices RSKj's
 * (`Secp256k1Addition` 150, `Secp256k1Multiplication` 3,000).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import type { Provider } from '../src/index.js'
import { deployCode, fresh, relayTo, send, rq } from './helpers.js'

const w = (n: bigint | string) => BigInt(n).toString(16).padStart(64, '0')

const V1Y = '29896722852569046015560700294576055776214335159245303116488692907525646231534'
const V1BY2 = w('90462569716653277674664832038037428010367175520031690655826237506178777087235') + w('30122570767565969031174451675354718271714177419582540229636601003470726681395')
const V1BY9 = w('46171929588085016379679198610744759757996296651373714437564035753833216770329') + w('4076329532618667641907419885981677362511359868272295070859229146922980867493')
const V1 = w(1n) + w(V1Y)
const ZERO = '00'.repeat(64)
const NOT_ON_CURVE = '11'.repeat(32)


describe('secp256k1 precompiles (RSKIP516)', () => {
  let p: Provider
  let add: string
  let mul: string

  beforeAll(async () => {
    p = await fresh()
    add = await deployCode(p, relayTo('0x0000000000000000000000000000000001000016'))
    mul = await deployCode(p, relayTo('0x0000000000000000000000000000000001000017'))
  })

  /** [return data without 0x, the CALL's result]. */
  async function call(relay: string, input: string): Promise<[string, bigint]> {
    const out: string = await rq(p, 'eth_call', [{ to: relay, data: '0x' + input }, 'latest'])
    return [out.slice(2, -64), BigInt('0x' + out.slice(-64))]
  }

  it('adds points, infinity being (0, 0)', async () => {
    expect(await call(add, V1 + V1)).toEqual([V1BY2, 1n])
    expect(await call(add, V1 + ZERO)).toEqual([V1, 1n])
    expect(await call(add, ZERO + V1)).toEqual([V1, 1n])
    expect(await call(add, ZERO + ZERO)).toEqual([ZERO, 1n])
    expect(await call(add, '')).toEqual([ZERO, 1n])
    // testAddForTwoValidPointsComputeSlope
    const p0 = w(4n) + w('40508090799132825824753983223610497876805216745196355809233758402754120847507')
    const p1 = w('1624070059937464756887933993293429854168590106605707304006200119738501412969') + w('48810817106871756219742442189260392858217846784043974224646271552914041676099')
    const sum = w('59470963110652214182270290319243047549711080187995156844066669631124720856270') + w('75549874947483386113764723043915448105868538368156141886808196158351727282824')
    expect(await call(add, p0 + p1)).toEqual([sum, 1n])
    // At most 128 bytes are read.
    expect(await call(add, V1 + V1 + 'ff'.repeat(32))).toEqual([V1BY2, 1n])
  })

  it('multiplies by any 256-bit scalar', async () => {
    expect(await call(mul, V1 + w(9n))).toEqual([V1BY9, 1n])
    expect(await call(mul, V1 + w(2n))).toEqual([V1BY2, 1n])
    expect(await call(mul, V1 + w(1n))).toEqual([V1, 1n])
    expect(await call(mul, V1 + w(0n))).toEqual([ZERO, 1n])
    // testMultiplyScalarAndPoint: the scalar 2^256 - 1, above the group order.
    const product = w('68306631035792818416930554521980007078198693994042647901813352646899028694565') + w('763410389832780290161227297165449309800016629866253823160953352172730927280')
    expect(await call(mul, V1 + 'ff'.repeat(32))).toEqual([product, 1n])
    expect(await call(mul, '')).toEqual([ZERO, 1n])
  })

  it('refuses a point not on the curve, for the price: 150 and 3,000 gas', async () => {
    expect(await call(add, NOT_ON_CURVE.repeat(4))).toEqual(['', 0n])
    expect(await call(mul, NOT_ON_CURVE.repeat(3))).toEqual(['', 0n])
    expect(await call(mul, NOT_ON_CURVE.repeat(2))).toEqual(['', 0n])
    // Transactions through a relay (inputs of whole words, results inside the memory the input took). Its execution:
    // CALLDATASIZE, PUSH1 ×2 = 8, CALLDATACOPY 3 + 3 per word copied + 3 per word of memory;
    // PUSH1 ×2, CALLDATASIZE, PUSH1 ×2, PUSH20, GAS = 19; CALL 700
    // + 25,000 (the precompile's account does not exist; a failed call does not create it) + the price;
    // RETURNDATASIZE, PUSH1 ×2, RETURNDATACOPY = 11 + 3 per word returned; RETURNDATASIZE, MSTORE = 5 (inside the
    // 128 bytes); RETURNDATASIZE, PUSH1, ADD, PUSH1, RETURN = 11.
    const zeroBytes = (hex: string) => (hex.match(/../g) ?? []).filter((b) => b === '00').length
    const calldataGas = (hex: string) => 4 * zeroBytes(hex) + 16 * (hex.length / 2 - zeroBytes(hex))
    const expected = (input: string, price: number, wordsReturned: number) =>
      21_000 + calldataGas(input) + 8 + 3 + 6 * (input.length / 64) + 19 + 700 + 25_000 + price + 11 + 3 * wordsReturned + 5 + 11
    const bad = await send(p, { to: add, data: '0x' + NOT_ON_CURVE.repeat(4) })
    expect(bad.status).toBe('0x1')
    expect(Number(BigInt(bad.gasUsed))).toBe(expected(NOT_ON_CURVE.repeat(4), 150, 0))
    const good = await send(p, { to: add, data: '0x' + V1 + V1 })
    expect(Number(BigInt(good.gasUsed))).toBe(expected(V1 + V1, 150, 2))
    const badProduct = await send(p, { to: mul, data: '0x' + NOT_ON_CURVE.repeat(3) })
    expect(Number(BigInt(badProduct.gasUsed))).toBe(expected(NOT_ON_CURVE.repeat(3), 3_000, 0))
    const product = await send(p, { to: mul, data: '0x' + V1 + w(9n) })
    expect(Number(BigInt(product.gasUsed))).toBe(expected(V1 + w(9n), 3_000, 2))
  })
})
