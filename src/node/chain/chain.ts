/**
 * The chain: engine configuration, world state and the block store, and reads of state "as of a block".
 *
 * The live state always holds the head's state. Older blocks are read through a copy of it moved to that block's
 * state root: every root computed stays in the TrieStore (src/node/state), so every mined root stays readable.
 */
import type { Common } from '@ethereumjs/common'
import { LiveState } from '../state/liveState.js'
import { TrieStore } from '../state/trieStore.js'
import { binKey } from '../binKey.js'
import { StateNotKept } from '../errors.js'
import type { NodeSource } from '../state/nodeSource.js'
import type { RemoteValues } from '../state/overlay.js'
import type { BridgeReads } from '../rsk/evm/bridge.js'
import type { ChainBlocks } from '../rsk/evm/blockHeaderPrecompile.js'
import { createVM, type VM } from '@ethereumjs/vm'
import { Address, equalsBytes } from '@ethereumjs/util'
import type { EVM, EVMMockBlockchainInterface } from '@ethereumjs/evm'
import { BlockStore } from './store.js'
import { rskEvmOptions } from '../rsk/evm/evmProfile.js'
import { ExecutionGuard } from '../exec/guard.js'
import type { BlockRecord } from './types.js'
// Engine fast paths, installed before any EVM exists, and RSK's account rules for each EVM (src/node/enginePatches/index.ts).
import { applyAccountRules } from '../enginePatches/index.js'

/** BLOCKHASH reads hashes from the chain, so it returns RSK block hashes (on a fork, the remote's below it). */
class StoreBlockHashes implements EVMMockBlockchainInterface {
  constructor(private readonly blockAt: (n: bigint) => Promise<BlockRecord | undefined>) {}
  async getBlock(n: number) {
    const block = await this.blockAt(BigInt(n))
    const hash = block?.hash ?? new Uint8Array(32)
    return { hash: () => hash }
  }
  async putBlock(): Promise<void> {}
  shallowCopy(): EVMMockBlockchainInterface {
    return this
  }
}

export class Chain {
  private historical?: { root: Uint8Array; state: LiveState }
  /** TrieStore position right after genesis (set by createGenesis), for evm_reset. */
  genesisTrees = 0
  /** The request deadline every EVM of this chain checks (see exec/guard.ts). */
  readonly guard: ExecutionGuard
  /** On a fork: the remote's blocks below the forked one (BLOCKHASH, REMASC's paid blocks); src/node/fork. */
  remoteBlocks?: (n: bigint) => Promise<BlockRecord | undefined>

  private constructor(
    readonly common: Common,
    readonly state: LiveState,
    readonly vm: VM,
    readonly store: BlockStore,
    /** Every state root and code the node computed, for historical reads and evm_revert (state/trieStore.ts). */
    readonly trees: TrieStore,
    guard: ExecutionGuard,
    /** Where the Bridge's read methods are answered from on a fork (set by src/node/fork). */
    readonly bridge: BridgeReads,
    /** The blocks the BlockHeader precompile reads: this chain's (on a fork, uncles' coinbases set by src/node/fork). */
    readonly blocks: ChainBlocks,
    /**
     * The custom opcodes and precompiles of the chain's EVM, given to every EVM `vmOver` makes too: one list, so the
     * opcode tables made from it are made once (enginePatches/activeOpcodes.ts).
     */
    private readonly evmOpts: ReturnType<typeof rskEvmOptions>,
  ) {
    this.guard = guard
  }

  /**
   * `source`: where trie nodes and code not in memory are read from (the on-disk database, src/node/persist).
   * `remote`: a fork's remote state, under the local tries (state/overlay.ts).
   */
  static async create(common: Common, source?: NodeSource, remote?: RemoteValues): Promise<Chain> {
    const trees = new TrieStore(source, remote)
    if (source !== undefined) trees.collectWrites()
    const state = new LiveState(trees)
    const store = new BlockStore(common)
    const guard = new ExecutionGuard()
    const bridge: BridgeReads = {}
    // BLOCKHASH and the BlockHeader precompile ask the chain, which exists by the time any EVM runs.
    const blockchain = new StoreBlockHashes((n) => chain.blockAt(n))
    const blocks: ChainBlocks = { at: (n) => chain.blockAt(n) }
    const evmOpts = rskEvmOptions(common, guard, bridge, blocks)
    const vm = await createVM({ common, stateManager: state, blockchain, evmOpts })
    applyAccountRules(vm.evm as EVM)
    const chain: Chain = new Chain(common, state, vm, store, trees, guard, bridge, blocks, evmOpts)
    return chain
  }

