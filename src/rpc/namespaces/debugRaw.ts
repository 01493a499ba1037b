/**
 * geth's raw-data debug methods, standardised by ethereum/execution-apis (`debug_getRawHeader`, `debug_getRawBlock`,
 * `debug_getRawReceipts`; `debug_getRawTransaction` is in eth/rawTransactions.ts). RSKj has none of them (-32601
 * `method not found`): extensions, answered in the default mode only (src/rpc/methods.ts EXTENSION_TABLES).
 *
 * The bytes are RSK's own encodings, the ones RSKj writes and the chain_* methods answer:
 * - header: `BlockHeader.getEncoded()`, what chain_getRawBlockHeaderByNumber answers (RskModuleImpl);
 * - block: `Block.getEncoded()`, RLP [header with its merged-mining proof and coinbase (`getFullEncoded`), [signed
 *   transactions, the REMASC one last], [uncles]], whose length is the block's `size`;
 * - receipts: each transaction's RSK receipt RLP, what chain_getRawTransactionReceiptByHash answers, in block order.
 *
 * The block takes eth_getBalance's forms (a number, a tag, a hash, EIP-1898's maps); `pending` is the pending block as
 * trace_block and chain_getRawBlockHeaderByNumber answer it (its transactions executed, no merged-mining data); an
 * unknown block answers null.
 */
import { blockRef } from '../codecs/block.js'
import { method, type MethodTable } from '../method.js'
import { data } from '../format/hex.js'
import { blockOrPending } from '../resolve.js'
import { encodeRskHeaderFull, encodeRskHeaderWithMergedMining } from '../../node/rsk/header/header.js'
import { encodeRskReceipt } from '../../node/chain/tries.js'
import { rlpDecode, rlpEncode } from '../../node/rlp.js'
import type { BlockRecord } from '../../node/chain/types.js'

/** RSKj `Block.getEncoded()`: the header's full encoding, the transactions as signed, no uncles (rsksim mines none). */
function encodeBlock(block: BlockRecord): Uint8Array {
  return rlpEncode([rlpDecode(encodeRskHeaderWithMergedMining(block.header)) as Uint8Array[], block.transactions.map((t) => rlpDecode(t.raw) as Uint8Array[]), []])
}

export const debugRawMethods: MethodTable = {
  debug_getRawHeader: method([blockRef], async ({ node, method: name }, sel) => {
    const block = await blockOrPending(node, sel, name)
    return block === undefined ? null : data(encodeRskHeaderFull(block.header))
  }),
  debug_getRawBlock: method([blockRef], async ({ node, method: name }, sel) => {
    const block = await blockOrPending(node, sel, name)
    return block === undefined ? null : data(encodeBlock(block))
  }),
  debug_getRawReceipts: method([blockRef], async ({ node, method: name }, sel) => {
    const block = await blockOrPending(node, sel, name)
    return block === undefined ? null : block.receipts.map((r) => data(encodeRskReceipt(r)))
  }),
}
