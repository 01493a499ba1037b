/**
 * Faster handlers for the push, memory, hashing, storage, log, call-data, address and halting opcodes (PUSH1-32,
 * MLOAD, MSTORE, KECCAK256, SLOAD, SSTORE's logic, LOG0-4, CALLDATALOAD, ADDRESS, ORIGIN, CALLER, STOP, RETURN), given to the EVM through
 * its public `customOpcodes` option next to the RSK rules of evmProfile.ts. Same results, same gas, same errors as the
 * engine's (@ethereumjs/evm 10.1.3 opcodes/functions.js and gas.js); only the byte/bigint conversions differ.
 *
 * The engine converts between 32-byte words and bigints through hex strings and pads with array spreads
 * (`setLengthLeft(bigIntToBytes(word), 32)` is `new Uint8Array([...zeros, ...bytes])`): `setLength` alone was over
 * a quarter of a keccak loop. Its gas handlers are async functions, so every MLOAD/MSTORE/KECCAK256/LOG also waited
 * a microtask for its charge; the ones here are synchronous (the engine accepts either).
 *
 * They reach into the interpreter (the run state's `cachedPushes` and `shouldDoJumpAnalysis`, memory's `_store`, the
 * result's `returnValue`), so
 * they live with the other engine patches: none is given to an EVM unless the patches are on when it is created and
 * those fields were found in the engine's source (interpreter.ts `interpreterFieldsFound`).
 */
import type { Common } from '@ethereumjs/common'
import { EVMError, type EVMOpts } from '@ethereumjs/evm'
import { enginePatches } from './switch.js'
import { interpreterFieldsFound } from './interpreter.js'
import { bytesToWord, unpaddedBytes, wordInScratch } from '../rlp.js'
import { storageAccess } from '../state/storageAccess.js'

type CustomOpcode = NonNullable<EVMOpts['customOpcodes']>[number]
type AddOpcode = Extract<CustomOpcode, { logicFunction: unknown }>
type RunState = Parameters<AddOpcode['logicFunction']>[0]

const WORD = 32n

/** Largest word handled with Number arithmetic (2^53 - 1): pointers, lengths and counters, most MSTOREs. */
const SAFE = BigInt(Number.MAX_SAFE_INTEGER)

/** Writes a stack word as 32 big-endian bytes at `offset` of `out` (the engine's `setLengthLeft(bigIntToBytes(w), 32)`). */
export function writeWord(out: Uint8Array, offset: number, word: bigint): void {
  if (word <= SAFE) {
    let v = Number(word)
    for (let i = offset + 31; i >= offset; i--) {
      out[i] = v % 256
      v = Math.floor(v / 256)
    }
    return
  }
  // Four 64-bit limbs through a DataView, then one copy: 105-158 ns here against 201-228 through the word's hex
  // string (measured alone; docs/performance.md, twenty-third round). Stack words are below 2^256.
  out.set(wordInScratch(word), offset)
}

/** A stack word as 32 big-endian bytes. */
export function wordToBytes(word: bigint): Uint8Array {
  const out = new Uint8Array(32)
  writeWord(out, 0, word)
  return out
}

