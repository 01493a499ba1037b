/**
 * The bookkeeping under the live state (liveState.ts, which extends this class with the engine's
 * `StateManagerInterface`): per-account entries (entries.ts) over a root of the shared TrieStore, what changed since
 * the trie last took the entries' values, the undo log behind checkpoints, and roots computed on demand.
 *
 * - The entries of accounts read once stay as the head's read cache, so a hot account is never looked up twice.
 * - Every change goes through `setAccount`, `setSlots` or the slot writes of LiveState, which record what they
 *   replace in the undo log inside a checkpoint and mark the entry dirty (`touch`).
 * - `checkpoint`/`commit`/`revert` keep the undo log (the engine checkpoints every call frame).
 * - The trie is written only when a root is asked for (`getStateRoot`; stateRoot.ts): changed slots into each storage
 *   trie, then changed accounts into the account trie, skipping writes of the value already there. Nodes are copied
 *   on write, so every root computed stays readable (historical blocks, `evm_revert` as a root swap; trieStore.ts).
 * - A root computed inside a checkpoint (the miner asks for it before committing the block) is kept and adopted
 *   when the outermost checkpoint commits unchanged, so a block's tries are built once.
 * - On a fork (the store has `remote` values), what the local trie does not hold is read from the remote, and the
 *   trie keeps deletions as tombstones (overlay.ts).
 *
 * One class with LiveState (a base class, not an object it holds): the engine calls these on every call frame and
 * every write, so they read the fields directly.
 */
import { type Account, type Address, EthereumJSErrorWithoutCode, KECCAK256_RLP, createAccountFromRLP, equalsBytes } from '@ethereumjs/util'
import { OriginalStorageCache } from '@ethereumjs/statemanager'
import { withSink, type TrieNode } from './trieNode.js'
import { trieGetLeaf, withNodes, type HashNodeLoader } from './nodeTrie.js'
import type { TrieStore } from './trieStore.js'
import { binKey } from '../binKey.js'
import { hashNodeLoader } from './nodeSource.js'
import { Entry, Undo, type Slot } from './entries.js'
import { decodeForkLeaf } from './overlay.js'
import { adoptRoot, computeRoot, treeOf, type Computed } from './stateRoot.js'

/** One settled promise for every write answered at once (a settled promise never changes). */
export const RESOLVED: Promise<void> = Promise.resolve()

/** `work` done now, as a settled promise: resolved, or rejected with what it threw. */
export function settled(work: () => void): Promise<void> {
  try {
    work()
    return RESOLVED
  } catch (e) {
    return Promise.reject(e)
  }
}

export abstract class StateEntries {
  readonly originalStorageCache: OriginalStorageCache
  /** Addresses and slots ever written (binary keys), for `anvil_dumpState` (the trie keeps only their hashes). */
  readonly written = new Map<string, Set<string>>()
  private newlyWritten: string[] | undefined

  protected root: TrieNode | undefined
  protected entries = new Map<string, Entry>()
  /** Entries written since the trie last took their values. */
  protected readonly dirty = new Set<Entry>()
  protected readonly undo = new Undo()
  protected depth = 0
  /** Bumped by every change, to know whether `computed` still describes the state. */
  private version = 0
  private computed?: Computed
  protected readonly load: HashNodeLoader | undefined

  constructor(
    readonly store: TrieStore,
    root?: TrieNode,
  ) {
    this.root = root
    this.load = hashNodeLoader(store.source)
    this.originalStorageCache = new OriginalStorageCache(this.getStorage.bind(this))
  }

  /** Slot value without leading zeros (empty when unset), as the engine's state manager answers (LiveState's). */
  abstract getStorage(address: Address, key: Uint8Array): Promise<Uint8Array>

  // ---- entries -----------------------------------------------------------------------------------------------

  /**
   * The entry of `address`, read from the trie on first touch. The engine and REMASC ask for the same few accounts
   * over and over (28 `getAccount` calls per block of one token transfer, 16 of them REMASC's, counted), so
   * LiveState's public methods answer an entry or slot already read at once (`Promise.resolve` of the answer, no
   * `async` frame and no awaits inside: docs/performance.md, tenth round) and fall back to this for a miss.
   */
  protected async entry(address: Address): Promise<Entry> {
    const k = binKey(address.bytes)
    const known = this.entries.get(k)
    if (known !== undefined) return known
    const e = new Entry(address.bytes)
    const found = await withNodes(this.load, () => trieGetLeaf(this.root, e.hashedKey()))
    const remote = this.store.remote
    let account: Account | undefined
    if (remote === undefined) account = found === undefined ? undefined : createAccountFromRLP(found.value)
    else if (found !== undefined) ({ account, remoteStorage: e.remote } = decodeForkLeaf(found.value))
    else {
      account = (await remote.account(address.bytes))?.account
      e.remote = account !== undefined
    }
    // Another read may have made the entry while this one waited for the remote.
    const raced = this.entries.get(k)
    if (raced !== undefined) return raced
    e.baseRemote = e.remote
    e.base = e.current = account
    e.storage = found?.attached
    e.storageKnown = found?.attached !== undefined || account === undefined || equalsBytes(account.storageRoot, KECCAK256_RLP)
    this.entries.set(k, e)
    return e
  }

  /** The entry of `address` if it was read before (no lookup, no promise). */
  protected known(address: Address): Entry | undefined {
    return this.entries.get(binKey(address.bytes))
  }

  /** The entry of `address`, which must have been read before (`preload`). */
  protected loaded(address: Address): Entry {
    const e = this.known(address)
    if (e === undefined) throw new Error(`LiveState: account ${address.toString()} was not loaded`)
    return e
  }

