/**
 * Domain records produced by the tracers: bytes and bigints only. The RPC formatters (`src/rpc/format/trace.ts`)
 * turn them into RSKj's JSON shapes (reference §3.7 trace_*, §3.10 debug_*).
 */
import type { LogRecord } from '../../chain/types.js'

/** The opcode that opened a call frame (RSKj `co/rsk/rpc/modules/trace/CallType.java`). */
export type CallKind = 'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL'

/**
 * A failure other than REVERT, named as RSKj's Java exception would be: `javaClass` is the exception class
 * (e.g. `org.ethereum.vm.program.Program$OutOfGasException`), `message` its message.
 */
export interface VmFailure {
  javaClass: string
  message: string
}

/** A log with its block-wide index (RSKj `LogInfo.getLogIndex`, set by `BlockExecutor`). */
export interface IndexedLog extends LogRecord {
  index: number
}

/**
 * One frame of a transaction's call tree, as RSKj's `ProgramSubtrace` records it:
 * - `call`: `callType` says which opcode; `from`/`to` follow RSKj (DELEGATECALL: from = the delegating
 *   contract, to = the code address).
 * - `create`: `created` is the new address; `creationMethod` is set on internal creates only.
 * - `suicide`: `from` = the destroyed contract, `to` = the refund address, `value` = the balance moved.
 */
export interface CallFrame {
  type: 'call' | 'create' | 'suicide'
  callType?: CallKind
  creationMethod?: 'create' | 'create2'
  from: Uint8Array
  to?: Uint8Array
  value: bigint
  gas: bigint
  gasUsed: bigint
  input: Uint8Array
  /** Return data, revert data, or (creates) the deployed code. */
  output: Uint8Array
  created?: Uint8Array
  reverted: boolean
  failure?: VmFailure
  /** Logs emitted in this frame and its sub-frames (empty when the frame failed). */
  logs: IndexedLog[]
  calls: CallFrame[]
}

/** One transaction's call tree with where it lives. */
export interface TxCallTrace {
  txHashHex: string
  blockHashHex: string
  blockNumber: bigint
  index: number
  top: CallFrame
}

/** One executed opcode, as RSKj's `org/ethereum/vm/trace/Op.java` records it. */
export interface StructOp {
  /** RSKj opcode name (`SHA3`, `SUICIDE`, …); null for an undefined opcode. */
  op: string | null
  depth: number
  pc: number
  gas: bigint
  gasCost: bigint
  /** Memory before the opcode, in 32-byte words. */
  memory: Uint8Array[]
  /** Stack before the opcode, bottom first, each a 32-byte word. */
  stack: Uint8Array[]
  /** Storage of the frame's contract as seen so far: 32-byte slot → 32-byte value, both lowercase hex without 0x. */
  storage: Record<string, string>
}

/** RSKj `DetailedProgramTrace` of one transaction (the default `rskTracer`). */
export interface StructTrace {
  contractAddress: Uint8Array
  structLogs: StructOp[]
  result: Uint8Array
  failure?: VmFailure
  reverted: boolean
  currentStorage: Record<string, string>
}
