/** Receipt objects in RSKj's field order (`TransactionReceiptDTO`, reference §2.4). Pure. */
import type { TxLocation } from '../../node/chain/types.js'
import { data, quantity } from './hex.js'
import { formatLog, type LogJson } from './log.js'

export interface ReceiptJson {
  transactionHash: string
  transactionIndex: string
  blockHash: string
  blockNumber: string
  cumulativeGasUsed: string
  gasUsed: string
  contractAddress: string | null
  logs: LogJson[]
  from: string
  to: string | null
  status: string
  logsBloom: string
  type: string
  effectiveGasPrice: string
}

export function formatReceipt({ block, index }: TxLocation): ReceiptJson {
  const t = block.transactions[index]!
  const r = block.receipts[index]!
  return {
    transactionHash: t.hashHex,
    transactionIndex: quantity(index),
    blockHash: block.hashHex,
    blockNumber: quantity(block.number),
    cumulativeGasUsed: quantity(r.cumulativeGasUsed),
    gasUsed: quantity(r.gasUsed),
    contractAddress: r.contractAddress === null ? null : data(r.contractAddress),
    logs: receiptLogs({ block, index }),
    from: t.fromHex,
    to: t.tx.to === undefined ? null : t.tx.to.toString(),
    status: r.status === 1 ? '0x1' : '0x0',
    logsBloom: data(r.logsBloom),
    type: '0x0',
    effectiveGasPrice: quantity(t.tx.gasPrice),
  }
}

/** The logs of one transaction; `logIndex` is block-wide, so the earlier transactions' logs are counted, not formatted. */
function receiptLogs({ block, index }: TxLocation): LogJson[] {
  let first = 0
  for (let i = 0; i < index; i++) first += block.receipts[i]!.logs.length
  return block.receipts[index]!.logs.map((l, k) => formatLog(block, index, first + k, l))
}
