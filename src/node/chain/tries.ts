/**
 * Transaction and receipt tries of a block. RSK keeps them in its Unitrie; rsksim uses Ethereum
 * Merkle-Patricia tries (key = RLP(index)) so proofs verify with standard tools (docs/compatibility.md).
 * The receipt value is the RSK receipt RLP (reference §3.6), the same bytes
 * `chain_getRawTransactionReceiptByHash` answers.
 */
import { RLP } from '@ethereumjs/rlp'
import { MerklePatriciaTrie, createMerkleProof } from '@ethereumjs/mpt'
import { MapDB } from '@ethereumjs/util'
import { keccak256 } from '../crypto.js'
import { directOrderedRoot } from './orderedRoot.js'
import { rlpEncode, rlpEncodeEach, unpaddedBytes, type RlpInput } from '../rlp.js'
import type { ReceiptRecord } from './types.js'

/** keccak256(RLP("")) — root of an empty trie. */
export const EMPTY_TRIE_ROOT = new MerklePatriciaTrie().EMPTY_TRIE_ROOT

/** RSKj `TransactionReceipt.getEncoded()`: [postTxState, cumulativeGas, bloom, logs, gasUsed, status]. */
export function encodeRskReceipt(r: ReceiptRecord): Uint8Array {
  return rlpEncode(receiptItems(r))
}

/** The items `encodeRskReceipt` encodes. */
function receiptItems(r: ReceiptRecord): RlpInput {
  if (r.rlpItems !== undefined) return r.rlpItems()
  const ok = r.status === 1 ? Uint8Array.of(1) : new Uint8Array()
  return [ok, unpaddedBytes(r.cumulativeGasUsed), r.logsBloom, r.logs.map((l) => [l.address, l.topics, l.data]), unpaddedBytes(r.gasUsed), ok]
}

/**
 * The receipt trie's root for `receipts`: `orderedTrieRoot` of their encodings, which are written into a reused
 * buffer (rlp.ts `rlpEncodeEach`) since only their hashes are kept.
 */
export function receiptsRoot(receipts: readonly ReceiptRecord[]): Uint8Array {
  return orderedTrieRoot(rlpEncodeEach(receipts.map(receiptItems)))
}

/**
 * Tries not in use. Two tries are filled per mined block, and constructing one costs about 55 µs (it sets up its
 * `debug` loggers, which probe the terminal), more than filling it; a trie is emptied by giving it a new node map.
 */
const idle: MerklePatriciaTrie[] = []

/** Fills an empty trie with RLP(index) -> value and hands it to `use`. */
async function withTrieOf<T>(values: Uint8Array[], use: (trie: MerklePatriciaTrie) => Promise<T> | T): Promise<T> {
  // The engine's own keccak (hash-wasm) instead of the trie's default @noble one.
  const trie = idle.pop() ?? new MerklePatriciaTrie({ useKeyHashingFunction: keccak256 })
  trie.database(new MapDB())
  trie.root(trie.EMPTY_TRIE_ROOT)
  try {
    for (let i = 0; i < values.length; i++) await trie.put(RLP.encode(i), values[i]!)
    return await use(trie)
  } finally {
    idle.push(trie)
  }
}

/** Root of the trie mapping RLP(index) to each value (computed without a trie: orderedRoot.ts). */
export function orderedTrieRoot(values: Uint8Array[]): Uint8Array {
  return directOrderedRoot(values, EMPTY_TRIE_ROOT)
}

/** The same root through `@ethereumjs/mpt`: the reference test/orderedRoot.test.ts compares with. */
export async function mptOrderedTrieRoot(values: Uint8Array[]): Promise<Uint8Array> {
  if (values.length === 0) return EMPTY_TRIE_ROOT
  return withTrieOf(values, (trie) => trie.root())
}

/** Trie nodes proving `values[index]` against `orderedTrieRoot(values)`, root node first. */
export async function orderedTrieProof(values: Uint8Array[], index: number): Promise<Uint8Array[]> {
  return withTrieOf(values, (trie) => createMerkleProof(trie, RLP.encode(index)))
}
