/**
 * txpool_content, txpool_inspect, txpool_status, in the shapes of RSKj's
 * `java/co/rsk/rpc/modules/txpool/TxPoolModuleImpl.java` (reference §3.8): senders keyed by lowercase hex without
 * `0x`, nonces by decimal strings, each value an array of transactions.
 */
import { bytesToHex } from '@ethereumjs/util'
import { noParams, type MethodTable } from '../method.js'
import { data, quantity, ZERO_HASH } from '../format/hex.js'
import type { TxRecord } from '../../node/chain/types.js'

type BySender = Map<string, Map<bigint, TxRecord>>

/**
 * RSKj `HexUtils.toJsonHex(coin.getBytes())`: the bytes of Java's `BigInteger.toByteArray()`, i.e. minimal
 * two's complement (0 → `0x00`, 128 → `0x0080`). Used for `gasPrice` and `value`.
 */
export function twosComplementHex(n: bigint): string {
  let hex = n.toString(16)
  if (hex.length % 2 === 1) hex = '0' + hex
  if (parseInt(hex.slice(0, 2), 16) >= 0x80) hex = '00' + hex
  return '0x' + hex
}

/** RSKj `fullSerializer`: field order and encodings as there; `to` is `0x00` for a creation (empty address). */
export function fullTx(t: TxRecord): Record<string, unknown> {
  const { tx } = t
  return {
    blockHash: ZERO_HASH,
    blockNumber: null,
    transactionIndex: null,
    from: t.fromHex,
    gas: quantity(tx.gasLimit),
    gasPrice: twosComplementHex(tx.gasPrice),
    hash: t.hashHex,
    input: data(tx.data),
    nonce: quantity(tx.nonce),
    to: tx.to === undefined ? '0x00' : bytesToHex(tx.to.bytes),
    value: twosComplementHex(tx.value),
  }
}

/** RSKj `summarySerializer`: `"<to>: <value> wei + <gas> x <gasPrice> gas"`, `to` without `0x` (empty for a creation). */
function summary(t: TxRecord): string {
  const { tx } = t
  const to = tx.to === undefined ? '' : bytesToHex(tx.to.bytes).slice(2)
  return `${to}: ${tx.value} wei + ${tx.gasLimit} x ${tx.gasPrice} gas`
}

/** Senders in pool order, nonces ascending within a sender. */
function group<T>(set: BySender, serialize: (t: TxRecord) => T): Record<string, Record<string, T[]>> {
  const out: Record<string, Record<string, T[]>> = {}
  for (const [sender, byNonce] of set) {
    const nonces: Record<string, T[]> = {}
    for (const nonce of [...byNonce.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
      nonces[nonce.toString(10)] = [serialize(byNonce.get(nonce)!)]
    }
    out[sender.replace(/^0x/, '').toLowerCase()] = nonces
  }
  return out
}

export const txpoolMethods: MethodTable = {
  txpool_content: noParams(({ node }) => {
    const { pending, queued } = node.pool.content()
    return { pending: group(pending, fullTx), queued: group(queued, fullTx) }
  }),
  txpool_inspect: noParams(({ node }) => {
    const { pending, queued } = node.pool.content()
    return { pending: group(pending, summary), queued: group(queued, summary) }
  }),
  /** JSON numbers, not hex (RSKj `status`). */
  txpool_status: noParams(({ node }) => ({ pending: node.pool.pendingCount, queued: node.pool.queuedCount })),
}
