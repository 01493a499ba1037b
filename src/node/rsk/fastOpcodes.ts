/**
 * Faster handlers for the memory and hashing opcodes, given to the EVM through its public `customOpcodes` option
 * next to the RSK rules of evmProfile.ts. Same results, same gas, same errors as the engine's (@ethereumjs/evm
 * 10.1.3 opcodes/functions.js and gas.js); only the byte/bigint conversions differ.
 *
 * The engine converts between 32-byte words and bigints through hex strings and pads with array spreads
 * (`setLengthLeft(bigIntToBytes(word), 32)` is `new Uint8Array([...zeros, ...bytes])`): `setLength` alone was over
 * a quarter of a keccak loop. Its gas handlers are async functions, so every MLOAD/MSTORE/KECCAK256 also waited a
 * microtask for its memory charge; the ones here are synchronous (the engine accepts either).
 */
import type { Common } from '@ethereumjs/common'
import type { EVMOpts } from '@ethereumjs/evm'

type CustomOpcode = NonNullable<EVMOpts['customOpcodes']>[number]
type AddOpcode = Extract<CustomOpcode, { logicFunction: unknown }>
type RunState = Parameters<AddOpcode['logicFunction']>[0]

const WORD = 32n
const MASK_64 = (1n << 64n) - 1n

/** Big-endian bytes as an unsigned integer (the engine's `bytesToBigInt`, without the hex string). */
export function bytesToWord(bytes: Uint8Array): bigint {
  let r = 0n
  let i = 0
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  for (; i + 8 <= bytes.length; i += 8) r = (r << 64n) | view.getBigUint64(i)
  for (; i < bytes.length; i++) r = (r << 8n) | BigInt(bytes[i]!)
  return r
}

/** A stack word as 32 big-endian bytes (the engine's `setLengthLeft(bigIntToBytes(word), 32)`). */
export function wordToBytes(word: bigint): Uint8Array {
  const out = new Uint8Array(32)
  const view = new DataView(out.buffer)
  view.setBigUint64(24, word & MASK_64)
  view.setBigUint64(16, (word >> 64n) & MASK_64)
  view.setBigUint64(8, (word >> 128n) & MASK_64)
  view.setBigUint64(0, word >> 192n)
  return out
}

/** The engine's `subMemUsage` (opcodes/util.js) with the two prices read once. */
function memoryCharge(memoryGas: bigint, quadDiv: bigint) {
  return (runState: RunState, offset: bigint, length: bigint): bigint => {
    if (length === 0n) return 0n
    const words = (offset + length + WORD - 1n) / WORD
    if (words <= runState.memoryWordCount) return 0n
    let cost = words * memoryGas + (words * words) / quadDiv
    if (cost > runState.highestMemCost) {
      const before = runState.highestMemCost
      runState.highestMemCost = cost
      cost -= before
    }
    runState.memoryWordCount = words
    return cost
  }
}

/**
 * MLOAD, MSTORE and KECCAK256 for `common`; empty when the Common has no custom keccak (the engine's own handlers
 * then stay in place). Base fees are the engine's for the same Common.
 */
export function fastOpcodes(common: Common, baseFee: (op: number) => number): AddOpcode[] {
  const keccak = common.customCrypto.keccak256
  if (keccak === undefined) return []
  const charge = memoryCharge(common.param('memoryGas'), common.param('quadCoefficientDivGas'))
  const wordGas = common.param('keccak256WordGas')
  return [
    {
      opcode: 0x20,
      opcodeName: 'KECCAK256',
      baseFee: baseFee(0x20),
      gasFunction: (runState: RunState, gas: bigint) => {
        const [offset, length] = runState.stack.peek(2) as [bigint, bigint]
        return gas + charge(runState, offset, length) + wordGas * ((length + WORD - 1n) / WORD)
      },
      logicFunction: (runState: RunState) => {
        const [offset, length] = runState.stack.popN(2) as [bigint, bigint]
        const data = length === 0n ? new Uint8Array(0) : runState.memory.read(Number(offset), Number(length))
        runState.stack.push(bytesToWord(keccak(data)))
      },
    },
    {
      opcode: 0x51,
      opcodeName: 'MLOAD',
      baseFee: baseFee(0x51),
      gasFunction: (runState: RunState, gas: bigint) => gas + charge(runState, runState.stack.peek()[0]!, WORD),
      logicFunction: (runState: RunState) => {
        const pos = runState.stack.pop()
        runState.stack.push(bytesToWord(runState.memory.read(Number(pos), 32, true)))
      },
    },
    {
      opcode: 0x52,
      opcodeName: 'MSTORE',
      baseFee: baseFee(0x52),
      gasFunction: (runState: RunState, gas: bigint) => gas + charge(runState, runState.stack.peek()[0]!, WORD),
      logicFunction: (runState: RunState) => {
        const [offset, word] = runState.stack.popN(2) as [bigint, bigint]
        runState.memory.write(Number(offset), 32, wordToBytes(word))
      },
    },
  ]
}
