/**
 * Fast elliptic-curve and hash primitives handed to the engine through @ethereumjs/common's `customCrypto`.
 *
 * secp256k1 is libsecp256k1 in both of its forms here: natively where the optional `secp256k1-native` binding loads
 * and passes its check (nativeSecp256k1.ts; measured here, recovery 101-106 µs and signing 67-68 µs, against 532-598
 * and 221-231 µs through WebAssembly: docs/performance.md "Ninth round"), else through WebAssembly (`tiny-secp256k1`:
 * no install script, no native code), with the same answers (test/crypto.test.ts runs both);
 * `RSKSIM_NATIVE_SECP256K1=off` keeps to WebAssembly. Public keys of held keys are derived the same way, once per
 * key. Transactions the node signs itself never recover their sender (txRecord.ts `signTransaction` hands over the
 * key's public key). The WebAssembly module is loaded at its first use, not at import: compiling it was about 17 ms
 * of a process's start here, which a process with the native binding never needs (docs/performance.md,
 * twenty-second round).
 * The `secp256k1` package used before issue 12 was dropped: it pulls `elliptic` (advisory GHSA-848j-6mx2-7j84, no
 * fixed release), its install script runs under stock npm, and rsksim loaded it through an internal file.
 */
import { createRequire } from 'node:module'
import type * as TinySecp256k1 from 'tiny-secp256k1'
import { createKeccak } from 'hash-wasm'
import type { CustomCrypto } from '@ethereumjs/common'
import { SECP256K1_ORDER, bytesToBigInt } from '@ethereumjs/util'
import { binKey } from './binKey.js'
import { bytesToWord, rlpEncodeScratch, unpaddedBytes, type RlpInput } from './rlp.js'
import { RecentMap } from './recentMap.js'
import { keptCopy } from './keptBytes.js'
import { lazily } from './lazily.js'
import { nativePublicKey, nativeRecover, nativeSign, type PublicKey, type Recover, type Sign } from './nativeSecp256k1.js'

/** `tiny-secp256k1` (its CommonJS build, so that it loads synchronously), loaded at the first call. */
const secp = lazily(() => createRequire(import.meta.url)('tiny-secp256k1') as typeof TinySecp256k1)

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

/** keccak-256 of `data` as a view into a shared slab (keptBytes.ts), for a hash kept as long as the chain. */
export function keccak256Kept(data: Uint8Array): Uint8Array {
  return keptCopy(keccak256(data))
}

/** keccak-256 of `input`'s RLP, encoded into a reused buffer (rlp.ts `rlpEncodeScratch`), never into one of its own. */
export function keccakRlp(input: RlpInput): Uint8Array {
  return keccak256(rlpEncodeScratch(input))
}

/**
 * The address a CREATE from `from` makes at `nonce`: the last 20 bytes of keccak-256 of the RLP list [from, nonce]
 * (the Yellow Paper's contract address), as @ethereumjs/util's `generateAddress` gives it, but through this file's
 * keccak rather than @noble/hashes' JavaScript one (cold in a fresh process: 51 µs a contract creation in a profile
 * of 300 deployments, docs/performance.md "Twenty-fourth round"). test/crypto.test.ts compares both with ethers'.
 */
export function createAddress(from: Uint8Array, nonce: bigint): Uint8Array {
  return keccakRlp([from, unpaddedBytes(nonce)]).subarray(12)
}

/** CREATE2's address (EIP-1014): the last 20 bytes of keccak-256(0xff ++ from ++ salt ++ keccak-256(initCode)). */
export function create2Address(from: Uint8Array, salt: Uint8Array, initCode: Uint8Array): Uint8Array {
  if (from.length !== 20 || salt.length !== 32) throw new Error('CREATE2 address: a 20-byte creator and a 32-byte salt')
  const preimage = new Uint8Array(85)
  preimage[0] = 0xff
  preimage.set(from, 1)
  preimage.set(salt, 21)
  preimage.set(keccak256(initCode), 53)
  return keccak256(preimage).subarray(12)
}

/**
 * Keys recovered lately (the 1,024 most recent), by digest, signature and recovery bit. A test that reverts to a
 * snapshot and sends the same transaction again sends the same bytes (signatures are deterministic, RFC 6979), so
 * its sender is known: a recovery costs 101-106 µs natively and 532-598 µs through WebAssembly here
 * (docs/performance.md). The answer is a pure function of the key, so the memo cannot change one.
 */
