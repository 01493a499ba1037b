/**
 * Tracing entry points used by the debug_* and trace_* handlers: replay a block (src/node/exec/replay.ts) with
 * a call-tree or a struct-log recorder on the traced transactions.
 */
import type { Chain } from '../../chain/chain.js'
import type { BlockRecord } from '../../chain/types.js'
import { replayBlock, type ReplayedTx, type TxListener } from '../replay.js'
import { settleAround, type EvmListener } from '../listen.js'
import type { ExecResult } from '@ethereumjs/evm'
import { execute, type CallRequest, type StateOverrides } from '../call.js'
import { LocalCallGasTooLow } from '../../errors.js'
import { CallRecorder } from './callTracer.js'
import { StructRecorder } from './structTracer.js'
import { remascCallTrace } from './remascTrace.js'
import type { CallFrame, StructTrace, TxCallTrace } from './types.js'
import { SizeBudget } from './sizeBudget.js'
import { PrestateRecorder, type PrestateOptions, type PrestateTrace } from './prestateTracer.js'
import { stateDiff, type StateDiff } from './stateDiff.js'
import { processMinersFees, remascAccesses, remascContext, type RemascConfig } from '../../rsk/remasc/remasc.js'
import { REMASC, REMASC_ADDRESS_HEX } from '../../rsk/remasc/remascTx.js'

export { ResponseTooLarge } from './sizeBudget.js'
export type { Prestate, PrestateAccount, PrestateOptions, PrestateTrace } from './prestateTracer.js'
export type { AccountDiff, Delta, StateDiff } from './stateDiff.js'
export type { CallFrame, CallKind, IndexedLog, StructOp, StructTrace, TxCallTrace, VmFailure } from './types.js'

/**
 * Call trees of the transactions of `block` selected by `only` (default: all), in block order. One replay
 * serves the whole block.
 */
export async function traceCalls(chain: Chain, block: BlockRecord, only?: (index: number) => boolean): Promise<TxCallTrace[]> {
  const recorders = new Map<number, CallRecorder>()
  const { wanted, remascAt } = select(block, only)
  const last = wanted.lastIndexOf(true)
  if (last < 0) return remascAt >= 0 ? [remascCallTrace(block, remascAt)] : []
  const replayed = await replayBlock(chain, block, (i) => (wanted[i] ? callRecorder(block, i, recorders) : undefined), last)
  return callTraces(block, replayed, recorders, remascAt)
}

/** The transactions of a block a trace replays, and its REMASC system transaction. */
interface Selection {
  /** By index: whether the transaction is replayed. Never the REMASC transaction's: its trace is made otherwise. */
  wanted: boolean[]
  /** The index of the block's REMASC system transaction (its last), -1 when it has none. */
  system: number
  /** `system` when it is selected, else -1. */
  remascAt: number
}

/** The transactions of `block` `only` selects (default: all), by index, the REMASC system transaction apart. */
function select(block: BlockRecord, only: ((index: number) => boolean) | undefined): Selection {
  const wanted = block.transactions.map((_, i) => only === undefined || only(i))
  const system = block.transactions.at(-1)?.system === 'remasc' ? block.transactions.length - 1 : -1
  const remascAt = system >= 0 && wanted[system] === true ? system : -1
  // The REMASC system transaction is not replayed: its call trace comes from its receipt (remascTrace.ts), its
  // prestate from running REMASC again (traceSettled).
  if (system >= 0) wanted[system] = false
  return { wanted, system, remascAt }
}

/** `r`, kept in `recorders` as transaction `i`'s. */
function kept<R>(recorders: Map<number, R>, i: number, r: R): R {
  recorders.set(i, r)
  return r
}

/** A call-tree recorder for transaction `i` of `block`, kept in `recorders`. */
function callRecorder(block: BlockRecord, i: number, recorders: Map<number, CallRecorder>): CallRecorder {
  return kept(recorders, i, new CallRecorder(block.transactions[i]!.hashHex))
}

/** The call trees `recorders` took of the `replayed` transactions, then the REMASC transaction's (index `remasc`, -1: none). */
function callTraces(block: BlockRecord, replayed: ReplayedTx[], recorders: Map<number, CallRecorder>, remasc: number): TxCallTrace[] {
  const traces = replayed.map(({ index, result, logOffset, tx }): TxCallTrace => {
    const top = recorders.get(index)!.finish(result, logOffset, tx.tx.gasLimit)
    // A failed top-level creation still names the address it would have used (RSKj uses the receipt's).
    const contractAddress = block.receipts[index]?.contractAddress
    if (top.type === 'create' && top.created === undefined && contractAddress) top.created = contractAddress
    return { txHashHex: tx.hashHex, blockHashHex: block.hashHex, blockNumber: block.number, index, top }
  })
  if (remasc >= 0) traces.push(remascCallTrace(block, remasc))
  return traces
}

