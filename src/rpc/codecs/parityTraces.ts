/**
 * Decodes a remote's trace_transaction answer (Parity-style flat traces, RSKj
 * `co/rsk/rpc/modules/trace/TraceTransformer.java`, reference §3.7) back into the call tree rsksim's own tracer
 * records (`CallFrame`), so a fork formats a remote transaction with the formatters it uses for its own
 * (src/rpc/format/ots.ts). Pure.
 *
 * What the traces do not carry is left for the caller to fill: a frame that failed has `result: null`, so its
 * `output` is empty here (`outputKnown` false); gas, logs and failure texts are not read (the ots shapes show none).
 */
import { hexToBytes } from '@ethereumjs/util'
import type { CallFrame, CallKind } from '../../node/exec/tracers/index.js'

/** A decoded frame, with whether the trace gave its output (`result` not null) and whether it reverted. */
export interface RemoteFrame extends CallFrame {
  calls: RemoteFrame[]
  /** The trace's `result` was present: `output` is the frame's return data (a creation's: its code). */
  outputKnown: boolean
}

const CALL_KINDS: Record<string, CallKind> = { call: 'CALL', callcode: 'CALLCODE', delegatecall: 'DELEGATECALL', staticcall: 'STATICCALL' }

const bytes = (v: unknown, what: string): Uint8Array => {
  if (typeof v !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(v)) throw new Error(`the remote's trace_transaction gave ${what} ${JSON.stringify(v)}, not hex data`)
  return hexToBytes(v as `0x${string}`)
}
const big = (v: unknown, what: string): bigint => {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]+$/.test(v)) throw new Error(`the remote's trace_transaction gave ${what} ${JSON.stringify(v)}, not a quantity`)
  return BigInt(v)
}

interface ParityJson {
  type?: unknown
  action?: Record<string, unknown>
  result?: Record<string, unknown> | null
  error?: unknown
  traceAddress?: unknown
}

function frameOf(t: ParityJson): RemoteFrame {
  const a = t.action ?? {}
  const r = t.result ?? null
  const common = { gas: 0n, gasUsed: 0n, logs: [], calls: [], reverted: t.error === 'Reverted', outputKnown: r !== null }
  if (t.type === 'suicide') {
    // RSKj `TraceTransformer.toAction`: the destroyed contract is `address`, the beneficiary `refundAddress`.
    return { ...common, type: 'suicide', from: bytes(a.address, 'address'), to: bytes(a.refundAddress, 'refundAddress'), value: big(a.balance, 'balance'), input: new Uint8Array(), output: new Uint8Array() }
  }
  if (t.type === 'create') {
    const method = a.creationMethod === 'create' || a.creationMethod === 'create2' ? { creationMethod: a.creationMethod as 'create' | 'create2' } : {}
    return {
      ...common,
      ...method,
      type: 'create',
      from: bytes(a.from, 'from'),
      value: big(a.value, 'value'),
      input: bytes(a.init, 'init'),
      output: r === null ? new Uint8Array() : bytes(r.code, 'code'),
      ...(r === null ? {} : { created: bytes(r.address, 'address') }),
    }
  }
  const callType = CALL_KINDS[String(a.callType)]
  if (t.type !== 'call' || callType === undefined) throw new Error(`the remote's trace_transaction gave a trace of type ${JSON.stringify(t.type)} (${JSON.stringify(a.callType)})`)
  return {
    ...common,
    type: 'call',
    callType,
    from: bytes(a.from, 'from'),
    to: bytes(a.to, 'to'),
    value: big(a.value, 'value'),
    input: bytes(a.input, 'input'),
    output: r === null ? new Uint8Array() : bytes(r.output, 'output'),
  }
}

/**
 * The call tree of one transaction from its flat traces (depth first, each with its `traceAddress`), or undefined
 * when the answer holds none (an unknown transaction: `null`).
 */
export function remoteCallTree(traces: unknown): RemoteFrame | undefined {
  if (!Array.isArray(traces) || traces.length === 0) return undefined
  const open: RemoteFrame[] = []
  let top: RemoteFrame | undefined
  for (const t of traces as ParityJson[]) {
    const depth = Array.isArray(t.traceAddress) ? t.traceAddress.length : -1
    if (depth < 0 || depth > open.length || (depth === 0) !== (top === undefined)) throw new Error(`the remote's trace_transaction gave traces out of depth-first order`)
    const frame = frameOf(t)
    if (depth === 0) top = frame
    else open[depth - 1]!.calls.push(frame)
    open.length = depth
    open.push(frame)
  }
  return top
}

/** Every frame of a tree in the order it began (depth first): the order of trace_transaction and of the callTracer. */
export function framesInOrder<F extends { calls: F[] }>(top: F): F[] {
  const out: F[] = []
  const visit = (f: F): void => {
    out.push(f)
    f.calls.forEach(visit)
  }
  visit(top)
  return out
}
