/**
 * The opcode set at the latest RSK upgrade (reference §7.4, RSKj `VM.java`, `OpCode.java`), driven through
 * `eth_call` and transactions with a few hand-written opcodes.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import type { Provider } from '../src/index.js'
import { COW, fresh, initcodeFor, rejects, send, sendSigned, rq } from './helpers.js'

/** Code that runs `ops` and returns the top of the stack as one word: MSTORE at 0, RETURN 32 bytes. */
const returning = (ops: string) => '0x' + ops + '60005260206000f3'
/** Runs `ops` as creation code in eth_call (the return value of creation code is what it returns). */
/**
 * Mines `tx` and returns its receipt status. A failed transaction must also have answered -32015 (automine) and a
 * successful one nothing; the receipt is read by the hash ethers computed.
 */
async function status(p: Provider, tx: Record<string, unknown>): Promise<string> {
  const { hash, error } = await sendSigned(p, tx)
  const receipt = await rq(p, 'eth_getTransactionReceipt', [hash])
  expect(error?.code).toBe(receipt.status === '0x0' ? -32015 : undefined)
  return receipt.status
}
const run = async (p: Provider, ops: string, extra: Record<string, unknown> = {}) => BigInt(await rq(p, 'eth_call', [{ from: COW, data: returning(ops), ...extra }, 'latest']))

describe('opcodes at the latest upgrade', () => {
  let p: Provider
  beforeAll(async () => {
    p = await fresh({ minimumGasPrice: 7n })
  })

  it('BASEFEE (0x48) pushes the block minimumGasPrice (RSKIP412)', async () => {
    expect(await run(p, '48')).toBe(7n)
    const other = await fresh({ minimumGasPrice: 1234n })
    expect(await run(other, '48')).toBe(1234n)
  })

  it('DIFFICULTY (0x44) is the block difficulty, not PREVRANDAO', async () => {
    expect(await run(p, '44')).toBe(1n)
  })

  it('CHAINID (RSKIP152), SELFBALANCE (RSKIP151), PUSH0 (RSKIP398)', async () => {
    expect(await run(p, '46')).toBe(33n)
    expect(await run(p, '47', { value: '0x2a' })).toBe(42n)
    expect(await run(p, '602a5f')).toBe(0n) // PUSH1 42, PUSH0 → top is 0
  })

  it('MCOPY (RSKIP445) and TLOAD/TSTORE (RSKIP446)', async () => {
    // MSTORE 42 at 0x20; MCOPY(dst 0, src 0x20, len 0x20); MLOAD 0.
    expect(await run(p, '602a602052' + '602060206000' + '5e' + '600051')).toBe(42n)
    expect(await run(p, '602a60005d' + '60005c')).toBe(42n)
  })

  it('SHL/SHR/SAR, CREATE2 and EXTCODEHASH are there (wasabi, papyrus)', async () => {
    expect(await run(p, '600160041b')).toBe(16n) // 1 << 4
    expect(await run(p, '601060041c')).toBe(1n) // 16 >> 4
    expect(await run(p, '7f' + 'ff'.repeat(31) + 'f0' + '60021d')).toBe(2n ** 256n - 4n) // SAR: −16 >> 2 = −4
    // EXTCODEHASH of an account without code is keccak256("") when it exists (cow), 0 when it does not.
    expect(await run(p, '73' + COW.slice(2) + '3f')).toBe(0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470n)
    expect(await run(p, '73' + 'ab'.repeat(20) + '3f')).toBe(0n)
    // CREATE2(value 0, offset 0, size 0, salt 0) returns a non-zero address.
    expect(await run(p, '6000600060006000f5')).not.toBe(0n)
  })

  it('BLOBHASH (0x49) and BLOBBASEFEE (0x4a) are invalid', async () => {
    for (const op of ['49', '4a']) {
      expect(await status(p, { data: returning('6000' + op), gasPrice: '0x7' })).toBe('0x0')
    }
    expect(await status(p, { data: returning('48'), gasPrice: '0x7' })).toBe('0x1')
  })

  it('EXTCODESIZE of a precompile is 2^256 − 1 (RSKIP90); of other accounts their code size', async () => {
    const max = 2n ** 256n - 1n
    expect(await run(p, '60013b')).toBe(max) // ecrecover
    expect(await run(p, '60093b')).toBe(max) // blake2f
    expect(await run(p, '63010000063b')).toBe(max) // Bridge 0x01000006
    expect(await run(p, '63010000083b')).toBe(max) // REMASC
    expect(await run(p, '73' + COW.slice(2) + '3b')).toBe(0n)
    const r = await send(p, { data: initcodeFor('600000'), gasPrice: '0x7' })
    expect(await run(p, '73' + r.contractAddress.slice(2) + '3b')).toBe(3n)
  })
})

