/**
 * A page of an account's storage in the order of its storage trie (keccak256 of the slot), from a start key: what
 * debug_storageRangeAt lists (geth `eth/api_debug.go` `storageRangeAt`, which walks the trie with a NodeIterator).
 *
 * The live state keeps an account's storage as a trie plus the slots read or written since the trie took them
 * (liveState.ts `storageRange`): the page is the trie's leaves with those slots laid over them.
 */
import { RLP } from '@ethereumjs/rlp'
import { resolved, toNibbles, type Nibbles, type TrieNode } from './trieNode.js'
import type { Slot } from './entries.js'

/** One slot of a page: its trie key, the slot itself when known (the trie keeps only the hash), its value (unpadded). */
export interface StorageRangeEntry {
  hashed: Uint8Array
  key: Uint8Array | undefined
  value: Uint8Array
}

export interface StorageRange {
  entries: StorageRangeEntry[]
  /** The trie key of the first slot after the page, or undefined when the page reaches the end. */
  next: Uint8Array | undefined
}

/** Byte-wise order, a shorter string first when it is a prefix (geth's, for the start key). */
function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!
  return a.length - b.length
}

function fromNibbles(path: number[]): Uint8Array {
  const out = new Uint8Array(path.length >> 1)
  for (let i = 0; i < out.length; i++) out[i] = (path[2 * i]! << 4) | path[2 * i + 1]!
  return out
}

/** Order of `path` against `start` over the first `path.length` nibbles (start is 64 nibbles: a 32-byte key). */
function comparePrefix(prefix: number[], path: Nibbles, start: Nibbles): number {
  let i = 0
  for (const n of prefix) {
    if (n !== start[i]) return n - start[i]!
    i++
  }
  for (const n of path) {
    if (n !== start[i]) return n - start[i]!
    i++
  }
  return 0
}

/**
 * The leaves of `root` whose key is at or after `start` (32 bytes), in key order, at most `limit`. Synchronous over
 * nodes in memory: reaching an unloaded node throws MissingNode (run it inside `withNodes`).
 */
function trieLeavesFrom(root: TrieNode | undefined, start: Uint8Array, limit: number): Array<{ key: Uint8Array; value: Uint8Array }> {
  const out: Array<{ key: Uint8Array; value: Uint8Array }> = []
  const s = toNibbles(start)
  const path: number[] = []
  // `bound`: the path so far equals the start key's first nibbles, so keys below it must still be skipped.
  const walk = (n: TrieNode | undefined, bound: boolean): void => {
    if (n === undefined || out.length >= limit) return
    const node = resolved(n)
    if (node.t === 2) {
      for (let i = bound ? s[path.length]! : 0; i < 16 && out.length < limit; i++) {
        path.push(i)
        walk(node.kids[i], bound && i === s[path.length - 1])
        path.pop()
      }
      return
    }
    const c = bound ? comparePrefix(path, node.path, s) : 1
    if (c < 0) return
    if (node.t === 0) {
      out.push({ key: fromNibbles([...path, ...node.path]), value: node.value })
      return
    }
    path.push(...node.path)
    walk(node.child, c === 0)
    path.length -= node.path.length
  }
  walk(root, true)
  return out
}

/**
 * At most `max` slots of the storage `tree` with `slots` laid over it (a slot whose value is empty is deleted), from
 * the trie key `start` (32 bytes) on, in trie-key order, and the key that follows them. Slots carry their preimage;
 * trie leaves do not (`key` undefined). Synchronous, as `trieLeavesFrom`.
 */
export function storageRange(tree: TrieNode | undefined, slots: Iterable<Slot>, start: Uint8Array, max: number): StorageRange {
  const over = [...slots].filter((s) => compareBytes(s.hashed, start) >= 0)
  // Each deleted slot may hide one leaf read: read that many more, so that `max + 1` entries remain when there are.
  // Those are then the first `max + 1` of the whole storage: a leaf not read is after every leaf read, and a slot laid
  // over the trie past the last leaf read sorts after them.
  const limit = max + 1 + over.filter((s) => s.current.length === 0).length
  const merged = new Map<string, StorageRangeEntry>()
  const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex')
  for (const l of trieLeavesFrom(tree, start, limit)) merged.set(hex(l.key), { hashed: l.key, key: undefined, value: RLP.decode(l.value) as Uint8Array })
  for (const s of over) {
    if (s.current.length === 0) merged.delete(hex(s.hashed))
    else merged.set(hex(s.hashed), { hashed: s.hashed, key: s.key, value: s.current })
  }
  const sorted = [...merged.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => e)
  return { entries: sorted.slice(0, max), next: sorted[max]?.hashed }
}
