/**
 * The canonical chain in memory: blocks by number and hash, and the transaction index. The simulator never
 * keeps side chains: `evm_revert`/`evm_reset` truncate it.
 *
 * The newest blocks (`recent`, 4,096 by default) are kept as records; older ones are kept packed (blockPack.ts) in a
 * byte arena and unpacked when read, the last few unpacked ones remembered. A mined block with a token transfer
 * takes about 5 KB of heap as a record and about 1.3 KB packed, outside the heap included (docs/performance.md): a
 * node that runs for days keeps its whole chain in a quarter of the memory, while tests, which read recent blocks,
 * read records. Reading a packed block costs its unpacking and its garbage: a log query from block 0 over 6,000 blocks
 * that all match took 76-135 ms against 40-57 ms over records (docs/performance.md, eighth round; log queries skip,
 * unpacked, the blocks whose bloom cannot match). The first block (genesis, or a fork's forked block) and the head
 * always stay records.
 */
import type { Common } from '@ethereumjs/common'
import { ByteArena } from './byteArena.js'
import { packBlock, packedBlockBloom, packedBlockHash, packedBlockKeys, unpackBlock } from './blockPack.js'
import { flatHex } from './flatHex.js'
import { PrefixIndex } from './prefixIndex.js'
import { RecentMap } from '../recentMap.js'
import type { BlockRecord, TxLocation } from './types.js'

/**
 * Blocks kept as records by default (about 20 MB of heap with a token transfer each): more than merged mining's fork
 * detection reads back (449), and than most test suites mine between reverts.
 */
export const RECENT_BLOCKS = 4096
/** Records packed at a time once past `recent`. */
const PACK_BATCH = 256
/** Unpacked blocks remembered, so that the requests of one test reading an old block unpack it once. */
const UNPACKED_KEPT = 64

export class BlockStore {
  /** The number of the first block: 0, or on a fork the forked block (the blocks below it are the remote's). */
  private base = 0n
  private firstBlock?: BlockRecord
  /**
   * Blocks 1 to `packedEnd - 1` above the first, packed: their positions in `arena` and lengths. Blocks from
   * `packedEnd` on are the records of `recentBlocks`.
   */
  private packedEnd = 1
  private readonly positions: number[] = []
  private readonly lengths: number[] = []
  private readonly arena = new ByteArena()
  private recentBlocks: BlockRecord[] = []
  private readonly unpacked = new RecentMap<number, BlockRecord>(UNPACKED_KEPT)
  /** Where packed blocks' blooms are checked by `blocksIn` (one buffer for every block). */
  private readonly bloomScratch = new Uint8Array(256)
  /** Blocks by hash, and mined transactions' blocks by transaction hash: indexes of blocks above the first. */
  private readonly byHash = new PrefixIndex()
  private readonly txs = new PrefixIndex()

  constructor(
    private readonly common: Common,
    /** How many of the newest blocks stay records (at least 1). */
    private recent = RECENT_BLOCKS,
  ) {}

  /** Keeps only the newest `n` blocks as records (packing the others now). */
  keepRecent(n: number): void {
    this.recent = Math.max(1, n)
    if (this.recentBlocks.length > this.recent) this.packOldest(this.recentBlocks.length - this.recent)
  }

  /** The newest block. */
  get head(): BlockRecord {
    return this.recentBlocks[this.recentBlocks.length - 1] ?? this.first
  }

  get headNumber(): bigint {
    return this.base + BigInt(this.length - 1)
  }

  /** The first block kept: genesis, or the forked block. */
  get first(): BlockRecord {
    return this.firstBlock!
  }

  /** The block `k` blocks below the head (0: the head), if kept: on a fork, none below the forked block. */
  back(k: number): BlockRecord | undefined {
    return k < 0 || k >= this.length ? undefined : this.at(this.length - 1 - k)
  }

  byNumber(n: bigint): BlockRecord | undefined {
    const i = n - this.base
    return i < 0n || i >= BigInt(this.length) ? undefined : this.at(Number(i))
  }

  /** `hashHex` is lowercase `0x` hex. */
  getByHash(hashHex: string): BlockRecord | undefined {
    if (this.firstBlock?.hashHex === hashHex) return this.firstBlock
    const i = this.byHash.find(hashHex, (i) => this.hashHexAt(i) === hashHex)
    return i === undefined ? undefined : this.at(i)
  }

  getTx(hashHex: string): TxLocation | undefined {
    const inBlock = (block: BlockRecord | undefined): TxLocation | undefined => {
      const index = block === undefined ? -1 : block.transactions.findIndex((t) => t.hashHex === hashHex)
      return index === -1 ? undefined : { block: block!, index }
    }
    let found = inBlock(this.firstBlock)
    if (found === undefined) this.txs.find(hashHex, (i) => (found = inBlock(this.at(i))) !== undefined)
    return found
  }

  /** Appends the next block; the first block appended to an empty store may have any number (a fork's). */
  append(block: BlockRecord): void {
    if (this.firstBlock === undefined) {
      this.base = block.number
      this.firstBlock = block
      return
    }
    if (block.number !== this.headNumber + 1n) throw new Error(`block ${block.number} does not follow ${this.headNumber}`)
    const i = this.length
    this.recentBlocks.push(block)
    this.byHash.add(block.hashHex, i)
    for (const t of block.transactions) this.txs.add(t.hashHex, i)
    // In batches: taking the first of 4,096 records out of the array moves the others (a few µs).
    if (this.recentBlocks.length >= this.recent + Math.min(PACK_BATCH, this.recent)) this.packOldest(this.recentBlocks.length - this.recent)
  }

  /** How many of the newest blocks stay records. */
  get recentLimit(): number {
    return this.recent
  }

