/**
 * Merkle proofs of the simulated chain: EIP-1186 account/storage proofs (`eth_getProof`) and receipt-trie
 * nodes (`chain_getTransactionReceiptNodesByHash`).
 *
 * RSKj keeps state in its Unitrie and has no `eth_getProof` (reference §9.1); rsksim's state is an Ethereum
 * Merkle-Patricia trie (docs/compatibility.md "Chain model"), so these proofs verify with standard tools
 * against the block's `stateRoot` / `receiptsRoot`.
 */
import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_NULL, KECCAK256_RLP, bytesToBigInt, createAccountFromRLP, setLengthLeft } from '@ethereumjs/util'
import { keccak256 } from '../crypto.js'
import { trieGet, trieGetLeaf, trieProof, withNodes } from '../state/nodeTrie.js'
import { hashNodeLoader } from '../state/nodeSource.js'
import type { Chain } from './chain.js'
import { StateNotKept } from '../errors.js'
import { encodeRskReceipt, orderedTrieProof } from './tries.js'
import type { BlockRecord } from './types.js'

export interface StorageProofRecord {
  /** The requested slot, 32 bytes. */
  key: Uint8Array
  value: bigint
  /** Storage-trie nodes, root node first; empty when the account has no storage trie. */
  proof: Uint8Array[]
}

export interface AccountProofRecord {
  address: Uint8Array
  balance: bigint
  codeHash: Uint8Array
  nonce: bigint
  /** Root of the account's storage trie. */
  storageHash: Uint8Array
  /** State-trie nodes, root node first. */
  accountProof: Uint8Array[]
  storageProof: StorageProofRecord[]
}

/**
 * EIP-1186 proof of `address` and of each slot in `keys` (32 bytes each) at the post-state of `block`: the nodes on
 * each path, root first (embedded nodes included, as @ethereumjs/mpt and geth give them; test/nodeTrie.test.ts).
 * An absent account is proven absent (its proof ends where the path leaves the trie); its slots answer value 0
 * with an empty proof, as geth does, since there is no storage trie to walk.
 */
export async function accountProof(
  chain: Chain,
  block: BlockRecord,
  address: Uint8Array,
  keys: Uint8Array[],
): Promise<AccountProofRecord> {
  const trees = chain.trees
  await chain.requireState(block)
  const tree = (hash: Uint8Array) => {
    const t = trees.tree(hash)
    if (t === null) throw new StateNotKept(block.hashHex)
    return t
  }
  const load = hashNodeLoader(trees.source)
  const stateTree = tree(block.header.stateRoot)
  const key = keccak256(address)
  const [found, accountNodes] = await withNodes(load, () => [trieGetLeaf(stateTree, key), trieProof(stateTree, key)] as const)
  const account = found === undefined ? undefined : createAccountFromRLP(found.value)
  const storageHash = account?.storageRoot ?? KECCAK256_RLP
  // The storage trie rides on the account's leaf (state/trieNode.ts); by hash only when the leaf has none.
  const storageTree = account === undefined ? undefined : (found?.attached ?? tree(storageHash))
  const storageProof: StorageProofRecord[] = []
  for (const k of keys) {
    const slot = setLengthLeft(k, 32)
    if (account === undefined) {
      storageProof.push({ key: slot, value: 0n, proof: [] })
      continue
    }
    const hashed = keccak256(slot)
    const [stored, proof] = await withNodes(load, () => [trieGet(storageTree, hashed), trieProof(storageTree, hashed)] as const)
    storageProof.push({ key: slot, value: stored === undefined ? 0n : bytesToBigInt(RLP.decode(stored) as Uint8Array), proof })
  }
  return {
    address,
    balance: account?.balance ?? 0n,
    codeHash: account?.codeHash ?? KECCAK256_NULL,
    nonce: account?.nonce ?? 0n,
    storageHash,
    accountProof: accountNodes,
    storageProof,
  }
}

/**
 * Nodes of the block's receipts trie on the path to RLP(index), root first (RSKj
 * `RskModuleImpl.getTransactionReceiptNodesByHash`; reference §3.6). The leaf value is the RSK receipt RLP.
 */
export async function receiptNodes(block: BlockRecord, index: number): Promise<Uint8Array[]> {
  return orderedTrieProof(block.receipts.map(encodeRskReceipt), index)
}
