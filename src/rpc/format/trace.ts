/**
 * JSON shapes of traces. Pure.
 * - Parity-style traces of trace_* (RSKj `co/rsk/rpc/modules/trace/TraceTransformer.java`, reference §3.7).
 * - Geth-like call frames of debug_* `callTracer` (RSKj `debug/trace/call/CallTraceTransformer.java`, §3.10).
 * - Struct logs of debug_* `rskTracer` (RSKj `org/ethereum/vm/trace/DetailedProgramTrace.java`, §3.10).
 * Every DTO of these is `NON_NULL` in RSKj, so absent members are omitted, never null (except Parity `result`).
 */
import { bytesToHex } from '@ethereumjs/util'
import type { CallFrame, IndexedLog, StructTrace, TxCallTrace, VmFailure } from '../../node/exec/tracers/index.js'
import { decodeErrorString } from '../../node/exec/revertReason.js'
import { data, jsonHex, quantity } from './hex.js'

/** RSKj `HexUtils.toQuantityJsonHex(byte[])`: hex digits with leading zeros stripped, empty = `0x0`. */
export function bytesQuantity(b: Uint8Array): string {
  const digits = bytesToHex(b).slice(2).replace(/^0+/, '')
  return digits === '' ? '0x0' : '0x' + digits
}

/** Lowercase hex without `0x`, as RSKj's `ByteUtil.toHexString`. */
const bare = (b: Uint8Array): string => bytesToHex(b).slice(2)

/** RSKj prints the top frame's failure as `ProgramTrace.error` (`"class X: msg"`) and inner ones via the exception. */
const classText = (f: VmFailure): string => `class ${f.javaClass}: ${f.message}`

// ---------------------------------------------------------------------------------------------------------
// trace_* (Parity)

export interface ParityTrace {
  action: Record<string, string>
  blockHash: string
  blockNumber: number
  transactionHash: string
  transactionPosition: number
  type: 'call' | 'create' | 'suicide'
  subtraces: number
  traceAddress: number[]
  result: Record<string, string> | null
  error?: string
}

function parityAction(f: CallFrame): Record<string, string> {
  if (f.type === 'suicide') return { address: data(f.from), refundAddress: data(f.to!), balance: quantity(f.value) }
  if (f.type === 'create') {
    return { from: data(f.from), gas: quantity(f.gas), init: data(f.input), value: quantity(f.value), ...(f.creationMethod ? { creationMethod: f.creationMethod } : {}) }
  }
  return { callType: f.callType!.toLowerCase(), from: data(f.from), to: data(f.to!), gas: quantity(f.gas), input: data(f.input), value: quantity(f.value) }
}

/** All traces of one transaction, depth first, each with its `traceAddress` (RSKj `TraceTransformer.toTraces`). */
export function formatParityTraces(t: TxCallTrace): ParityTrace[] {
  const out: ParityTrace[] = []
  const visit = (f: CallFrame, traceAddress: number[]): void => {
    let result: ParityTrace['result'] = null
    let error: string | undefined
    if (f.type !== 'suicide') {
      // Top frame: `ProgramTrace.getError()` ("class X: msg"); inner frames: `Exception.toString()` ("X: msg").
      if (f.failure) error = traceAddress.length === 0 ? classText(f.failure) : `${f.failure.javaClass}: ${f.failure.message}`
      else if (f.reverted) error = 'Reverted'
      if (error === undefined) {
        result =
          f.type === 'create' && f.created !== undefined
            ? { gasUsed: quantity(f.gasUsed), code: data(f.output), address: data(f.created) }
            : { gasUsed: quantity(f.gasUsed), output: data(f.output) }
      }
    }
    out.push({
      action: parityAction(f),
      blockHash: t.blockHashHex,
      blockNumber: Number(t.blockNumber),
      transactionHash: t.txHashHex,
      transactionPosition: t.index,
      type: f.type,
      subtraces: f.calls.length,
      traceAddress,
      result,
      ...(error !== undefined ? { error } : {}),
    })
    f.calls.forEach((c, i) => visit(c, [...traceAddress, i]))
  }
  visit(t.top, [])
  return out
}

// ---------------------------------------------------------------------------------------------------------
// debug_* callTracer

