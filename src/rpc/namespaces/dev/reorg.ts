/**
 * Anvil's `anvil_reorg(depth, [[transaction, offset], …])`: the newest `depth` blocks are replaced by `depth` new
 * ones, so the head's height stays and its hash changes, as a chain reorganisation looks to a client. Block `offset`
 * (0 = the first new block) holds the transactions paired with it, in the order the miner takes a pool's (RSKj's: the
 * gas price, then each sender's nonces); a transaction is a raw signed
 * one (hex) or a transaction object sent as `eth_sendTransaction` sends it (from a held key or an impersonated
 * address), whose nonce, when it names none, follows its sender's in the state and the earlier transactions of the
 * same block. Other pooled transactions stay in the pool. As in Anvil (1.7.1, checked by hand), a transaction the
 * engine refuses (no funds, a wrong nonce) is left out of its block, and the answer is null. Extension: -32601 in
 * hosted mode.
 */
import { bytesToHex } from '@ethereumjs/util'
import { invalidParams } from '../../../errors.js'
import { hexToBytesLoose, optional, quantity, show, type Codec } from '../../codecs/primitives.js'
import { txObject, type TxObject } from '../../codecs/transaction.js'
import { method, type HandlerContext, type MethodTable } from '../../method.js'
import { decodeRawTransaction } from '../../codecs/rawTransaction.js'
import type { TxRecord } from '../../../node/chain/types.js'
import { transactionFrom } from '../eth/transactions.js'

/**
 * Most blocks one reorg replaces. Its new blocks are built in one task of the node's queue (a client must never see
 * the chain half reorganised), at about 0.07-0.1 ms each, so the depth is bounded to keep other clients' requests
 * waiting no more than about 0.1 s. Anvil sets no bound; reorgs a test makes are a few blocks deep.
 */
export const MAX_REORG_DEPTH = 1_000n
/**
 * Most transactions one reorg takes: each is signed (twice for an object: checked first, then with its nonce) and run
 * in the same task, so the list is bounded as the depth is (1,000 transfers into 1,000 blocks: 0.45 s here; 20,000 into
 * one block held the queue 18 s before this bound).
 */
export const MAX_REORG_TRANSACTIONS = 1_000

/** A transaction of the reorg: raw bytes, or an object to sign when its block is built. */
type ReorgTx = { raw: Uint8Array } | { object: TxObject & { from: Uint8Array } }

/** `[[transaction, offset], …]`: Anvil's `tx_block_pairs`. */
const reorgPairs: Codec<[ReorgTx, bigint][]> = (v) => {
  if (!Array.isArray(v)) throw invalidParams(`Invalid reorg transactions ${show(v)}: expected an array of [transaction, block offset] pairs.`)
  if (v.length > MAX_REORG_TRANSACTIONS) throw invalidParams(`Invalid reorg transactions: at most ${MAX_REORG_TRANSACTIONS} per request, got ${v.length}`)
  return v.map((pair) => {
    if (!Array.isArray(pair) || pair.length !== 2) throw invalidParams(`Invalid reorg transaction ${show(pair)}: expected [transaction, block offset].`)
    const [tx, offset] = pair as [unknown, unknown]
    return [reorgTx(tx), quantity(offset)]
  })
}

function reorgTx(v: unknown): ReorgTx {
  if (typeof v === 'string') {
    if (!/^0x([0-9a-fA-F]{2})+$/.test(v)) throw invalidParams('Failed to decode transaction')
    return { raw: hexToBytesLoose(v.slice(2)) }
  }
  const object = txObject(v)
  if (object.from === undefined) throw invalidParams('Invalid reorg transaction: a transaction object needs from')
  return { object: { ...object, from: object.from } }
}

/** The record of one reorg transaction: decoded, or built as eth_sendTransaction builds it with `nonce` when its object names none. */
function recordOf(ctx: HandlerContext, tx: ReorgTx, nonce: bigint): TxRecord | Promise<TxRecord> {
  if ('raw' in tx) return decodeRawTransaction(tx.raw, ctx.node.chain.common)
  return transactionFrom(ctx, tx.object, tx.object.from, nonce)
}

export const devReorgMethods: MethodTable = {
  anvil_reorg: method([quantity, optional(reorgPairs)], async (ctx, depth, given) => {
    const { node } = ctx
    const pairs = given ?? []
    if (depth > MAX_REORG_DEPTH) {
      throw invalidParams(`Invalid reorg depth ${depth}: at most ${MAX_REORG_DEPTH} blocks per request (each new block is built in full while other requests wait)`)
    }
    for (const [, offset] of pairs) {
      if (offset >= depth) {
        throw invalidParams(`Block number for reorg tx will exceed the reorged chain height. Block number ${offset} must not exceed (depth-1) ${depth - 1n}`)
      }
    }
    // What can be refused without running is refused before anything changes: signing itself is checked (a zero nonce),
    // and a price below the blocks' minimum, which would make the new block one RSKj refuses.
    for (const [tx] of pairs) {
      const record = await recordOf(ctx, tx, 0n)
      // A nonce whose bytes RSKj's pool refuses (nonCanonicalTransaction.ts): its miner never gets it.
      if (record.nonceRefusal !== undefined) throw invalidParams(`Invalid reorg transaction: ${record.nonceRefusal}`)
      if (record.unheld !== undefined) throw invalidParams('Invalid reorg transaction: its gas limit, gas price or value is past what a transaction can hold')
      if (record.tx.gasPrice < node.options.minimumGasPrice) {
        throw invalidParams(`Invalid reorg transaction: transaction's gas price lower than block's minimum (${node.options.minimumGasPrice})`)
      }
    }
    await node.snapshots.rollback(node, depth, 'Reorg')
    for (let offset = 0n; offset < depth; offset++) {
      const records: TxRecord[] = []
      const next = new Map<string, bigint>()
      for (const [tx, at] of pairs) {
        if (at !== offset) continue
        let nonce = 0n
        if ('object' in tx) {
          const fromHex = bytesToHex(tx.object.from)
          nonce = next.get(fromHex) ?? (await node.chain.nonceAt(tx.object.from, node.chain.head))
          next.set(fromHex, nonce + 1n)
        }
        records.push(await recordOf(ctx, tx, nonce))
      }
      for (const t of records) node.pool.add(t, await node.chain.nonceAt(t.from, node.chain.head))
      await node.mine(undefined, new Set(records.map((t) => t.hashHex)))
      // What the engine refused is not left behind in the pool (Anvil leaves it out of the block, and forgets it).
      for (const t of records) if (node.pool.has(t.hashHex)) node.pool.remove(t)
    }
    return null
  }),
}
