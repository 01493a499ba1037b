/**
 * evm_snapshot / evm_revert / evm_reset (reference §3.3). A snapshot records the head number, the pool's contents
 * and the clock offset; reverting truncates the chain, moves the live state back to that block's state root
 * (trie nodes are never pruned, so this is O(1)) and restores the pool and the clock. As in RSKj, reverting keeps
 * the snapshot and every earlier one, so an id can be reverted to again; later ids are dropped.
 */
import { Address } from '@ethereumjs/util'
import type { RskNode } from '../node.js'
import type { TxRecord } from '../chain/types.js'
import { toAddressBytes } from '../accounts.js'

interface Snapshot {
  number: bigint
  /** Trie-node journal position (chain.nodes.mark()). */
  nodes: number
  pool: TxRecord[]
  clockOffset: bigint
}

export class Snapshots {
  private list: Snapshot[] = []

  /** Records the node's state; returns the 1-based id. */
  take(node: RskNode): number {
    this.list.push({ number: node.chain.store.headNumber, nodes: node.chain.nodes.mark(), pool: node.pool.save(), clockOffset: node.clock.offset })
    return this.list.length
  }

  /** Reverts to snapshot `id`; false when there is no such snapshot. */
  async revert(node: RskNode, id: number): Promise<boolean> {
    const snap = id >= 1 ? this.list[id - 1] : undefined
    if (snap === undefined) return false
    this.list.length = id
    await rewind(node, snap.number, snap.nodes, snap.pool)
    node.clock.offset = snap.clockOffset
    return true
  }

  /** Back to genesis with an empty pool and no snapshots. */
  async reset(node: RskNode): Promise<void> {
    this.list = []
    await rewind(node, 0n, node.chain.genesisNodes, [])
    node.clock.offset = 0n
  }
}

async function rewind(node: RskNode, number: bigint, nodesMark: number, pool: TxRecord[]): Promise<void> {
  const { chain } = node
  const dropped = number < chain.store.headNumber ? chain.store.truncate(number) : []
  if (dropped.length > 0) {
    chain.forgetViews()
    await chain.state.setStateRoot(chain.head.header.stateRoot)
    chain.nodes.rollback(nodesMark)
  }
  await node.pool.restore(pool, async (sender) => {
    const account = await chain.state.getAccount(new Address(toAddressBytes(sender)))
    return account?.nonce ?? 0n
  })
  if (dropped.length > 0) node.events.emit('blocksRemoved', dropped)
}
