/**
 * The canonical chain in memory: blocks by number and hash, and the transaction index. The simulator never
 * keeps side chains: `evm_revert`/`evm_reset` truncate it.
 */
import type { BlockRecord, TxLocation } from './types.js'

export class BlockStore {
  private readonly blocks: BlockRecord[] = []
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
    return BigInt(this.blocks.length - 1)
  }

  byNumber(n: bigint): BlockRecord | undefined {
    return n < 0n || n >= BigInt(this.blocks.length) ? undefined : this.blocks[Number(n)]
  }

  /** `hashHex` is lowercase `0x` hex. */
  getByHash(hashHex: string): BlockRecord | undefined {
    return this.byHash.get(hashHex)
  }

  getTx(hashHex: string): TxLocation | undefined {
    const block = this.txs.get(hashHex)
    return block === undefined ? undefined : { block, index: block.transactions.findIndex((t) => t.hashHex === hashHex) }
  }

  append(block: BlockRecord): void {
    if (block.number !== BigInt(this.blocks.length)) throw new Error(`block ${block.number} does not follow ${this.headNumber}`)
    this.blocks.push(block)
    this.byHash.set(block.hashHex, block)
    for (const t of block.transactions) this.txs.set(t.hashHex, block)
  }

  /** Drops every block above `n`; returns the dropped blocks, oldest first. */
  truncate(n: bigint): BlockRecord[] {
    const dropped = this.blocks.splice(Number(n) + 1)
    for (const b of dropped) {
      this.byHash.delete(b.hashHex)
      for (const t of b.transactions) this.txs.delete(t.hashHex)
    }
    return dropped
  }

  /** Blocks `from`..`to` inclusive, clamped to the chain. */
  range(from: bigint, to: bigint): BlockRecord[] {
    const lo = from < 0n ? 0 : Number(from)
    const hi = Math.min(Number(to), this.blocks.length - 1)
    return lo > hi ? [] : this.blocks.slice(lo, hi + 1)
  }
}
