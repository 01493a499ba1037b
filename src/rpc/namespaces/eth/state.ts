/** Account state reads at a block (spec "Method reference: state reads"). */
import { bigIntToBytes, bytesToHex, setLengthLeft } from '@ethereumjs/util'
import { address, optional, quantity as quantityCodec } from '../../codecs/primitives.js'
import { blockRef, LATEST } from '../../codecs/block.js'
import { method, type MethodTable } from '../../method.js'
import { quantity, data } from '../../format/hex.js'
import { readBlock, refusePending, stateBlock } from '../../resolve.js'

export const ethStateMethods: MethodTable = {
  eth_getBalance: method([address, optional(blockRef)], async ({ node }, addr, sel) =>
    quantity(await node.chain.balanceAt(addr, await readBlock(node, sel ?? LATEST))),
  ),

  eth_getStorageAt: method([address, quantityCodec, optional(blockRef)], async ({ node }, addr, slot, sel) => {
    const value = await node.chain.storageAt(addr, setLengthLeft(bigIntToBytes(slot), 32), await readBlock(node, sel ?? LATEST))
    return data(setLengthLeft(value, 32))
  }),

  /** `pending` counts the sender's pending pool transactions, so wallets get the next free nonce. */
  eth_getTransactionCount: method([address, optional(blockRef)], async ({ node }, addr, sel) => {
    const selector = sel ?? LATEST
    const nonce = await node.chain.nonceAt(addr, stateBlock(node, selector))
    if (selector.kind === 'tag' && selector.tag === 'pending') return quantity(node.pool.nextNonce(bytesToHex(addr), nonce))
    return quantity(nonce)
  }),

  /** A number above the head answers null, as RSKj's `EthModule.getCode` does (reference §2.7). */
  eth_getCode: method([address, optional(blockRef)], async ({ node, method: name }, addr, sel) => {
    const selector = sel ?? LATEST
    if (selector.kind === 'tag' && selector.tag === 'pending') throw refusePending(name)
    if (selector.kind === 'number' && selector.number > node.chain.store.headNumber) return null
    return data(await node.chain.codeAt(addr, stateBlock(node, selector)))
  }),
}
