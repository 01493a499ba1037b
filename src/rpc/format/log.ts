/** Log objects in RSKj's field order (`LogFilterElement`, reference §2.5). Pure. */
import type { BlockRecord } from '../../node/chain/types.js'
import { data, quantity } from './hex.js'

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

/** Every log of `block`, block-wide `logIndex`; `removed` is added for filter results (spec "Log object"). */
export function blockLogs(block: BlockRecord): LogJson[] {
  const out: LogJson[] = []
  let logIndex = 0
  const blockNumber = quantity(block.number)
  block.receipts.forEach((r, txIndex) => {
    const tx = block.transactions[txIndex]!
    for (const l of r.logs) {
      out.push({
        logIndex: quantity(logIndex++),
        blockNumber,
        blockHash: block.hashHex,
        transactionHash: tx.hashHex,
        transactionIndex: quantity(txIndex),
        address: data(l.address),
        data: data(l.data),
        topics: l.topics.map(data),
      })
    }
  })
  return out
}
