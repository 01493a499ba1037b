/**
 * What a block's transactions add up to as they run: the transactions included, their receipts (cumulative gas), the
 * block's bloom, gas used and paid fees, then REMASC's system transaction, which ends every block (reference §2.2).
 * Kept by the miner while it runs a block (miner.ts) and for the pending block's results (pendingSeal.ts); the totals
 * `headerOf` (seal.ts) writes into the header.
 */
import type { Common } from '@ethereumjs/common'
import type { RunTxResult } from '@ethereumjs/vm'
import type { ReceiptRecord, TxRecord } from '../chain/types.js'
import { receiptOf } from '../chain/receiptOf.js'
import { orBloom } from '../chain/bloom.js'
import { remascTransaction } from '../rsk/remasc/remasc.js'

export class BlockTotals {
  readonly included: TxRecord[] = []
  readonly receipts: ReceiptRecord[] = []
  readonly bloom = new Uint8Array(256)
  gasUsed = 0n
  paidFees = 0n

  /** Adds transaction `t`, which ran with `result`. */
  add(t: TxRecord, result: RunTxResult): void {
    this.gasUsed += result.totalGasSpent
    this.paidFees += result.totalGasSpent * t.tx.gasPrice
    const receipt = receiptOf(t, result, this.gasUsed)
    orBloom(this.bloom, receipt.logsBloom)
    this.receipts.push(receipt)
    this.included.push(t)
  }

  /** Adds REMASC's system transaction of block `number`, with its `receipt`. */
  addRemasc(receipt: ReceiptRecord, number: bigint, common: Common): void {
    orBloom(this.bloom, receipt.logsBloom)
    this.included.push(remascTransaction(number, common))
    this.receipts.push(receipt)
  }
}
