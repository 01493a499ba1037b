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
 * (src/rpc/forkExtensions.ts).
 */
import { bytesToBigInt, bytesToHex, hexToBytes, unpadBytes } from '@ethereumjs/util'
import { ErrorCode, RpcError } from '../../../errors.js'
import { keccak256 } from '../../../node/crypto.js'
import { rlpEncode } from '../../../node/rlp.js'
import { REMASC, remascRaw } from '../../../node/rsk/remasc/remascTx.js'
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

/**
 * A fork's remote transaction (its eth_getTransactionBy* JSON) as signed bytes: the legacy RLP of its fields, or, for
 * the REMASC system transaction, RSKj's encoding of it; whichever hashes to the transaction's hash. An RSKj remote
 * has no raw-transaction method; an answer that neither rebuilds is refused rather than guessed.
 */
export function remoteRawTransaction(json: unknown): string | null {
  if (json === null || typeof json !== 'object') return null
  const t = json as Record<string, unknown>
  const hex = (k: string): Uint8Array => {
    const v = t[k]
    if (typeof v !== 'string' || !/^0x[0-9a-fA-F]*$/.test(v)) throw new RpcError(ErrorCode.Internal, `the remote's transaction has no ${k}`)
    return hexToBytes(v.length % 2 === 0 ? (v as `0x${string}`) : (`0x0${v.slice(2)}` as `0x${string}`))
  }
  const int = (k: string): Uint8Array => unpadBytes(hex(k))
  const to = t.to === null || t.to === undefined ? new Uint8Array(0) : hex('to')
  const candidates = [rlpEncode([int('nonce'), int('gasPrice'), int('gas'), to, int('value'), hex('input'), int('v'), int('r'), int('s')])]
  if (bytesToHex(to) === REMASC.toString()) candidates.push(remascRaw(bytesToBigInt(int('nonce'))))
  const hash = typeof t.hash === 'string' ? t.hash.toLowerCase() : ''
  const raw = candidates.find((c) => bytesToHex(keccak256(c)) === hash)
  if (raw === undefined) throw new RpcError(ErrorCode.Internal, `the remote's transaction ${hash} could not be rebuilt as signed bytes that hash to it`)
  return data(raw)
}
