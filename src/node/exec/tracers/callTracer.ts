/**
 * Records a transaction's call tree from the EVM's `beforeMessage`/`afterMessage`/`step` events, with the frames
 * RSKj's `Program` records as `ProgramSubtrace`s (`org/ethereum/vm/program/Program.java`): every CALL-family
 * frame (also to accounts without code), successful creates only, and a `suicide` entry at each SELFDESTRUCT.
 * Precompile calls leave no frame, as in RSKj (`callToPrecompiledAddress` adds no subtrace).
 * The same tree feeds trace_* (Parity shape) and debug_* with `tracer: "callTracer"`.
 */
import { EvmRecorder } from './recorder.js'
import type { EVMResult, InterpreterStep, Log, Message } from '@ethereumjs/evm'
import type { RunTxResult } from '@ethereumjs/vm'
import { bigIntToBytes, setLengthLeft } from '@ethereumjs/util'
import { toVmFailure, type FaultContext } from './errors.js'
import type { CallFrame, CallKind, IndexedLog } from './types.js'

interface OpenFrame {
  frame: CallFrame
  message: Message
  parent?: CallFrame
  sawStep: boolean
  last?: Omit<FaultContext, 'txHash'>
}

const CALL_KINDS = new Set(['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL'])

/** Attach to an EVM for one transaction, then `finish` with the transaction's result. */
export class CallRecorder extends EvmRecorder {
  private readonly open: OpenFrame[] = []
  /** Last opcode seen at each depth: the opcode that opens a frame at depth + 1. */
  private readonly lastOp: string[] = []
  private readonly rawLogsOf = new Map<CallFrame, Log[]>()
  private top?: OpenFrame

  constructor(private readonly txHash: string) {
    super()
  }

  protected readonly onStep = (step: InterpreterStep): void => {
    this.lastOp[step.depth] = step.opcode.name
    const current = this.open[this.open.length - 1]
    if (current === undefined) return
    current.sawStep = true
    const stackTop = step.stack[step.stack.length - 1]
    current.last = { op: step.opcode.name, opCode: step.opcode.code, opGas: step.opcode.dynamicFee ?? BigInt(step.opcode.fee), gasLeft: step.gasLeft, stackTop }
    if (step.opcode.code === 0xff && stackTop !== undefined) {
      // SELFDESTRUCT: RSKj adds a suicide subtrace (SuicideInvoke: contract, beneficiary, balance moved).
      current.frame.calls.push({
        type: 'suicide',
        from: step.address.bytes,
        to: setLengthLeft(bigIntToBytes(stackTop), 32).subarray(12),
        value: step.account.balance,
        gas: 0n,
        gasUsed: 0n,
        input: new Uint8Array(),
        output: new Uint8Array(),
        reverted: false,
        logs: [],
        calls: [],
      })
    }
  }

  protected readonly onBeforeMessage = (message: Message): void => {
    const parent = this.open[this.open.length - 1]
    const opener = message.depth === 0 ? (message.to === undefined ? 'CREATE' : 'CALL') : (this.lastOp[message.depth - 1] ?? 'CALL')
    const isCreate = message.to === undefined
    const delegate = opener === 'DELEGATECALL'
    const frame: CallFrame = {
      type: isCreate ? 'create' : 'call',
      ...(isCreate ? {} : { callType: (CALL_KINDS.has(opener) ? opener : 'CALL') as CallKind }),
      ...(isCreate && message.depth > 0 ? { creationMethod: opener === 'CREATE2' ? 'create2' : 'create' } : {}),
      // RSKj `TraceTransformer.toAction`: DELEGATECALL shows the delegating contract as `from`, the code as `to`.
      from: delegate && message.to !== undefined ? message.to.bytes : message.caller.bytes,
      ...(isCreate ? {} : { to: delegate ? message.codeAddress.bytes : message.to!.bytes }),
      value: message.value,
      gas: message.gasLimit,
      gasUsed: 0n,
      // Copies: the engine hands out views of memory that later opcodes overwrite.
      input: message.data.slice(),
      output: new Uint8Array(),
      reverted: false,
      logs: [],
      calls: [],
    }
    parent?.frame.calls.push(frame)
    const open: OpenFrame = { frame, message, sawStep: false, ...(parent ? { parent: parent.frame } : {}) }
    this.open.push(open)
    if (message.depth === 0) this.top = open
  }

  protected readonly onAfterMessage = (result: EVMResult): void => {
    const open = this.open.pop()
    if (open === undefined) return
    const { frame, message, parent } = open
    const r = result.execResult
    const err = r.exceptionError
    frame.gasUsed = r.executionGasUsed
    frame.output = r.returnValue.slice()
    if (result.createdAddress !== undefined && frame.type === 'create') frame.created = result.createdAddress.bytes
    if (err?.error === 'revert') frame.reverted = true
    else if (err !== undefined) frame.failure = toVmFailure(err.error, { ...open.last, txHash: this.txHash })
    this.rawLogsOf.set(frame, err === undefined ? (r.logs ?? []) : [])
    // Precompile frames and failed creates are not subtraces in RSKj (`Program.callToPrecompiledAddress`,
    // `Program.getProgramResult` adds a create subtrace only on success).
    const drop = parent !== undefined && (message.isCompiled || (frame.type === 'create' && err !== undefined))
    if (drop) parent.calls.splice(parent.calls.indexOf(frame), 1)
  }


  /**
   * Completes the tree as RSKj's `TraceTransformer` shows the top frame: gasUsed is the transaction's (receipt)
   * gasUsed; gas is the transaction's gas limit (`ProgramInvokeFactoryImpl`), or 0 when no code ran
   * (`TransactionExecutor.extractTrace` builds a `TransferInvoke` with gas 0). Logs get block-wide indexes.
   */
  finish(result: Pick<RunTxResult, 'totalGasSpent' | 'execResult'>, logOffset: number, txGasLimit: bigint): CallFrame {
    const top = this.top
    if (top === undefined) throw new Error('no message was recorded for the transaction')
    top.frame.gasUsed = result.totalGasSpent
    top.frame.gas = !top.sawStep && top.frame.type === 'call' ? 0n : txGasLimit
    const txLogs = result.execResult.logs ?? []
    const position = new Map<Log, number>(txLogs.map((l, i) => [l, i]))
    const index = (l: Log): IndexedLog => ({ address: l[0], topics: l[1], data: l[2], index: logOffset + (position.get(l) ?? 0) })
    const visit = (f: CallFrame): void => {
      f.logs = (this.rawLogsOf.get(f) ?? []).filter((l) => position.has(l)).map(index)
      f.calls.forEach(visit)
    }
    visit(top.frame)
    return top.frame
  }
}
