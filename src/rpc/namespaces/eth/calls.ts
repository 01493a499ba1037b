/** eth_call and eth_estimateGas (reference §5.1, §5.2; spec "Errors"). */
import { optional } from '../../codecs/primitives.js'
import { blockId, blockRef, LATEST, type BlockSelector } from '../../codecs/block.js'
import { callObject, stateOverrides, type CallObject } from '../../codecs/objects.js'
import { invalidParams, revertError } from '../../../errors.js'
import { method, type MethodTable } from '../../method.js'
import { data, quantity } from '../../format/hex.js'
import { readBlock } from '../../resolve.js'
import { execute, type CallRequest } from '../../../node/exec/call.js'
import { estimateGas } from '../../../node/exec/estimate.js'
import type { RskNode } from '../../../node/node.js'
import type { BlockRecord } from '../../../node/chain/types.js'

/**
 * The block a call runs at (eth_call, eth_estimateGas, debug_traceCall): a number above the head answers -32602
 * `Invalid block number <n>` (reference §1.4), `pending` the pending block.
 */
export function execBlock(node: RskNode, sel: BlockSelector): BlockRecord | Promise<BlockRecord> {
  if (sel.kind === 'number' && sel.number > node.chain.store.headNumber) throw invalidParams(`Invalid block number ${sel.number}`)
  if (sel.kind === 'tag' && (sel.tag === 'safe' || sel.tag === 'finalized')) {
    throw invalidParams(
      `Unsupported block specifier '${sel.tag}'. Can only be either 'earliest', 'latest', 'pending' or a specific block number (either hex - prepending '0x' or decimal).`,
    )
  }
  return readBlock(node, sel)
}

/** A call object's fields as the executor takes them. */
export const toRequest = (c: CallObject): CallRequest => {
  const r: CallRequest = {}
  if (c.from !== undefined) r.from = c.from
  if (c.to !== undefined) r.to = c.to
  if (c.gas !== undefined) r.gas = c.gas
  if (c.gasPrice !== undefined) r.gasPrice = c.gasPrice
  if (c.value !== undefined) r.value = c.value
  if (c.data !== undefined) r.data = c.data
  return r
}

export const ethCallMethods: MethodTable = {
  /** Only REVERT is an error; other failures answer their (usually empty) return data, as RSKj. */
  eth_call: method([callObject, optional(blockRef), optional(stateOverrides)], async ({ node }, call, sel, overrides) => {
    const block = await execBlock(node, sel ?? LATEST)
    const cap = node.options.callGasCap
    const gas = call.gas === undefined || call.gas > cap ? cap : call.gas
    const outcome = await execute(node.chain, block, toRequest(call), gas, overrides)
    node.reportCallConsole(true)
    if (outcome.error === 'revert') throw revertError(outcome.returnValue)
    return data(outcome.returnValue)
  }),

  /**
   * Upper bound: without a gas limit, the pending block's gas limit (spec "Transaction call object"); with one, that
   * limit capped at `gasEstimationCap` (RSKj `rpc.gasEstimationCap`, reference §5.2), so no estimate simulates more.
   */
  eth_estimateGas: method([callObject, optional(blockId)], async ({ node }, call, sel) => {
    const block = await execBlock(node, sel ?? LATEST)
    const cap = node.options.gasEstimationCap
    const req = toRequest(call)
    if (req.gas !== undefined && req.gas > cap) req.gas = cap
    try {
      return quantity(await estimateGas(node.chain, block, req, node.options.blockGasLimit))
    } finally {
      node.reportCallConsole(false)
    }
  }),
}
