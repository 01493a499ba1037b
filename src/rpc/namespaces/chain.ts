/**
 * chain_getRawBlockHeaderByHash/ByNumber, chain_getRawTransactionReceiptByHash,
 * chain_getTransactionReceiptNodesByHash, chain_protocolVersion (reference §3.6, RSKj
 * `co/rsk/rpc/modules/rsk/RskModuleImpl.java`). The `rsk_` aliases are added by methods.ts.
 */
import { bytesToHex } from '@ethereumjs/util'
import { invalidParams } from '../../errors.js'
import { type Codec } from '../codecs/primitives.js'
import { blockHashText, hashText, retrieverBlockId } from '../codecs/rskjText.js'
import { method, noParams, type MethodTable } from '../method.js'
import { data } from '../format/hex.js'
import { blockOrPending } from '../resolve.js'
import { encodeRskHeaderFull } from '../../node/rsk/header/header.js'
import { encodeRskReceipt } from '../../node/chain/tries.js'
import { receiptNodes } from '../../node/chain/proofs.js'

/**
 * getTransactionReceiptNodesByHash's transaction hash, a plain `String`: `HexUtils.stringHexToByteArray`, then
 * `new Keccak256(bytes)`, which wants 32 bytes (an IllegalArgumentException, -32603 in RSKj, -32602 here).
 */
const txHashText: Codec<Uint8Array> = (v) => {
  const bytes = hashText(v)
  if (bytes.length !== 32) throw invalidParams('Invalid transaction hash: incorrect length.')
  return bytes
}

export const chainMethods: MethodTable = {
  /**
   * RLP of the RSK header as RSKj answers it (`RskModuleImpl`: `BlockHeader.getEncoded()`, the uncompressed form:
   * logs bloom in field 6, then version, edges and base event for version-1/2 headers; null if unknown). The block
   * hash is keccak-256 of the compressed form instead, so keccak256(result) equals the hash for version-0 headers
   * (genesis) only: decode the header and hash `getEncodedForHash()` (docs/modules/proofs-calls.md). The hash is a
   * plain `String` (`HexUtils.stringHexToByteArray`, so 63 digits without `0x` are left-padded; the block cache's
   * `Keccak256` key wants 32 bytes): `blockHashText`.
   */
  chain_getRawBlockHeaderByHash: method([blockHashText], ({ node }, hash) => {
    const block = node.chain.store.getByHash(bytesToHex(hash))
    return block === undefined ? null : data(encodeRskHeaderFull(block.header))
  }),

  /**
   * Id read as `Web3InformationRetriever.getBlock` does (`RskModuleImpl.getRawBlockHeaderByNumber` takes a plain
   * `String`, no parameter class): lower-case tags, 64 to 66 characters of lower-case hex as a hash, else a `0x` number's
   * low 64 bits (`retrieverBlockId`). `pending`
   * answers the header of the pending block RSKj builds for it (`ExecutionBlockRetriever`, src/node/miner/pendingSeal.ts):
   * the block the miner would mine now, executed, with empty extraData and merged-mining fields.
   */
  chain_getRawBlockHeaderByNumber: method([retrieverBlockId], async ({ node, method: name }, sel) => {
    const block = await blockOrPending(node, sel, name)
    return block === undefined ? null : data(encodeRskHeaderFull(block.header))
  }),

  /**
   * RSK receipt RLP `[postTxState, cumulativeGas, bloom, logs, gasUsed, status]`; null if not mined. The hash is a plain
   * `String` read by `HexUtils.stringHexToByteArray` and looked up as it is (`ReceiptStoreImpl.getInMainChain`), so hex
   * of another length than 32 bytes finds no receipt: null (`hashText`).
   */
  chain_getRawTransactionReceiptByHash: method([hashText], ({ node }, hash) => {
    const loc = node.chain.store.getTx(bytesToHex(hash))
    return loc === undefined ? null : data(encodeRskReceipt(loc.block.receipts[loc.index]!))
  }),

  /**
   * Receipts-trie nodes proving the receipt of `tx` against the block's `receiptsRoot`, root first; null when the
   * transaction is not in that block. An unknown block also answers null (RSKj fails there with a
   * NullPointerException, i.e. -32603). Both hashes are plain `String`s made `Keccak256`s (`blockHashText`,
   * `txHashText`).
   */
  chain_getTransactionReceiptNodesByHash: method([blockHashText, txHashText], async ({ node }, bHash, tHash) => {
    const block = node.chain.store.getByHash(bytesToHex(bHash))
    if (block === undefined) return null
    const wanted = bytesToHex(tHash)
    const index = block.transactions.findIndex((t) => t.hashHex === wanted)
    if (index < 0) return null
    return (await receiptNodes(block, index)).map(data)
  }),

  /** RSKj `RskModule.protocolVersion` (reference §3.6). */
  chain_protocolVersion: noParams(() => '0x3e'),
}
