/**
 * The trees the node knows: every state and storage root it computed (by hash), and contract code by code hash.
 * Shared by the live state and its copies (historical views, `eth_call` at an old block). Roots are added, never
 * changed; `mark`/`rollback` drop what was added after a point, so `evm_revert` keeps memory flat over thousands
 * of snapshot/revert cycles (a root or code first added after a snapshot cannot be referenced by any state from
 * before it, since both are content-addressed).
 *
 * Where a root is not in memory, a NodeSource (nodeSource.ts) may know it: the tree is then a hash node loaded on
 * first touch. On a fork, `remote` holds the forked state's values under the local tries (overlay.ts).
 */
import { KECCAK256_RLP } from '@ethereumjs/util'
import { refOf, hashNode, type NodeSink, type TrieNode } from './trieNode.js'
import type { NodeSource } from './nodeSource.js'
import type { RemoteValues } from './overlay.js'
import { binKey } from '../binKey.js'


const EMPTY_KEY = binKey(KECCAK256_RLP)

export class TrieStore {
  private readonly roots = new Map<string, TrieNode>()
  /** Storage trees by hash, held weakly (see addStorageRoot); entries of collected trees are removed. */
  private readonly storageRoots = new Map<string, WeakRef<TrieNode>>()
  private readonly forget = new FinalizationRegistry<string>((k) => {
    if (this.storageRoots.get(k)?.deref() === undefined) this.storageRoots.delete(k)
  })
  private readonly codes = new Map<string, Uint8Array>()
  /** Keys in the order first added: 'r' + key for a root, 'c' + key for code. */
  private readonly added: string[] = []
  /** The era (head block number) each entry of `added` was added in, for `release`. */
  private readonly eras: number[] = []
  private era = 0
  /** How far `release` has looked in `added`. */
  private released = 0

  /**
   * Nodes and code not yet written to the source, when it keeps them (a disk database): src/node/persist drains
   * them into the batch of the next block or state change.
   */
  private unwritten?: { nodes: Map<string, [Uint8Array, Uint8Array]>; codes: Map<string, [Uint8Array, Uint8Array]> }

  /** Roots that name the empty local trie: a fork's forked block, whose state is all the remote's. */
  private readonly emptyAliases = new Set<string>()

  constructor(
    readonly source?: NodeSource,
    /** A fork's remote state (set again when hardhat_reset moves the fork: `reset`). */
    public remote?: RemoteValues,
  ) {}

  /** Forgets every tree and code (hardhat_reset to another fork). */
  reset(remote: RemoteValues | undefined): void {
    this.roots.clear()
    this.storageRoots.clear()
    this.codes.clear()
    this.added.length = 0
    this.eras.length = 0
    this.released = 0
    this.emptyAliases.clear()
    this.remote = remote
  }

  /**
   * Makes `hash` name the local tree `node` (undefined: the empty trie): a fork's forked block has the remote's state
   * root, and its state here is the local trie over the remote's values (with the funded accounts).
   */
  alias(hash: Uint8Array, node: TrieNode | undefined): void {
    if (node === undefined) this.emptyAliases.add(binKey(hash))
    else this.roots.set(binKey(hash), node)
  }

  /** Starts collecting what a persistent source must write (nodes hashed from now on, code added). */
  collectWrites(): void {
    this.unwritten = { nodes: new Map(), codes: new Map() }
  }

  /** Receives each node hashed while a root is computed (trieNode.ts `withSink`); undefined when not collecting. */
  get sink(): NodeSink | undefined {
    const u = this.unwritten
    return u === undefined ? undefined : (hash, encoded) => void u.nodes.set(binKey(hash), [hash, encoded])
  }

  /** Whether there is anything to write. */
  get hasWrites(): boolean {
    return this.unwritten !== undefined && (this.unwritten.nodes.size > 0 || this.unwritten.codes.size > 0)
  }

  /** What to write since the last call: `[hash, encoded node]` and `[code hash, code]` pairs. */
  takeWrites(): { nodes: Array<[Uint8Array, Uint8Array]>; codes: Array<[Uint8Array, Uint8Array]> } {
    const u = this.unwritten
    if (u === undefined) return { nodes: [], codes: [] }
    const out = { nodes: [...u.nodes.values()], codes: [...u.codes.values()] }
    u.nodes.clear()
    u.codes.clear()
    return out
  }

