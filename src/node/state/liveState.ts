/**
 * The world state the engine executes against: `StateManagerInterface` (@ethereumjs/common's public interface)
 * over the decoded-node trie (nodeTrie.ts) and the shared TrieStore. It replaces the engine's MerkleStateManager,
 * whose tries keep encoded nodes in a database and re-decode, re-encode and re-hash the path of every write.
 *
 * - Reads and writes go to per-account entries (entries.ts): the value the trie holds (`base`) and the current one.
 *   The entries of accounts read once stay as the head's read cache, so a hot account is never looked up twice.
 * - `checkpoint`/`commit`/`revert` keep an undo log of entry changes (the engine checkpoints every call frame).
 * - The trie is written only when a root is asked for (`getStateRoot`; stateRoot.ts): changed slots into each storage
 *   trie, then changed accounts into the account trie, skipping writes of the value already there. Nodes are copied
 *   on write, so every root computed stays readable (historical blocks, `evm_revert` as a root swap; trieStore.ts).
 * - A root computed inside a checkpoint (the miner asks for it before committing the block) is kept and adopted
 *   when the outermost checkpoint commits unchanged, so a block's tries are built once.
 * - On a fork (the store has `remote` values), what the local trie does not hold is read from the remote, and the
 *   trie keeps deletions as tombstones (overlay.ts).
 */
import { Account, type Address, EthereumJSErrorWithoutCode, KECCAK256_NULL, KECCAK256_RLP, bytesToHex, createAccountFromRLP, unpadBytes, equalsBytes } from '@ethereumjs/util'
import { RLP } from '@ethereumjs/rlp'
import { OriginalStorageCache } from '@ethereumjs/statemanager'
import type { AccountFields, StateManagerInterface } from '@ethereumjs/common'
import { keccak256 } from '../crypto.js'
import { MissingNode, withSink, type TrieNode } from './trieNode.js'
import { trieGet, trieGetLeaf, withNodes, type HashNodeLoader } from './nodeTrie.js'
import type { TrieStore } from './trieStore.js'
import { binKey } from '../binKey.js'
import { hashNodeLoader } from './nodeSource.js'
import { Entry, Undo, copyAccount, type Slot } from './entries.js'
import { decodeForkLeaf } from './overlay.js'
import { adoptRoot, computeRoot, storageTree, treeOf, type Computed } from './stateRoot.js'
import { storageRange, type StorageRange } from './storageRange.js'

const EMPTY = new Uint8Array(0)
/** One settled promise for every write answered at once (a settled promise never changes). */
const RESOLVED: Promise<void> = Promise.resolve()

/** A copy of the entry's account: the engine modifies what it reads. */
const accountOf = (e: Entry): Account | undefined => (e.current === undefined ? undefined : copyAccount(e.current))

/** `work` done now, as a settled promise: resolved, or rejected with what it threw. */
function settled(work: () => void): Promise<void> {
  try {
    work()
    return RESOLVED
  } catch (e) {
    return Promise.reject(e)
  }
}

/** What `knownSlot` answers for a slot not read yet. */
const NOT_READ = null

/** The slot if it was read before; undefined for a missing account; NOT_READ when it must be read from the trie. */
function knownSlot(e: Entry, key: Uint8Array): Slot | undefined | typeof NOT_READ {
  return knownSlotAt(e, binKey(key))
}

/** `knownSlot` by the slot's binary key (`binKey(key)`). */
function knownSlotAt(e: Entry, k: string): Slot | undefined | typeof NOT_READ {
  // Checked first: slots read while the account existed may outlive it (a revert restores the map they are in).
  if (e.current === undefined) return undefined
  return e.slots.get(k) ?? NOT_READ
}

export class LiveState implements StateManagerInterface {
  readonly originalStorageCache: OriginalStorageCache
  /** Addresses and slots ever written (binary keys), for `anvil_dumpState` (the trie keeps only their hashes). */
  readonly written = new Map<string, Set<string>>()

  private root: TrieNode | undefined
  private entries = new Map<string, Entry>()
  /** Entries written since the trie last took their values. */
  private readonly dirty = new Set<Entry>()
  private readonly undo = new Undo()
  private depth = 0
  /** Bumped by every change, to know whether `computed` still describes the state. */
  private version = 0
  private computed?: Computed
  private readonly load: HashNodeLoader | undefined
  /** The entry `watch` follows, and whether its account existed just before the last write to it. */
  private watched: Entry | undefined
  private watchedExisted: boolean | undefined

