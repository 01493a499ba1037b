/**
 * The chain: engine configuration, world state and the block store, and reads of state "as of a block".
 *
 * The live state always holds the head's state. Older blocks are read through a copy of it moved to that block's
 * state root: every root computed stays in the TrieStore (src/node/state), so every mined root stays readable.
 */
import type { Common } from '@ethereumjs/common'
import { LiveState } from '../state/liveState.js'
import { TrieStore } from '../state/trieStore.js'
import type { NodeSource } from '../state/nodeSource.js'
import { createVM, type VM } from '@ethereumjs/vm'
import { Address, equalsBytes } from '@ethereumjs/util'
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm'
import { BlockStore } from './store.js'
import { rskEvmOptions } from '../rsk/evm/evmProfile.js'
import { ExecutionGuard } from '../exec/guard.js'
import type { BlockRecord } from './types.js'
// Engine fast paths, installed before any EVM exists (see src/node/enginePatches/index.ts).
import '../enginePatches/index.js'

/** BLOCKHASH reads hashes from our store, so it returns RSK block hashes. */
class StoreBlockHashes implements EVMMockBlockchainInterface {
  constructor(private readonly store: BlockStore) {}
  async getBlock(n: number) {
    const block = this.store.byNumber(BigInt(n))
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

  private constructor(
    readonly common: Common,
    readonly state: LiveState,
    readonly vm: VM,
    readonly store: BlockStore,
    /** Every state root and code the node computed, for historical reads and evm_revert (state/trieStore.ts). */
    readonly trees: TrieStore,
    guard: ExecutionGuard,
  ) {
    this.guard = guard
  }

  /** `source`: where trie nodes and code not in memory are read from (the on-disk database, src/node/persist). */
  static async create(common: Common, source?: NodeSource): Promise<Chain> {
    const trees = new TrieStore(source)
    if (source !== undefined) trees.collectWrites()
    const state = new LiveState(trees)
    const store = new BlockStore()
    const guard = new ExecutionGuard()
    const vm = await createVM({ common, stateManager: state, blockchain: new StoreBlockHashes(store), evmOpts: rskEvmOptions(common, guard) })
    return new Chain(common, state, vm, store, trees, guard)
  }

  get head(): BlockRecord {
    return this.store.head
  }

  /** State manager positioned at `block`'s post-state. Do not write to it unless it is the live one. */
  async stateAt(block: BlockRecord): Promise<LiveState> {
    if (block === this.store.head) return this.state
    const root = block.header.stateRoot
    if (this.historical === undefined || !equalsBytes(this.historical.root, root)) {
      const copy = new LiveState(this.trees)
      await copy.setStateRoot(root)
      this.historical = { root, state: copy }
    }
    return this.historical.state
  }

  /** Forgets cached historical views (after the chain was truncated). */
  forgetViews(): void {
    this.historical = undefined
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

