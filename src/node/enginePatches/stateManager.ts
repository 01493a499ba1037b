/**
 * Three changes to `MerkleStateManager` (written against @ethereumjs/statemanager 10.1.3, dist/esm/merkleStateManager.js).
 * Each checks at load time that what it relies on exists and leaves the engine alone otherwise.
 *
 * 1. `putStorage` ends with `this._caches?.storage?.put(...) ?? (await this._writeContractStorage(...))`: the cache's
 *    `put` returns nothing, so the `??` always falls through and every SSTORE is also written to the storage trie
 *    (RLP encoding, hashing and new trie nodes in the node store) although the cache already holds it and `flush`
 *    writes it at commit. Inside an eth_call that is pure waste, and the nodes it adds to the store are never
 *    referenced by any state. The replacement does what the engine meant: cache only when there is a storage cache,
 *    the trie otherwise. State roots are unchanged because `flush` writes the same slots before any root is read.
 *
 * 2. `getStorage` of a slot not in the cache walks the account's storage trie. When that trie is empty (storage
 *    root = keccak256(RLP(""))) its root node is not in the node store, so the walk ends in a thrown and caught
 *    "Missing node in DB" error: most of a loop that writes fresh slots (each SSTORE reads the slot for its gas).
 *    The answer is known without the walk: the empty value, cached as the engine caches it (RLP of "").
 *
 * 3. `getAccount` decodes the account cache's RLP into a new Account on every read, and every read of storage
 *    reads the account first (two or three times per SLOAD/SSTORE, several times per message). The decoding is
 *    done once per cached RLP (the cache stores a new array on every write); each read still gets its own Account,
 *    built exactly as `createAccountFromBytesArray` builds it, since callers modify the accounts they get.
 */
import { MerkleStateManager } from '@ethereumjs/statemanager'
import { enginePatches } from './switch.js'
import { RLP } from '@ethereumjs/rlp'
import {
  Account,
  EthereumJSErrorWithoutCode,
  KECCAK256_RLP,
  createAccountFromRLP,
  equalsBytes,
  unpadBytes,
  type Address,
} from '@ethereumjs/util'

/** RLP of the empty string: what the engine caches for a slot the trie does not have. */
const EMPTY_SLOT = Uint8Array.of(0x80)

/** The members of MerkleStateManager used here (protected or undocumented in its typings). */
interface StateManagerInternals {
  _caches?: {
    account?: { get(address: Address): { accountRLP: Uint8Array | undefined } | undefined }
    storage?: {
      put(address: Address, key: Uint8Array, value: Uint8Array): void
      get(address: Address, key: Uint8Array): Uint8Array | undefined
    }
  }
  _writeContractStorage(address: Address, account: Account, key: Uint8Array, value: Uint8Array): Promise<void>
  getAccount(address: Address): Promise<Account | undefined>
  getStorage(address: Address, key: Uint8Array): Promise<Uint8Array>
  putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void>
}

const proto = MerkleStateManager.prototype as unknown as StateManagerInternals

/** The fields read here that no method check covers, looked for in the engine's own source text. */
const source = MerkleStateManager.toString()
const fieldsFound = ['_caches', '_writeContractStorage', 'accountRLP'].every((f) => source.includes(f))
const install = enginePatches.installable && fieldsFound

/** Whether each of the three state manager patches is in effect. */
export const stateManagerPatched = { putStorage: false, getStorage: false, getAccount: false }

if (install && typeof proto._writeContractStorage === 'function' && typeof proto.putStorage === 'function') {
  const putStorage = proto.putStorage
  stateManagerPatched.putStorage = true
  proto.putStorage = async function (this: StateManagerInternals, address, key, value) {
    if (!enginePatches.active) return putStorage.call(this, address, key, value)
    // Same checks and messages as the engine's putStorage.
    if (key.length !== 32) throw EthereumJSErrorWithoutCode('Storage key must be 32 bytes long')
    if (value.length > 32) throw EthereumJSErrorWithoutCode('Storage value cannot be longer than 32 bytes')
    const account = await this.getAccount(address)
    if (!account) throw EthereumJSErrorWithoutCode('putStorage() called on non-existing account')
    const unpadded = unpadBytes(value)
    const cache = this._caches?.storage
    if (cache !== undefined) cache.put(address, key, RLP.encode(unpadded))
    else await this._writeContractStorage(address, account, key, unpadded)
  }
}

if (install && typeof proto.getStorage === 'function') {
  const getStorage = proto.getStorage
  stateManagerPatched.getStorage = true
  proto.getStorage = async function (this: StateManagerInternals, address, key) {
    if (!enginePatches.active) return getStorage.call(this, address, key)
    const cache = this._caches?.storage
    // Everything but "not cached, and the account's storage trie is empty" is the engine's own answer.
    if (key.length !== 32 || cache === undefined) return getStorage.call(this, address, key)
    const cached = cache.get(address, key)
    if (cached !== undefined) return RLP.decode(cached) as Uint8Array
    const account = await this.getAccount(address)
    if (account === undefined || !equalsBytes(account.storageRoot, KECCAK256_RLP)) return getStorage.call(this, address, key)
    cache.put(address, key, EMPTY_SLOT)
    return new Uint8Array(0)
  }
}

if (install && typeof proto.getAccount === 'function') {
  const getAccount = proto.getAccount
  const decoded = new WeakMap<Uint8Array, Account>()
  stateManagerPatched.getAccount = true
  proto.getAccount = async function (this: StateManagerInternals, address) {
    if (!enginePatches.active) return getAccount.call(this, address)
    const cache = this._caches?.account
    if (cache === undefined) return getAccount.call(this, address)
    const elem = cache.get(address)
    if (elem === undefined) return getAccount.call(this, address)
    const rlp = elem.accountRLP
    if (rlp === undefined) return undefined
    let known = decoded.get(rlp)
    if (known === undefined) {
      known = createAccountFromRLP(rlp)
      decoded.set(rlp, known)
    }
    return new Account(known.nonce, known.balance, known.storageRoot, known.codeHash)
  }
}

/**
 * The storage cache's entry for a slot (RLP of the unpadded value), for RskStateManager's no-op write check
 * (src/node/chain/stateManager.ts); undefined when not cached, or when the patches are off.
 */
export function cachedSlot(stateManager: MerkleStateManager, address: Address, key: Uint8Array): Uint8Array | undefined {
  if (!enginePatches.active || !fieldsFound) return undefined
  return (stateManager as unknown as StateManagerInternals)._caches?.storage?.get(address, key)
}
