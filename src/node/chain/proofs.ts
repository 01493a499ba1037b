/**
 * Merkle proofs of the simulated chain: EIP-1186 account/storage proofs (`eth_getProof`) and receipt-trie
 * nodes (`chain_getTransactionReceiptNodesByHash`).
 *
 * RSKj keeps state in its Unitrie and has no `eth_getProof` (reference §9.1); rsksim's state is an Ethereum
 * Merkle-Patricia trie (docs/compatibility.md "Chain model"), so these proofs verify with standard tools
 * against the block's `stateRoot` / `receiptsRoot`.
 */
import { getMerkleStateProof, type MerkleStateManager } from '@ethereumjs/statemanager'
import { Address, hexToBytes, setLengthLeft, equalsBytes } from '@ethereumjs/util'
import type { Chain } from './chain.js'
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
 * The state to prove from: the view `chain.stateAt(block)` gives, unless its trie root is not the block's state
 * root (the live state in the middle of building a block), in which case a copy moved to that root.
 */
async function provingState(chain: Chain, block: BlockRecord): Promise<MerkleStateManager> {
  const state = await chain.stateAt(block)
  if (equalsBytes(await state.getStateRoot(), block.header.stateRoot)) return state
  const copy = chain.state.shallowCopy(false)
  await copy.setStateRoot(block.header.stateRoot)
  return copy
}

/**
 * EIP-1186 proof of `address` and of each slot in `keys` (32 bytes each) at the post-state of `block`.
 * An absent account is proven absent (its proof ends where the path leaves the trie); its slots answer value 0
 * with an empty proof, as geth does, since there is no storage trie to walk.
 */
export async function accountProof(
  chain: Chain,
  block: BlockRecord,
  address: Uint8Array,
  keys: Uint8Array[],
): Promise<AccountProofRecord> {
  const state = await provingState(chain, block)
  const slots = keys.map((k) => setLengthLeft(k, 32))
  // getMerkleStateProof is @ethereumjs's public EIP-1186 builder; its JSON-ish strings are turned into domain
  // values here, and the RPC layer formats them (keys and values as QUANTITY, spec "Account proof object").
  const p = await getMerkleStateProof(state, new Address(address), slots)
  const byKey = new Map(p.storageProof.map((s) => [s.key.toLowerCase(), s]))
  return {
    address,
    balance: BigInt(p.balance),
    codeHash: hexToBytes(p.codeHash),
    nonce: BigInt(p.nonce),
    storageHash: hexToBytes(p.storageHash),
    accountProof: p.accountProof.map((n) => hexToBytes(n)),
    storageProof: slots.map((key) => {
      const s = byKey.get(toHex(key))
      if (s === undefined) return { key, value: 0n, proof: [] }
      return { key, value: s.value === '0x' ? 0n : BigInt(s.value), proof: s.proof.map((n) => hexToBytes(n)) }
    }),
  }
}

const toHex = (b: Uint8Array): string => '0x' + Buffer.from(b).toString('hex')

/**
 * Nodes of the block's receipts trie on the path to RLP(index), root first (RSKj
 * `RskModuleImpl.getTransactionReceiptNodesByHash`; reference §3.6). The leaf value is the RSK receipt RLP.
 */
export async function receiptNodes(block: BlockRecord, index: number): Promise<Uint8Array[]> {
  return orderedTrieProof(block.receipts.map(encodeRskReceipt), index)
}
