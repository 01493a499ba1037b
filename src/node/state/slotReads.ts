/**
 * Reading a storage slot into an account's entry (liveState.ts): the slot read before, else read from the account's
 * storage trie (and on a fork, where the local trie does not hold it, from the remote), then kept in the entry as
 * its `base` and current value. Plain functions over the entry, so the EVM's SLOAD and SSTORE (storageAccess.ts)
 * call them without a promise when nothing has to be loaded.
 */
import { RLP } from '@ethereumjs/rlp'
import { keccak256 } from '../crypto.js'
import { binKey } from '../binKey.js'
import { MissingNode } from './trieNode.js'
import { trieGet, withNodes, type HashNodeLoader } from './nodeTrie.js'
import type { TrieStore } from './trieStore.js'
import type { Entry, Slot } from './entries.js'
import { storageTree } from './stateRoot.js'

const EMPTY = new Uint8Array(0)

/** What `knownSlot` answers for a slot not read yet. */
export const NOT_READ = null

/** The slot if it was read before; undefined for a missing account; NOT_READ when it must be read from the trie. */
export function knownSlot(e: Entry, key: Uint8Array): Slot | undefined | typeof NOT_READ {
  return knownSlotAt(e, binKey(key))
}

/** `knownSlot` by the slot's binary key (`binKey(key)`). */
function knownSlotAt(e: Entry, k: string): Slot | undefined | typeof NOT_READ {
  // Checked first: slots read while the account existed may outlive it (a revert restores the map they are in).
  if (e.current === undefined) return undefined
  return e.slots.get(k) ?? NOT_READ
}

/**
 * The slot's entry, read from the account's storage trie on first touch (loading its nodes with `load`); undefined
 * for a missing account.
 */
export async function readSlot(store: TrieStore, load: HashNodeLoader | undefined, e: Entry, key: Uint8Array): Promise<Slot | undefined> {
  const k = binKey(key)
  const now = slotNow(store, e, key, k)
  if (now !== NOT_READ) return now
  const account = e.current!
  const hashed = keccak256(key)
  const stored = await withNodes(load, () => trieGet(storageTree(store, e, account), hashed))
  let value: Uint8Array = EMPTY
  if (stored !== undefined) value = RLP.decode(stored) as Uint8Array
  else if (e.remote) {
    const slots = e.slots
    value = await store.remote!.storage(e.address, key)
    // Another read may have made the slot while this one waited for the remote (or the storage was replaced).
    const raced = slots.get(k)
    if (raced !== undefined) return raced
    if (slots !== e.slots) return readSlot(store, load, e, key)
  }
  const s: Slot = { key, hashed, current: value, base: value, dirty: false }
  e.slots.set(k, s)
  return s
}

/**
 * `readSlot` without waiting: the slot read before, or read from the storage trie now when every node on its path is
 * in memory (the usual case: a storage trie once read, or an empty one, stays decoded), and kept as `readSlot` keeps
 * it; NOT_READ when a node must be loaded first or, on a fork, the slot may be the remote's. The EVM's first SLOAD
 * or SSTORE of a slot then takes no promise (storageAccess.ts): 400 new slots of an empty storage written by one
 * `eth_call` took 4.1-4.3 ms before, against 1.9-2.1 for the same slots written again, and 3.1-3.3 after
 * (docs/performance.md, twenty-sixth round).
 */
export function slotNow(store: TrieStore, e: Entry, key: Uint8Array, k: string): Slot | undefined | typeof NOT_READ {
  const known = knownSlotAt(e, k)
  if (known !== NOT_READ) return known
  const hashed = keccak256(key)
  let stored: Uint8Array | undefined
  try {
    stored = trieGet(storageTree(store, e, e.current!), hashed)
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
