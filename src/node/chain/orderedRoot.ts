/**
 * Root of the trie mapping RLP(index) to each value, computed straight from the ordered list (issue 13): the
 * nodes are built bottom-up from the keys in one recursive pass, with no node database and no intermediate
 * roots. Same node rules as the Ethereum Merkle-Patricia trie (@ethereumjs/mpt, Yellow Paper appendix D): hex-prefix
 * paths, nodes whose RLP is shorter than 32 bytes embedded in their parent, the root always hashed. Keys are not
 * hashed (transaction and receipt tries). `@ethereumjs/mpt` stays where proofs are served (tries.ts), and
 * test/orderedRoot.test.ts compares both on random lists.
 */
import { RLP } from '@ethereumjs/rlp'
import { rlpEncodeScratch, type RlpInput as Input } from '../rlp.js'
import { keccak256, keccakRlp } from '../crypto.js'
import { hexPrefix, toNibbles } from '../state/trieNode.js'

interface Item {
  nibbles: Uint8Array
  value: Uint8Array
}

const EMPTY = new Uint8Array(0)

/** A child reference: the node itself when its RLP is under 32 bytes, else its hash. */
function ref(node: Input[]): Input {
  const encoded = rlpEncodeScratch(node)
  return encoded.length < 32 ? node : keccak256(encoded)
}

/** The node holding `items` (all sharing their first `depth` nibbles). */
function build(items: Item[], depth: number): Input[] {
  if (items.length === 1) return [hexPrefix(items[0]!.nibbles.subarray(depth), true), items[0]!.value]
  // Longest prefix shared by all items beyond `depth`.
  const first = items[0]!.nibbles
  let end = first.length
  for (const it of items) {
    let i = depth
    while (i < end && i < it.nibbles.length && it.nibbles[i] === first[i]) i++
    end = i
  }
  if (end > depth) return [hexPrefix(first.subarray(depth, end), false), ref(build(items, end))]
  // Buckets made only for the nibbles present (a block's lists have 2-20 items: most of the 16 stay empty).
  const buckets: Array<Item[] | undefined> = new Array(16)
  let value: Uint8Array = EMPTY
  for (const it of items) {
    if (it.nibbles.length === depth) value = it.value
    else (buckets[it.nibbles[depth]!] ??= []).push(it)
  }
  const node: Input[] = new Array(17)
  for (let i = 0; i < 16; i++) {
    const b = buckets[i]
    node[i] = b === undefined ? EMPTY : ref(build(b, depth + 1))
  }
  node[16] = value
  return node
}

/** Key nibbles kept for the first indexes (every block's lists start at 0): read only, never written. */
const KEPT_KEYS = 1024
const keyNibbles: Uint8Array[] = []

/** The nibbles of RLP(i), the trie key of item i. */
function keyOf(i: number): Uint8Array {
  if (i >= KEPT_KEYS) return toNibbles(RLP.encode(i))
  return (keyNibbles[i] ??= toNibbles(RLP.encode(i)))
}

/** keccak256 of the root node of the trie RLP(index) -> values[index]; `empty` for an empty list. */
export function directOrderedRoot(values: Uint8Array[], empty: Uint8Array): Uint8Array {
  if (values.length === 0) return empty
  const items = values.map((value, i) => ({ nibbles: keyOf(i), value }))
  return keccakRlp(build(items, 0))
}