const recovered = new RecentMap<string, Uint8Array>(1024)

/** Recovery through WebAssembly (which throws 'Expected Signature' where r is no point's x coordinate). */
const wasmRecover: Recover = (msgHash, rs, recovery) => {
  try {
    return secp().recover(msgHash, rs, recovery, false)?.subarray(1) ?? null
  } catch {
    return null
  }
}

/** Public keys through WebAssembly (callers check the key first). */
const wasmPublicKey: PublicKey = (privateKey) => secp().pointFromScalar(privateKey, false)!.subarray(1)

/** Signing through WebAssembly. */
const wasmSign: Sign = (digest, privateKey) => {
  const { signature, recoveryId } = secp().signRecoverable(digest, privateKey)
  return { rs: signature, recovery: recoveryId as 0 | 1 }
}

/**
 * What is in use: native where it loads and passes its check (nativeSecp256k1.ts), else WebAssembly. Each is chosen at
 * its first call: the native contexts are made then, not when rsksim is imported.
 */
let recover: Recover = (msgHash, rs, recovery) => (recover = nativeRecover() ?? wasmRecover)(msgHash, rs, recovery)
let sign: Sign = (digest, privateKey) => (sign = nativeSign() ?? wasmSign)(digest, privateKey)
let derive: PublicKey = (privateKey) => (derive = nativePublicKey() ?? wasmPublicKey)(privateKey)

/**
 * Chooses native libsecp256k1 (when it loaded) or WebAssembly for what runs from now on, and forgets recovered
 * keys; answers whether native is in use. For tests that check both give the same answers, and for measuring.
 */
export function useNativeSecp256k1(on: boolean): boolean {
  const nativeRecovery = on ? nativeRecover() : undefined
  const nativeSigning = on ? nativeSign() : undefined
  const nativeKeys = on ? nativePublicKey() : undefined
  recover = nativeRecovery ?? wasmRecover
  sign = nativeSigning ?? wasmSign
  derive = nativeKeys ?? wasmPublicKey
  recovered.clear()
  return nativeRecovery !== undefined && nativeSigning !== undefined && nativeKeys !== undefined
}

/** Whether a signature value is a scalar in [1, n - 1] (n: secp256k1's group order). */
const isScalar = (x: bigint): boolean => x > 0n && x < SECP256K1_ORDER

/**
 * Recovers the 64-byte uncompressed public key (without the 0x04 prefix) from a signature, as
 * `@ethereumjs/util`'s `ecrecover` does, using libsecp256k1. Callers must not write to the answer (it may be the
 * memo's). r or s of zero or past the group order recover nothing ('Invalid signature'), as in libsecp256k1.
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
  if (!isScalar(bytesToWord(r)) || !isScalar(bytesToWord(s))) throw new Error('Invalid signature')
  const answer = recover(msgHash, input.subarray(32, 96), Number(recovery) as 0 | 1)
  if (answer === null) throw new Error('Invalid signature')
  recovered.set(key, answer)
  return answer
}

/** Signs a 32-byte digest; returns r, s and the recovery bit (low-s, libsecp256k1's default RFC 6979 nonce). */
export function signDigest(digest: Uint8Array, privateKey: Uint8Array): { r: Uint8Array; s: Uint8Array; recovery: 0 | 1 } {
  const { rs, recovery } = sign(digest, privateKey)
  return { r: rs.subarray(0, 32), s: rs.subarray(32, 64), recovery }
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
    if (!isPrivateKey(privateKey)) throw new Error('Invalid private key')
    pub = derive(privateKey)
    publicKeys.set(privateKey, pub)
  }
  return pub
}

/** The 20-byte address of a 64-byte uncompressed public key (no 0x04 prefix): the last 20 bytes of its keccak-256. */
export function publicKeyToAddress(publicKey: Uint8Array): Uint8Array {
  return keccak256(publicKey).subarray(12)
}

/** Derives the 20-byte address of a private key. */
export function privateKeyToAddress(privateKey: Uint8Array): Uint8Array {
  return publicKeyToAddress(publicKeyOf(privateKey))
}

/** Whether `privateKey` is a valid secp256k1 scalar. */
export function isPrivateKey(privateKey: Uint8Array): boolean {
  if (privateKey.length !== 32) return false
  const k = bytesToBigInt(privateKey)
  return k > 0n && k < SECP256K1_ORDER
}

/** The `customCrypto` object given to every Common. */
export const customCrypto: CustomCrypto = { ecrecover, keccak256 }
