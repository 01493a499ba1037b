/**
 * eth_simulateV1 (execution-apis `src/eth/execute.yaml`), an extension: RSKj has no such method (hosted mode: -32601).
 * The execution is src/node/exec/simulate.ts; here the payload is decoded, the base block chosen as eth_call chooses
 * it (`latest` by default, `pending` with the pool's transactions, a number or hash), and each simulated block is
 * answered as `eth_getBlockByNumber` formats a block, plus its `calls`.
 */
import { optional } from '../../codecs/primitives.js'
import { bytesToHex } from '@ethereumjs/util'
import { blockRef, LATEST, type BlockSelector } from '../../codecs/block.js'
import { simulatePayload, CLIENT_LIMIT_EXCEEDED } from '../../codecs/simulate.js'
import { ErrorCode, RpcError } from '../../../errors.js'
import { method, type MethodTable } from '../../method.js'
import { data, quantity } from '../../format/hex.js'
import { formatBlock } from '../../format/block.js'
import { formatLog, markRemoved, type LogJson } from '../../format/log.js'
import { callBlock } from '../../resolve.js'
import { simulate, SimulationRefused, type SimulatedBlock, type SimulationRefusal } from '../../../node/exec/simulate.js'
import { decodeErrorString } from '../../../node/exec/revertReason.js'
import type { RskNode } from '../../../node/node.js'
import type { BlockRecord } from '../../../node/chain/types.js'

/** The spec's codes (execute.yaml `errors`, geth internal/ethapi/errors.go); -32602 where the spec has none (RSK's price cap). */
const REFUSAL_CODES: Record<SimulationRefusal, number> = {
  nonceTooLow: -38010,
  nonceTooHigh: -38011,
  // geth's code for a refusal it has no code for (errors.go `txValidationError`).
  nonceMax: ErrorCode.Internal,
  gasPriceTooLow: -38012,
  intrinsicGas: -38013,
  insufficientFunds: -38014,
  blockGasLimit: -38015,
  blockNumber: -38020,
  blockTimestamp: -38021,
  senderNotEoa: -38024,
  maxInitCodeSize: -38025,
  tooManyBlocks: CLIENT_LIMIT_EXCEEDED,
  gasPriceCap: ErrorCode.InvalidParams,
  // geth's code for an override it cannot apply (override.go `Apply` answers a plain error).
  stateOverride: ErrorCode.Generic,
}

/**
 * A call's error (geth `callError`): a revert is code 3 with the revert data, any other failure -32015 with the
 * engine's reason, and geth's note when the call's gas had been cut to the request's budget (simulate.go `processBlock`).
 * Its fields in geth's order: message, code, data (internal/ethapi/errors.go `callError`).
 */
function callError(error: NonNullable<SimulatedBlock['calls'][number]['error']>): { message: string; code: number; data?: string } {
  if ('vm' in error) return { message: error.capped ? `${error.vm} (gas limit was capped by the RPC server's global gas cap)` : error.vm, code: ErrorCode.Reverted }
  const reason = decodeErrorString(error.revert)
  return { message: reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`, code: 3, data: data(error.revert) }
}

/** `log` with `blockTimestamp` after `blockHash`, where geth's simulated logs have it. */
function withTimestamp(log: LogJson, blockTimestamp: string): LogJson & { blockTimestamp: string } {
  const { logIndex, blockNumber, blockHash, ...rest } = log
  return { logIndex, blockNumber, blockHash, blockTimestamp, ...rest }
}

function formatSimulated({ block, calls }: SimulatedBlock, fullTransactions: boolean): Record<string, unknown> {
  let logIndex = 0
  const blockTimestamp = quantity(block.header.timestamp)
  return {
    ...formatBlock(block, fullTransactions),
    calls: calls.map((c, i) => ({
      returnData: data(c.returnData),
      // RSKj's log fields (as eth_getLogs) and geth's `blockTimestamp` (core/types/log.go, logtracer.go `captureLog`).
      logs: markRemoved(
        c.logs.map((l) => withTimestamp(formatLog(block, i, logIndex++, l), blockTimestamp)),
        false,
      ),
      gasUsed: quantity(c.gasUsed),
      maxUsedGas: quantity(c.maxUsedGas),
      status: quantity(c.status),
      ...(c.error !== undefined ? { error: callError(c.error) } : {}),
    })),
  }
}

/**
 * The block the simulation builds on, as eth_call chooses it; one the chain does not have is geth's -32000 (RSKj has
 * no eth_simulateV1 whose text to take): `header not found` for a number past the head, `header for hash not found`
 * for an unknown hash (eth/api_backend.go `StateAndHeaderByNumberOrHash`; the spec's vectors
 * make-call-with-future-block and empty-with-block-num-set-plus1). `pending` is the pending block complete (with its
 * hash, as trace_block answers it: src/node/miner/pendingSeal.ts), as geth builds on its miner's pending block
 * (`StateAndHeaderByNumberOrHash` answers `miner.Pending()`, the block its eth_getBlockByNumber("pending") answers).
 */
function simulationBase(node: RskNode, sel: BlockSelector): BlockRecord | Promise<BlockRecord> {
  if (sel.kind === 'tag' && sel.tag === 'pending') return node.miner.pendingSealed()
  const store = node.chain.store
  if (sel.kind === 'number' && sel.number > store.headNumber) throw new RpcError(ErrorCode.Generic, 'header not found')
  if (sel.kind === 'hash' && store.getByHash(bytesToHex(sel.hash)) === undefined) throw new RpcError(ErrorCode.Generic, 'header for hash not found')
  return callBlock(node, sel)
}

export const ethSimulateMethods: MethodTable = {
  eth_simulateV1: method([simulatePayload, optional(blockRef)], async ({ node }, payload, sel) => {
    const base = await simulationBase(node, sel ?? LATEST)
    try {
      const blocks = await simulate(node.chain, base, payload.blocks, {
        validation: payload.validation,
        traceTransfers: payload.traceTransfers,
        coinbase: node.coinbase,
        minimumGasPrice: node.options.minimumGasPrice,
        remasc: node.remasc !== undefined,
        gasBudget: node.options.callGasCap,
        checkDeadline: () => node.chain.guard.check(),
      })
      return blocks.map((b) => formatSimulated(b, payload.returnFullTransactions))
    } catch (e) {
      if (e instanceof SimulationRefused) throw new RpcError(REFUSAL_CODES[e.reason], e.message, { cause: e })
      throw e
    } finally {
      node.reportCallConsole(true)
    }
  }),
}
