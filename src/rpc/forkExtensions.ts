/**
 * Fork routes of the extensions RSKj lacks (docs/forking.md): eth_getBlockReceipts, Otterscan's ots_*, the account
 * reads and the raw-transaction reads, answered from what every remote (an RSKj node too) answers. The ots_* routes of
 * remote transactions and block pages are in forkOts.ts.
 */
import type { BlockSelector } from './codecs/block.js'
import { remoteRawTransaction } from './codecs/remoteRawTransaction.js'
import { otsBlockDetailsJson } from './format/ots.js'
import { ask, LOCAL, ofRemoteTx, remoteBlock, type Answer, type Route } from './forkAsk.js'

/**
 * eth_getBlockReceipts (an extension) of the forked block or one below it: built from the remote's block
 * (eth_getBlockByNumber/ByHash) and its eth_getTransactionReceipt of each of the block's transactions, asked together
 * (one batch), so each receipt is the one eth_getTransactionReceipt answers here for that transaction. Every kind of
 * remote answers those two; an RSKj remote has no eth_getBlockReceipts (its -32601 would be the answer). `pending` is
 * left to the local handler (`remoteBlock`), which refuses it.
 */
export const blockReceipts: Route = async (ctx, args) => {
  const block = await remoteBlock(ctx, args[0] as BlockSelector)
  if (block === LOCAL) return LOCAL
  const hashes = (block as { transactions?: unknown } | null)?.transactions
  if (!Array.isArray(hashes)) return null
  return Promise.all(hashes.map((h) => ask(ctx, [h], 'eth_getTransactionReceipt')))
}

/**
 * ots_getBlockDetails(ByHash) of the forked block or one below it: the remote's block (eth_getBlockByNumber/ByHash,
 * which every RSK remote answers) shaped as rsksim shapes its own: no transaction list but their count, no issuance,
 * and `totalFees` the block's `paidFees` (what its senders paid, as rsksim sums it for its own blocks).
 */
export const otsBlockDetails =
  (byHash: boolean): Route =>
  async (ctx, args) => {
    const block = await remoteBlock(ctx, byHash ? { kind: 'hash', hash: args[0] as Uint8Array } : (args[0] as BlockSelector))
    if (block === LOCAL) return LOCAL
    if (block === null || typeof block !== 'object') return null
    const { transactions, paidFees } = block as { transactions?: unknown; paidFees?: unknown }
    return otsBlockDetailsJson(block as Record<string, unknown>, Array.isArray(transactions) ? transactions.length : 0, typeof paidFees === 'string' ? paidFees : '0x0')
  }

/** ots_hasCode below the forked block (routed as eth_getCode, forkRoute.ts `atState`): the remote's eth_getCode there. */
export const otsHasCode: Answer = async (ctx, params) => {
  const code = await ask(ctx, params, 'eth_getCode')
  return typeof code === 'string' && code.length > 2
}

/**
 * erigon_getHeaderByNumber at or below the forked block: the remote's eth_getBlockByNumber(n, false), or, for a block
 * hash (which it takes, as eth_getBlockByNumber does), its eth_getBlockByHash (`remoteBlock`), the forked block's too:
 * rsksim's record of that block holds none of its transactions.
 */
export const erigonHeader: Route = (ctx, args) => remoteBlock(ctx, args[0] as BlockSelector)

/**
 * eth_getAccountInfo (an extension) below the forked block (routed as eth_getBalance, forkRoute.ts `atState`): the
 * remote's eth_getBalance, eth_getTransactionCount and eth_getCode there, which every remote answers (an RSKj remote
 * has no eth_getAccountInfo).
 */
export const accountInfo: Answer = async (ctx, params) => {
  const [balance, nonce, code] = await Promise.all([ask(ctx, params, 'eth_getBalance'), ask(ctx, params, 'eth_getTransactionCount'), ask(ctx, params, 'eth_getCode')])
  return { balance, nonce, code }
}

/**
 * The raw-transaction extensions for a transaction the remote mined at or below the forked block: rebuilt from the
 * remote's eth_getTransactionBy* answer (`remoteRawTransaction`; an RSKj remote has no raw-transaction method).
 */
export const rawByTx: Route = ofRemoteTx(async (_ctx, _hash, tx) => remoteRawTransaction(tx))

/**
 * eth_getRawTransactionByBlock…AndIndex of the remote's blocks (routed as the block methods, forkRoute.ts
 * `byNumber`/`byHash`): the remote's `method` answer (its eth_getTransactionByBlock…AndIndex) rebuilt as for `rawByTx`.
 */
export const rawTransactionFrom =
  (method: string): Answer =>
  async (ctx, params) =>
    remoteRawTransaction(await ask(ctx, params, method))