describe('code rules', () => {
  let p: Provider
  beforeAll(async () => {
    p = await fresh()
  })

  it('EIP-3541 (RSKIP544): code starting with 0xEF cannot be deployed', async () => {
    expect(await status(p, { data: initcodeFor('ef00') })).toBe('0x0')
    expect(await status(p, { data: initcodeFor('fe00') })).toBe('0x1')
  })

  it('EIP-170: runtime code is at most 24,576 bytes', async () => {
    // PUSH2 size, PUSH1 0, RETURN: returns `size` zero bytes of memory as the runtime code.
    const ok = await send(p, { data: '0x616000' + '6000f3', gas: '0x7a1200' })
    expect(ok.status).toBe('0x1')
    expect((await rq(p, 'eth_getCode', [ok.contractAddress, 'latest'])).length).toBe(2 + 2 * 24_576)
    expect(await status(p, { data: '0x616001' + '6000f3', gas: '0x7a1200' })).toBe('0x0')
  })

  it('EIP-3860 (RSKIP438): a creation transaction carries at most 49,152 bytes of initcode (-32010 as RSKj)', async () => {
    const tx = (size: number) => ({ from: COW, gas: '0x7a1200', data: '0x' + '00'.repeat(size) })
    await rejects(rq(p, 'eth_sendTransaction', [tx(49_153)]), -32010, "transaction's init code size is invalid")
    expect(await rq(p, 'eth_sendTransaction', [tx(49_152)])).toMatch(/^0x[0-9a-f]{64}$/)
  })

  it('EIP-3860 (RSKIP438): a local call skips the limit (RSKj TransactionExecutor.init returns before it for local calls)', async () => {
    // Initcode returning the byte 0x01 (PUSH1 1, PUSH1 0, MSTORE, PUSH1 1, PUSH1 31, RETURN), padded past the limit.
    const code = '60016000526001601ff3'
    const data = '0x' + code + '00'.repeat(49_153 - code.length / 2)
    expect(await rq(p, 'eth_call', [{ from: COW, data }, 'latest'])).toBe('0x01')
    // Its estimate: 53,000, the data (16 per non-zero byte: 9 in the code; 4 per zero byte), 2 per initcode word
    // (1,537 words), and the code's 3 + 3 + 6 (MSTORE with one word of memory) + 3 + 3 + 0 and the 200 per byte of the
    // deployed code.
    const zeros = 49_153 - 9
    const gas = 53_000 + 9 * 16 + zeros * 4 + 2 * Math.ceil(49_153 / 32) + 3 + 3 + 6 + 3 + 3 + 200
    expect(Number(await rq(p, 'eth_estimateGas', [{ from: COW, data }, 'latest']))).toBe(gas)
    // A transaction with it is still refused, as above.
    await rejects(rq(p, 'eth_sendTransaction', [{ from: COW, data, gas: '0x7a1200' }]), -32010, "transaction's init code size is invalid")
  })

  it('EIP-3860 (RSKIP438): initcode of a CREATE is at most 49,152 bytes', async () => {
    // Creation code: CREATE(value 0, offset 0, size) of `size` zero bytes of memory (STOP), then STOP.
    expect(await status(p, { data: '0x61c00060006000f000' })).toBe('0x1')
    expect(await status(p, { data: '0x61c00160006000f000' })).toBe('0x0')
  })
})
