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
import { prefixSize, rlpListLength, writePrefix } from '../../node/rlp.js'
import type { BlockRecord } from '../../node/chain/types.js'

/**
 * RSKj `Block.getEncoded()`: the header's full encoding, the transactions as signed, no uncles (rsksim mines none);
 * written from the encodings themselves, each already an RLP item.
 */
function encodeBlock(block: BlockRecord): Uint8Array {
  const header = encodeRskHeaderWithMergedMining(block.header)
  const txBytes = block.transactions.reduce((n, t) => n + t.raw.length, 0)
  const txList = prefixSize(txBytes) + txBytes
  const out = new Uint8Array(rlpListLength(header.length + txList + 1))
  let o = writePrefix(out, 0, header.length + txList + 1, 0xc0)
  out.set(header, o)
  o = writePrefix(out, o + header.length, txBytes, 0xc0)
  for (const t of block.transactions) {
    out.set(t.raw, o)
    o += t.raw.length
  }
  out[o] = 0xc0 // no uncles
  return out
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
