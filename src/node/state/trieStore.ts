/**
 * The trees the node knows: every state and storage root it computed (by hash), and contract code by code hash.
 * Shared by the live state and its copies (historical views, `eth_call` at an old block). Roots are added, never
 * changed; `mark`/`rollback` drop what was added after a point, so `evm_revert` keeps memory flat over thousands
 * of snapshot/revert cycles (a root or code first added after a snapshot cannot be referenced by any state from
 * before it, since both are content-addressed).
 *
 * Where a root is not in memory, a NodeSource (nodeSource.ts) may know it: the tree is then a stub loaded on
 * first touch.
 */
import { KECCAK256_RLP } from '@ethereumjs/util'
import { stub, type TrieNode } from './trieNode.js'
import type { NodeSource } from './nodeSource.js'

/** One character per byte: a cheap, collision-free Map key for a hash. */
export function binKey(bytes: Uint8Array): string {
  const s: string = Reflect.apply(String.fromCharCode, null, bytes)
  return s
}

const EMPTY_KEY = binKey(KECCAK256_RLP)

export class TrieStore {
  private readonly roots = new Map<string, TrieNode>()
  private readonly codes = new Map<string, Uint8Array>()
  /** Keys in the order first added: 'r' + key for a root, 'c' + key for code. */
  private readonly added: string[] = []

  constructor(readonly source?: NodeSource) {}

  /** Remembers the tree whose root hash is `hash`. */
  addRoot(hash: Uint8Array, node: TrieNode | undefined): void {
    if (node === undefined) return
    const k = binKey(hash)
    if (this.roots.has(k)) return
    this.roots.set(k, node)
    this.added.push('r' + k)
  }

  /**
   * The tree named by `hash`: `undefined` for the empty trie, `null` when unknown (not computed here and no source
   * to load it from).
   */
  tree(hash: Uint8Array): TrieNode | undefined | null {
    const k = binKey(hash)
    if (k === EMPTY_KEY) return undefined
    const known = this.roots.get(k)
    if (known !== undefined) return known
    if (this.source === undefined) return null
    const s = stub(hash)
    this.roots.set(k, s)
    this.added.push('r' + k)
    return s
  }

  /** Whether `hash` names a tree this store can read. */
  async hasTree(hash: Uint8Array): Promise<boolean> {
    const k = binKey(hash)
    if (k === EMPTY_KEY || this.roots.has(k)) return true
    return (await this.source?.getNode(hash)) !== undefined
  }

  addCode(hash: Uint8Array, code: Uint8Array): Uint8Array {
    const k = binKey(hash)
    const known = this.codes.get(k)
    if (known !== undefined) return known
    this.codes.set(k, code)
    this.added.push('c' + k)
    return code
  }

  /** Code by hash: the same array for the same code (the interpreter caches jump analysis per code array). */
  async code(hash: Uint8Array): Promise<Uint8Array | undefined> {
    const known = this.codes.get(binKey(hash))
    if (known !== undefined || this.source === undefined) return known
    const loaded = await this.source.getCode(hash)
    return loaded === undefined ? undefined : this.addCode(hash, loaded)
  }

  /** A position to roll back to. */
  mark(): number {
    return this.added.length
  }

  /** Forgets every root and code first added after `mark`. */
  rollback(mark: number): void {
    for (let i = mark; i < this.added.length; i++) {
      const k = this.added[i]!
      if (k[0] === 'r') this.roots.delete(k.slice(1))
      else this.codes.delete(k.slice(1))
    }
    this.added.length = Math.min(mark, this.added.length)
  }
}
