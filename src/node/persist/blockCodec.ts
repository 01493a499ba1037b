/**
 * Blocks and pending transactions as stored in the database (src/node/persist/database.ts).
 *
 * A block is its record (header fields, receipts, totals: bytes, bigints and numbers only) in V8's structured
 * serialization (`node:v8`), which keeps Uint8Array and bigint as they are, with each transaction reduced to
 * what rebuilds it: its raw bytes and its sender (never recovered again: impersonated transactions carry a
 * stand-in signature), or the REMASC marker (the REMASC transaction of block n is a function of n).
 */
import { serialize, deserialize } from 'node:v8'
import type { Common } from '@ethereumjs/common'
import { flatHex } from '../chain/flatHex.js'
import { StoredTxRecord } from '../chain/txRecord.js'
import type { BlockRecord, ReceiptRecord, TxRecord } from '../chain/types.js'
import { remascReceiptFromParts, remascReceiptParts, type RemascReceiptParts } from '../rsk/remasc/remascReceipt.js'
import { remascTransaction } from '../rsk/remasc/remascTx.js'

interface StoredTx {
  raw?: Uint8Array
  from?: Uint8Array
  /** keccak256(raw), kept so that opening a database hashes nothing. */
  hash?: Uint8Array
  remasc?: true
}

/** The REMASC receipt as its payments (its logs are rebuilt from them: remascReceipt.ts). */
interface StoredRemascReceipt {
  remasc: RemascReceiptParts
}

interface StoredBlock extends Omit<BlockRecord, 'transactions' | 'hashHex' | 'receipts'> {
  transactions: StoredTx[]
  receipts: Array<ReceiptRecord | StoredRemascReceipt>
}

/** A receipt as plain data (receipts may be objects with getters, which structured serialization skips). */
function storedReceipt(r: ReceiptRecord, t: TxRecord): ReceiptRecord | StoredRemascReceipt {
  if (t.system === 'remasc') {
    const parts = remascReceiptParts(r)
    if (parts !== undefined) return { remasc: parts }
  }
  return {
    status: r.status,
    gasUsed: r.gasUsed,
    cumulativeGasUsed: r.cumulativeGasUsed,
    logs: r.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data })),
    logsBloom: r.logsBloom,
    contractAddress: r.contractAddress,
    ...(r.revertData !== undefined ? { revertData: r.revertData } : {}),
    ...(r.error !== undefined ? { error: r.error } : {}),
  }
}

const storedTx = (t: TxRecord): StoredTx => (t.system === 'remasc' ? { remasc: true, hash: t.hash } : { raw: t.raw, from: t.from, hash: t.hash })

function txOf(s: StoredTx, number: bigint, common: Common): TxRecord {
  if (s.remasc === true) return remascTransaction(number, common, s.hash === undefined ? undefined : flatHex(s.hash))
  if (s.raw === undefined || s.from === undefined) throw new Error('transaction without bytes or sender')
  return new StoredTxRecord(s.raw, s.from, common, s.hash)
}

export function encodeBlock(b: BlockRecord): Uint8Array {
  const stored: StoredBlock = {
    header: b.header,
    hash: b.hash,
    number: b.number,
    hashForMergedMining: b.hashForMergedMining,
    transactions: b.transactions.map(storedTx),
    receipts: b.receipts.map((r, i) => storedReceipt(r, b.transactions[i]!)),
    totalDifficulty: b.totalDifficulty,
    size: b.size,
  }
  return serialize(stored)
}

/**
 * A block read back. `previous` is the parent block's record: its REMASC receipt shares equal arrays with this one,
 * as when mined (remascReceipt.ts).
 */
export function decodeBlock(bytes: Uint8Array, common: Common, previous?: BlockRecord): BlockRecord {
  const s = deserialize(bytes) as StoredBlock
  if (typeof s !== 'object' || s === null || typeof s.number !== 'bigint' || !(s.hash instanceof Uint8Array) || !Array.isArray(s.transactions) || !Array.isArray(s.receipts)) {
    throw new Error('not a block record')
  }
  const previousRemasc = previous?.transactions.at(-1)?.system === 'remasc' ? previous.receipts.at(-1) : undefined
  const receipts = s.receipts.map((r) =>
    'remasc' in r ? remascReceiptFromParts(r.remasc, previousRemasc) : r,
  )
  // Written out rather than `{ ...s, hashHex, … }`: a property added to a spread copy is V8's slow path (1.2-2.1 µs
  // each on Node 20, docs/performance.md "Ninth round"), paid here for every block a database opens with.
  return {
    header: s.header,
    hash: s.hash,
    hashHex: flatHex(s.hash),
    number: s.number,
    hashForMergedMining: s.hashForMergedMining,
    transactions: s.transactions.map((t) => txOf(t, s.number, common)),
    receipts,
    totalDifficulty: s.totalDifficulty,
    size: s.size,
  }
}

export function encodeTx(t: TxRecord): Uint8Array {
  return serialize(storedTx(t))
}

export function decodeTx(bytes: Uint8Array, common: Common): TxRecord {
  const s = deserialize(bytes) as StoredTx
  if (s.remasc === true) throw new Error('a pending transaction cannot be the REMASC transaction')
  return txOf(s, 0n, common)
}
