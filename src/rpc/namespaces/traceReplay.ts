/**
 * `trace_replayBlockTransactions(block, traceTypes)` (Anvil, Erigon, Nethermind) and `trace_replayTransaction(hash,
 * traceTypes)` (Erigon, Nethermind): a block's or one transaction's execution replayed, answered as OpenEthereum
 * answers it: `{ output, stateDiff, trace, vmTrace, transactionHash }` for each transaction of the block (the REMASC
 * system transaction last), `transactionHash` left out for one transaction. RSKj has neither (-32601 `method not
 * found`): extensions, answered in the default mode only (src/rpc/methods.ts EXTENSION_TABLES).
 *
 * - `trace`: the transaction's call traces as trace_block gives them (RSKj's fields), without the block and
 *   transaction fields a replay leaves out (Anvil's shape); `[]` when not asked.
 * - `stateDiff`: what it changed (src/node/exec/tracers/stateDiff.ts); `null` when not asked.
 * - `vmTrace`: refused (-32602): rsksim does not build OpenEthereum's VM trace; debug_traceTransaction gives the steps.
 * - `output`: the top call's return data, or a creation's deployed code, whether asked or not.
 *
 * An unknown block answers `[]` as Anvil does, an unknown transaction `null` as trace_transaction does. `pending` is
 * the pending block trace_block("pending") traces, replayed from the state it was built on, so its entries are those
 * of the block then mined (docs/extensions.md "`pending` in the extensions"). On a fork, the remote's blocks and
 * transactions are asked of the remote (src/rpc/forkRoute.ts).
 */
import { bytesToHex } from '@ethereumjs/util'
import { invalidParams } from '../../errors.js'
import { show, txHash, type Codec } from '../codecs/primitives.js'
import { hexBlockId } from '../codecs/block.js'
import { method, type MethodTable } from '../method.js'
import { data } from '../format/hex.js'
import { formatParityTraces } from '../format/trace.js'
import { formatStateDiff } from '../format/stateDiff.js'
import { blockOrPending } from '../resolve.js'
import type { RskNode } from '../../node/node.js'
import type { BlockRecord } from '../../node/chain/types.js'
import { traceCalls, traceCallsAndStateDiffs, type StateDiff, type TxCallTrace } from '../../node/exec/tracers/index.js'

interface TraceTypes {
  trace: boolean
  stateDiff: boolean
}

const TYPES = ['trace', 'stateDiff', 'vmTrace']

const traceTypes: Codec<TraceTypes> = (v) => {
  if (!Array.isArray(v)) throw invalidParams(`Invalid trace types ${show(v)}: expected an array of 'trace', 'stateDiff' or 'vmTrace'.`)
  for (const t of v) {
    if (typeof t !== 'string' || !TYPES.includes(t)) throw invalidParams(`Invalid trace type ${show(t)}: expected 'trace', 'stateDiff' or 'vmTrace'.`)
  }
  if (v.includes('vmTrace')) throw invalidParams("vmTrace is not supported: rsksim does not build OpenEthereum's VM trace; debug_traceTransaction gives each step of the EVM")
  return { trace: v.includes('trace'), stateDiff: v.includes('stateDiff') }
}

/** The replays of `block`'s transactions selected by `only` (default: all), in block order. */
async function replays(node: RskNode, block: BlockRecord, types: TraceTypes, only?: (i: number) => boolean): Promise<Record<string, unknown>[]> {
  // With `stateDiff`, one replay gives both the call trees and the state diffs.
  let calls: TxCallTrace[]
  let diffs: Map<string, StateDiff> | undefined
  if (!types.stateDiff) calls = await traceCalls(node.chain, block, only)
  else {
    const both = await traceCallsAndStateDiffs(node.chain, block, node.options.maxResponseSize, only, node.remasc)
    calls = both.calls
    diffs = new Map(both.diffs.map((d) => [d.txHashHex, d.trace]))
  }
  return calls.map((c) => ({
    output: data(c.top.output),
    stateDiff: diffs === undefined ? null : formatStateDiff(diffs.get(c.txHashHex) ?? new Map()),
    trace: types.trace ? formatParityTraces(c).map(({ type, action, error, result, subtraces, traceAddress }) => ({ type, action, ...(error === undefined ? {} : { error }), result, subtraces, traceAddress })) : [],
    vmTrace: null,
    transactionHash: c.txHashHex,
  }))
}

export const traceReplayMethods: MethodTable = {
  trace_replayBlockTransactions: method([hexBlockId, traceTypes], async ({ node, method: name }, sel, types) => {
    const block = await blockOrPending(node, sel, name)
    return block === undefined || block.number === 0n ? [] : replays(node, block, types)
  }),

  trace_replayTransaction: method([txHash, traceTypes], async ({ node }, hash, types) => {
    const loc = node.chain.store.getTx(bytesToHex(hash))
    if (loc === undefined) return null
    const [one] = await replays(node, loc.block, types, (i) => i === loc.index)
    if (one === undefined) return null
    const { transactionHash: _, ...rest } = one
    return rest
  }),
}
