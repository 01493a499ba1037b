/**
 * The world state the engine executes against: `StateManagerInterface` (@ethereumjs/common's public interface)
 * over the decoded-node trie (nodeTrie.ts) and the shared TrieStore. It replaces the engine's MerkleStateManager,
 * whose tries keep encoded nodes in a database and re-decode, re-encode and re-hash the path of every write.
 *
 * - Reads and writes go to per-account entries (entries.ts): the value the trie holds (`base`) and the current one.
 *   Their bookkeeping (the read cache, the undo log behind `checkpoint`/`commit`/`revert`, roots computed only when
 *   asked) is the base class's, stateEntries.ts; reading a slot into an entry is slotReads.ts.
 * - This file is what the engine and the node ask of the state: accounts, code and storage, each answered without a
 *   promise's wait when the entry or slot was read before, and synchronous access for the node's own system work.
 */
import { Account, type Address, EthereumJSErrorWithoutCode, KECCAK256_NULL, KECCAK256_RLP, bytesToHex, unpadBytes, equalsBytes } from '@ethereumjs/util'
import type { AccountFields, StateManagerInterface } from '@ethereumjs/common'
import { keccak256 } from '../crypto.js'
import { withNodes } from './nodeTrie.js'
import { binKey } from '../binKey.js'
import { copyAccount, type Entry, type Slot } from './entries.js'
import { storageTree } from './stateRoot.js'
import { storageRange, type StorageRange } from './storageRange.js'
import { NOT_READ, knownSlot, readSlot, slotNow } from './slotReads.js'
import { RESOLVED, StateEntries, settled } from './stateEntries.js'

const EMPTY = new Uint8Array(0)

/** A copy of the entry's account: the engine modifies what it reads. */
const accountOf = (e: Entry): Account | undefined => (e.current === undefined ? undefined : copyAccount(e.current))

export class LiveState extends StateEntries implements StateManagerInterface {
  /** The entry `watch` follows, and whether its account existed just before the last write to it. */
  private watched: Entry | undefined
  private watchedExisted: boolean | undefined

  // ---- accounts ----------------------------------------------------------------------------------------------

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
    return this.entry(address).then(async (e) => (await readSlot(this.store, this.load, e, key))?.current ?? EMPTY)
  }

  putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (key.length !== 32) return Promise.reject(EthereumJSErrorWithoutCode('Storage key must be 32 bytes long'))
    if (value.length > 32) return Promise.reject(EthereumJSErrorWithoutCode('Storage value cannot be longer than 32 bytes'))
    try {
      if (this.writeIfRead(address, key, value) !== undefined) return RESOLVED
    } catch (err) {
      return Promise.reject(err)
    }
    return this.entry(address).then(async (e) => this.writeSlot(e, binKey(key), await readSlot(this.store, this.load, e, key), value))
  }

  /** Writes a slot read before and answers its entry; undefined, with nothing written, when it must be read first. */
  private writeIfRead(address: Address, key: Uint8Array, value: Uint8Array): Entry | undefined {
    const e = this.known(address)
    if (e === undefined) return undefined
    // The slot's binary key once for the lookup, the write, the undo log and `written` (a few of SSTORE's costs).
    const k = binKey(key)
    const s = slotNow(this.store, e, key, k)
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
   * (slotReads.ts `slotNow`); undefined when it must be read asynchronously. The EVM's SLOAD and SSTORE read through this first
   * (storageAccess.ts): the promises of a transfer's two balance reads and writes were 26 of its 190.
   */
  storageIfKnown(address: Address, key: Uint8Array): Uint8Array | undefined {
    if (key.length !== 32) return undefined // getStorage's error, on the asynchronous path
    const e = this.known(address)
    const s = e === undefined ? NOT_READ : slotNow(this.store, e, key, binKey(key))
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

  private loadedSlot(e: Entry, address: Address, key: Uint8Array): Slot | undefined {
    const s = knownSlot(e, key)
    if (s === NOT_READ) throw new Error(`LiveState: slot ${bytesToHex(key)} of ${address.toString()} was not loaded`)
    return s
  }

  getAppliedKey(address: Uint8Array): Uint8Array {
    return keccak256(address)
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