  /** Blocks an eth_simulateV1 request built above the head, by number, while it runs (`withSimulatedBlocks`). */
  private simulatedBlocks?: ReadonlyMap<bigint, BlockRecord>

  /**
   * Block `n` of this chain (BLOCKHASH, the BlockHeader precompile): rsksim's, or on a fork the remote's below the
   * forked block, or while a simulation runs, the blocks it built.
   */
  async blockAt(n: bigint): Promise<BlockRecord | undefined> {
    const simulated = this.simulatedBlocks?.get(n)
    if (simulated !== undefined) return simulated
    const local = this.store.byNumber(n)
    if (local !== undefined || n >= this.store.first.number || this.remoteBlocks === undefined) return local
    return this.remoteBlocks(n)
  }

  get head(): BlockRecord {
    return this.store.head
  }

  /**
   * Runs `run` with `blocks` (simulated blocks above the head, filled in as they are built) read as this chain's blocks
   * by `blockAt`, as geth's simulation resolves BLOCKHASH over the blocks it simulated; forgotten after. One request
   * at a time runs in the node's queue, so no other request sees them.
   */
  async withSimulatedBlocks<T>(blocks: ReadonlyMap<bigint, BlockRecord>, run: () => Promise<T>): Promise<T> {
    this.simulatedBlocks = blocks
    try {
      return await run()
    } finally {
      this.simulatedBlocks = undefined
    }
  }

  /**
   * Blocks built on a state the dev-chain methods changed after their parent was mined (`anvil_setBalance`,
   * `anvil_loadState`, an `evm_revert` to a snapshot taken after such an edit, …): block hash → the root of the state
   * the block was built on, as Hardhat/EDR keeps its "irregular state". A replay (exec/replay.ts) starts there: from
   * the parent's stateRoot, a transaction the edit paid for would fail and the traces would differ from the block.
   */
  private readonly builtOnRoots = new Map<string, Uint8Array>()
  /** Whether the live state may differ from the head's stateRoot (an edit since the head was mined): the miner compares. */
  private edited = false

  /** Notes that the live state may have changed outside a block (a dev-chain edit, a revert, a reset, a reopened database). */
  stateEdited(): void {
    this.edited = true
  }

  /**
   * When the live state may differ from the head's, a promise of its root (computed now) if it does; undefined without
   * a promise when nothing was edited (every block but those after an edit: the miner's path awaits nothing more).
   */
  editedRoot(): Promise<Uint8Array | undefined> | undefined {
    if (!this.edited) return undefined
    return this.state.getStateRoot().then((root) => (equalsBytes(root, this.head.header.stateRoot) ? undefined : root))
  }

  /** Records that `block`, just appended, was built on `root` (`editedRoot`); the live state is the head's again. */
  blockBuilt(block: BlockRecord, builtOn: Uint8Array | undefined): void {
    if (builtOn !== undefined) this.builtOnRoots.set(block.hashHex, builtOn)
    this.edited = false
  }

  /**
   * The root of the state `block` was built on: its parent's stateRoot, unless edited in between (`blockBuilt`; for the
   * pending block, `addView`).
   */
  stateRootBefore(block: BlockRecord, parent: BlockRecord): Uint8Array {
    return this.views.get(block) ?? this.builtOnRoots.get(block.hashHex) ?? parent.header.stateRoot
  }

  /** The edited roots blocks were built on, by block hash (persistence). */
  builtOn(hashHex: string): Uint8Array | undefined {
    return this.builtOnRoots.get(hashHex)
  }

  /** Restores what `blockBuilt` recorded for a block read back from the database. */
  restoreBuiltOn(hashHex: string, root: Uint8Array): void {
    if (this.store.getByHash(hashHex) !== undefined) this.builtOnRoots.set(hashHex, root)
  }

  /**
   * Blocks that are not in the store but are read and executed on the live state with the chain's EVM: the pending
   * block of a request (src/node/miner/pending.ts), for as long as the request runs; each with the edited state it was
   * built on, when it is not its parent's (the pending block after a dev-chain edit).
   */
  private readonly views = new WeakMap<BlockRecord, Uint8Array | undefined>()

