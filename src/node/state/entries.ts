/**
 * The live state's per-account records and the undo log behind checkpoint/commit/revert (stateEntries.ts, liveState.ts).
 */
import { Account, equalsBytes } from '@ethereumjs/util'
import { keccak256 } from '../crypto.js'
import { binKey } from '../binKey.js'
import { rlpEncode, unpaddedBytes } from '../rlp.js'
import type { TrieNode } from './trieNode.js'

/** A storage slot as read from the trie (`base`) and as it is now; values are unpadded (empty = zero). */
export interface Slot {
  readonly key: Uint8Array
  /** keccak256(key): the slot's key in the storage trie. */
  readonly hashed: Uint8Array
  readonly current: Uint8Array
  readonly base: Uint8Array
  /** Written since the trie last took it. */
  readonly dirty: boolean
}

export class Entry {
  /** The account the trie holds (undefined: none). */
  base: Account | undefined
  /** The account now. Never handed out: readers get copies, since the engine modifies what it reads. */
  current: Account | undefined
  /** Slots touched, by binary key. Replaced (not emptied) when the storage is cleared, so undo can restore it. */
  slots = new Map<string, Slot>()
  /**
   * Keys of the slots written since the trie last took this entry's values: the root computation and its adoption
   * visit these, not every slot ever read (a token's entry holds a slot per holder: walking them all made each block
   * cost more than the last). May name slots no longer dirty (a revert restored them, or the map was replaced):
   * readers check `dirty`.
   */
  dirtySlots = new Set<string>()
  /**
   * The root node of the storage trie of `current.storageRoot` when `storageKnown` (undefined: the empty trie); else
   * it is looked up by that hash (the TrieStore, or the database). Read from the account leaf's attachment.
   */
  storage: TrieNode | undefined
  storageKnown = true
  /** On a fork: slots not in the local storage trie are the remote's (overlay.ts); `baseRemote` as the trie holds it. */
  remote = false
  baseRemote = false
  private hashed?: Uint8Array
  private binaryKey?: string

  constructor(readonly address: Uint8Array) {}

  /** `binKey(address)`: the account's key in the live state's maps. */
  get key(): string {
    return (this.binaryKey ??= binKey(this.address))
  }

  /** keccak256(address): the account's key in the state trie. */
  hashedKey(): Uint8Array {
    return (this.hashed ??= keccak256(this.address))
  }

  clone(): Entry {
    const c = new Entry(this.address)
    c.base = this.base
    c.current = this.current
    c.slots = new Map(this.slots)
    c.dirtySlots = new Set(this.dirtySlots)
    c.hashed = this.hashed
    c.binaryKey = this.binaryKey
    c.storage = this.storage
    c.storageKnown = this.storageKnown
    c.remote = this.remote
    c.baseRemote = this.baseRemote
    return c
  }
}

export function copyAccount(a: Account): Account {
  return new Account(a.nonce, a.balance, a.storageRoot, a.codeHash)
}

/**
 * The account's leaf value in the state trie, `account.serialize()` in one allocation (util's goes through hex
 * strings for the nonce and balance, then RLP.encode's per-item arrays); test/liveState.test.ts compares the two.
 */
export function encodeAccount(a: Account): Uint8Array {
  return rlpEncode([unpaddedBytes(a.nonce), unpaddedBytes(a.balance), a.storageRoot, a.codeHash])
}

export function sameAccount(a: Account | undefined, b: Account | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  return a.nonce === b.nonce && a.balance === b.balance && equalsBytes(a.storageRoot, b.storageRoot) && equalsBytes(a.codeHash, b.codeHash)
}

type Record =
  | { t: 0; e: Entry; account: Account | undefined; storage: TrieNode | undefined; storageKnown: boolean; remote: boolean }
  | { t: 1; map: Map<string, Slot>; k: string; prev: Slot }
  | { t: 2; e: Entry; slots: Map<string, Slot> }

/** What each change replaced, newest last; a checkpoint is a position in it. */
export class Undo {
  private readonly log: Record[] = []
  private readonly marks: number[] = []

  account(e: Entry): void {
    this.log.push({ t: 0, e, account: e.current, storage: e.storage, storageKnown: e.storageKnown, remote: e.remote })
  }

  /** `k`: binKey(prev.key). */
  slot(e: Entry, prev: Slot, k: string): void {
    this.log.push({ t: 1, map: e.slots, k, prev })
  }

  slots(e: Entry): void {
    this.log.push({ t: 2, e, slots: e.slots })
  }

  checkpoint(): void {
    this.marks.push(this.log.length)
  }

  commit(): void {
    this.marks.pop()
    if (this.marks.length === 0) this.log.length = 0
  }

  revert(): void {
    const mark = this.marks.pop() ?? 0
    for (let i = this.log.length - 1; i >= mark; i--) {
      const r = this.log[i]!
      if (r.t === 0) {
        r.e.current = r.account
        r.e.storage = r.storage
        r.e.storageKnown = r.storageKnown
        r.e.remote = r.remote
      }
      else if (r.t === 1) r.map.set(r.k, r.prev)
      else r.e.slots = r.slots
    }
    this.log.length = mark
  }

  clear(): void {
    this.log.length = 0
    this.marks.length = 0
  }
}
