/**
 * Merkle-Patricia trie nodes kept decoded in memory, and their Ethereum encoding (Yellow Paper appendix D, the
 * encoding `@ethereumjs/mpt` produces byte for byte: test/nodeTrie.test.ts compares the two).
 *
 * Nodes are immutable: a write builds new nodes on the changed path (see nodeTrie.ts), so an old root stays a valid
 * tree and its node's memoised reference never goes stale. A node's reference is what its parent embeds: the node's
 * encoding when shorter than 32 bytes, else keccak256 of it (always 32 bytes, so the length tells which).
 */
import { RLP } from '@ethereumjs/rlp'
import { keccak256, keccak256Kept } from '../crypto.js'
import { prefixSize, scratchBytes, stringSize, writePrefix, writeString } from '../rlp.js'

/** Key remainder below a node, one nibble (0-15) per byte. */
export type Nibbles = Uint8Array

export interface Leaf {
  readonly t: 0
  readonly path: Nibbles
  readonly value: Uint8Array
  /**
   * Not part of the encoding: in the account trie, the root node of the account's storage trie, so that a state
   * root reaches its storage tries by reference (an old state's nodes are then freed with its root; liveState.ts).
   */
  readonly attached: TrieNode | undefined
  ref?: Uint8Array
}

export interface Extension {
  readonly t: 1
  readonly path: Nibbles
  readonly child: TrieNode
  ref?: Uint8Array
}

export interface Branch {
  readonly t: 2
  readonly kids: ReadonlyArray<TrieNode | undefined>
  /** Empty when no key ends here (always so in the hashed-key tries of the state). */
  readonly value: Uint8Array
  ref?: Uint8Array
}

/** A node known by hash only: it lives in a NodeSource (the database) until first touched. */
export interface HashNode {
  readonly t: 3
  readonly hash: Uint8Array
  /** Set once loaded; the hash node then stands for this node. */
  node?: TrieNode
  ref?: Uint8Array
}

export type TrieNode = Leaf | Extension | Branch | HashNode

const EMPTY = new Uint8Array(0)
// Each node is made with every field it will ever have (`ref: undefined` until its reference is computed): a field
// added later moves V8's object to a new shape with a separate property array, 97 bytes of heap for a leaf against
// 63 (measured alone, 200,000 kept), and a mined block keeps the nodes it makes for as long as its state is kept.
export const leaf = (path: Nibbles, value: Uint8Array, attached?: TrieNode): Leaf => ({ t: 0, path, value, attached, ref: undefined })
export const extension = (path: Nibbles, child: TrieNode): Extension => ({ t: 1, path, child, ref: undefined })
export const branch = (kids: Array<TrieNode | undefined>, value: Uint8Array = EMPTY): Branch => ({ t: 2, kids, value, ref: undefined })
export const hashNode = (hash: Uint8Array): HashNode => ({ t: 3, hash, node: undefined, ref: hash })

/** Thrown by a synchronous walk that reaches a hash node not loaded yet; the async wrapper loads it and retries. */
export class MissingNode {
  constructor(readonly node: HashNode) {}
}

/** The node a reference stands for (a loaded hash node's node), or a MissingNode thrown. */
export function resolved(n: TrieNode): Leaf | Extension | Branch {
  if (n.t !== 3) return n
  if (n.node === undefined) throw new MissingNode(n)
  return resolved(n.node)
}

/** The 32 bytes of a key as 64 nibbles. */
export function toNibbles(key: Uint8Array): Nibbles {
  const out = new Uint8Array(key.length * 2)
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i]! >> 4
    out[2 * i + 1] = key[i]! & 15
  }
  return out
}

/** Hex-prefix encoding of a path (Yellow Paper appendix C): flag nibble 2 for a leaf, +1 for an odd length. */
export function hexPrefix(path: Nibbles, isLeaf: boolean): Uint8Array {
  const odd = path.length & 1
  const out = new Uint8Array((path.length >> 1) + 1)
  const flag = (isLeaf ? 2 : 0) + odd
  let i = 0
  if (odd === 1) out[0] = (flag << 4) | path[i++]!
  else out[0] = flag << 4
  for (let o = 1; i < path.length; i += 2, o++) out[o] = (path[i]! << 4) | path[i + 1]!
  return out
}

function fromHexPrefix(b: Uint8Array): { path: Nibbles; isLeaf: boolean } {
  const flag = b[0]! >> 4
  const odd = flag & 1
  const path = new Uint8Array((b.length - 1) * 2 + odd)
  let o = 0
  if (odd === 1) path[o++] = b[0]! & 15
  for (let i = 1; i < b.length; i++) {
    path[o++] = b[i]! >> 4
    path[o++] = b[i]! & 15
  }
  return { path, isLeaf: flag >= 2 }
}

/** What a parent embeds for a child reference: a hash as an RLP string, a short node as its raw encoding. */
const refSize = (r: Uint8Array): number => (r.length === 32 ? 33 : r.length)

