/**
 * Block building: takes pending transactions in pool order, runs them on the live state, seals an RSK block
 * (header, merged-mining proof, hash) and appends it to the chain.
 */
import { RemoteFailed } from '../errors.js'
import { hexToBytes, type PrefixedHexString, equalsBytes } from '@ethereumjs/util'
import type { Block } from '@ethereumjs/block'
import type { Chain } from '../chain/chain.js'
import { executionBlockOf } from '../chain/execBlock.js'
import type { BlockRecord, ReceiptRecord, TxRecord } from '../chain/types.js'
import { hashForMergedMining, type RskHeader } from '../rsk/header/header.js'
import { processMinersFees, remascContext } from '../rsk/remasc/remasc.js'
import { runBlockTransaction, type BlockContext } from '../chain/runBlockTx.js'
import type { VM } from '@ethereumjs/vm'
import type { LiveState } from '../state/liveState.js'
import type { TxPool } from '../pool/pool.js'
import { minedPriceRefusal } from '../pool/admission.js'
import type { SerialQueue } from '../queue.js'
import type { Clock } from './clock.js'
import { pendingBlock, type PendingRun } from './pending.js'
import type { MinerConfig } from './config.js'
import { sealPending } from './pendingSeal.js'
import { BlockTotals } from './blockTotals.js'
import { BLOCK_DIFFICULTY, EXTRA_DATA, headerOf, sealBlock, type MergedMiningFields } from './seal.js'

/** What the pending block's accessors answer outside a task of the node's queue (it lives as long as the task). */
const outsideTask = (): Promise<never> => Promise.reject(new Error("rsksim: the pending block is built inside a task of the node's queue"))

/** A block offered to merged miners: what `mineTemplate` needs to rebuild it exactly. */
export interface Template {
  /** The header as built, without merged-mining fields. */
  header: RskHeader
  parentHash: Uint8Array
  timestamp: bigint
  txHashes: string[]
  hashForMergedMining: Uint8Array
  paidFees: bigint
  difficulty: bigint
  number: bigint
}

interface Assembled {
  header: RskHeader
  included: TxRecord[]
  receipts: ReceiptRecord[]
  dropped: Dropped[]
  /** The edited state the block was built on, when it is not the parent's (Chain.editedRoot). */
  builtOn?: Uint8Array
}

/** A transaction the block could not include, and why. */
export interface Dropped {
  tx: TxRecord
  reason: string
}

export class Miner {
  constructor(
    private readonly chain: Chain,
    private readonly pool: TxPool,
    private readonly clock: Clock,
    private readonly config: MinerConfig,
    /** The node's queue: the pending block lives as long as the task that built it (`pending`, `endTask`). */
    private readonly queue: Pick<SerialQueue, 'inTask'>,
  ) {}

  /**
   * Mines one block with every pending transaction that fits (or only those of `only`, by hash: `anvil_reorg`);
   * `timestamp` forces the block time.
   */
  async mine(timestamp?: bigint, only?: Set<string>): Promise<{ block: BlockRecord; dropped: Dropped[] }> {
    const time = this.clock.next(this.chain.head.header.timestamp, timestamp)
    const assembled = await this.assemble(time, only)
    return { block: await this.commit(assembled), dropped: assembled.dropped }
  }

  /**
   * Builds the block a miner would work on now (`mnr_getWork`, `eth_getWork`) without changing anything: the
   * transactions run in a checkpoint that is reverted. `mineTemplate` later mines exactly this block.
   */
  async template(): Promise<Template> {
    const time = this.clock.next(this.chain.head.header.timestamp)
    const assembled = await this.assemble(time)
    await this.discard()
    return {
      header: assembled.header,
      parentHash: assembled.header.parentHash,
      timestamp: time,
      // The pool's transactions only: the REMASC transaction ends every block (counted in, the cached work never
      // matched the pool and was rebuilt on every mnr_getWork, with a new timestamp once a second had passed).
      txHashes: assembled.included.filter((t) => t.system === undefined).map((t) => t.hashHex),
      hashForMergedMining: hashForMergedMining(assembled.header),
      paidFees: assembled.header.paidFees,
      difficulty: assembled.header.difficulty,
      number: assembled.header.number,
    }
  }

