/** Blocks, uncles and transaction counts (spec "Method reference: blocks and transactions"). */
import { bytesToHex } from '@ethereumjs/util'
import { blockHash, foundBlockIndex, hexIndex, javaBoolean, orNull, type Codec } from '../../codecs/primitives.js'
import { numberBlockId, numberBlockIdText } from '../../codecs/rskjBlock.js'
import { retrieverBlockId } from '../../codecs/rskjText.js'
import { blockHashNotFound, blockNotFound, invalidParams } from '../../../errors.js'
import { method, type MethodTable } from '../../method.js'
import { quantity } from '../../format/hex.js'
import { formatBlock } from '../../format/block.js'
import { blockById, blockIdText } from '../../resolve.js'

/**
 * The second parameter of eth_getBlockByHash and eth_getBlockByNumber, RSKj's `Boolean fullTransactionObjects`
 * (co/rsk/rpc/Web3EthModule.java), read as Jackson reads a `Boolean` (`javaBoolean`: null for Java's null Boolean);
 * omitted: false (spec "Method reference"; RSKj wants both parameters). In process, `undefined` is omitted, as for
 * every optional parameter (`optional`): it is no JSON value.
 */
const fullTransactionObjects: Codec<boolean | null | undefined> = Object.assign((v: unknown) => (v === undefined ? undefined : javaBoolean(v)), {
  optional: true,
})

/**
 * The block formatted, once found: RSKj unboxes the Boolean only then (`Web3Impl.getBlockResult(Block, boolean)`), so a
 * null Boolean answers null where no block is found and, where one is, throws a NullPointerException that RSKj's
 * `RskErrorResolver` answers -32603 `Internal server error`; rsksim answers -32602 (docs/compatibility.md).
 */
function blockResult(block: Parameters<typeof formatBlock>[0] | undefined, full: boolean | null | undefined): unknown {
  if (block === undefined) return null
  if (full === null) throw invalidParams('Invalid argument: fullTransactionObjects is null (JSON null, "" or "null"), which RSKj cannot read for a block it finds; pass true or false.')
  return formatBlock(block, full ?? false)
}

export const ethBlockMethods: MethodTable = {
  /** A JSON `null` hash reaches the method, which refuses it after the second parameter is read (`Web3Impl`). */
  eth_getBlockByHash: method([orNull(blockHash), fullTransactionObjects], ({ node }, hash, full) => {
    if (hash === null) throw invalidParams('blockHash is null')
    return blockResult(node.chain.store.getByHash(bytesToHex(hash)), full)
  }),

  eth_getBlockByNumber: method([numberBlockIdText, fullTransactionObjects], ({ node, method: name }, id, full) =>
    blockResult(blockById(node, retrieverBlockId(id), name), full),
  ),

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

  /** A `null` index: null where no block is found, else -32602 (`foundBlockIndex`). */
  eth_getUncleByBlockHashAndIndex: method([blockHash, orNull(hexIndex)], ({ node }, hash, index) => {
    if (node.chain.store.getByHash(bytesToHex(hash)) !== undefined) foundBlockIndex(index)
    return null
  }),

  eth_getUncleByBlockNumberAndIndex: method([numberBlockIdText, orNull(hexIndex)], ({ node, method: name }, id, index) => {
    if (blockById(node, retrieverBlockId(id), name) !== undefined) foundBlockIndex(index)
    return null
  }),
}
