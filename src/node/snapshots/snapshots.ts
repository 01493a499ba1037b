/**
 * evm_snapshot / evm_revert / evm_reset (reference §3.3). A snapshot records the head number, the live state root,
 * the pool's contents and the clock (offset, drift and pinned next timestamp, as Hardhat's snapshot keeps them);
 * reverting truncates the chain, moves the live state back to the recorded root when it differs (trie nodes are never
 * pruned, so this is O(1)) and restores the pool and the clock. The live root is recorded rather than the head
 * block's because dev-chain edits (`anvil_setBalance`, …) change the state between blocks. As in RSKj, reverting
 * keeps the snapshot and every earlier one, so an id can be reverted to again; later ids are dropped.
 */
import { Address, equalsBytes } from '@ethereumjs/util'
import type { RskNode } from '../node.js'
import type { TxRecord } from '../chain/types.js'
import { toAddressBytes } from '../accounts.js'
import { ChainTooShort } from '../errors.js'

interface Snapshot {
  number: bigint
  /** Live state root when the snapshot was taken. */
  root: Uint8Array
  /** TrieStore position (chain.trees.mark()). */
  nodes: number
  pool: TxRecord[]
  clockOffset: bigint
  clockDrift: bigint
  /** `evm_setNextBlockTimestamp`'s time when the snapshot was taken: a pin set after it must not outlive a revert. */
  clockPinned: bigint | undefined
}

export class Snapshots {
  private list: Snapshot[] = []

  /** The state roots snapshots may go back to (kept when old states are released: `stateHistory`). */
  roots(): Uint8Array[] {
    return this.list.map((s) => s.root)
  }

  /** The snapshots that can be reverted to: each id (as `take` answered it) and the head's number when it was taken. */
  entries(): { id: number; number: bigint }[] {
    return this.list.map((s, i) => ({ id: i + 1, number: s.number }))
  }

  /** Records the node's state; returns the 1-based id. */
  async take(node: RskNode): Promise<number> {
    const root = await node.chain.state.getStateRoot()
    this.list.push({ number: node.chain.store.headNumber, root, nodes: node.chain.trees.mark(), pool: node.pool.save(), clockOffset: node.clock.offset, clockDrift: node.clock.drift, clockPinned: node.clock.pinned })
    return this.list.length
  }

  /** Reverts to snapshot `id`; false when there is no such snapshot. */
  async revert(node: RskNode, id: number): Promise<boolean> {
    const snap = id >= 1 ? this.list[id - 1] : undefined
    if (snap === undefined) return false
    this.list.length = id
    await rewind(node, snap.number, snap.root, snap.nodes, snap.pool)
    node.clock.offset = snap.clockOffset
    node.clock.drift = snap.clockDrift
    node.clock.pinned = snap.clockPinned
    return true
  }

  /**
   * Removes the newest `depth` blocks (Anvil's `anvil_rollback`, and the first step of its `anvil_reorg`): the head becomes block head − depth, with its
   * state; the pool keeps what still fits the state's nonces (as after a revert); snapshots taken above the new head
   * are dropped (they name blocks that are gone). The clock is left as it is. Throws ChainTooShort when the chain is
   * shorter than `depth` above its first block, StateNotKept when that block's state was released (`stateHistory`).
   */
  async rollback(node: RskNode, depth: bigint, what: 'Rollback' | 'Reorg' = 'Rollback'): Promise<void> {
    const { store } = node.chain
    const number = store.headNumber - depth
    if (depth < 0n || number < store.first.number) {
      // Anvil's text; on a fork the chain starts at the forked block, not at 0.
      const start = store.first.number === 0n ? '' : ` (the chain starts at the forked block ${store.first.number})`
      throw new ChainTooShort(`${what} depth must not exceed current chain height: current height ${store.headNumber}, depth ${depth}${start}`)
    }
    const block = store.byNumber(number)!
    await node.chain.requireState(block)
    this.list = this.list.filter((s) => s.number <= number)
    await rewind(node, number, block.header.stateRoot, undefined, node.pool.save())
  }

  /** Back to genesis (on a fork: the forked block) with an empty pool and no snapshots. */
  async reset(node: RskNode): Promise<void> {
    this.list = []
    await rewind(node, node.chain.store.first.number, node.chain.store.first.header.stateRoot, node.chain.genesisTrees, [])
    node.clock.offset = 0n
    node.clock.drift = 0n
  }
}

/** `nodesMark`: the trie nodes added after it are dropped (a snapshot's); without it they are kept. */
async function rewind(node: RskNode, number: bigint, root: Uint8Array, nodesMark: number | undefined, pool: TxRecord[]): Promise<void> {
  const { chain } = node
  const dropped = number < chain.store.headNumber ? chain.store.truncate(number) : []
  if (dropped.length > 0) chain.forgetViews()
  chain.trees.setEra(chain.store.headNumber)
  if (dropped.length > 0 || !equalsBytes(await chain.state.getStateRoot(), root)) {
    await chain.state.setStateRoot(root)
    // A snapshot taken after a dev-chain edit holds a state the head did not leave: the next block records it.
    chain.stateEdited()
    if (nodesMark !== undefined) chain.trees.rollback(nodesMark)
  }
  await node.pool.restore(pool, async (sender) => {
    const account = await chain.state.getAccount(new Address(toAddressBytes(sender)))
    return account?.nonce ?? 0n
  })
  if (dropped.length > 0) node.announceRemoved(dropped)
}
