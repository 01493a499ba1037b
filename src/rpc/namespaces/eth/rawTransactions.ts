/**
 * A transaction's signed bytes, as geth answers `eth_getRawTransactionByHash`, `eth_getRawTransactionByBlockHashAndIndex`,
 * `eth_getRawTransactionByBlockNumberAndIndex` and `debug_getRawTransaction` (Anvil 1.7.1 answers all four, `cast tx
 * --raw` asks the first). RSKj has none of them (-32601 `method not found`), so they are extensions: answered in the
 * default mode only (src/rpc/methods.ts EXTENSION_TABLES).
 *
 * The bytes are the transaction's RLP as it was received or signed, whose keccak-256 is its hash; for the REMASC
 * system transaction that ends every block, RSKj's encoding of it (src/node/rsk/remasc/remascTx.ts). A transaction
 * waiting in the pool is found by hash, as geth finds it; unknown → `null`. The by-block forms take the arguments
 * of eth_getTransactionByBlockHashAndIndex and eth_getTransactionByBlockNumberAndIndex, and answer as they do
 * (`null` past the block's end). `pending` is the pending block as debug_getRawBlock answers it, as geth answers it:
 * the service refuses it to eth_getTransactionByBlockNumberAndIndex only (spec "Limits"; docs/extensions.md
 * "`pending` in the extensions"). On a fork the remote's transactions are built from the remote's answers
 * (src/rpc/forkExtensions.ts, with src/rpc/codecs/remoteRawTransaction.ts).
 */
import { bytesToHex } from '@ethereumjs/util'
import { blockHash, hexIndex, txHash } from '../../codecs/primitives.js'
import { hexBlockId } from '../../codecs/block.js'
import { method, type MethodSpec, type MethodTable } from '../../method.js'
import { data } from '../../format/hex.js'
import { blockOrPending } from '../../resolve.js'
import type { BlockRecord } from '../../../node/chain/types.js'

const rawAt = (block: BlockRecord | undefined, index: bigint): string | null => {
  const t = index < BigInt(Number.MAX_SAFE_INTEGER) ? block?.transactions[Number(index)] : undefined
  return t === undefined ? null : data(t.raw)
}

const byHash: MethodSpec = method([txHash], ({ node }, hash) => {
  const hex = bytesToHex(hash)
  const at = node.chain.store.getTx(hex)
  const t = at === undefined ? node.pool.get(hex) : at.block.transactions[at.index]
  return t === undefined ? null : data(t.raw)
})

export const ethRawTransactionMethods: MethodTable = {
  eth_getRawTransactionByHash: byHash,
  debug_getRawTransaction: byHash,
  eth_getRawTransactionByBlockHashAndIndex: method([blockHash, hexIndex], ({ node }, hash, index) => rawAt(node.chain.store.getByHash(bytesToHex(hash)), index)),
  eth_getRawTransactionByBlockNumberAndIndex: method([hexBlockId, hexIndex], async ({ node, method: name }, sel, index) => rawAt(await blockOrPending(node, sel, name), index)),
}
