/** Transaction objects in RSKj's field order (`TransactionResultDTO`, reference §2.3). Pure. */
import type { BlockRecord, TxRecord } from '../../node/chain/types.js'
import { data, quantity } from './hex.js'

export interface TransactionJson {
  hash: string
  nonce: string
  blockHash: string | null
  blockNumber: string | null
  transactionIndex: string | null
  from: string
  to: string | null
  gas: string
  gasPrice: string
  value: string
  input: string
  v: string
  r: string
  s: string
  type: string
}

/** `v` is at least two hex digits of the encoded V (`0x1b`, `0x65`). */
const vHex = (v: bigint): string => '0x' + v.toString(16).padStart(2, '0')

/** A mined transaction (`block` and `index` given) or a pending one (nulls). */
export function formatTransaction(t: TxRecord, block?: BlockRecord, index?: number): TransactionJson {
  const { tx } = t
  return {
    hash: t.hashHex,
    nonce: quantity(tx.nonce),
    blockHash: block?.hashHex ?? null,
    blockNumber: block === undefined ? null : quantity(block.number),
    transactionIndex: index === undefined ? null : quantity(index),
    from: t.fromHex,
    to: tx.to === undefined ? null : tx.to.toString(),
    gas: quantity(tx.gasLimit),
    gasPrice: quantity(tx.gasPrice),
    value: quantity(tx.value),
    input: data(tx.data),
    // The unsigned REMASC transaction answers "0x0" for v, r and s (RSKj `rpc.zeroSignatureIfRemasc`, reference §2.3).
    v: t.system === 'remasc' ? '0x0' : vHex(tx.v ?? 0n),
    r: quantity(tx.r ?? 0n),
    s: quantity(tx.s ?? 0n),
    type: '0x0',
  }
}