  /** Remembers the state tree whose root hash is `hash` (kept until `rollback` or `release`). */
  addRoot(hash: Uint8Array, node: TrieNode | undefined): void {
    if (node === undefined) return
    const k = binKey(hash)
    if (this.roots.has(k)) return
    this.roots.set(k, node)
    this.added.push('r' + k)
    this.eras.push(this.era)
    this.writeShortRoot(k, hash, node)
  }

  /**
   * Remembers a storage tree by hash, weakly: the state roots that use it hold it (it rides on the account's leaf,
   * trieNode.ts `Leaf.attached`), so it lives exactly as long as a state that refers to it. The lookup by hash is for
   * accounts whose leaf carries no tree (read back from a database, or written with a storage root on purpose).
   */
  addStorageRoot(hash: Uint8Array, node: TrieNode | undefined): void {
    if (node === undefined) return
    const k = binKey(hash)
    if (this.roots.has(k) || this.storageRoots.get(k)?.deref() !== undefined) return
    this.storageRoots.set(k, new WeakRef(node))
    this.forget.register(node, k)
    this.writeShortRoot(k, hash, node)
  }

  /** A root whose encoding is under 32 bytes is embedded, never hashed as a node: stored under its hash here. */
  private writeShortRoot(k: string, hash: Uint8Array, node: TrieNode): void {
    if (this.unwritten === undefined) return
    const ref = node.t === 3 ? node.hash : refOf(node)
    if (ref.length < 32) this.unwritten.nodes.set(k, [hash, ref])
  }

  /**
   * The tree named by `hash`: `undefined` for the empty trie, `null` when unknown (not computed here and no source
   * to load it from).
   */
  tree(hash: Uint8Array): TrieNode | undefined | null {
    const k = binKey(hash)
    if (k === EMPTY_KEY || this.emptyAliases.has(k)) return undefined
    const known = this.roots.get(k) ?? this.storageRoots.get(k)?.deref()
    if (known !== undefined) return known
    if (this.source === undefined) return null
    const s = hashNode(hash)
    this.roots.set(k, s)
    this.added.push('r' + k)
    this.eras.push(this.era)
    return s
  }

  /** Whether `hash` names a tree this store can read. */
  async hasTree(hash: Uint8Array): Promise<boolean> {
    const k = binKey(hash)
    if (k === EMPTY_KEY || this.emptyAliases.has(k) || this.roots.has(k) || this.storageRoots.get(k)?.deref() !== undefined) return true
    return (await this.source?.getNode(hash)) !== undefined
  }

  addCode(hash: Uint8Array, code: Uint8Array): Uint8Array {
    const k = binKey(hash)
    const known = this.codes.get(k)
    if (known !== undefined) return known
    this.codes.set(k, code)
    this.added.push('c' + k)
    this.eras.push(this.era)
    this.unwritten?.codes.set(k, [hash, code])
    return code
  }

  /** Code by hash: the same array for the same code (the interpreter caches jump analysis per code array). */
  async code(hash: Uint8Array): Promise<Uint8Array | undefined> {
    const known = this.heldCode(hash)
    if (known !== undefined || this.source === undefined) return known
    const loaded = await this.source.getCode(hash)
    if (loaded === undefined) return undefined
    this.codes.set(binKey(hash), loaded)
    return loaded
  }

  /** The code of `hash` if it is in memory (no database read). */
  heldCode(hash: Uint8Array): Uint8Array | undefined {
    return this.codes.get(binKey(hash)) ?? this.remote?.code(hash)
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
    this.eras.length = this.added.length
    this.released = Math.min(this.released, this.added.length)
  }

  /** How many state roots are held in memory. */
  get rootCount(): number {
    return this.roots.size
  }

  /** The head block number roots added from now on belong to. */
  setEra(headNumber: bigint): void {
    this.era = Number(headNumber)
  }

  /**
   * Bounded history (`stateHistory`): forgets the state roots added while the head was below `before`, except the
   * hashes in `keep`. Each root is looked at once, when its era falls behind: one kept then (a snapshot's, genesis,
   * or a root a retained block shares) stays.
   * (`keep`: binary keys of the retained blocks' roots, the snapshots', genesis, the live one.) Their nodes are then
   * freed with them, and with them the storage trees only they reached. Code is kept: live accounts still use it.
   * With a database, forgotten roots stay readable from disk.
   */
  release(before: bigint, keep: Set<string>): void {
    const limit = Number(before)
    while (this.released < this.added.length && this.eras[this.released]! < limit) {
      const k = this.added[this.released]!
      if (k[0] === 'r' && !keep.has(k.slice(1))) this.roots.delete(k.slice(1))
      this.released++
    }
  }
}
