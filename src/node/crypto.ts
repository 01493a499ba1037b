/**
 * Fast elliptic-curve and hash primitives handed to the engine through @ethereumjs/common's `customCrypto`.
 *
 * secp256k1 is libsecp256k1 compiled to WebAssembly (`tiny-secp256k1`: no install script, no native code). Measured
 * here (CPU time per call, docs/performance.md "Sender recovery without the native binding"): recovery 222 µs,
 * signing 101 µs, against 56 and 38 µs for the native `secp256k1` package used before and 1,369 and 423 µs for
 * @noble/curves. The native package was dropped (issue 12): it pulls `elliptic` (advisory GHSA-848j-6mx2-7j84, no
 * fixed release) and its install script runs under stock npm, and no maintained native binding was found that ships
 * prebuilds without both. Its cost: about 8 % of a raw transfer (2,343 → 2,533 µs CPU per transaction with its
 * receipt). Transactions the node signs itself no longer recover their sender (txRecord.ts `signTransaction`), so
 * `eth_sendTransaction` costs what it did with the native binding (1,726 → 1,691 µs).
 */
import * as secp from 'tiny-secp256k1'
import { createKeccak } from 'hash-wasm'
import type { CustomCrypto } from '@ethereumjs/common'
import { binKey } from './binKey.js'
import { RecentMap } from './recentMap.js'

/**
 * keccak-256 through hash-wasm (WebAssembly, no install script): about 0.7 µs for a trie node here against
 * 4.7 µs with @noble/hashes, and the tries hash on every block. The hasher is reused: calls are synchronous.
 */
const keccakHasher = await createKeccak(256)

/** keccak-256 of `data`. */
export function keccak256(data: Uint8Array): Uint8Array {
  keccakHasher.init()
  keccakHasher.update(data)
  return keccakHasher.digest('binary')
}

/**
 * Keys recovered lately (the 1,024 most recent), by digest, signature and recovery bit. A test that reverts to a
 * snapshot and sends the same transaction again sends the same bytes (signatures are deterministic, RFC 6979), so
 * its sender is known: a recovery costs 220-580 µs on the machines measured (docs/performance.md), about a quarter
 * of an automined transfer. The answer is a pure function of the key, so the memo cannot change one.
 */
const recovered = new RecentMap<string, Uint8Array>(1024)

/**
 * Recovers the 64-byte uncompressed public key (without the 0x04 prefix) from a signature, as
 * `@ethereumjs/util`'s `ecrecover` does, using libsecp256k1. Callers must not write to the answer (it may be the
 * memo's).
 */
export function ecrecover(msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint): Uint8Array {
  const recovery = chainId === undefined ? v - 27n : v - (2n * chainId + 35n)
  if (recovery !== 0n && recovery !== 1n) throw new Error('Invalid signature v value')
  if (msgHash.length !== 32 || r.length > 32 || s.length > 32) throw new Error('Invalid signature')
  const input = new Uint8Array(97)
  input.set(msgHash)
  input.set(r, 64 - r.length)
  input.set(s, 96 - s.length)
  input[96] = Number(recovery)
  const key = binKey(input)
  const known = recovered.get(key)
  if (known !== undefined) return known
  const pub = secp.recover(msgHash, input.subarray(32, 96), Number(recovery) as 0 | 1, false)
  if (pub === null) throw new Error('Invalid signature')
  const answer = pub.subarray(1)
  recovered.set(key, answer)
  return answer
}

/** Signs a 32-byte digest; returns r, s and the recovery bit (low-s, libsecp256k1's default RFC 6979 nonce). */
export function signDigest(digest: Uint8Array, privateKey: Uint8Array): { r: Uint8Array; s: Uint8Array; recovery: 0 | 1 } {
  const { signature, recoveryId } = secp.signRecoverable(digest, privateKey)
  return { r: signature.subarray(0, 32), s: signature.subarray(32, 64), recovery: recoveryId as 0 | 1 }
}

/**
 * Public keys of the keys the node holds, by key object: the accounts hand the same `privateKey` array to every
 * signature, and deriving the point again costs about as much as signing.
 */
const publicKeys = new WeakMap<Uint8Array, Uint8Array>()

/** The 64-byte uncompressed public key (without the 0x04 prefix) of a private key. Callers must not write to it. */
export function publicKeyOf(privateKey: Uint8Array): Uint8Array {
  let pub = publicKeys.get(privateKey)
  if (pub === undefined) {
    const point = secp.pointFromScalar(privateKey, false)
    if (point === null) throw new Error('Invalid private key')
    pub = point.subarray(1)
    publicKeys.set(privateKey, pub)
  }
  return pub
}

/** Derives the 20-byte address of a private key. */
export function privateKeyToAddress(privateKey: Uint8Array): Uint8Array {
  return keccak256(publicKeyOf(privateKey)).subarray(12)
}

/** Whether `privateKey` is a valid secp256k1 scalar. */
export const isPrivateKey = (privateKey: Uint8Array): boolean => privateKey.length === 32 && secp.isPrivate(privateKey)

/** The `customCrypto` object given to every Common. */
export const customCrypto: CustomCrypto = { ecrecover, keccak256 }
