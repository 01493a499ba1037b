/**
 * Corrections of @ethereumjs internals that no public option reaches, in one place. Written against
 * @ethereumjs/statemanager 10.1.x; each patch checks at load time that what it replaces still exists and leaves the
 * engine alone otherwise.
 *
 * `MerkleStateManager.putStorage` (10.1.3) ends with
 * `this._caches?.storage?.put(...) ?? (await this._writeContractStorage(...))`: the cache's `put` returns nothing, so
 * the `??` always falls through and every SSTORE is also written to the storage trie (RLP encoding, hashing and new
 * trie nodes in the node store) although the cache already holds it and `flush` writes it at commit. Inside an
 * eth_call that is pure waste, and the nodes it adds to the store are never referenced by any state. The
 * replacement does what the engine meant: cache only when there is a storage cache, the trie otherwise. State roots
 * are unchanged because `flush` writes the same slots before any root is read.
 */
import { MerkleStateManager } from '@ethereumjs/statemanager'
import { RLP } from '@ethereumjs/rlp'
import { EthereumJSErrorWithoutCode, unpadBytes, type Address } from '@ethereumjs/util'

/** The members of MerkleStateManager the replacement uses (protected or undocumented in its typings). */
interface StateManagerInternals {
  _caches?: { storage?: { put(address: Address, key: Uint8Array, value: Uint8Array): void } }
  _writeContractStorage(address: Address, account: unknown, key: Uint8Array, value: Uint8Array): Promise<void>
  getAccount: MerkleStateManager['getAccount']
}

const proto = MerkleStateManager.prototype as unknown as StateManagerInternals & { putStorage: MerkleStateManager['putStorage'] }

if (typeof proto._writeContractStorage === 'function' && typeof proto.putStorage === 'function') {
  proto.putStorage = async function (this: StateManagerInternals, address: Address, key: Uint8Array, value: Uint8Array) {
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
