/**
 * The sender of a transaction the node signed itself (eth_sendTransaction, personal_sendTransaction,
 * eth_signTransaction) is known before anyone asks: it is the key's own public key. @ethereumjs/tx 10.1.3 keeps the
 * recovered key of a frozen transaction in `tx.cache.senderPubKey` and answers `getSenderPublicKey` (so
 * `getSenderAddress`, which `runTx` calls) from it when present (capabilities/legacy.ts `getSenderPublicKey`).
 * Writing the key there saves one recovery per signed transaction (figures: docs/performance.md, "Sender recovery").
 *
 * Safe because the key written is the one that made the signature: recovery would answer exactly it. Checked at
 * load on a probe transaction (the cache is an object on a frozen transaction, and a key written there is the one
 * `getSenderPublicKey` answers, without recovering); off, like every patch, when the engine is not the pinned
 * release or the patches are switched off: the engine then recovers the sender as usual.
 */
import { Common, Mainnet } from '@ethereumjs/common'
import { LegacyTx, createLegacyTx, type TransactionCache } from '@ethereumjs/tx'
import { Address, hexToBytes } from '@ethereumjs/util'
import { customCrypto, keccak256 } from '../crypto.js'
import { enginePatches } from './switch.js'

function probe(): boolean {
  if (!enginePatches.installable) return false
  try {
    // r = s = 1 recovers to no key at all: an answer equal to the marker can only come from the cache.
    const tx = createLegacyTx({ gasLimit: 21000n, v: 27n, r: 1n, s: 1n })
    const cache = (tx as { cache?: TransactionCache }).cache
    if (!Object.isFrozen(tx) || typeof cache !== 'object' || cache === null || Object.isFrozen(cache)) return false
    const marker = new Uint8Array(64).fill(7)
    cache.senderPubKey = marker
    return tx.getSenderPublicKey() === marker
  } catch {
    return false
  }
}

/** Whether the sender cache can be seeded (the engine is the pinned release and its cache is where it was). */
export const senderCachePatched: boolean = probe()

/**
 * Records `publicKey` (64 bytes, no 0x04 prefix) as the sender of `tx`, a frozen transaction just signed with the
 * matching private key. Answers false, and leaves the engine to recover the sender, when the patch is off.
 */
export function seedSender(tx: LegacyTx, publicKey: Uint8Array): boolean {
  if (!senderCachePatched || !enginePatches.active || tx.cache.senderPubKey !== undefined) return false
  tx.cache.senderPubKey = publicKey
  return true
}

/**
 * `LegacyTx.getSenderAddress`, remembered per frozen transaction. @ethereumjs/tx 10.1.3 (capabilities/legacy.ts
 * `getSenderAddress`) hashes the public key again on every call, with @noble's JavaScript keccak-256 (13 µs for the
 * 64-byte key here against 2-3 µs through WebAssembly), and a transaction is asked at least twice: when the node
 * records it and in `runTx`. The address is a function of the public key, which a frozen transaction keeps
 * (`cache.senderPubKey`), so it is computed once, with the node's keccak (crypto.ts). Unfrozen transactions (those
 * built with `freeze: false`, such as impersonated ones, which answer their own `getSenderAddress`) and the switch
 * turned off take the engine's method. Checked at load: the method is the prototype's own and answers, on a probe
 * transaction, the address the engine's method answers.
 */
const engineSenderAddress = LegacyTx.prototype.getSenderAddress
/** The probe's sender key: any 64 bytes do (secp256k1's generator G here, x then y, from SEC 2). */
const PROBE_KEY = hexToBytes(
  '0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8',
)
const senderAddresses = new WeakMap<LegacyTx, Address>()

function rememberedSenderAddress(this: LegacyTx): Address {
  if (!enginePatches.active || !Object.isFrozen(this)) return engineSenderAddress.call(this)
  let address = senderAddresses.get(this)
  if (address === undefined) {
    address = new Address(keccak256(this.getSenderPublicKey()).slice(12))
    senderAddresses.set(this, address)
  }
  return address
}

function installSenderAddress(): boolean {
  if (!enginePatches.installable || !Object.prototype.hasOwnProperty.call(LegacyTx.prototype, 'getSenderAddress')) return false
  try {
    // A probe whose "recovery" answers a fixed key: what is checked is that both methods derive the address from the
    // key the transaction recovers, not secp256k1 itself (test/crypto.test.ts checks that). A real recovery here
    // cost every process's start about 14 ms with the engine's default (@noble's JavaScript, compiling as it went),
    // then about 10 ms with native libsecp256k1, whose verification tables it built at import (profiles of an
    // import; docs/performance.md, twenty-second round).
    const common = new Common({ chain: Mainnet, customCrypto: { ...customCrypto, ecrecover: () => PROBE_KEY } })
    const tx = createLegacyTx({ gasLimit: 21000n, v: 27n, r: 0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798n, s: 1n }, { common })
    const expected = engineSenderAddress.call(tx).toString()
    if (rememberedSenderAddress.call(tx).toString() !== expected) return false
    LegacyTx.prototype.getSenderAddress = rememberedSenderAddress
    return true
  } catch {
    return false
  }
}

/** Whether frozen transactions remember their sender's address (installed at load; see above). */
export const senderAddressPatched: boolean = installSenderAddress()
