/**
 * The canonical chain in memory: blocks by number and hash, and the transaction index. The simulator never
 * keeps side chains: `evm_revert`/`evm_reset` truncate it.
 */
import type { BlockRecord, TxLocation } from './types.js'

export class BlockStore {
  private readonly blocks: BlockRecord[] = []
  /**
   * The number of the first block kept: 0, or on a fork the forked block (the blocks below it are the remote's,
   * src/node/fork).
   */
  private base = 0n
  private readonly byHash = new Map<string, BlockRecord>()
  /**
   * Mined transactions' blocks by hash. The index is looked up on read: a stored { block, index } object per
   * transaction costs ~40 heap bytes on every mined block (each has at least the REMASC transaction).
   */
  private readonly txs = new Map<string, BlockRecord>()

  /** The newest block. */
  get head(): BlockRecord {
    return this.blocks[this.blocks.length - 1]!
  }

  get headNumber(): bigint {
    return this.base + BigInt(this.blocks.length - 1)
  }

  /** The first block kept: genesis, or the forked block. */
  get first(): BlockRecord {
    return this.blocks[0]!
  }

  /** The block `k` blocks below the head (0: the head), if kept. */
  back(k: number): BlockRecord | undefined {
    return k < 0 ? undefined : this.blocks[this.blocks.length - 1 - k]
  }

  byNumber(n: bigint): BlockRecord | undefined {
    const i = n - this.base
    return i < 0n || i >= BigInt(this.blocks.length) ? undefined : this.blocks[Number(i)]
  }

  /** `hashHex` is lowercase `0x` hex. */
  getByHash(hashHex: string): BlockRecord | undefined {
    return this.byHash.get(hashHex)
  }

  getTx(hashHex: string): TxLocation | undefined {
    const block = this.txs.get(hashHex)
    return block === undefined ? undefined : { block, index: block.transactions.findIndex((t) => t.hashHex === hashHex) }
  }

  /** Appends the next block; the first block appended to an empty store may have any number (a fork's). */
  append(block: BlockRecord): void {
    if (this.blocks.length === 0) this.base = block.number
    else if (block.number !== this.headNumber + 1n) throw new Error(`block ${block.number} does not follow ${this.headNumber}`)
    this.blocks.push(block)
    this.byHash.set(block.hashHex, block)
    for (const t of block.transactions) this.txs.set(t.hashHex, block)
  }

  /** Forgets every block (a fork moved to another block: hardhat_reset with `forking`). */
  clear(): void {
    this.blocks.length = 0
    this.byHash.clear()
    this.txs.clear()
    this.base = 0n
  }

  /** Drops every block above `n` (at least the first block stays); returns the dropped blocks, oldest first. */
  truncate(n: bigint): BlockRecord[] {
    const dropped = this.blocks.splice(Number(n - this.base) + 1)
    for (const b of dropped) {
      this.byHash.delete(b.hashHex)
      for (const t of b.transactions) this.txs.delete(t.hashHex)
    }
    return dropped
  }

  /** Blocks `from`..`to` inclusive, clamped to the chain. */
  range(from: bigint, to: bigint): BlockRecord[] {
    const lo = from < this.base ? 0 : Number(from - this.base)
    const hi = Math.min(Number(to - this.base), this.blocks.length - 1)
    return lo > hi ? [] : this.blocks.slice(lo, hi + 1)
  }
}