/** What a struct-log trace may cost: the reply's size limit in bytes (0 = none) and the parts it leaves out. */
export interface StructTraceLimits {
  maxBytes: number
  omitted?: ReadonlySet<'memory' | 'stack' | 'storage'>
}

/**
 * Struct-log traces (RSKj `rskTracer`) of transaction `index` of `block`, or of all its transactions. Throws
 * `ResponseTooLarge` as soon as the traces would pass `limits.maxBytes` (one budget for the whole block).
 */
export async function traceStructLogs(
  chain: Chain,
  block: BlockRecord,
  index?: number,
  limits: StructTraceLimits = { maxBytes: 0 },
): Promise<StructTrace[]> {
  const recorders = new Map<number, StructRecorder>()
  const budget = new SizeBudget(limits.maxBytes)
  const replayed = await replayBlock(
    chain,
    block,
    (i) => (index !== undefined && i !== index ? undefined : kept(recorders, i, new StructRecorder(block.transactions[i]!.hashHex, budget, limits.omitted))),
    index,
  )
  return replayed.map(({ index: i, result, tx }) => {
    const trace = recorders.get(i)!.finish(result)
    // A creation names the new contract even when it failed (RSKj's program owner is the receipt's address).
    const contractAddress = block.receipts[i]?.contractAddress
    if (tx.tx.to === undefined && contractAddress) trace.contractAddress = contractAddress
    return trace
  })
}

/** What a traced call names as its transaction in failure messages (RSKj's `tx[…]`): there is none. */
const NO_TX = '0x' + '00'.repeat(32)

/** A call to trace (`debug_traceCall`): run as `eth_call` runs it (exec/call.ts `execute`), at `block`, never kept. */
export interface TracedCall {
  block: BlockRecord
  req: CallRequest
  gasLimit: bigint
  overrides?: StateOverrides
}

/** Runs `call` with `recorder` attached; throws when nothing ran (the gas below the intrinsic: nothing to trace). */
async function runTraced(chain: Chain, call: TracedCall, recorder: CallRecorder | StructRecorder | PrestateRecorder): Promise<{ gasUsed: bigint; execResult: ExecResult }> {
  const { gasUsed, execResult } = await execute(chain, call.block, call.req, call.gasLimit, call.overrides, recorder)
  if (execResult === undefined) throw new LocalCallGasTooLow(call.gasLimit, gasUsed, 'trace')
  return { gasUsed, execResult }
}

/** The call tree of a call (`debug_traceCall` with `callTracer`), its top frame as a transaction's with the call's gas. */
export async function traceCallFrames(chain: Chain, call: TracedCall): Promise<CallFrame> {
  const recorder = new CallRecorder(NO_TX)
  const outcome = await runTraced(chain, call, recorder)
  return recorder.finish({ totalGasSpent: outcome.gasUsed, execResult: outcome.execResult }, 0, call.gasLimit)
}

/** The struct-log trace (`rskTracer`) of a call, within `limits` as a transaction's. */
export async function traceCallStructLogs(chain: Chain, call: TracedCall, limits: StructTraceLimits = { maxBytes: 0 }): Promise<StructTrace> {
  const recorder = new StructRecorder(NO_TX, new SizeBudget(limits.maxBytes), limits.omitted)
  const outcome = await runTraced(chain, call, recorder)
  return recorder.finish({ execResult: outcome.execResult })
}

/** What a prestate trace may cost (the reply's size limit in bytes, 0 = none) and its options. */
export interface PrestateLimits extends PrestateOptions {
  maxBytes: number
}

/** A transaction's prestate trace, with the transaction it describes. */
export interface TxPrestate {
  txHashHex: string
  trace: PrestateTrace
}

/**
 * Prestate traces (geth's `prestateTracer`) of the transactions of `block` selected by `only` (default: all), in block
 * order, within one size budget. `remasc`: the network's REMASC constants, to trace the REMASC system transaction (the
 * block's last) by running `processMinersFees` again on the state the block's other transactions left.
 */
export async function tracePrestate(chain: Chain, block: BlockRecord, limits: PrestateLimits, only?: (index: number) => boolean, remasc?: RemascConfig): Promise<TxPrestate[]> {
  return (await traceSettled(chain, block, limits, (r) => r.finish(), select(block, only), remasc)).traces
}

/** A transaction's state diff (OpenEthereum's `stateDiff`, stateDiff.ts), with the transaction it describes. */
export interface TxStateDiff {
  txHashHex: string
  trace: StateDiff
}