  /**
   * Appends the next block in its packed form (blockPack.ts), kept packed: no record is built (a database opening
   * with its old blocks). Records appended before it are packed first, so blocks stay in order; the first block must
   * be a record, and so must the newest (`head` reads a record): the caller appends those with `append`.
   */
  appendPacked(packed: Uint8Array): void {
    if (this.firstBlock === undefined) throw new Error('the first block of a store is appended as a record')
    const { hashHex, number, txHashHexes } = packedBlockKeys(packed)
    if (number !== this.headNumber + 1n) throw new Error(`block ${number} does not follow ${this.headNumber}`)
    if (this.recentBlocks.length > 0) this.packOldest(this.recentBlocks.length)
    const i = this.length
    this.positions.push(this.arena.append(packed))
    this.lengths.push(packed.length)
    this.packedEnd++
    this.byHash.add(hashHex, i)
    for (const h of txHashHexes) this.txs.add(h, i)
  }

  /** Forgets every block (a fork moved to another block: hardhat_reset with `forking`). */
  clear(): void {
    this.firstBlock = undefined
    this.base = 0n
    this.packedEnd = 1
    this.positions.length = 0
    this.lengths.length = 0
    this.arena.clear()
    this.recentBlocks = []
    this.unpacked.clear()
    this.byHash.clear()
    this.txs.clear()
  }

  /** Drops every block above `n` (at least the first block stays); returns the dropped blocks, oldest first. */
  truncate(n: bigint): BlockRecord[] {
    const keep = Math.max(1, Number(n - this.base) + 1)
    if (keep >= this.length) return []
    const dropped: BlockRecord[] = []
    for (let i = keep; i < this.length; i++) {
      const b = this.at(i)!
      this.byHash.remove(b.hashHex, i)
      for (const t of b.transactions) this.txs.remove(t.hashHex, i)
      dropped.push(b)
    }
    if (keep < this.packedEnd) {
      this.dropPacked(keep)
      this.recentBlocks = []
    } else {
      this.recentBlocks.length = keep - this.packedEnd
    }
    // The head stays a record (it is read for every request and every block mined on it).
    if (this.recentBlocks.length === 0 && this.packedEnd > 1) {
      const head = this.at(this.packedEnd - 1)!
      this.dropPacked(this.packedEnd - 1)
      this.recentBlocks = [head]
    }
    this.unpacked.clear()
    return dropped
  }

  /** Blocks `from`..`to` inclusive, clamped to the chain. */
  range(from: bigint, to: bigint): BlockRecord[] {
    return [...this.blocksIn(from, to)]
  }

  /**
   * Blocks `from`..`to` inclusive, clamped to the chain, one at a time (a reader that stops early unpacks no more);
   * with `mayHold`, only those whose header bloom it accepts (packed blocks are unpacked only when their bloom may
   * hold what is looked for: log queries over old blocks).
   */
  *blocksIn(from: bigint, to: bigint, mayHold?: (bloom: Uint8Array) => boolean): Generator<BlockRecord> {
    const lo = from < this.base ? 0 : Number(from - this.base)
    const hi = Math.min(Number(to - this.base), this.length - 1)
    for (let i = lo; i <= hi && i < this.length; i++) {
      const packed = i > 0 && i < this.packedEnd
      if (mayHold !== undefined && !mayHold(packed ? packedBlockBloom(this.packedAt(i), this.bloomScratch) : this.at(i)!.header.logsBloom)) continue
      yield this.at(i)!
    }
  }

  /** How many of blocks `from`..`to` the chain has. */
  count(from: bigint, to: bigint): number {
    const lo = from < this.base ? 0 : Number(from - this.base)
    const hi = Math.min(Number(to - this.base), this.length - 1)
    return Math.max(0, hi - lo + 1)
  }

  /** Blocks kept, the first included. */
  private get length(): number {
    return this.firstBlock === undefined ? 0 : this.packedEnd + this.recentBlocks.length
  }

  /** The block at index `i` above the first (0: the first). */
  private at(i: number): BlockRecord | undefined {
    if (i === 0) return this.firstBlock
    if (i >= this.packedEnd) return this.recentBlocks[i - this.packedEnd]
    let block = this.unpacked.get(i)
    if (block === undefined) {
      // The record's arrays are views of the arena, whose bytes never change.
      block = unpackBlock(this.packedAt(i), this.common, () => this.hashAt(i - 1))
      this.unpacked.set(i, block)
    }
    return block
  }

  /** The hash of the block at index `i` (above the first), read without unpacking it. */
  private hashHexAt(i: number): string | undefined {
    if (i >= this.packedEnd) return this.recentBlocks[i - this.packedEnd]?.hashHex
    return flatHex(packedBlockHash(this.packedAt(i)))
  }

  /** The hash of the kept block at index `i`. */
  private hashAt(i: number): Uint8Array {
    if (i === 0 || i >= this.packedEnd) return this.at(i)!.hash
    return packedBlockHash(this.packedAt(i))
  }

  private packedAt(i: number): Uint8Array {
    return this.arena.read(this.positions[i - 1]!, this.lengths[i - 1]!)
  }

  /** Drops the packed blocks from index `from` on (their bytes stay as they are: arena.ts). */
  private dropPacked(from: number): void {
    this.arena.truncate(this.positions[from - 1]!)
    this.positions.length = this.lengths.length = from - 1
    this.packedEnd = from
  }

  /** Packs the `n` oldest records. */
  private packOldest(n: number): void {
    for (const block of this.recentBlocks.splice(0, n)) {
      const packed = packBlock(block, this.hashAt(this.packedEnd - 1))
      this.positions.push(this.arena.append(packed))
      this.lengths.push(packed.length)
      this.packedEnd++
    }
  }
}