  /** Forgets what was read (not what was written). */
  clearCaches(): void {
    for (const [k, e] of this.entries) if (!this.dirty.has(e)) this.entries.delete(k)
  }

  // ---- changes -----------------------------------------------------------------------------------------------

  /** `storage`: the storage tree goes with it (else the account keeps its tree). */
  protected setAccount(e: Entry, account: Account | undefined, storage?: { tree: TrieNode | undefined; known: boolean }): void {
    if (this.depth > 0) this.undo.account(e)
    e.current = account
    if (storage !== undefined) {
      e.storage = storage.tree
      e.storageKnown = storage.known
      e.remote = false
    }
    this.touch(e)
  }

  protected setSlots(e: Entry, slots: Map<string, Slot>): void {
    if (this.depth > 0) this.undo.slots(e)
    e.slots = slots
    this.touch(e)
  }

  protected touch(e: Entry): void {
    this.dirty.add(e)
    this.version++
  }

  /** Notes a write for `written`: the account's binary key, and the slot's if a slot was written. */
  protected remember(address: string, slot?: string): void {
    let slots = this.written.get(address)
    if (slots === undefined) {
      this.written.set(address, (slots = new Set()))
      this.newlyWritten?.push(address)
    }
    if (slot !== undefined && !slots.has(slot)) {
      slots.add(slot)
      this.newlyWritten?.push(address + slot)
    }
  }

  /**
   * From now on, what `written` gains is also kept for `takeNewlyWritten` (the database, persistence.ts); a node
   * without a database never calls it and holds no second copy.
   */
  recordNewlyWritten(): void {
    this.newlyWritten ??= []
  }

  /**
   * What `written` gained since the last call (each an address's binary key, or an address's followed by a slot's),
   * for the database to keep: a node reopened from it still dumps every account (`anvil_dumpState`).
   */
  takeNewlyWritten(): string[] {
    const taken = this.newlyWritten ?? []
    if (this.newlyWritten !== undefined) this.newlyWritten = []
    return taken
  }

  /** Adds a key `takeNewlyWritten` gave (read back from the database) to `written`. */
  restoreWritten(key: string): void {
    const address = key.slice(0, 20)
    let slots = this.written.get(address)
    if (slots === undefined) this.written.set(address, (slots = new Set()))
    if (key.length > 20) slots.add(key.slice(20))
  }

  // ---- checkpoints -------------------------------------------------------------------------------------------

  // Not async functions: the engine checkpoints every call frame and awaits each of these, and an async function
  // is one more promise per call. A failure still comes back as a rejection (`settled`).
  checkpoint(): Promise<void> {
    return settled(() => {
      this.undo.checkpoint()
      this.depth++
    })
  }

  commit(): Promise<void> {
    return settled(() => {
      this.undo.commit()
      if (--this.depth === 0) this.settle()
    })
  }

  revert(): Promise<void> {
    return settled(() => {
      this.undo.revert()
      this.version++
      if (--this.depth === 0) this.settle()
    })
  }

  /**
   * Reverts every checkpoint still open. An exception that is not an EVM error (a fork's remote failing mid-call)
   * leaves the engine without reverting the checkpoints of the frames it was in: the caller that opened the
   * outermost one calls this, so the state is exactly as before.
   */
  async revertOpen(): Promise<void> {
    await this.revertTo(0)
  }

  /** Reverts the checkpoints opened above `depth` (`openCheckpoints` read before they were opened). */
  async revertTo(depth: number): Promise<void> {
    while (this.depth > depth) await this.revert()
  }

  /** How many checkpoints are open: 0 between requests, 1 while a request reads the pending block (miner/pending.ts). */
  get openCheckpoints(): number {
    return this.depth
  }

  /** Outside every checkpoint: the undo log is empty, and a root computed for the current state is taken. */
  private settle(): void {
    this.originalStorageCache.clear()
    if (this.computed?.version === this.version) this.adopt(this.computed)
  }

  // ---- roots -------------------------------------------------------------------------------------------------

  async getStateRoot(): Promise<Uint8Array> {
    const c = await this.compute()
    if (this.depth === 0) this.adopt(c)
    return c.hash
  }

  /** The root of the current state, written into copies of the tries (the entries are left as they are). */
  private async compute(): Promise<Computed> {
    if (this.computed?.version === this.version) return this.computed
    const c = await withNodes(this.load, () => withSink(this.store.sink, () => computeRoot(this.store, this.root, this.dirty, this.version)))
    return (this.computed = c)
  }

  /** Makes a computed root the state's base (only outside checkpoints: the undo log must not outlive it). */
  private adopt(c: Computed): void {
    this.root = c.root
    adoptRoot(c)
    this.dirty.clear()
  }

  async setStateRoot(stateRoot: Uint8Array): Promise<void> {
    if (!(await this.store.hasTree(stateRoot))) throw EthereumJSErrorWithoutCode('State trie does not contain state root')
    this.root = treeOf(this.store, stateRoot)
    this.entries = new Map()
    this.dirty.clear()
    this.undo.clear()
    this.depth = 0
    this.version++
    this.computed = undefined
  }

  async hasStateRoot(root: Uint8Array): Promise<boolean> {
    return this.store.hasTree(root)
  }

  /** The account trie's root node as of the last computed root (for proofs: src/node/chain/proofs.ts). */
  async rootNode(): Promise<TrieNode | undefined> {
    await this.getStateRoot()
    return this.root
  }

  /** Whether writes are waiting for the next root (an eth_call's reverted writes count until then). */
  get hasUnrootedWrites(): boolean {
    return this.dirty.size > 0
  }
}
