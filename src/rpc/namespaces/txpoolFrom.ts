/**
 * txpool_contentFrom(address): geth's (`internal/ethapi/api.go` `TxPoolAPI.ContentFrom`), which Tevm also answers
 * (Anvil 1.7.1 answers -32601). An extension: RSKj's txpool module has no such method, so hosted mode answers -32601
 * (methods.ts).
 *
 * The shape is geth's, `{ pending: { "<nonce>": tx }, queued: { … } }`, nonces as decimal strings and one transaction
 * per nonce (geth's nesting; rsksim's txpool_content wraps each in an array, as RSKj does). Each transaction is
 * written exactly as txpool_content writes it here (RSKj's `fullSerializer`: txpool.ts `fullTx`), so the two methods
 * describe a transaction alike.
 */
import { bytesToHex } from '@ethereumjs/util'
import { address } from '../codecs/primitives.js'
import { method, type MethodTable } from '../method.js'
import { fullTx } from './txpool.js'
import type { TxRecord } from '../../node/chain/types.js'

/** One sender's transactions by decimal nonce, ascending. */
function byNonce(txs: Map<bigint, TxRecord> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (txs === undefined) return out
  for (const nonce of [...txs.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) out[nonce.toString(10)] = fullTx(txs.get(nonce)!)
  return out
}

export const txpoolFromMethods: MethodTable = {
  txpool_contentFrom: method([address], ({ node }, sender) => {
    const { pending, queued } = node.pool.content()
    const key = bytesToHex(sender)
    return { pending: byNonce(pending.get(key)), queued: byNonce(queued.get(key)) }
  }),
}
