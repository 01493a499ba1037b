/**
 * Where trie nodes and code come from when they are not in memory (docs/state-layer.md). The memory-only node has
 * no source: every node it reads it made itself. A disk store or a forked network would implement this.
 */
import { decodeNode, type HashNode } from './trieNode.js'
import type { HashNodeLoader } from './nodeTrie.js'

export interface NodeSource {
  /** The encoded trie node whose keccak256 is `hash`. */
  getNode(hash: Uint8Array): Promise<Uint8Array | undefined>
  /** Contract code whose keccak256 is `hash`. */
  getCode(hash: Uint8Array): Promise<Uint8Array | undefined>
}

/** A loader for nodeTrie's `withNodes`: decodes the hash node's node from `source`. */
export function hashNodeLoader(source: NodeSource | undefined): HashNodeLoader | undefined {
  if (source === undefined) return undefined
  return async (s: HashNode) => {
    const encoded = await source.getNode(s.hash)
    if (encoded === undefined) return
    const node = decodeNode(encoded)
    // Its hash is known: set, so that hashing never recomputes it (nor hands it to a sink to be written again).
    if (node.t !== 3 && encoded.length >= 32) node.ref = s.hash
    s.node = node
  }
}