/** Whether an EVM made now for `common` gets the fast handlers: the patches on, the engine's fields found, a custom keccak. */
export const fastOpcodesApply = (common: Common): boolean => common.customCrypto.keccak256 !== undefined && enginePatches.active && interpreterFieldsFound

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
 * Two-operand handlers below pop their operands one by one (`stack.popN(2)` allocates an array): their gas functions
 * have already read both from the stack (MSTORE's reads one: with one operand the second pop throws the stack
 * underflow that `popN` would).
 *
 * PUSH1-32, MLOAD, MSTORE and KECCAK256 for `common`; empty when the Common has no custom keccak or the engine
 * patches are off (the engine's own handlers then stay in place). Base fees are the engine's for the same Common.
 */
export function fastOpcodes(common: Common, baseFee: (op: number) => number): AddOpcode[] {
  const keccak = common.customCrypto.keccak256
  if (keccak === undefined || !fastOpcodesApply(common)) return []
  const charge = memoryCharge(common.param('memoryGas'), common.param('quadCoefficientDivGas'))
  const wordGas = common.param('keccak256WordGas')
  // The engine's PUSH asks isActivatedEIP(6800) and (7864) on every push for Verkle code-chunk gas; without them
  // it reads the value its jump analysis decoded, or decodes it from the code before that analysis ran.
  const push = (runState: RunState) => {
    const size = runState.opCode - 0x5f
    const pc = runState.programCounter
    runState.programCounter = pc + size
    if (!runState.shouldDoJumpAnalysis) {
      runState.stack.push(runState.cachedPushes[pc]!)
      return
    }
    // Past the end of the code the missing bytes are zeros on the right (the engine's setLengthRight).
    const bytes = runState.code.subarray(pc, pc + size)
    const value = bytesToWord(bytes)
    runState.stack.push(bytes.length < size ? value << BigInt(8 * (size - bytes.length)) : value)
  }
  const pushes: AddOpcode[] =
    common.isActivatedEIP(6800) || common.isActivatedEIP(7864)
      ? []
      : Array.from({ length: 32 }, (_, k) => ({ opcode: 0x60 + k, opcodeName: 'PUSH', baseFee: baseFee(0x60 + k), logicFunction: push }))
  return [
    ...pushes,
    {
      opcode: 0x20,
      opcodeName: 'KECCAK256',
      baseFee: baseFee(0x20),
      gasFunction: (runState: RunState, gas: bigint) => {
        const [offset, length] = runState.stack.peek(2) as [bigint, bigint]
        return gas + charge(runState, offset, length) + wordGas * ((length + WORD - 1n) / WORD)
      },
      logicFunction: (runState: RunState) => {
        const offset = runState.stack.pop()
        const length = runState.stack.pop()
        // A view of memory, not a copy: the hash only reads it.
        const data = length === 0n ? new Uint8Array(0) : runState.memory.read(Number(offset), Number(length), true)
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
        const offset = runState.stack.pop()
        const word = runState.stack.pop()
        const at = Number(offset)
        // Memory.write without the intermediate 32-byte array: extend, then write the word in place.
        runState.memory.extend(at, 32)
        writeWord(runState.memory._store, at, word)
      },
    },
    ...wordOpcodes(common, baseFee, charge),
    ...haltOpcodes(common, baseFee, charge),
  ]
}

/**
 * STOP and RETURN without a thrown error. The engine ends a frame by throwing (`trap(STOP)`, also through
 * `interpreter.finish`) and catching it in the step loop: a throw and an unwind per call frame, ~7.7 µs of an
 * `eth_call` of `balanceOf` in a profile, sampling overhead included (docs/performance.md, twelfth round). Here the
 * handler sets what `finish` sets (the result's return value) and moves the program counter to the end of the code,
 * where the engine's step loop and the fast one (interpreter.ts) stop as they stop on STOP: no error, the same gas,
 * the same result (only the finished run state's program counter differs: the code's length, not the opcode's
 * position plus one; nothing reads it after the frame). Left to the engine with the Verkle EIPs (their access
 * witness is committed after a handler that returns, not after one that throws).
 */
function haltOpcodes(common: Common, baseFee: (op: number) => number, charge: ReturnType<typeof memoryCharge>): AddOpcode[] {
  if (common.isActivatedEIP(6800) || common.isActivatedEIP(7864)) return []
  const end = (runState: RunState) => {
    runState.programCounter = runState.code.length
  }
  return [
    { opcode: 0x00, opcodeName: 'STOP', baseFee: baseFee(0x00), logicFunction: end },
    {
      opcode: 0xf3,
      opcodeName: 'RETURN',
      baseFee: baseFee(0xf3),
      gasFunction: (runState: RunState, gas: bigint) => {
        const [offset, length] = runState.stack.peek(2) as [bigint, bigint]
        return gas + charge(runState, offset, length)
      },
      logicFunction: (runState: RunState) => {
        const offset = runState.stack.pop()
        const length = runState.stack.pop()
        // A copy: the return value outlives the frame's memory.
        const value = length === 0n ? new Uint8Array(0) : runState.memory.read(Number(offset), Number(length))
        ;(runState.interpreter as unknown as { _result: { returnValue?: Uint8Array } })._result.returnValue = value
        end(runState)
      },
    },
  ]
}

/**
 * SLOAD, LOG0-4, CALLDATALOAD, ADDRESS, ORIGIN and CALLER (and, for rsk/evm/evmProfile.ts, SSTORE's logic): the
 * engine's, with keys, values, topics and words converted without hex strings and array spreads
 * (`setLengthLeft(bigIntToBytes(w), 32)`, `bytesToBigInt`), and SLOAD without
 * its async gas function, which adds nothing unless EIP-2929 or the Verkle EIPs are on. Each is left to the engine
 * when an EIP that changes it is on (2929, 6800, 7864 for SLOAD; 8037 for SSTORE).
 */
function wordOpcodes(common: Common, baseFee: (op: number) => number, charge: ReturnType<typeof memoryCharge>): AddOpcode[] {
  const out: AddOpcode[] = []
  if (!common.isActivatedEIP(2929) && !common.isActivatedEIP(6800) && !common.isActivatedEIP(7864)) {
    const storage = storageAccess(common)
    const pushValue = (runState: RunState, value: Uint8Array) => runState.stack.push(value.length === 0 ? 0n : bytesToWord(value))
    out.push({
      opcode: 0x54,
      opcodeName: 'SLOAD',
      baseFee: baseFee(0x54),
      // A promise only when the state must read the slot first (storageAccess.ts).
      logicFunction: (runState: RunState) => {
        const value = storage.load(runState, wordToBytes(runState.stack.pop()))
        return value instanceof Promise ? value.then((v) => pushValue(runState, v)) : pushValue(runState, value)
      },
    })
  }
  // CALLDATALOAD and the address opcodes: the engine's read the word through a hex string (util's bytesToBigInt).
  out.push(
    {
      opcode: 0x35,
      opcodeName: 'CALLDATALOAD',
      baseFee: baseFee(0x35),
      logicFunction: (runState: RunState) => {
        const pos = runState.stack.pop()
        const data = runState.interpreter.getCallData()
        // At or past the end: the engine reads no byte, so zero.
        if (pos >= BigInt(data.length)) {
          runState.stack.push(0n)
          return
        }
        const at = Number(pos)
        const loaded = data.subarray(at, at + 32)
        const word = bytesToWord(loaded)
        // Past the end of the call data the missing bytes are zeros on the right.
        runState.stack.push(loaded.length < 32 ? word << BigInt(8 * (32 - loaded.length)) : word)
      },
    },
    { opcode: 0x30, opcodeName: 'ADDRESS', baseFee: baseFee(0x30), logicFunction: (runState: RunState) => runState.stack.push(bytesToWord(runState.interpreter.getAddress().bytes)) },
    { opcode: 0x32, opcodeName: 'ORIGIN', baseFee: baseFee(0x32), logicFunction: (runState: RunState) => runState.stack.push(bytesToWord(runState.env.origin.bytes)) },
    { opcode: 0x33, opcodeName: 'CALLER', baseFee: baseFee(0x33), logicFunction: (runState: RunState) => runState.stack.push(bytesToWord(runState.env.caller.bytes)) },
  )
  const topicGas = common.param('logTopicGas')
  const dataGas = common.param('logDataGas')
  for (let count = 0; count <= 4; count++) {
    const topicsGas = topicGas * BigInt(count)
    out.push({
      opcode: 0xa0 + count,
      opcodeName: 'LOG',
      baseFee: baseFee(0xa0 + count),
      gasFunction: (runState: RunState, gas: bigint) => {
        if (runState.interpreter.isStatic()) throw new EVMError(EVMError.errorMessages.STATIC_STATE_CHANGE)
        const [offset, length] = runState.stack.peek(2) as [bigint, bigint]
        return gas + charge(runState, offset, length) + topicsGas + length * dataGas
      },
      logicFunction: (runState: RunState) => {
        const offset = runState.stack.pop()
        const length = runState.stack.pop()
        const topics = count === 0 ? [] : runState.stack.popN(count).map(wordToBytes)
        // A copy: the log outlives the frame's memory.
        const data = length === 0n ? new Uint8Array(0) : runState.memory.read(Number(offset), Number(length))
        runState.interpreter.log(data, count, topics)
      },
    })
  }
  return out
}

/**
 * SSTORE's logic with the key and value converted without hex strings (the engine's stores the value's shortest
 * bytes, empty for zero, as `unpaddedBytes` gives), or undefined where the engine's must run (EIP-8037's state gas,
 * or the patches off). Its gas function is RSK's (rsk/evm/evmProfile.ts).
 */
export function fastSstore(common: Common): AddOpcode['logicFunction'] | undefined {
  if (!fastOpcodesApply(common) || common.isActivatedEIP(8037)) return undefined
  const storage = storageAccess(common)
  return (runState: RunState) => {
    const key = runState.stack.pop()
    const value = runState.stack.pop()
    return storage.store(runState, wordToBytes(key), unpaddedBytes(value))
  }
}
