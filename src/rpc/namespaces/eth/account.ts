/**
 * An account's fields in one request, as geth (`eth_getAccount`) and Anvil (`eth_getAccountInfo`) answer them. RSKj
 * has neither (-32601 `method not found`), so they are extensions: answered in the default mode only
 * (src/rpc/methods.ts EXTENSION_TABLES). Field orders are Anvil 1.7.1's, taken from its answers.
 *
 * - `eth_getAccount(address, block)` → `{ nonce, balance, storageRoot, codeHash }`: the account's leaf in the state
 *   trie, as eth_getProof proves it (`storageRoot` is eth_getProof's `storageHash`: the root of rsksim's Ethereum
 *   storage trie, not RSK's Unitrie; docs/compatibility.md "Chain model"). An absent account is all zero with the
 *   empty trie's root and the empty code's hash, as geth and Anvil answer.
 * - `eth_getAccountInfo(address, block)` → `{ balance, nonce, code }`: what eth_getBalance, eth_getTransactionCount
 *   and eth_getCode answer at that block, read together.
 *
 * `block` takes eth_getBalance's forms, `pending` included, and defaults to `latest` (geth and Anvil require it; the
 * service's other state reads default it, spec "Block parameter forms").
 */
import { address, optional } from '../../codecs/primitives.js'
import { blockRef, LATEST } from '../../codecs/block.js'
import { method, type MethodTable } from '../../method.js'
import { data, quantity } from '../../format/hex.js'
import { readBlock } from '../../resolve.js'
import { accountProof } from '../../../node/chain/proofs.js'
import { provenBlock } from './proof.js'

export const ethAccountMethods: MethodTable = {
  eth_getAccount: method([address, optional(blockRef)], async ({ node }, addr, sel) => {
    const a = await accountProof(node.chain, await provenBlock(node, sel ?? LATEST), addr, [])
    return { nonce: quantity(a.nonce), balance: quantity(a.balance), storageRoot: data(a.storageHash), codeHash: data(a.codeHash) }
  }),

  eth_getAccountInfo: method([address, optional(blockRef)], async ({ node }, addr, sel) => {
    const block = await readBlock(node, sel ?? LATEST)
    const balance = await node.chain.balanceAt(addr, block)
    const nonce = await node.chain.nonceAt(addr, block)
    return { balance: quantity(balance), nonce: quantity(nonce), code: data(await node.chain.codeAt(addr, block)) }
  }),
}
