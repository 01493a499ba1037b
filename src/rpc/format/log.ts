/** Log objects in RSKj's field order (`LogFilterElement`, reference §2.5). Pure. */
import type { BlockRecord, LogRecord } from '../../node/chain/types.js'
import { flatHexAll } from '../../node/chain/flatHex.js'
import { quantity } from './hex.js'

export interface LogJson {
  logIndex: string
  blockNumber: string
  blockHash: string
  transactionHash: string
  transactionIndex: string
  address: string
  data: string
  topics: string[]
  removed?: boolean
}

/**
 * One log of `block`: `txIndex` its transaction, `logIndex` its block-wide position; `blockNumber` the block's
 * number as a QUANTITY, passed by callers that format many logs of one block.
 */
export function formatLog(block: BlockRecord, txIndex: number, logIndex: number, l: LogRecord, blockNumber = quantity(block.number)): LogJson {
  // address, data and topics as DATA, encoded together (eth_getLogs formats thousands of logs).
  const hex = flatHexAll([l.address, l.data, ...l.topics])
  return {
    logIndex: quantity(logIndex),
    blockNumber,
    blockHash: block.hashHex,
    transactionHash: block.transactions[txIndex]!.hashHex,
    transactionIndex: quantity(txIndex),
    address: hex[0]!,
    data: hex[1]!,
    topics: hex.slice(2),
  }
}

/**
 * Every log of `block` for which `keep` holds (all by default), block-wide `logIndex`. Receipts whose bloom fails
 * `mayHold` are skipped without reading their logs (the REMASC receipt rebuilds its logs on each read); their log
 * counts are only read when a later receipt has matches. `indexWithinTransaction` numbers each log within its
 * transaction instead, as RSKj's `logs` subscription does (`LogsNotificationEmitter.getLogsNotifications`).
 * The logs are appended to `out` (a new array by default), which is returned.
 */
export function blockLogs(
  block: BlockRecord,
  keep: (l: LogRecord) => boolean = () => true,
  mayHold: (bloom: Uint8Array) => boolean = () => true,
  indexWithinTransaction = false,
  out: LogJson[] = [],
): LogJson[] {
  const receipts = block.receipts
  let blockNumber: string | undefined
  let logIndex = 0
  let counted = 0
  for (let txIndex = 0; txIndex < receipts.length; txIndex++) {
    const r = receipts[txIndex]!
    if (!mayHold(r.logsBloom)) continue
    for (; counted < txIndex; counted++) logIndex += receipts[counted]!.logs.length
    const logs = r.logs
    for (let within = 0; within < logs.length; within++, logIndex++) {
      const l = logs[within]!
      if (!keep(l)) continue
      blockNumber ??= quantity(block.number)
      out.push(formatLog(block, txIndex, indexWithinTransaction ? within : logIndex, l, blockNumber))
    }
    counted = txIndex + 1
  }
  return out
}

/**
 * Sets `removed` on logs just formatted (fresh objects from `formatLog`), as filter results and subscriptions carry
 * it. Set, not copied in: a property added to a spread copy (`{ ...log, removed }`) is V8's slow path, 1.2-2.1 µs a
 * log on Node 20 (docs/performance.md "Ninth round").
 */
export function markRemoved(logs: LogJson[], removed: boolean): LogJson[] {
  for (const log of logs) log.removed = removed
  return logs
}
