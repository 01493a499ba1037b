/**
 * Reads and copy-on-write updates of a Merkle-Patricia trie of decoded nodes (trieNode.ts). A tree is its root
 * node (`undefined` for the empty trie); `put` and `del` return a new root sharing every unchanged subtree with the
 * old one, which stays valid. Keys are the raw trie keys (the state hashes them before calling: keccak256 of the
 * address or slot), so the same keys and values give the same root as `@ethereumjs/mpt`.
 *
 * Every walk is synchronous over nodes in memory. A node a NodeSource has not loaded yet is a hash node; reaching one
 * throws MissingNode, and `withNodes` loads it and runs the (pure) operation again.
 */
import { branch, extension, leaf, resolved, toNibbles, encodeNode, MissingNode, type Leaf, type Nibbles, type TrieNode, type HashNode } from './trieNode.js'

const EMPTY: Uint8Array = new Uint8Array(0)

function commonPrefix(a: Nibbles, b: Nibbles, bStart: number): number {
  const max = Math.min(a.length, b.length - bStart)
  let i = 0
  while (i < max && a[i] === b[bStart + i]) i++
  return i
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** The value stored under `key`, or undefined. */
export function trieGet(root: TrieNode | undefined, key: Uint8Array): Uint8Array | undefined {
  return trieGetLeaf(root, key)?.value
}

/** The leaf holding `key` (its value, and the node attached to it), or undefined. */
export function trieGetLeaf(root: TrieNode | undefined, key: Uint8Array): Leaf | undefined {
  const k = toNibbles(key)
  let pos = 0
  let n = root
  while (n !== undefined) {
    const node = resolved(n)
    if (node.t === 0) return node.path.length === k.length - pos && commonPrefix(node.path, k, pos) === node.path.length ? node : undefined
    if (node.t === 1) {
      if (commonPrefix(node.path, k, pos) !== node.path.length) return undefined
      pos += node.path.length
      n = node.child
    } else {
      if (pos === k.length) return node.value.length > 0 ? leaf(EMPTY, node.value) : undefined
      n = node.kids[k[pos++]!]
    }
  }
  return undefined
}

/**
 * A new root with `key` set to `value` (an empty value deletes, as in `@ethereumjs/mpt`); `attached` rides on the
 * leaf (trieNode.ts `Leaf.attached`).
 */
export function triePut(root: TrieNode | undefined, key: Uint8Array, value: Uint8Array, attached?: TrieNode): TrieNode | undefined {
  if (value.length === 0) return trieDel(root, key)
  return insert(root, toNibbles(key), 0, value, attached)
}

function insert(n: TrieNode | undefined, k: Nibbles, pos: number, value: Uint8Array, attached: TrieNode | undefined): TrieNode {
  if (n === undefined) return leaf(k.subarray(pos), value, attached)
  const node = resolved(n)
  if (node.t === 2) {
    if (pos === k.length) return sameBytes(node.value, value) ? node : branch([...node.kids], value)
    const i = k[pos]!
    const old = node.kids[i]
    const next = insert(old, k, pos + 1, value, attached)
    if (next === old) return node
    const kids = [...node.kids]
    kids[i] = next
    return branch(kids, node.value)
  }
  const c = commonPrefix(node.path, k, pos)
  if (node.t === 0 && c === node.path.length && c === k.length - pos) {
    return sameBytes(node.value, value) && node.attached === attached ? node : leaf(node.path, value, attached)
  }
  if (node.t === 1 && c === node.path.length) {
    const next = insert(node.child, k, pos + c, value, attached)
    return next === node.child ? node : extension(node.path, next)
  }
  // The paths part at nibble c: a branch there holds what is left of the old node and the new value.
  const kids: Array<TrieNode | undefined> = new Array(16).fill(undefined)
  let branchValue = EMPTY
  if (c === node.path.length) {
    branchValue = (node as { value: Uint8Array }).value // a leaf whose key is a prefix of the new one
  } else {
    const rest = node.path.subarray(c + 1)
    const slot = node.path[c]!
    if (node.t === 0) kids[slot] = leaf(rest, node.value, node.attached)
    else kids[slot] = rest.length === 0 ? node.child : extension(rest, node.child)
  }
  if (pos + c === k.length) branchValue = value
  else kids[k[pos + c]!] = leaf(k.subarray(pos + c + 1), value, attached)
  const b = branch(kids, branchValue)
  return c === 0 ? b : extension(node.path.subarray(0, c), b)
}

/** A new root without `key`. */
export function trieDel(root: TrieNode | undefined, key: Uint8Array): TrieNode | undefined {
  return remove(root, toNibbles(key), 0)
}

function remove(n: TrieNode | undefined, k: Nibbles, pos: number): TrieNode | undefined {
  if (n === undefined) return undefined
  const node = resolved(n)
  if (node.t === 0) return node.path.length === k.length - pos && commonPrefix(node.path, k, pos) === node.path.length ? undefined : n
  if (node.t === 1) {
    if (commonPrefix(node.path, k, pos) !== node.path.length) return n
    const next = remove(node.child, k, pos + node.path.length)
    if (next === node.child) return n
    return next === undefined ? undefined : join(node.path, next)
  }
  const kids = [...node.kids]
  let value = node.value
  if (pos === k.length) {
    if (value.length === 0) return n
    value = EMPTY
  } else {
    const i = k[pos]!
    const next = remove(kids[i], k, pos + 1)
    if (next === kids[i]) return n
    kids[i] = next
  }
  let only = -1
  let count = 0
  for (let i = 0; i < 16; i++) {
    if (kids[i] !== undefined) {
      count++
      only = i
    }
  }
  if (count + (value.length > 0 ? 1 : 0) >= 2) return branch(kids, value)
  if (count === 0) return value.length > 0 ? leaf(EMPTY, value) : undefined
  // One child left and no value: the branch folds into its child, prefixed by the child's index.
  return join(Uint8Array.of(only), kids[only]!)
}

/** `child` below the path `prefix`, merged into one node as the encoding requires. */
function join(prefix: Nibbles, child: TrieNode): TrieNode {
  const c = resolved(child)
  if (c.t === 2) return extension(prefix, child)
  const path = new Uint8Array(prefix.length + c.path.length)
  path.set(prefix)
  path.set(c.path, prefix.length)
  return c.t === 0 ? leaf(path, c.value, c.attached) : extension(path, c.child)
}

/** Encoded nodes on the path to `key`, root first (embedded nodes included, as `@ethereumjs/mpt`'s proofs). */
export function trieProof(root: TrieNode | undefined, key: Uint8Array): Uint8Array[] {
  const k = toNibbles(key)
  const out: Uint8Array[] = []
  let pos = 0
  let n = root
  while (n !== undefined) {
    const node = resolved(n)
    out.push(encodeNode(node))
    if (node.t === 0) break
    if (node.t === 1) {
      if (commonPrefix(node.path, k, pos) !== node.path.length) break
      pos += node.path.length
      n = node.child
    } else {
      if (pos === k.length) break
      n = node.kids[k[pos++]!]
    }
  }
  return out
}

/** Loads a hash node's node; the NodeSource behind the state supplies it. */
export type HashNodeLoader = (s: HashNode) => Promise<void>

/** Runs a synchronous trie operation, loading each missing node it reaches and retrying. */
export async function withNodes<T>(load: HashNodeLoader | undefined, op: () => T): Promise<T> {
  for (;;) {
    try {
      return op()
    } catch (e) {
      if (!(e instanceof MissingNode) || load === undefined) throw e
      await load(e.node)
      if (e.node.node === undefined) throw new Error('trie node not found in the node store')
    }
  }
}
