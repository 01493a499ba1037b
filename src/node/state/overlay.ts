/**
 * A forked chain's state (docs/forking.md): the remote node's state at the forked block, read value by value
 * (`RemoteValues`, implemented in src/node/fork/forkState.ts), under a local trie that holds only what was written
 * here. A key in the local trie shadows the remote; a key not in it is the remote's. So that a deleted account or a
 * zeroed slot does not let the remote value show through again, the local trie of a fork keeps them:
 *
 * - an account leaf is RLP `[nonce, balance, storageRoot, codeHash]` for an account whose storage is all local
 *   (created here, or whose storage was cleared), `[nonce, balance, storageRoot, codeHash, 0x01]` for one whose
 *   storage is the remote's under the local storage trie, and `[]` (a tombstone) for a deleted account;
 * - in a storage trie over the remote's, a zeroed slot is a leaf holding the empty value (`0x80`).
 *
 * Everything else is the ordinary state layer: snapshots and reverts swap local roots, and since the remote state
 * of the forked block never changes, the values read from it stay true under every local root.
 */
import { Account, bytesToBigInt, KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util'
import { RLP } from '@ethereumjs/rlp'

/** The remote's values at the forked block. */
export interface RemoteValues {
  /** The account, undefined when it does not exist there (no nonce, balance or code); its code is fetched too. */
  account(address: Uint8Array): Promise<{ account: Account; code: Uint8Array } | undefined>
  /** Code of an account read from the remote, by code hash (never dropped by a revert: the remote's never changes). */
  code(codeHash: Uint8Array): Uint8Array | undefined
  /** The slot's value without leading zeros (empty for zero). */
  storage(address: Uint8Array, key: Uint8Array): Promise<Uint8Array>
}

const REMOTE_STORAGE = Uint8Array.of(1)
const TOMBSTONE = RLP.encode([])

/** The leaf value of an account in a fork's local trie. */
export function encodeForkLeaf(account: Account | undefined, remoteStorage: boolean): Uint8Array {
  if (account === undefined) return TOMBSTONE
  const fields = account.raw()
  return RLP.encode(remoteStorage ? [...fields, REMOTE_STORAGE] : fields)
}

/** Reads a leaf written by `encodeForkLeaf` (or an ordinary account leaf). */
export function decodeForkLeaf(value: Uint8Array): { account: Account | undefined; remoteStorage: boolean } {
  const fields = RLP.decode(value) as Uint8Array[]
  if (fields.length === 0) return { account: undefined, remoteStorage: false }
  const [nonce, balance, storageRoot, codeHash] = fields as [Uint8Array, Uint8Array, Uint8Array, Uint8Array]
  const account = new Account(bytesToBigInt(nonce), bytesToBigInt(balance), storageRoot, codeHash)
  return { account, remoteStorage: fields.length > 4 }
}

/** A remote account as the local state first sees it: its storage is all the remote's (local storage trie empty). */
export function remoteAccount(nonce: bigint, balance: bigint, codeHash: Uint8Array | undefined): Account {
  return new Account(nonce, balance, KECCAK256_RLP, codeHash ?? KECCAK256_NULL)
}