/**
 * Call trees (as `traceCalls` gives them) and state diffs of the transactions of `block` selected by `only` (default:
 * all), in block order, from one replay: trace_replayBlockTransactions and trace_replayTransaction with `stateDiff`.
 * The state diffs are read as `tracePrestate` reads the state, within `maxBytes` (0 = no limit), the REMASC system
 * transaction's included when `remasc` is given.
 */
export async function traceCallsAndStateDiffs(
  chain: Chain,
  block: BlockRecord,
  maxBytes: number,
  only?: (index: number) => boolean,
  remasc?: RemascConfig,
): Promise<{ calls: TxCallTrace[]; diffs: TxStateDiff[] }> {
  const limits = { maxBytes, diffMode: false, disableCode: false, disableStorage: false }
  const recorders = new Map<number, CallRecorder>()
  const selection = select(block, only)
  const { traces, replayed } = await traceSettled(chain, block, limits, readStateDiff, selection, remasc, (i) => callRecorder(block, i, recorders))
  const calls = callTraces(block, replayed, recorders, selection.remascAt)
  return { calls, diffs: traces }
}

/** A transaction's state diff from what its prestate recorder read before and after it. */
function readStateDiff(r: PrestateRecorder): StateDiff {
  const { before, after } = r.snapshots()
  return stateDiff(before, after)
}

/**
 * The prestate recorder's replay of the transactions `selection` names in `block` (tracePrestate's,
 * traceCallsAndStateDiffs'), each recorder read by `read`; `alongside(i)`, when given, listens to transaction i's run
 * with the recorder (the same run: one replay for both).
 */
async function traceSettled<T>(
  chain: Chain,
  block: BlockRecord,
  limits: PrestateLimits,
  read: (r: PrestateRecorder) => T,
  { wanted, system, remascAt }: Selection,
  remasc?: RemascConfig,
  alongside?: (index: number) => EvmListener,
): Promise<{ traces: { txHashHex: string; trace: T }[]; replayed: ReplayedTx[] }> {
  const budget = new SizeBudget(limits.maxBytes)
  const recorders = new Map<number, PrestateRecorder>()
  const traceRemasc = remascAt >= 0 && remasc !== undefined
  // Fees go to REMASC in a block that has its transaction (chain/runBlockTx.ts), else to the coinbase.
  const feeReceiver = system >= 0 ? REMASC.bytes : block.header.coinbase
  let remascTrace: { txHashHex: string; trace: T } | undefined
  const replayed = await replayBlock(
    chain,
    block,
    (i) => {
      if (!wanted[i]) return undefined
      const { tx, from } = block.transactions[i]!
      const always = [from, feeReceiver, ...(tx.to === undefined ? [] : [tx.to.bytes])]
      const r = kept(recorders, i, new PrestateRecorder(always, limits, budget))
      return alongside === undefined ? r : paired(r, alongside(i))
    },
    traceRemasc ? remascAt : wanted.lastIndexOf(true),
    traceRemasc
      ? async (state, gasUsed) => {
          const ctx = remascContext(chain, state, remasc!, block.header.minimumGasPrice, block.number, gasUsed)
          const r = new PrestateRecorder([], limits, budget)
          const touched = await remascAccesses(ctx)
          for (const a of touched.accounts) r.touch(a.toString())
          for (const w of touched.words) r.touch(REMASC_ADDRESS_HEX, w)
          await settleAround(state, state, r, () => processMinersFees(ctx))
          remascTrace = { txHashHex: block.transactions[remascAt]!.hashHex, trace: read(r) }
        }
      : undefined,
  )
  const traces = replayed.map(({ index, tx }) => ({ txHashHex: tx.hashHex, trace: read(recorders.get(index)!) }))
  if (remascTrace !== undefined) traces.push(remascTrace)
  return { traces, replayed }
}

/** `recorder` with `other` attached and detached beside it; the state is read by `recorder` alone. */
function paired(recorder: PrestateRecorder, other: EvmListener): TxListener {
  return {
    attach: (evm) => {
      recorder.attach(evm)
      other.attach(evm)
    },
    detach: (evm) => {
      recorder.detach(evm)
      other.detach(evm)
    },
    settle: (state, when) => recorder.settle(state, when),
  }
}

/** The prestate trace of a call (`debug_traceCall` with `prestateTracer`): the caller and the callee always touched. */
export async function tracePrestateCall(chain: Chain, call: TracedCall, limits: PrestateLimits): Promise<PrestateTrace> {
  const recorder = new PrestateRecorder([call.req.from ?? new Uint8Array(20), ...(call.req.to === undefined ? [] : [call.req.to])], limits, new SizeBudget(limits.maxBytes))
  await runTraced(chain, call, recorder)
  return recorder.finish()
}
