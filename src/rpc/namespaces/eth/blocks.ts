/** Blocks, uncles and transaction counts (spec "Method reference: blocks and transactions"). */
import { bytesToHex } from '@ethereumjs/util'
import { blockHash, boolean, hexIndex, optional } from '../../codecs/primitives.js'
import { numberBlockId } from '../../codecs/rskjBlock.js'
import { blockHashNotFound, blockNotFound } from '../../../errors.js'
import { method, type MethodTable } from '../../method.js'
import { quantity } from '../../format/hex.js'
import { formatBlock } from '../../format/block.js'
import { blockById, blockIdText } from '../../resolve.js'

export const ethBlockMethods: MethodTable = {
  eth_getBlockByHash: method([blockHash, optional(boolean)], ({ node }, hash, full) => {
    const block = node.chain.store.getByHash(bytesToHex(hash))
    return block === undefined ? null : formatBlock(block, full ?? false)
  }),

  eth_getBlockByNumber: method([numberBlockId, optional(boolean)], ({ node, method: name }, sel, full) => {
    const block = blockById(node, sel, name)
    return block === undefined ? null : formatBlock(block, full ?? false)
  }),

  eth_getBlockTransactionCountByHash: method([blockHash], ({ node }, hash) => {
    const block = node.chain.store.getByHash(bytesToHex(hash))
    return block === undefined ? null : quantity(block.transactions.length)
  }),

  /**
   * RSKj `Web3InformationRetriever.getTransactions`: `pending` counts the pool's pending transactions (the queued ones,
   * a nonce ahead, are not counted; the REMASC transaction a mined block ends with is not among them), and a block the
   * chain does not have is -32600 `Block <id> not found` (not null, as `…ByHash` answers).
   */
  eth_getBlockTransactionCountByNumber: method([numberBlockId], ({ node, method: name }, sel) => {
    if (sel.kind === 'tag' && sel.tag === 'pending') return quantity(node.pool.pendingCount)
    const block = blockById(node, sel, name)
    if (block === undefined) throw blockNotFound(blockIdText(sel))
    return quantity(block.transactions.length)
  }),

  /** Unknown block → -32600 as RSKj (reference §2.6); simulated blocks have no uncles. */
  eth_getUncleCountByBlockHash: method([blockHash], ({ node }, hash) => {
    const hex = bytesToHex(hash)
    if (node.chain.store.getByHash(hex) === undefined) throw blockHashNotFound(hex.slice(2))
    return '0x0'
  }),

  eth_getUncleCountByBlockNumber: method([numberBlockId], ({ node, method: name }, sel) => {
    const block = blockById(node, sel, name)
    if (block === undefined) throw blockNotFound(blockIdText(sel))
    return '0x0'
  }),

  eth_getUncleByBlockHashAndIndex: method([blockHash, hexIndex], () => null),

  eth_getUncleByBlockNumberAndIndex: method([numberBlockId, hexIndex], ({ node, method: name }, sel) => {
    blockById(node, sel, name)
    return null
  }),
}
