/**
 * Blocks and pending transactions as stored in the database (src/node/persist/database.ts).
 *
 * A block is stored packed, as the block store keeps its old blocks in memory (src/node/chain/blockPack.ts: one RLP
 * string, its hash first), so that a database opens with its old blocks kept as they are read, neither decoded nor
 * packed again; only the newest (the store's records) are unpacked. Format version 1 stored a block as its record
 * in V8's structured serialization (`node:v8`), with each transaction reduced to its raw bytes, sender and hash, or
 * the REMASC marker, and the REMASC receipt as its payments: such blocks are still read (a V8 serialization starts
 * with the byte 0xff, which no packed block does: an RLP list would need an 8-byte length). Pending transactions
 * are stored in that V8 form.
 */
import { nodeV8 } from '../builtins.js'
import type { Common } from '@ethereumjs/common'
import { flatHex } from '../chain/flatHex.js'
import { StoredTxRecord } from '../chain/txRecord.js'
import type { BlockRecord, ReceiptRecord, TxRecord } from '../chain/types.js'
import { remascReceiptFromParts, type RemascReceiptParts } from '../rsk/remasc/remascReceipt.js'
import { remascTransaction } from '../rsk/remasc/remascTx.js'
import { packBlock, unpackBlock } from '../chain/blockPack.js'

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

const storedTx = (t: TxRecord): StoredTx => (t.system === 'remasc' ? { remasc: true, hash: t.hash } : { raw: t.raw, from: t.from, hash: t.hash })

function txOf(s: StoredTx, number: bigint, common: Common): TxRecord {
  if (s.remasc === true) return remascTransaction(number, common, s.hash === undefined ? undefined : flatHex(s.hash))
  if (s.raw === undefined || s.from === undefined) throw new Error('transaction without bytes or sender')
  return new StoredTxRecord(s.raw, s.from, common, s.hash)
}

/** A block as the database stores it: packed, its parent hash included (each record stands alone). */
export function encodeBlock(b: BlockRecord): Uint8Array {
  return packBlock(b)
}

/** Whether a stored block is packed (format 2), not a V8 serialization (format 1). */
export const isPackedBlock = (bytes: Uint8Array): boolean => bytes.length > 0 && bytes[0] !== 0xff

/**
 * A block read back, either format. `previous`: the parent block's record, asked for only by a format-1 block (its
 * REMASC receipt shares equal arrays with the parent's, as when mined: remascReceipt.ts).
 */
export function decodeBlock(bytes: Uint8Array, common: Common, previous: () => BlockRecord | undefined): BlockRecord {
  if (isPackedBlock(bytes)) return unpackBlock(bytes, common)
  const s = nodeV8().deserialize(bytes) as StoredBlock
  if (typeof s !== 'object' || s === null || typeof s.number !== 'bigint' || !(s.hash instanceof Uint8Array) || !Array.isArray(s.transactions) || !Array.isArray(s.receipts)) {
    throw new Error('not a block record')
  }
  const parent = previous()
  const previousRemasc = parent?.transactions.at(-1)?.system === 'remasc' ? parent.receipts.at(-1) : undefined
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
  return nodeV8().serialize(storedTx(t))
}

export function decodeTx(bytes: Uint8Array, common: Common): TxRecord {
  const s = nodeV8().deserialize(bytes) as StoredTx
  if (s.remasc === true) throw new Error('a pending transaction cannot be the REMASC transaction')
  return txOf(s, 0n, common)
}