export interface CallTracerOptions {
  onlyTopCall: boolean
  withLog: boolean
}

export interface CallTracerFrame {
  type: string
  from: string
  to?: string
  value?: string
  gas?: string
  gasUsed?: string
  input?: string
  output?: string
  error?: string
  revertReason?: string
  calls?: CallTracerFrame[]
  logs?: { index: number; address: string; topics: string[]; data: string }[]
}

/** RSKj `LogInfoResult`: `toJsonHex`, so empty data is `0x00`. */
const callTracerLog = (l: IndexedLog) => ({ index: l.index, address: jsonHex(l.address), topics: l.topics.map(jsonHex), data: jsonHex(l.data) })

function callTracerFrame(f: CallFrame, top: boolean, opts: CallTracerOptions): CallTracerFrame {
  if (f.type === 'suicide') {
    // RSKj prints `{"type":"NONE","from":…}` here; rsksim uses geth's SELFDESTRUCT frame (docs/modules/tracing.md).
    return { type: 'SELFDESTRUCT', from: data(f.from), to: data(f.to!), value: quantity(f.value) }
  }
  const out: CallTracerFrame = { type: f.type === 'create' ? 'CREATE' : f.callType!, from: data(f.from) }
  if (f.type === 'call') out.to = data(f.to!)
  out.value = quantity(f.value)
  out.gas = quantity(f.gas)
  out.gasUsed = quantity(f.gasUsed)
  out.input = data(f.input)
  if (f.reverted) {
    out.output = bytesQuantity(f.output)
    out.error = 'execution reverted'
    const reason = decodeErrorString(f.output)
    if (reason !== undefined) out.revertReason = reason
  } else if (f.type === 'create') {
    if (f.created !== undefined) out.output = data(f.created)
  } else out.output = bytesQuantity(f.output)
  if (f.failure) out.error = top ? classText(f.failure) : f.failure.message
  if (!opts.onlyTopCall && f.calls.length > 0) out.calls = f.calls.map((c) => callTracerFrame(c, false, opts))
  if (opts.withLog && f.logs.length > 0) out.logs = f.logs.map(callTracerLog)
  // Key order of RSKj's `TxTraceResult`: revertReason precedes calls and logs; error precedes revertReason.
  return reorder(out)
}

const ORDER = ['type', 'from', 'to', 'value', 'gas', 'gasUsed', 'input', 'output', 'error', 'revertReason', 'calls', 'logs'] as const
function reorder(f: CallTracerFrame): CallTracerFrame {
  const out: Record<string, unknown> = {}
  for (const k of ORDER) if (f[k] !== undefined) out[k] = f[k]
  return out as unknown as CallTracerFrame
}

/** The callTracer result of one transaction. */
export const formatCallTracer = (t: TxCallTrace, opts: CallTracerOptions): CallTracerFrame => formatCallTree(t.top, opts)

/** The callTracer result of a call tree (a transaction's, or a traced call's). */
export const formatCallTree = (top: CallFrame, opts: CallTracerOptions): CallTracerFrame => callTracerFrame(top, true, opts)

// ---------------------------------------------------------------------------------------------------------
// debug_* rskTracer (struct logs)

export type DisabledField = 'memory' | 'stack' | 'storage'

/** RSKj `DetailedProgramTrace` as JSON: no `0x` anywhere; `disabled` fields are left out of every op. */
export function formatStructTrace(t: StructTrace, disabled: ReadonlySet<DisabledField>) {
  return {
    contractAddress: bare(t.contractAddress),
    initStorage: {},
    structLogs: t.structLogs.map((op) => {
      const o: Record<string, unknown> = { op: op.op, depth: op.depth, pc: op.pc, gas: Number(op.gas), gasCost: Number(op.gasCost) }
      if (!disabled.has('memory')) o.memory = op.memory.map(bare)
      if (!disabled.has('stack')) o.stack = op.stack.map(bare)
      if (!disabled.has('storage')) o.storage = { ...op.storage }
      return o
    }),
    result: bare(t.result),
    error: t.failure ? classText(t.failure) : '',
    reverted: t.reverted,
    storageSize: Object.keys(t.currentStorage).length,
    currentStorage: { ...t.currentStorage },
  }
}