  /** The pending block of the task running now: built on the live state in a checkpoint, until `endTask`. */
  private held?: Promise<PendingRun>
  /** Its complete record (pendingSeal.ts), when the task asked for it: made from `held`. */
  private sealed?: Promise<BlockRecord>

  /**
   * The pending block (pending.ts), built once per task of the node's queue on the live state inside a checkpoint,
   * which `endTask` reverts when the task ends: a request reads and runs calls on it while the chain stays as it was
   * for every other task. Without receipts, roots or hash: what a state read or a call needs, and no more.
   */
  pending(): Promise<BlockRecord> {
    return this.run().then((r) => r.block)
  }

  /**
   * The pending block complete, as RSKj answers it where a method returns or traces the block (pendingSeal.ts):
   * receipts, roots, REMASC transaction and hash, no merged-mining data. Made once per task, from the same run as
   * `pending`, before or after it.
   */
  pendingSealed(): Promise<BlockRecord> {
    if (this.sealed !== undefined) return this.sealed
    // Kept only inside a task: a rejection kept outside one would be answered by every later call (no `endTask` clears it).
    if (!this.queue.inTask) return outsideTask()
    this.sealed = this.run().then((r) => sealPending(this.chain, this.config, r))
    return this.sealed
  }

  private run(): Promise<PendingRun> {
    if (this.held !== undefined) return this.held
    if (!this.queue.inTask) return outsideTask()
    // The state the block is built on, for a replay of the sealed block: only known before the run changes it. Undefined
    // without a promise (nothing computed, nothing awaited) unless a dev-chain method changed the state since the head.
    const editing = this.chain.editedRoot()
    this.held = editing === undefined ? this.build(undefined) : editing.then((builtOn) => this.build(builtOn))
    return this.held
  }

  private build(builtOn: Uint8Array | undefined): Promise<PendingRun> {
    return this.chain.state.checkpoint().then(() => pendingBlock(this.chain, this.pool, this.clock, this.config, BLOCK_DIFFICULTY, builtOn))
  }

  /**
   * At the end of every task of the node's queue: reverts the pending block the task built (and any checkpoint an
   * exception left open inside it). Undefined when there was none, so a task without one awaits nothing more.
   */
  endTask(): Promise<void> | undefined {
    // The sealed record (made from `held`, its state root computed inside the checkpoint) is settled before the revert.
    const done = this.sealed ?? this.held
    this.held = undefined
    this.sealed = undefined
    return done?.then(
      () => this.chain.state.revertOpen(),
      () => this.chain.state.revertOpen(),
    )
  }

  /**
   * Mines a template with the merged-mining fields a miner submitted. Returns undefined when the template no
   * longer fits the chain (the head moved, or its transactions left the pool).
   */
  async mineTemplate(t: Template, mm: MergedMiningFields): Promise<BlockRecord | undefined> {
    if (!equalsBytes(t.parentHash, this.chain.head.hash)) return undefined
    const assembled = await this.assemble(t.timestamp, new Set(t.txHashes))
    if (!equalsBytes(hashForMergedMining(assembled.header), t.hashForMergedMining)) {
      await this.discard()
      return undefined
    }
    return this.commit(assembled, mm)
  }

  /**
   * Runs pool transactions (all that fit, or only `only`) on top of the head inside an open state checkpoint and
   * builds the header without merged-mining fields. The caller commits (`commit`) or reverts the checkpoint.
   */
  private assemble(time: bigint, only?: Set<string>): Promise<Assembled> {
    // A block built inside the pending block's checkpoint would be reverted with it at the end of the task.
    if (this.held !== undefined) return Promise.reject(new Error('rsksim: a block cannot be built while the pending block of the same task is held'))
    // A block never depends on the clock: the request deadline (exec/guard.ts) does not apply while it is built.
    return this.chain.guard.unbounded(() => this.runTransactions(time, only))
  }

