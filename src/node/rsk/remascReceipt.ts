/**
 * The receipt of the REMASC system transaction. Its logs are the fee payments of `Remasc.processMinersFees`
 * (`RemascFeesPayer`): each one REMASC's address, `mining_fee_topic` and the recipient as topics, and
 * RLP[paid block hash, value] as data. Kept as objects they cost ~3.5 KB of heap per mined block (five small
 * byte arrays per log); the record keeps the paid block's hash and the (recipient, value) pairs RLP-encoded, and
 * rebuilds the logs and the bloom (equal bytes, fresh arrays) on each read.
 */
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes, setLengthLeft } from '@ethereumjs/util'
import { keccak256 } from '../crypto.js'
import type { LogRecord, ReceiptRecord } from '../chain/types.js'
import { REMASC } from './remascTx.js'

/** `DataWord.fromString`: the UTF-8 bytes as a number in a 32-byte word. */
export const dataWord = (s: string): Uint8Array => setLengthLeft(new TextEncoder().encode(s), 32)
/** `RemascContract.MINING_FEE_TOPIC`. */
export const MINING_FEE_TOPIC = dataWord('mining_fee_topic')

/** One payment: `value` wei to the 20-byte address `to`. */
export interface RemascPayment {
  to: Uint8Array
  value: bigint
}

const NO_PAYMENTS = RLP.encode([])

class RemascReceipt implements ReceiptRecord {
  constructor(
    readonly cumulativeGasUsed: bigint,
    /** Hash of the block whose fees were paid (shared with that block's record). */
    private readonly paidBlock: Uint8Array | undefined,
    /** RLP list of [to, value] pairs. */
    private readonly payments: Uint8Array,
  ) {}

  get status(): 1 {
    return 1
  }

  get gasUsed(): bigint {
    return 0n
  }

  get contractAddress(): null {
    return null
  }

  get logs(): LogRecord[] {
    if (this.paidBlock === undefined) return []
    const blockHash = this.paidBlock
    return (RLP.decode(this.payments) as Uint8Array[][]).map(([to, value]) => ({
      address: REMASC.bytes,
      topics: [MINING_FEE_TOPIC, setLengthLeft(to!, 32)],
      data: RLP.encode([blockHash, value!]),
    }))
  }

  get logsBloom(): Uint8Array {
    const bloom = new Uint8Array(256)
    for (const l of this.logs) for (const item of [l.address, ...l.topics]) addToBloom(bloom, item)
    return bloom
  }
}

/** The REMASC receipt of a block whose REMASC run paid `payments` out of the fees of block `paidBlock`. */
export function remascReceipt(cumulativeGasUsed: bigint, paidBlock: Uint8Array, payments: RemascPayment[]): ReceiptRecord
export function remascReceipt(cumulativeGasUsed: bigint): ReceiptRecord
export function remascReceipt(cumulativeGasUsed: bigint, paidBlock?: Uint8Array, payments: RemascPayment[] = []): ReceiptRecord {
  if (payments.length === 0) return new RemascReceipt(cumulativeGasUsed, undefined, NO_PAYMENTS)
  return new RemascReceipt(cumulativeGasUsed, paidBlock, RLP.encode(payments.map((p) => [p.to, bigIntToUnpaddedBytes(p.value)])))
}

/** Ethereum log bloom: three 11-bit indexes from keccak256(item). */
function addToBloom(bloom: Uint8Array, item: Uint8Array): void {
  const h = keccak256(item)
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i]! << 8) | h[i + 1]!) & 2047
    bloom[255 - (bit >> 3)]! |= 1 << (bit & 7)
  }
}