function writeRef(out: Uint8Array, o: number, r: Uint8Array): number {
  if (r.length === 32) out[o++] = 0xa0
  out.set(r, o)
  return o + r.length
}

/**
 * The node's RLP encoding, sized first and written into one array (the state root re-encodes every node on the
 * changed paths of each block: one allocation per node instead of one per item and one per list). `transient`:
 * written into rlp.ts's reused buffer instead (valid until its next use), for an encoding hashed at once and dropped.
 */
export function encodeNode(n: TrieNode, transient = false): Uint8Array {
  const node = resolved(n)
  if (node.t === 2) {
    let payload = stringSize(node.value)
    for (let i = 0; i < 16; i++) {
      const k = node.kids[i]
      payload += k === undefined ? 1 : refSize(refOf(k))
    }
    // Every child's reference is known (memoised) before the buffer is taken: nothing below encodes another node.
    const out = output(prefixSize(payload) + payload, transient)
    let o = writePrefix(out, 0, payload, 0xc0)
    for (let i = 0; i < 16; i++) {
      const k = node.kids[i]
      if (k === undefined) out[o++] = 0x80
      else o = writeRef(out, o, refOf(k))
    }
    writeString(out, o, node.value)
    return out
  }
  const path = hexPrefix(node.path, node.t === 0)
  const payload = stringSize(path) + (node.t === 0 ? stringSize(node.value) : refSize(refOf(node.child)))
  const out = output(prefixSize(payload) + payload, transient)
  const o = writeString(out, writePrefix(out, 0, payload, 0xc0), path)
  if (node.t === 0) writeString(out, o, node.value)
  else writeRef(out, o, refOf(node.child))
  return out
}

/**
 * Called with each node encoding of 32 bytes or more when its hash is first computed, so a persistent store can
 * write the nodes a block created (nodeTrie.ts sets it; nothing else writes nodes).
 */
export type NodeSink = (hash: Uint8Array, encoded: Uint8Array) => void

let sink: NodeSink | undefined

/** Runs `f` with `s` receiving every node hashed meanwhile. */
export function withSink<T>(s: NodeSink | undefined, f: () => T): T {
  const before = sink
  sink = s
  try {
    return f()
  } finally {
    sink = before
  }
}

/** An array of `size` bytes of its own, or the reused one (every byte is written by the caller). */
const output = (size: number, transient: boolean): Uint8Array => (transient ? scratchBytes(size) : new Uint8Array(size))

/**
 * The node's reference (memoised): its encoding if under 32 bytes, else its keccak256. Without a sink the encoding
 * is only hashed, so it is written into the reused buffer (a short one is copied out to be kept as the reference).
 */
export function refOf(n: TrieNode): Uint8Array {
  if (n.ref !== undefined) return n.ref
  const keep = sink
  const enc = encodeNode(n, keep === undefined)
  if (enc.length < 32) return (n.ref = keep === undefined ? enc.slice() : enc)
  const hash = keccak256Kept(enc)
  keep?.(hash, enc)
  return (n.ref = hash)
}

/** The hash naming a tree whose root is `n` (a root is hashed even when its encoding is short). */
export function rootHash(n: TrieNode): Uint8Array {
  const r = refOf(n)
  return r.length === 32 ? r : keccak256(r)
}

/**
 * Decodes an encoded node. Children referenced by hash become hash nodes that `known` may already resolve (a node
 * source hands back nodes it loaded before).
 */
export function decodeNode(encoded: Uint8Array, known?: (hash: Uint8Array) => TrieNode | undefined): TrieNode {
  return fromItem(RLP.decode(encoded) as RlpItem, known)
}

type RlpItem = Uint8Array | RlpItem[]

function child(item: RlpItem, known?: (hash: Uint8Array) => TrieNode | undefined): TrieNode | undefined {
  if (Array.isArray(item)) return fromItem(item, known)
  if (item.length === 0) return undefined
  if (item.length !== 32) throw new Error('malformed trie node: a child reference is neither a hash nor a node')
  return known?.(item) ?? hashNode(item)
}

function fromItem(item: RlpItem, known?: (hash: Uint8Array) => TrieNode | undefined): TrieNode {
  if (!Array.isArray(item)) throw new Error('malformed trie node: not a list')
  if (item.length === 17) {
    const kids = item.slice(0, 16).map((k) => child(k, known))
    const value = item[16]
    if (Array.isArray(value)) throw new Error('malformed trie node: branch value is a list')
    return branch(kids, value)
  }
  if (item.length !== 2) throw new Error(`malformed trie node: a list of ${item.length} items`)
  const [key, rest] = item as [RlpItem, RlpItem]
  if (Array.isArray(key)) throw new Error('malformed trie node: path is a list')
  const { path, isLeaf } = fromHexPrefix(key)
  if (isLeaf) {
    if (Array.isArray(rest)) throw new Error('malformed trie node: leaf value is a list')
    return leaf(path, rest)
  }
  const c = child(rest, known)
  if (c === undefined) throw new Error('malformed trie node: extension without a child')
  return extension(path, c)
}