  constructor(
    readonly store: TrieStore,
    root?: TrieNode,
  ) {
    this.root = root
    this.load = hashNodeLoader(store.source)
    this.originalStorageCache = new OriginalStorageCache(this.getStorage.bind(this))
  }

  // ---- accounts ----------------------------------------------------------------------------------------------

  /**
   * The entry of `address`, read from the trie on first touch. The engine and REMASC ask for the same few accounts
   * over and over (28 `getAccount` calls per block of one token transfer, 16 of them REMASC's, counted), so the
   * public methods below answer an entry or slot already read at once (`Promise.resolve` of the answer, no `async`
   * frame and no awaits inside: docs/performance.md, tenth round) and fall back to this for a miss.
   */
  private async entry(address: Address): Promise<Entry> {
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
  private known(address: Address): Entry | undefined {
    return this.entries.get(binKey(address.bytes))
  }

  getAccount(address: Address): Promise<Account | undefined> {
    const e = this.known(address)
    if (e !== undefined) return Promise.resolve(accountOf(e))
    return this.entry(address).then(accountOf)
  }

  putAccount(address: Address, account: Account | undefined): Promise<void> {
    const e = this.known(address)
    if (e === undefined) return this.entry(address).then((e) => this.writeAccount(e, account))
    return settled(() => this.writeAccount(e, account))
  }

  private writeAccount(e: Entry, account: Account | undefined): void {
    if (e === this.watched) this.watchedExisted = e.current !== undefined
    if (account === undefined) return this.removeAccount(e)
    this.remember(e.key)
    // An account written with another storage root has that storage: the slots known for the old one are dropped,
    // and the tree is looked up by its hash. (The engine writes back the root it read, so this happens only when a
    // caller sets one on purpose.)
    const before = e.current?.storageRoot ?? KECCAK256_RLP
    if (!equalsBytes(before, account.storageRoot)) {
      this.setSlots(e, new Map())
      const empty = equalsBytes(account.storageRoot, KECCAK256_RLP)
      return this.setAccount(e, copyAccount(account), { tree: undefined, known: empty })
    }
    this.setAccount(e, copyAccount(account))
  }

  /**
   * Follows the writes to the account of `address` (read before: `preload`) until `unwatch`, remembering whether it
   * existed just before the last one. chain/runBlockTx.ts asks it of the coinbase: the engine's fee payment is a
   * transaction's last write to it, so this tells an account the transaction's own execution made (and kept) from
   * one the payment made.
   */
  watch(address: Address): void {
    this.watched = this.loaded(address)
    this.watchedExisted = undefined
  }

  /** Ends `watch`: whether the account existed just before the last write to it; undefined when none was written. */
  unwatch(): boolean | undefined {
    const existed = this.watchedExisted
    this.watched = this.watchedExisted = undefined
    return existed
  }

  async deleteAccount(address: Address): Promise<void> {
    this.removeAccount(await this.entry(address))
  }

  /** A deleted account has no storage either (the engine's caches drop both together). */
  private removeAccount(e: Entry): void {
    this.setAccount(e, undefined, { tree: undefined, known: true })
    this.setSlots(e, new Map())
  }

  async modifyAccountFields(address: Address, fields: AccountFields): Promise<void> {
    const account = (await this.getAccount(address)) ?? new Account()
    account.nonce = fields.nonce ?? account.nonce
    account.balance = fields.balance ?? account.balance
    account.storageRoot = fields.storageRoot ?? account.storageRoot
    account.codeHash = fields.codeHash ?? account.codeHash
    await this.putAccount(address, account)
  }

  /** `storage`: the storage tree goes with it (else the account keeps its tree). */
  private setAccount(e: Entry, account: Account | undefined, storage?: { tree: TrieNode | undefined; known: boolean }): void {
    if (this.depth > 0) this.undo.account(e)
    e.current = account
    if (storage !== undefined) {
      e.storage = storage.tree
      e.storageKnown = storage.known
      e.remote = false
    }
    this.touch(e)
  }

  private setSlots(e: Entry, slots: Map<string, Slot>): void {
    if (this.depth > 0) this.undo.slots(e)
    e.slots = slots
    this.touch(e)
  }

  private touch(e: Entry): void {
    this.dirty.add(e)
    this.version++
  }

  /** Notes a write for `written`: the account's binary key, and the slot's if a slot was written. */
  private remember(address: string, slot?: string): void {
    let slots = this.written.get(address)
    if (slots === undefined) this.written.set(address, (slots = new Set()))
    if (slot !== undefined) slots.add(slot)
  }

  // ---- code --------------------------------------------------------------------------------------------------

  async putCode(address: Address, code: Uint8Array): Promise<void> {
    const hash = keccak256(code)
    this.store.addCode(hash, code)
    this.remember(binKey(address.bytes))
    await this.modifyAccountFields(address, { codeHash: hash })
  }

  getCode(address: Address): Promise<Uint8Array> {
    const e = this.known(address)
    const a = e?.current
    if (e !== undefined && (a === undefined || equalsBytes(a.codeHash, KECCAK256_NULL))) return Promise.resolve(EMPTY)
    const held = a === undefined ? undefined : this.store.heldCode(a.codeHash)
    if (held !== undefined) return Promise.resolve(held)
    return this.readCode(address)
  }

  private async readCode(address: Address): Promise<Uint8Array> {
    const a = (await this.entry(address)).current
    if (a === undefined || equalsBytes(a.codeHash, KECCAK256_NULL)) return EMPTY
    const code = await this.store.code(a.codeHash)
    if (code !== undefined || this.store.remote === undefined) return code ?? EMPTY
    // A fork's account whose leaf is local but whose code is still the remote's, in a process that has not read the
    // account from the remote yet (a fork reopened from its database): the remote's account brings its code.
    await this.store.remote.account(address.bytes)
    return this.store.heldCode(a.codeHash) ?? EMPTY
  }

  getCodeSize(address: Address): Promise<number> {
    return this.getCode(address).then((code) => code.length)
  }

  // ---- storage -----------------------------------------------------------------------------------------------

  /** Slot value without leading zeros (empty when unset), as the engine's state manager answers. */
  getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    if (key.length !== 32) return Promise.reject(EthereumJSErrorWithoutCode('Storage key must be 32 bytes long'))
    const known = this.storageIfKnown(address, key)
    if (known !== undefined) return Promise.resolve(known)
    return this.entry(address).then(async (e) => (await this.slot(e, key))?.current ?? EMPTY)
  }

