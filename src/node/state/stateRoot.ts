/**
 * A state root from the written entries (stateEntries.ts): changed slots into each storage trie, then changed accounts
 * into the account trie, skipping writes of the value already there. Nodes are copied on write, so the tries the
 * entries came from stay as they were until `adoptRoot` makes the result their base.
 */
import { Account, EthereumJSErrorWithoutCode, KECCAK256_RLP, equalsBytes } from '@ethereumjs/util'
import { rlpEncode } from '../rlp.js'
import { rootHash, type TrieNode } from './trieNode.js'
import { trieDel, triePut } from './nodeTrie.js'
import type { TrieStore } from './trieStore.js'
import { encodeAccount, sameAccount, type Entry } from './entries.js'
import { encodeForkLeaf } from './overlay.js'

/** A root computed for one version of the state, and what adopting it sets on each written entry. */
export interface Computed {
  version: number
  root: TrieNode | undefined
  hash: Uint8Array
  /** Each written entry's account as stored in `root` (its storage root updated), and its storage tree. */
  accounts: Array<[Entry, Account | undefined, TrieNode | undefined]>
}

/** The tree `store` keeps for root `hash`. */
export function treeOf(store: TrieStore, hash: Uint8Array): TrieNode | undefined {
  const t = store.tree(hash)
  if (t === null) throw EthereumJSErrorWithoutCode('State trie does not contain state root')
  return t
}

/** The storage trie of the entry's current account. */
export function storageTree(store: TrieStore, e: Entry, account: Account): TrieNode | undefined {
  return e.storageKnown ? e.storage : treeOf(store, account.storageRoot)
}

/**
 * The root of the state `root` with the entries `dirty` written into it, for state version `version`. Runs inside
 * `withNodes`/`withSink` (the caller's): hashed nodes are loaded and new ones kept there.
 *
 * @example
 * const c = computeRoot(store, root, dirtyEntries, version) // c.hash: the state root
 */
export function computeRoot(store: TrieStore, root: TrieNode | undefined, dirty: Iterable<Entry>, version: number): Computed {
  const fork = store.remote !== undefined
  const accounts: Computed['accounts'] = []
  for (const e of dirty) {
    let account = e.current
    let storage: TrieNode | undefined
    if (account !== undefined) {
      storage = storageTree(store, e, account)
      let changed = false
      for (const k of e.dirtySlots) {
        const s = e.slots.get(k)
        if (s === undefined || !s.dirty || equalsBytes(s.current, s.base)) continue
        changed = true
        // Over the remote's storage a zero is kept (an empty value), else the remote's value would show through.
        storage = s.current.length > 0 || e.remote ? triePut(storage, s.hashed, rlpEncode(s.current)) : trieDel(storage, s.hashed)
      }
      if (changed) {
        const hash = storage === undefined ? KECCAK256_RLP : rootHash(storage)
        store.addStorageRoot(hash, storage)
        account = new Account(account.nonce, account.balance, hash, account.codeHash)
      }
    }
    accounts.push([e, account, storage])
    if (sameAccount(account, e.base) && e.remote === e.baseRemote) continue
    // The storage trie rides on the account's leaf: the state root reaches it, and frees it with itself.
    if (fork) root = triePut(root, e.hashedKey(), encodeForkLeaf(account, e.remote), account === undefined ? undefined : storage)
    else root = account === undefined ? trieDel(root, e.hashedKey()) : triePut(root, e.hashedKey(), encodeAccount(account), storage)
  }
  const hash = root === undefined ? KECCAK256_RLP : rootHash(root)
  store.addRoot(hash, root)
  return { version, root, hash, accounts }
}

/**
 * Makes a computed root the base of its entries: each one's trie value becomes its current one, its slots clean.
 * Only outside checkpoints (the undo log must not outlive it); the caller takes `c.root` as its root.
 *
 * @example
 * adoptRoot(c); state.root = c.root
 */
export function adoptRoot(c: Computed): void {
  for (const [e, account, storage] of c.accounts) {
    e.base = e.current = account
    e.baseRemote = e.remote
    e.storage = storage
    e.storageKnown = true
    for (const k of e.dirtySlots) {
      const s = e.slots.get(k)
      if (s?.dirty === true) e.slots.set(k, { ...s, base: s.current, dirty: false })
    }
    e.dirtySlots.clear()
  }
}
