/**
 * The receipt of the REMASC system transaction. Its logs are the fee payments of `Remasc.processMinersFees`
 * (`RemascFeesPayer`): each one REMASC's address, `mining_fee_topic` and the recipient as topics, and
 * RLP[paid block hash, value] as data. Kept as objects they cost ~3.5 KB of heap per mined block (five small
 * byte arrays per log); the record keeps the paid block's hash and the (recipient, value) pairs RLP-encoded, and
 * rebuilds the logs (equal bytes, fresh arrays) on each read. The bloom is kept: it is read for every mined block
 * (header bloom, receipt trie), and consecutive blocks mostly pay the same addresses, so it and the pairs are
 * shared with the previous block's REMASC receipt when equal.
 */
import { RLP } from '@ethereumjs/rlp'
import { equalsBytes, setLengthLeft } from '@ethereumjs/util'
import { addToBloom } from '../../chain/bloom.js'
import { rlpEncode, unpaddedBytes, type RlpInput } from '../../rlp.js'
import { binKey } from '../../binKey.js'
import type { LogRecord, ReceiptRecord } from '../../chain/types.js'
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
  readonly logsBloom: Uint8Array

  constructor(
    readonly cumulativeGasUsed: bigint,
    /** Hash of the block whose fees were paid (shared with that block's record). */
    private readonly paidBlock: Uint8Array | undefined,
    /** RLP list of [to, value] pairs. */
    readonly payments: Uint8Array,
    previous: ReceiptRecord | undefined,
    /** The logs' bloom (`paymentsBloom`, or as read back from the database). */
    bloom: Uint8Array,
  ) {
    this.logsBloom = previous !== undefined && equalsBytes(previous.logsBloom, bloom) ? previous.logsBloom : bloom
  }

  /** The fields `remascReceiptParts` reads. */
  parts(): { paidBlock: Uint8Array | undefined; payments: Uint8Array } {
    return { paidBlock: this.paidBlock, payments: this.payments }
  }

  get status(): 1 {
    return 1
  }

  get gasUsed(): bigint {
    return 0n
  }

  get contractAddress(): null {
    return null
  }

  /**
   * The items of RSKj's receipt RLP, made from the payments without building log objects (the receipt trie encodes
   * one per mined block): [0x01, cumulative gas, bloom, logs, "" (no gas), 0x01]. test/remasc.test.ts checks the
   * encoding equals the one of `logs`.
   */
  rlpItems(): RlpInput {
    const logs: RlpInput[] = []
    if (this.paidBlock !== undefined) {
      for (const [topics, value] of paymentItems(this.payments)) logs.push([REMASC.bytes, topics, rlpEncode([this.paidBlock, value])])
    }
    return [SUCCESS, unpaddedBytes(this.cumulativeGasUsed), this.logsBloom, logs, NO_BYTES, SUCCESS]
  }

  get logs(): LogRecord[] {
    if (this.paidBlock === undefined) return []
    const blockHash = this.paidBlock
    // Fresh arrays on every read: the items are shared with `encoded` and the next blocks.
    return paymentItems(this.payments).map(([topics, value]) => ({ address: REMASC.bytes, topics: topics.map((t) => t.slice()), data: rlpEncode([blockHash, value]) }))
  }
}

const SUCCESS = Uint8Array.of(1)
const NO_BYTES = new Uint8Array(0)

/** The last `paymentItems` answer: consecutive blocks mostly pay the same amounts to the same addresses. */
let lastItems: { payments: Uint8Array; items: [topics: Uint8Array[], value: Uint8Array][] } | undefined

/** Each payment's log topics (the fee topic, the recipient as a word) and value bytes, decoded from the RLP pairs. */
function paymentItems(payments: Uint8Array): [topics: Uint8Array[], value: Uint8Array][] {
  if (lastItems?.payments === payments) return lastItems.items
  const items = (RLP.decode(payments) as Uint8Array[][]).map(([to, value]): [Uint8Array[], Uint8Array] => [[MINING_FEE_TOPIC, setLengthLeft(to!, 32)], value!])
  lastItems = { payments, items }
  return items
}

/** The last bloom computed, by its recipients: consecutive blocks mostly pay the same addresses. */
let lastBloom: { key: string; bloom: Uint8Array } | undefined

/**
 * The bloom of payment logs to `recipients` (REMASC's address, the mining fee topic and each recipient as a 32-byte
 * topic): it depends on the recipients only, not on the values or the paid block, so it is computed once for a
 * run of blocks that pay the same addresses (each item costs a keccak-256).
 */
function paymentsBloom(recipients: Uint8Array[]): Uint8Array {
  const key = recipients.map(binKey).join('')
  if (lastBloom?.key === key) return lastBloom.bloom
  const bloom = new Uint8Array(256)
  if (recipients.length > 0) {
    addToBloom(bloom, REMASC.bytes)
    addToBloom(bloom, MINING_FEE_TOPIC)
    for (const to of recipients) addToBloom(bloom, setLengthLeft(to, 32))
  }
  lastBloom = { key, bloom }
  return bloom
}

/**
 * The REMASC receipt of a block whose REMASC run paid `payments` out of the fees of block `paidBlock` (none when
 * no block was processed). `previous` is the parent block's REMASC receipt, whose arrays are reused when equal.
 */
export function remascReceipt(cumulativeGasUsed: bigint, previous: ReceiptRecord | undefined, paidBlock?: Uint8Array, payments: RemascPayment[] = []): ReceiptRecord {
  if (payments.length === 0 || paidBlock === undefined) return new RemascReceipt(cumulativeGasUsed, undefined, NO_PAYMENTS, previous, paymentsBloom([]))
  let encoded = rlpEncode(payments.map((p) => [p.to, unpaddedBytes(p.value)]))
  if (previous instanceof RemascReceipt && equalsBytes(previous.payments, encoded)) encoded = previous.payments
  return new RemascReceipt(cumulativeGasUsed, paidBlock, encoded, previous, paymentsBloom(payments.map((p) => p.to)))
}

/** A REMASC receipt as the on-disk database stores it (src/node/persist/blockCodec.ts): its compact fields. */
export interface RemascReceiptParts {
  cumulativeGasUsed: bigint
  paidBlock?: Uint8Array
  /** RLP list of [to, value] pairs. */
  payments: Uint8Array
  logsBloom: Uint8Array
}

/** The compact fields of a REMASC receipt; undefined for any other receipt. */
export function remascReceiptParts(r: ReceiptRecord): RemascReceiptParts | undefined {
  if (!(r instanceof RemascReceipt)) return undefined
  const { paidBlock, payments } = r.parts()
  return { cumulativeGasUsed: r.cumulativeGasUsed, ...(paidBlock !== undefined ? { paidBlock } : {}), payments, logsBloom: r.logsBloom }
}

/** The REMASC receipt `remascReceiptParts` described; `previous` as for `remascReceipt`. */
export function remascReceiptFromParts(p: RemascReceiptParts, previous: ReceiptRecord | undefined): ReceiptRecord {
  const payments = previous instanceof RemascReceipt && equalsBytes(previous.payments, p.payments) ? previous.payments : p.payments
  return new RemascReceipt(p.cumulativeGasUsed, p.paidBlock, payments, previous, p.logsBloom)
}
