/** The pool after a dev-chain edit of nonces or balances: what became mineable or stale is moved as after a block. */
import { hexToBytes, type PrefixedHexString } from '@ethereumjs/util'
import type { RskNode } from '../../../node/node.js'

export async function settlePool(node: RskNode): Promise<void> {
  const head = node.chain.head
  await node.pool.settle(async (sender) => node.chain.nonceAt(hexToBytes(sender as PrefixedHexString), head))
}
