/** eth_call and eth_estimateGas (reference §5.1, §5.2; spec "Errors"). */
import { optional } from '../../codecs/primitives.js'
import { LATEST } from '../../codecs/block.js'
import { callBlockId, callBlockRef, estimateBlockId } from '../../codecs/rskjBlock.js'
import { callGas, callRequest } from '../../codecs/objects.js'
import { callArguments, callArgumentsToByteArray } from '../../codecs/callArgumentsParam.js'
import { accountOverrideParams, accountOverrides, checkOverrides } from '../../codecs/accountOverrideParam.js'
import { revertError } from '../../../errors.js'
import { method, type MethodTable } from '../../method.js'
import { data, quantity } from '../../format/hex.js'
import { callBlock } from '../../resolve.js'
import { execute } from '../../../node/exec/call.js'
import { estimateGas } from '../../../node/exec/estimate.js'

export const ethCallMethods: MethodTable = {
  /**
   * Only REVERT is an error; other failures answer their (usually empty) return data, as RSKj. A bad parameter is
   * answered in RSKj's order: the parameter classes (call object, block, overrides) as the parameters are read, then
   * `Web3Impl.eth_call` reads the overrides' numbers and slots, then the block (`callBlockId`, `ExecutionBlockRetriever`),
   * then `EthModule.call` checks the overrides against it and reads the call object's numbers.
   */
  eth_call: method([callArguments, optional(callBlockRef), optional(accountOverrideParams)], async ({ node }, args, ref, params) => {
    const overrides = params === undefined ? undefined : accountOverrides(params)
    const block = await callBlock(node, ref === undefined ? LATEST : callBlockId(ref))
    if (params !== undefined && overrides !== undefined) checkOverrides(params, overrides)
    const call = callArgumentsToByteArray(args)
    const outcome = await execute(node.chain, block, callRequest(call), callGas(call, node.options.callGasCap), overrides)
    node.reportCallConsole(true)
    if (outcome.error === 'revert') throw revertError(outcome.returnValue)
    return data(outcome.returnValue)
  }),

  /**
   * Upper bound: without a gas limit, the pending block's gas limit (spec "Transaction call object"); with one, that
   * limit capped at `gasEstimationCap` (RSKj `rpc.gasEstimationCap`, reference §5.2), so no estimate simulates more.
   */
  eth_estimateGas: method([callArguments, optional(estimateBlockId)], async ({ node }, args, sel) => {
    const block = await callBlock(node, sel ?? LATEST)
    const call = callArgumentsToByteArray(args)
    const cap = node.options.gasEstimationCap
    const req = callRequest(call)
    if (req.gas !== undefined && req.gas > cap) req.gas = cap
    try {
      return quantity(await estimateGas(node.chain, block, req, node.options.blockGasLimit))
    } finally {
      node.reportCallConsole(false)
    }
  }),
}
