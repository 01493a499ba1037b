/**
 * `eth_getBlockReceipts(block)`, as geth and Anvil answer it. RSKj has no such method (-32601 `method not found`), so
 * it is an extension: answered in the default mode only (src/rpc/methods.ts EXTENSION_TABLES).
 *
 * - `block`: eth_getBalance's block forms (`blockRef`): `latest`, `earliest`, a number (`0x` hex; decimal too, as RSKj
 *   reads block references), a 32-byte block hash, or EIP-1898's `{ blockHash }` / `{ blockNumber }`. `pending` is
 *   refused (below); `safe` and `finalized` are refused as the other block methods refuse them.
 * - Answer: the block's receipts in block order, each exactly as eth_getTransactionReceipt answers it (the same
 *   formatter), the REMASC system transaction's last; `null` for a block this chain does not have. On a fork the
 *   forked block and those below it are the remote's (src/rpc/forkExtensions.ts).
 */
import { invalidParams } from '../../../errors.js'
import { blockRef } from '../../codecs/block.js'
import { method, type MethodTable } from '../../method.js'
import { formatReceipt } from '../../format/receipt.js'
import { blockById } from '../../resolve.js'

export const ethBlockReceiptsMethods: MethodTable = {
  eth_getBlockReceipts: method([blockRef], ({ node, method: name }, sel) => {
    // The pending block's transactions have no receipt until it is mined (RSKj: eth_getTransactionReceipt answers null
    // for them; TraceModuleImpl.buildBlockTraces uses an empty one). Anvil answers null, which would read as "no such
    // block"; this says why instead.
    if (sel.kind === 'tag' && sel.tag === 'pending') {
      throw invalidParams("eth_getBlockReceipts does not answer 'pending': its transactions have no receipts until the block is mined (evm_mine); ask 'latest' or a block number")
    }
    const block = blockById(node, sel, name)
    return block === undefined ? null : block.transactions.map((_, index) => formatReceipt({ block, index }))
  }),
}
