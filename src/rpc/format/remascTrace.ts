/**
 * The REMASC transaction under debug_* `rskTracer`. RSKj runs no program for a precompiled contract, so the trace
 * `ProgramTraceProcessor.getProgramTraceAsJsonNode` prints is the `SummarizedProgramTrace` that
 * `TransactionExecutor.extractTrace` builds (src/node/exec/tracers/remascTrace.ts), serialized by a plain Jackson
 * mapper that reads fields, not getters (`ProgramTraceProcessor.makeObjectMapper`): every field in declaration
 * order, nulls kept, `DataWord` as its `@JsonValue` (64 hex digits, no 0x), `byte[]` as Base64, enums by name,
 * `long`s as numbers. Field lists: `org/ethereum/vm/trace/SummarizedProgramTrace.java`,
 * `org/ethereum/vm/program/invoke/TransferInvoke.java`, `co/rsk/rpc/modules/trace/ProgramSubtrace.java`,
 * `org/ethereum/vm/program/ProgramResult.java` (a payment's result is a fresh `ProgramResult`). Pure.
 */
import { bytesToHex, setLengthLeft, bigIntToBytes } from '@ethereumjs/util'
import type { CallFrame, TxCallTrace } from '../../node/exec/tracers/index.js'

/** `DataWord.toString()`: the 32-byte word as 64 lowercase hex digits. */
const word = (b: Uint8Array): string => bytesToHex(setLengthLeft(b, 32)).slice(2)
const valueWord = (v: bigint): string => word(v === 0n ? new Uint8Array() : bigIntToBytes(v))
/** Jackson's default `byte[]` serialization: Base64. */
const base64 = (b: Uint8Array): string => Buffer.from(b).toString('base64')

/** `TransferInvoke(caller, owner, gas, callValue, msgData)` as its fields. */
const transferInvoke = (f: CallFrame) => ({
  ownerAddress: word(f.to!),
  callerAddress: word(f.from),
  gas: Number(f.gas),
  callValue: valueWord(f.value),
  msgData: base64(f.input),
})

/** A `new ProgramResult()` after nothing happened to it (`RemascFeesPayer.transferPayment`). */
const emptyProgramResult = () => ({
  hReturn: '',
  exception: null,
  revert: false,
  codeChanges: null,
  deleteAccounts: null,
  internalTransactions: null,
  logInfoList: null,
  gasUsed: 0,
  futureRefund: 0,
  deductedRefund: 0,
  callCreateList: null,
  maxGasUsed: 0,
  movedRemainingGasToChild: false,
  callWithValuePerformed: false,
  gasUsedBeforeRefunds: 0,
})

/** `ProgramSubtrace.newCallSubtrace(CallType.CALL, invoke, result, null, [])` of one payment. */
const paymentSubtrace = (f: CallFrame) => ({
  traceType: 'CALL',
  callType: 'CALL',
  creationData: null,
  creationMethod: null,
  invokeData: transferInvoke(f),
  programResult: emptyProgramResult(),
  codeAddress: null,
  subtraces: [],
})

/** The REMASC transaction's `SummarizedProgramTrace` as RSKj's rskTracer prints it (no result, error or revert set). */
export function formatRemascRskTrace(t: TxCallTrace) {
  return {
    programInvoke: null,
    transferInvoke: transferInvoke(t.top),
    subtraces: t.top.calls.map(paymentSubtrace),
    result: null,
    error: null,
    reverted: false,
  }
}