  /**
   * A VM over a state of its own, as the chain's (the same opcodes, precompiles, deadline and account rules), for one
   * use: calls at an older block, a replay. It gets a copy of the chain's Common: the engine's EVM
   * subscribes to its Common's `hardforkChanged` event, so on the chain's Common, which lives as long as the chain,
   * every VM made stayed reachable with its state (about 100 KB each, measured over 200 pending reads). Its opcodes
   * and precompiles are the chain's own (they read the chain's Common: its minimum gas price is the one the blocks
   * built now get), and so are its opcode tables (enginePatches/activeOpcodes.ts): making them was about 0.4 ms of
   * the 0.5 ms an `eth_call` at `pending` took while the pending block had a VM of its own (docs/performance.md,
   * twenty-fifth round).
   */
  async vmOver(state: LiveState): Promise<VM> {
    const common = this.common.copy()
    const vm = await createVM({ common, stateManager: state, blockchain: this.vm.blockchain, evmOpts: this.evmOpts })
    applyAccountRules(vm.evm as EVM)
    return vm
  }

  /**
   * Lets `block` (not in the store) be read and executed on the live state with the chain's EVM; `builtOn`: the root of
   * the state it was built on, when a dev-chain edit made it differ from its parent's (`editedRoot`), for a replay.
   */
  addView(block: BlockRecord, builtOn?: Uint8Array): void {
    this.views.set(block, builtOn)
  }

  /** The state and EVM a block added with `addView` is read and executed on, or undefined for any other block. */
  viewOf(block: BlockRecord): { state: LiveState; evm: EVM } | undefined {
    return this.views.has(block) ? { state: this.state, evm: this.vm.evm as EVM } : undefined
  }

  /** State manager positioned at `block`'s post-state. Do not write to it unless it is the live one. */
  async stateAt(block: BlockRecord): Promise<LiveState> {
    if (block === this.store.head || this.views.has(block)) return this.state
    await this.requireState(block)
    const root = block.header.stateRoot
    if (this.historical === undefined || !equalsBytes(this.historical.root, root)) {
      const copy = new LiveState(this.trees)
      await copy.setStateRoot(root)
      this.historical = { root, state: copy }
    }
    return this.historical.state
  }

  /** Throws StateNotKept when `block`'s state (or `root`, a state of it) was released (`stateHistory`). */
  async requireState(block: BlockRecord, root: Uint8Array = block.header.stateRoot): Promise<void> {
    if (!(await this.trees.hasTree(root))) throw new StateNotKept(block.hashHex)
  }

  /**
   * After a block is appended: roots computed from now on belong to the new head's era, and with `history` (the
   * `stateHistory` option) the states of blocks older than the last `history` are released, except `pinned` roots
   * (snapshots), genesis and the live state. Done every quarter of `history` blocks, so that building the set of
   * kept roots costs a few entries per block; at most 1.25 x `history` blocks' states are in memory.
   */
  async blockAppended(history: number | undefined, pinned: () => Uint8Array[]): Promise<void> {
    const head = this.store.headNumber
    this.trees.setEra(head)
    if (history === undefined) return
    const before = head - BigInt(history) + 1n
    if (before <= 0n || head % BigInt(Math.max(1, Math.floor(history / 4))) !== 0n) return
    const keep = new Set<string>()
    for (let n = before; n <= head; n++) {
      const block = this.store.byNumber(n)!
      keep.add(binKey(block.header.stateRoot))
      // A kept block's replay starts from the state it was built on.
      const builtOn = this.builtOnRoots.get(block.hashHex)
      if (builtOn !== undefined) keep.add(binKey(builtOn))
    }
    keep.add(binKey(this.store.first.header.stateRoot))
    keep.add(binKey(await this.state.getStateRoot()))
    for (const r of pinned()) keep.add(binKey(r))
    // A root added while the head was n is block n + 1's (or an edit on top of block n): release those below `before`.
    this.trees.release(before - 1n, keep)
    if (this.historical !== undefined && !keep.has(binKey(this.historical.root))) this.historical = undefined
  }

  /** Forgets cached historical views (after the chain was truncated), and what removed blocks were built on. */
  forgetViews(): void {
    this.historical = undefined
    for (const hash of this.builtOnRoots.keys()) if (this.store.getByHash(hash) === undefined) this.builtOnRoots.delete(hash)
  }

  async balanceAt(address: Uint8Array, block: BlockRecord): Promise<bigint> {
    const account = await (await this.stateAt(block)).getAccount(new Address(address))
    return account?.balance ?? 0n
  }

  async nonceAt(address: Uint8Array, block: BlockRecord): Promise<bigint> {
    const account = await (await this.stateAt(block)).getAccount(new Address(address))
    return account?.nonce ?? 0n
  }

  async codeAt(address: Uint8Array, block: BlockRecord): Promise<Uint8Array> {
    return (await this.stateAt(block)).getCode(new Address(address))
  }

  async storageAt(address: Uint8Array, slot: Uint8Array, block: BlockRecord): Promise<Uint8Array> {
    return (await this.stateAt(block)).getStorage(new Address(address), slot)
  }
}

