/** Account state reads at a block (spec "Method reference: state reads"). */
import { bigIntToBytes, bytesToHex, setLengthLeft } from '@ethereumjs/util'
import { address, hexNumberText, javaNumber, optional } from '../../codecs/primitives.js'
import { LATEST } from '../../codecs/block.js'
import { stateBlockRef } from '../../codecs/rskjBlock.js'
import { method, type MethodTable } from '../../method.js'
import { quantity, data } from '../../format/hex.js'
import { readBlock, refusePending, stateBlock } from '../../resolve.js'

export const ethStateMethods: MethodTable = {
  eth_getBalance: method([address, optional(stateBlockRef)], async ({ node }, addr, sel) =>
    quantity(await node.chain.balanceAt(addr, await readBlock(node, sel ?? LATEST))),
  ),

  /**
   * The position is read in RSKj's order (`Web3Impl.eth_getStorageAt`): `HexNumberParam`'s check when the parameters are
   * read, then the block (`Web3InformationRetriever.getInformationProvider`), then the number
   * (`HexUtils.strHexOrStrNumberToByteArray`), so a block that is not found wins over a position such as `ff`.
   */
  eth_getStorageAt: method([address, hexNumberText, optional(stateBlockRef)], async ({ node }, addr, position, sel) => {
    const block = await readBlock(node, sel ?? LATEST)
    const slot = javaNumber(position)
    const value = await node.chain.storageAt(addr, setLengthLeft(bigIntToBytes(slot), 32), block)
    return data(setLengthLeft(value, 32))
  }),

  /** `pending` counts the sender's pending pool transactions, so wallets get the next free nonce. */
  eth_getTransactionCount: method([address, optional(stateBlockRef)], async ({ node }, addr, sel) => {
    const selector = sel ?? LATEST
    const nonce = await node.chain.nonceAt(addr, stateBlock(node, selector))
    if (selector.kind === 'tag' && selector.tag === 'pending') return quantity(node.pool.nextNonce(bytesToHex(addr), nonce))
    return quantity(nonce)
  }),

  /**
   * A block number the chain does not have (above the head, or negative: `0x-1`) answers null, as RSKj's
   * `EthModule.getCode` does (reference §2.7); so does a block hash given as the identifier (which the spec lets
   * eth_getCode take; RSKj's getCode reads it as a number) that names no block. An EIP-1898 `{blockHash}` it does not
   * have is -32600, as `Web3Impl.toInvokeByBlockHash` answers.
   */
  eth_getCode: method([address, optional(stateBlockRef)], async ({ node, method: name }, addr, sel) => {
    const selector = sel ?? LATEST
    if (selector.kind === 'tag' && selector.tag === 'pending') throw refusePending(name)
    const store = node.chain.store
    if (selector.kind === 'number' && store.byNumber(selector.number) === undefined) return null
    if (selector.kind === 'hash' && !selector.fromMap && store.getByHash(bytesToHex(selector.hash)) === undefined) return null
    return data(await node.chain.codeAt(addr, stateBlock(node, selector)))
  }),
}