  private async runTransactions(time: bigint, only?: Set<string>): Promise<Assembled> {
    const { chain, config } = this
    const parent = chain.head
    const number = parent.number + 1n
    // The engine's block (about 25 µs to build) is made when the first transaction runs: an empty block needs none.
    const context = new BuildingBlock(chain.vm, chain.state, config.coinbase, config.remasc !== undefined, () =>
      executionBlockOf(chain.common, { number, timestamp: time, gasLimit: config.blockGasLimit, coinbase: config.coinbase, difficulty: BLOCK_DIFFICULTY }),
    )
    const totals = new BlockTotals()
    const dropped: Dropped[] = []
    // Undefined (and nothing computed) unless a dev-chain method changed the state since the head was mined.
    const editing = chain.editedRoot()
    const builtOn = editing === undefined ? undefined : await editing
    await chain.state.checkpoint()
    try {
      for (const t of this.pool.ordered()) {
        if (only !== undefined && !only.has(t.hashHex)) continue
        const priceRefusal = minedPriceRefusal(t.tx.gasPrice, config.minimumGasPrice)
        if (priceRefusal !== undefined) {
          dropped.push({ tx: t, reason: priceRefusal })
          continue
        }
        if (totals.gasUsed + t.tx.gasLimit > config.blockGasLimit) continue
        let result
        try {
          result = await runBlockTransaction(context, t, totals.gasUsed)
          config.afterTransaction?.(t)
        } catch (e) {
          const reason = droppedReason(e)
          if (reason !== undefined) dropped.push({ tx: t, reason })
          continue
        }
        totals.add(t, result)
      }
      if (config.remasc !== undefined) {
        // Every block ends with the REMASC system transaction (reference §2.2, RSKj BlockToMineBuilder).
        const receipt = await processMinersFees(remascContext(chain, chain.state, config.remasc, config.minimumGasPrice, number, totals.gasUsed))
        totals.addRemasc(receipt, number, chain.common)
      }
      const header = headerOf(chain, config, parent, await chain.state.getStateRoot(), totals, time, EXTRA_DATA)
      return { header, included: totals.included, receipts: totals.receipts, dropped, ...(builtOn !== undefined ? { builtOn } : {}) }
    } catch (e) {
      await this.discard()
      throw e
    }
  }

  /**
   * Reverts an assembled block. Computing its state root flushed the caches inside the checkpoint, and the
   * account cache does not take those entries back on revert, so it is cleared (the trie itself is reverted).
   */
  private async discard(): Promise<void> {
    // Every checkpoint, the block's and those of frames an exception left open (a fork's remote failed mid-call).
    await this.chain.state.revertOpen()
    this.chain.state.clearCaches()
  }

  /** Commits an assembled block's state, seals it (with `mm`, or merged-mining data of our own) and appends it. */
  private async commit(a: Assembled, mm?: MergedMiningFields): Promise<BlockRecord> {
    const { chain } = this
    await chain.state.commit()
    const block = sealBlock(a.header, a.included, a.receipts, chain.head, mm)
    chain.store.append(block)
    chain.blockBuilt(block, a.builtOn)
    for (const t of a.included) this.pool.remove(t)
    for (const d of a.dropped) this.pool.remove(d.tx)
    await this.pool.settle(async (sender) => chain.nonceAt(hexToBytes(sender as PrefixedHexString), block))
    return block
  }
}

/**
 * Why a transaction the engine refused leaves the pool, or undefined when it stays: a nonce gap (an earlier nonce did
 * not fit). A fork's remote that cannot be read fails the block, not the transaction (rethrown; it stays in the pool).
 */
function droppedReason(e: unknown): string | undefined {
  if (e instanceof RemoteFailed) throw e
  // The engine appends its own context "(vm hf=… -> block … -> tx … nonce=…)", so only the message's start is matched.
  const reason = (e instanceof Error ? e.message : String(e)).replace(/ \(vm hf=[\s\S]*\)$/, '')
  return reason.startsWith("the tx doesn't have the correct nonce") ? undefined : reason
}

/**
 * The context of a block being built, its engine block made on first use. A class rather than an object literal with
 * a getter: V8 builds such a literal in its runtime, about 2.7 µs per mined block in a profile of empty blocks.
 */
class BuildingBlock implements BlockContext {
  private made: Block | undefined

  constructor(
    readonly vm: VM,
    readonly state: LiveState,
    readonly coinbase: Uint8Array,
    readonly remasc: boolean,
    private readonly make: () => Block,
  ) {}

  get block(): Block {
    return (this.made ??= this.make())
  }
}
