/**
 * RSKj's default debug tracer (`rskTracer`): one entry per executed opcode, as `org/ethereum/vm/trace/
 * DetailedProgramTrace.java` and `Op.java` record them. Depth starts at 0, `gas` is the gas left before the
 * opcode, `gasCost` its cost, memory and stack are 32-byte words before the opcode.
 *
 * Storage follows RSKj's rule: after an SLOAD or SSTORE, the next opcode of the same frame sees the slot's value
 * in `storage` (a zero value removes the slot). Each frame keeps its own map; the top frame's final map is
 * `currentStorage`. Unlike RSKj, the map does not start from the contract's whole storage (`initStorage`): the
 * state trie keeps hashed slot keys only, so only slots the transaction touched can be named.
 *
 * A call-family opcode's `gasCost` is RSKj's (`VM.getMessageCall`): its own charge (base, new account, value
 * transfer, memory) plus the gas the callee gets, stipend included. The engine's step event carries only the
 * opcode's own charge and the stipend; the callee's gas is the limit of the message the call starts, so the cost is
 * completed when that message begins. A call that starts none (the caller short of the value, the depth limit)
 * keeps the step's charge.
 */
import { EvmRecorder } from './recorder.js'
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm'
import type { RunTxResult } from '@ethereumjs/vm'
import { bigIntToBytes, bytesToHex, setLengthLeft } from '@ethereumjs/util'
import { rskOpName, toVmFailure, type FaultContext } from './errors.js'
import { SizeBudget } from './sizeBudget.js'
import { STIPEND_CALL } from '../../rsk/evm/evmProfile.js'
import type { StructOp, StructTrace } from './types.js'

interface Frame {
  storage: Record<string, string>
  /** Number of entries in `storage` (counted for the size budget without walking the map). */
  slots: number
  /** Slot read or written by the previous opcode, with the value written (SSTORE) or undefined (SLOAD). */
  pending?: { key: string; written?: bigint }
  last?: Omit<FaultContext, 'txHash'>
}

/** Call-family opcodes, whose cost includes the callee's gas; CALL and CALLCODE add the 2,300 stipend with value. */
const CALL_OPS = new Set([0xf1, 0xf2, 0xf4, 0xfa])

/** `{"op":"SSTORE","depth":1,"pc":1234,"gas":1234567,"gasCost":20000,"memory":[],"stack":[],"storage":{}},` */
const OP_FIXED_BYTES = 100
/** A 32-byte word as a quoted hex string with its comma (a storage entry is two). */
const WORD_BYTES = 67

const word = (n: bigint): Uint8Array => setLengthLeft(bigIntToBytes(n), 32)
const hexWord = (n: bigint): string => bytesToHex(word(n)).slice(2)

export class StructRecorder extends EvmRecorder {
  private readonly ops: StructOp[] = []
  private readonly frames: Frame[] = []
  private topFrame?: Frame
  private contractAddress: Uint8Array = new Uint8Array(20)

  /**
   * `budget` counts the JSON size of the recorded ops (src/node/exec/tracers/sizeBudget.ts); `omitted` names the
   * parts the reply leaves out (`disableMemory` and the like), which then cost nothing.
   */
  constructor(
    private readonly txHash: string,
    private readonly budget: SizeBudget = new SizeBudget(0),
    private readonly omitted: ReadonlySet<'memory' | 'stack' | 'storage'> = new Set(),
  ) {
    super()
  }

  /** JSON size of one op as formatStructTrace writes it: fixed fields, then 32-byte words as hex strings. */
  private opSize(memoryWords: number, stackItems: number, slots: number): number {
    let size = OP_FIXED_BYTES
    if (!this.omitted.has('memory')) size += memoryWords * WORD_BYTES
    if (!this.omitted.has('stack')) size += stackItems * WORD_BYTES
    if (!this.omitted.has('storage')) size += slots * 2 * WORD_BYTES
    return size
  }

  protected readonly onStep = (step: InterpreterStep): void => {
    const frame = this.frames[this.frames.length - 1]
    if (frame === undefined) return
    if (frame.pending !== undefined) {
      // SLOAD pushed the value it read; SSTORE wrote the value it popped (RSKj reads it back at the next op).
      const value = frame.pending.written ?? step.stack[step.stack.length - 1] ?? 0n
      frame.storage = { ...frame.storage }
      const had = Object.hasOwn(frame.storage, frame.pending.key)
      if (value === 0n) delete frame.storage[frame.pending.key]
      else frame.storage[frame.pending.key] = hexWord(value)
      frame.slots += (value === 0n ? 0 : 1) - (had ? 1 : 0)
      delete frame.pending
    }
    // Before anything is kept: a trace whose reply would pass the limit stops here (RSKj `rpc.maxResponseSize`).
    this.budget.spend(this.opSize(Math.ceil(step.memory.length / 32), step.stack.length, frame.slots))
    const memory: Uint8Array[] = []
    for (let i = 0; i < step.memory.length; i += 32) memory.push(step.memory.subarray(i, Math.min(i + 32, step.memory.length)))
    const top = step.stack[step.stack.length - 1]
    const gasCost = step.opcode.dynamicFee ?? BigInt(step.opcode.fee)
    this.ops.push({
      op: rskOpName(step.opcode.code, step.opcode.name),
      depth: step.depth,
      pc: step.pc,
      gas: step.gasLeft,
      gasCost,
      memory,
      stack: step.stack.map(word),
      storage: frame.storage,
    })
    frame.last = { op: step.opcode.name, opCode: step.opcode.code, opGas: gasCost, gasLeft: step.gasLeft, stackTop: top }
    if ((step.opcode.code === 0x54 || step.opcode.code === 0x55) && top !== undefined) {
      frame.pending = { key: hexWord(top), ...(step.opcode.code === 0x55 ? { written: step.stack[step.stack.length - 2] ?? 0n } : {}) }
    }
  }

  protected readonly onBeforeMessage = (message: Message): void => {
    const caller = this.frames[this.frames.length - 1]
    const call = this.ops[this.ops.length - 1]
    const op = caller?.last?.opCode
    if (message.depth > 0 && caller?.last !== undefined && call !== undefined && op !== undefined && CALL_OPS.has(op)) {
      // The step charged the stipend already (when value moves); the message's limit includes it too.
      const stipend = (op === 0xf1 || op === 0xf2) && message.value !== 0n ? STIPEND_CALL : 0n
      call.gasCost = call.gasCost - stipend + message.gasLimit
      caller.last = { ...caller.last, opGas: call.gasCost }
    }
    const frame: Frame = { storage: {}, slots: 0 }
    this.frames.push(frame)
    if (message.depth === 0) {
      this.topFrame = frame
      if (message.to !== undefined) this.contractAddress = message.to.bytes
    }
  }

  protected readonly onAfterMessage = (result: EVMResult): void => {
    this.frames.pop()
    if (this.frames.length === 0 && result.createdAddress !== undefined) this.contractAddress = result.createdAddress.bytes
  }


  /** The trace of the transaction that ran while attached (RSKj `TransactionExecutor.extractTrace`). */
  finish(result: Pick<RunTxResult, 'execResult'>): StructTrace {
    const r = result.execResult
    const err = r.exceptionError
    const reverted = err?.error === 'revert'
    return {
      contractAddress: this.contractAddress,
      structLogs: this.ops,
      result: r.returnValue.slice(),
      ...(err !== undefined && !reverted ? { failure: toVmFailure(err.error, { ...this.topFrame?.last, txHash: this.txHash }) } : {}),
      reverted,
      currentStorage: this.topFrame?.storage ?? {},
    }
  }
}
