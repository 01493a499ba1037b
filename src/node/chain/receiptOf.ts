/**
 * The receipt record of a transaction the engine ran in a block: the miner's (src/node/miner/miner.ts) and a simulated
 * block's (src/node/exec/simulate.ts), so both read a failure, logs and a creation's address the same way.
 */
import type { RunTxResult } from '@ethereumjs/vm'
import type { LogRecord, ReceiptRecord, TxRecord } from './types.js'
import { packBytes } from './packBytes.js'
import { createAddress } from '../crypto.js'
import { failureKeptByRskj } from '../rsk/evm/evmProfile.js'

/** The bloom of a receipt without logs; shared by such receipts and never mutated. */
const NO_LOGS_BLOOM = new Uint8Array(256)

/** The receipt of a transaction the engine ran, `gasUsed` the block's gas with it. */
export function receiptOf(t: TxRecord, result: RunTxResult, gasUsed: bigint): ReceiptRecord {
  const error = result.execResult.exceptionError?.error
  // A precompile's own failure, in a transaction sent straight to it, is no execution error for RSKj (evmProfile.ts).
  const failed = error !== undefined && !failureKeptByRskj(t.tx.to?.bytes, error)
  const { logs, logsBloom } = compactLogs(result.execResult.logs, result.bloom.bitvector)
  return {
    status: failed ? 0 : 1,
    gasUsed: result.totalGasSpent,
    cumulativeGasUsed: gasUsed,
    logs,
    logsBloom,
    contractAddress: t.tx.to === undefined ? createAddress(t.from, t.tx.nonce) : null,
    ...(failed ? { error, revertData: result.execResult.returnValue } : {}),
  }
}

/**
 * A receipt's logs and bloom, moved into one buffer (packBytes.ts). The engine hands each log's address, topics and
 * data and the receipt's 256-byte bloom as arrays of their own, and a mined receipt keeps them as long as its block:
 * an ERC-20 transfer's receipt kept six arrays (232 bytes of heap each when 64 bytes or less, a buffer outside the
 * heap for the bloom). A receipt without logs shares one empty bloom.
 */
function compactLogs(engineLogs: [Uint8Array, Uint8Array[], Uint8Array][] | undefined, bloom: Uint8Array): { logs: LogRecord[]; logsBloom: Uint8Array } {
  if (engineLogs === undefined || engineLogs.length === 0) return { logs: [], logsBloom: NO_LOGS_BLOOM }
  const parts = [bloom]
  for (const [address, topics, data] of engineLogs) parts.push(address, ...topics, data)
  const packed = packBytes(parts)
  const logs: LogRecord[] = []
  let at = 1
  for (const [, topics] of engineLogs) {
    const address = packed[at++]!
    const kept = topics.map(() => packed[at++]!)
    logs.push({ address, topics: kept, data: packed[at++]! })
  }
  return { logs, logsBloom: packed[0]! }
}