  /** The slot's entry, read from the account's storage trie on first touch; undefined for a missing account. */
  private async slot(e: Entry, key: Uint8Array): Promise<Slot | undefined> {
    const k = binKey(key)
    const now = this.slotNow(e, key, k)
    if (now !== NOT_READ) return now
    const account = e.current!
    const hashed = keccak256(key)
    const stored = await withNodes(this.load, () => trieGet(storageTree(this.store, e, account), hashed))
    let value: Uint8Array = EMPTY
    if (stored !== undefined) value = RLP.decode(stored) as Uint8Array
    else if (e.remote) {
      const slots = e.slots
      value = await this.store.remote!.storage(e.address, key)
      // Another read may have made the slot while this one waited for the remote (or the storage was replaced).
      const raced = slots.get(k)
      if (raced !== undefined) return raced
      if (slots !== e.slots) return this.slot(e, key)
    }
    const s: Slot = { key, hashed, current: value, base: value, dirty: false }
    e.slots.set(k, s)
    return s
  }

  /**
   * `slot` without waiting: the slot read before, or read from the storage trie now when every node on its path is
   * in memory (the usual case: a storage trie once read, or an empty one, stays decoded), and kept as `slot` keeps
   * it; NOT_READ when a node must be loaded first or, on a fork, the slot may be the remote's. The EVM's first SLOAD
   * or SSTORE of a slot then takes no promise (storageAccess.ts): 400 new slots of an empty storage written by one
   * `eth_call` took 4.1-4.3 ms before, against 1.9-2.1 for the same slots written again, and 3.1-3.3 after
   * (docs/performance.md, twenty-sixth round).
   */
  private slotNow(e: Entry, key: Uint8Array, k: string): Slot | undefined | typeof NOT_READ {
    const known = knownSlotAt(e, k)
    if (known !== NOT_READ) return known
    const hashed = keccak256(key)
    let stored: Uint8Array | undefined
    try {
      stored = trieGet(storageTree(this.store, e, e.current!), hashed)
    } catch (err) {
      if (err instanceof MissingNode) return NOT_READ
      throw err
    }
    if (stored === undefined && e.remote) return NOT_READ
    const value = stored === undefined ? EMPTY : (RLP.decode(stored) as Uint8Array)
    const s: Slot = { key, hashed, current: value, base: value, dirty: false }
    e.slots.set(k, s)
    return s
  }

  putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (key.length !== 32) return Promise.reject(EthereumJSErrorWithoutCode('Storage key must be 32 bytes long'))
    if (value.length > 32) return Promise.reject(EthereumJSErrorWithoutCode('Storage value cannot be longer than 32 bytes'))
    try {
      if (this.writeIfRead(address, key, value) !== undefined) return RESOLVED
    } catch (err) {
      return Promise.reject(err)
    }
    return this.entry(address).then(async (e) => this.writeSlot(e, binKey(key), await this.slot(e, key), value))
  }

  /** Writes a slot read before and answers its entry; undefined, with nothing written, when it must be read first. */
  private writeIfRead(address: Address, key: Uint8Array, value: Uint8Array): Entry | undefined {
    const e = this.known(address)
    if (e === undefined) return undefined
    // The slot's binary key once for the lookup, the write, the undo log and `written` (a few of SSTORE's costs).
    const k = binKey(key)
    const s = this.slotNow(e, key, k)
    if (s === NOT_READ) return undefined
    this.writeSlot(e, k, s, value)
    return e
  }

  /** Writes the slot of binary key `k` of `e`, whose entry `s` was read before. */
  private writeSlot(e: Entry, k: string, s: Slot | undefined, value: Uint8Array): void {
    if (s === undefined) throw EthereumJSErrorWithoutCode('putStorage() called on non-existing account')
    const v = unpadBytes(value)
    if (equalsBytes(v, s.current)) return
    this.remember(e.key, k)
    if (this.depth > 0) this.undo.slot(e, s, k)
    e.slots.set(k, { key: s.key, hashed: s.hashed, current: v, base: s.base, dirty: true })
    e.dirtySlots.add(k)
    this.touch(e)
  }

  /** Empties the account's storage; creates the account when missing, as the engine's state manager does. */
  async clearStorage(address: Address): Promise<void> {
    const e = await this.entry(address)
    const a = e.current ?? new Account()
    this.setSlots(e, new Map())
    this.setAccount(e, new Account(a.nonce, a.balance, KECCAK256_RLP, a.codeHash), { tree: undefined, known: true })
  }

  /**
   * A page of the account's storage in trie-key order from `start` (32 bytes), at most `max` slots, as it is now:
   * the storage trie with the slots read or written since laid over it (storageRange.ts); undefined for a missing
   * account, `'remote'` on a fork when slots the local trie lacks are the remote's (they cannot be listed).
   */
  async storageRange(address: Address, start: Uint8Array, max: number): Promise<StorageRange | undefined | 'remote'> {
    const e = await this.entry(address)
    if (e.current === undefined) return undefined
    if (e.remote) return 'remote'
    const account = e.current
    const slots = [...e.slots.values()]
    return withNodes(this.load, () => storageRange(storageTree(this.store, e, account), slots, start, max))
  }

  // ---- synchronous access (the node's own system work: REMASC) -----------------------------------------------

  /**
   * Reads the entries of `addresses`, and the slots `keys` of `holder`, that were not read yet, so that the `…Now`
   * methods below can answer them; undefined (no promise) when every one was read before, the rule after a chain's
   * first blocks. REMASC runs on these: its reads and writes through the asynchronous methods made 49 of a warm
   * transfer's 253 promises (docs/performance.md, seventeenth round). A slot of a missing account needs no reading (it is empty).
   */
  preload(addresses: readonly Address[], holder?: Address, keys: readonly Uint8Array[] = []): Promise<void> | undefined {
    let reads: Promise<unknown>[] | undefined
    for (const a of addresses) if (this.known(a) === undefined) (reads ??= []).push(this.entry(a))
    if (holder !== undefined) {
      const e = this.known(holder)
      for (const k of keys) if (e === undefined || knownSlot(e, k) === NOT_READ) (reads ??= []).push(this.getStorage(holder, k))
    }
    return reads === undefined ? undefined : Promise.all(reads).then(() => undefined)
  }

  /**
   * Whether the account of `address` has code, when it was read before (no lookup, no promise); undefined when it was
   * not. A block transaction's sender was read by the pool (enginePatches/contractSender.ts asks it first).
   */
  hasCodeIfKnown(address: Address): boolean | undefined {
    const e = this.known(address)
    if (e === undefined) return undefined
    return e.current !== undefined && !equalsBytes(e.current.codeHash, KECCAK256_NULL)
  }

  /** As `getAccount`, for an account `preload` read. */
  accountNow(address: Address): Account | undefined {
    return accountOf(this.loaded(address))
  }

  /** As `putAccount`, for an account `preload` read. */
  putAccountNow(address: Address, account: Account | undefined): void {
    this.writeAccount(this.loaded(address), account)
  }

  /**
   * What `getStorage` answers, without a promise, when the account was read before and the slot can be read now
   * (`slotNow`); undefined when it must be read asynchronously. The EVM's SLOAD and SSTORE read through this first
   * (storageAccess.ts): the promises of a transfer's two balance reads and writes were 26 of its 190.
   */
  storageIfKnown(address: Address, key: Uint8Array): Uint8Array | undefined {
    if (key.length !== 32) return undefined // getStorage's error, on the asynchronous path
    const e = this.known(address)
    const s = e === undefined ? NOT_READ : this.slotNow(e, key, binKey(key))
    return s === NOT_READ ? undefined : (s?.current ?? EMPTY)
  }

  /**
   * `putStorage` done now when the account was read before and the slot can be read now (`slotNow`), answering the
   * account after the write (what the engine reads back after a store); false, with nothing written, when it must be
   * read first. Throws what `putStorage` rejects with.
   */
  putStorageIfKnown(address: Address, key: Uint8Array, value: Uint8Array): Account | undefined | false {
    if (key.length !== 32 || value.length > 32) return false // putStorage's errors, on the asynchronous path
    const e = this.writeIfRead(address, key, value)
    return e === undefined ? false : accountOf(e)
  }

  /** As `getStorage`, for a slot `preload` read. */
  storageNow(address: Address, key: Uint8Array): Uint8Array {
    return this.loadedSlot(this.loaded(address), address, key)?.current ?? EMPTY
  }

  /** As `putStorage` (a 32-byte key, a value of at most 32 bytes), for a slot `preload` read. */
  putStorageNow(address: Address, key: Uint8Array, value: Uint8Array): void {
    const e = this.loaded(address)
    this.writeSlot(e, binKey(key), this.loadedSlot(e, address, key), value)
  }

  private loaded(address: Address): Entry {
    const e = this.known(address)
    if (e === undefined) throw new Error(`LiveState: account ${address.toString()} was not loaded`)
    return e
  }

  private loadedSlot(e: Entry, address: Address, key: Uint8Array): Slot | undefined {
    const s = knownSlot(e, key)
    if (s === NOT_READ) throw new Error(`LiveState: slot ${bytesToHex(key)} of ${address.toString()} was not loaded`)
    return s
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

  getAppliedKey(address: Uint8Array): Uint8Array {
    return keccak256(address)
  }

  /** Whether writes are waiting for the next root (an eth_call's reverted writes count until then). */
  get hasUnrootedWrites(): boolean {
    return this.dirty.size > 0
  }

  /** Forgets what was read (not what was written). */
  clearCaches(): void {
    for (const [k, e] of this.entries) if (!this.dirty.has(e)) this.entries.delete(k)
  }

  /** A state over the same store at the same root, with this one's unwritten changes (the engine's interface asks for it). */
  shallowCopy(): LiveState {
    const copy = new LiveState(this.store, this.root)
    for (const e of this.dirty) {
      const c = e.clone()
      copy.entries.set(binKey(e.address), c)
      copy.dirty.add(c)
    }
    return copy
  }
}
