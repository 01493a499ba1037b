/**
 * Fast elliptic-curve and hash primitives handed to the engine through @ethereumjs/common's `customCrypto`.
 *
 * Sender recovery with @noble costs about 1-3 ms per transaction on a small machine. The `secp256k1` package ships
 * libsecp256k1 prebuilt for Linux x64, macOS arm64 and Windows x64, loaded at run time without an install script
 * (its script only rebuilds when no prebuild fits, so it is denied in package.json `allowScripts`): about 50 µs
 * per recovery here. Elsewhere `tiny-secp256k1` (libsecp256k1 compiled to WebAssembly, about 250 µs) is used.
 */
import * as secp from 'tiny-secp256k1'
import { createRequire } from 'node:module'
import { createKeccak } from 'hash-wasm'
import type { CustomCrypto } from '@ethereumjs/common'

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

/** The prebuilt libsecp256k1 binding, when one fits this platform. */
interface NativeSecp256k1 {
  ecdsaRecover(signature: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array
  ecdsaSign(msg32: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number }
}

function loadNative(): NativeSecp256k1 | undefined {
  try {
    return createRequire(import.meta.url)('secp256k1/bindings') as NativeSecp256k1
  } catch {
    return undefined
  }
}

const native = loadNative()

/**
 * Recovers the 64-byte uncompressed public key (without the 0x04 prefix) from a signature, as
 * `@ethereumjs/util`'s `ecrecover` does, using libsecp256k1.
 */
export function ecrecover(msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint): Uint8Array {
  const recovery = chainId === undefined ? v - 27n : v - (2n * chainId + 35n)
  if (recovery !== 0n && recovery !== 1n) throw new Error('Invalid signature v value')
  const sig = new Uint8Array(64)
  if (r.length > 32 || s.length > 32) throw new Error('Invalid signature')
  sig.set(r, 32 - r.length)
  sig.set(s, 64 - s.length)
  const pub = native !== undefined ? native.ecdsaRecover(sig, Number(recovery), msgHash, false) : secp.recover(msgHash, sig, Number(recovery) as 0 | 1, false)
  if (pub === null) throw new Error('Invalid signature')
  return pub.subarray(1)
}

/**
 * Signs a 32-byte digest; returns r, s and the recovery bit (low-s, RFC 6979 deterministic nonce). Both libraries
 * are libsecp256k1 with its default RFC 6979 nonce, so they give the same signature; the native one takes about
 * 45 µs here against 140 µs in WebAssembly (every `eth_sendTransaction` signs).
 */
export function signDigest(digest: Uint8Array, privateKey: Uint8Array): { r: Uint8Array; s: Uint8Array; recovery: 0 | 1 } {
  if (native !== undefined) {
    const { signature, recid } = native.ecdsaSign(digest, privateKey)
    return { r: signature.subarray(0, 32), s: signature.subarray(32, 64), recovery: recid as 0 | 1 }
  }
  const { signature, recoveryId } = secp.signRecoverable(digest, privateKey)
  return { r: signature.subarray(0, 32), s: signature.subarray(32, 64), recovery: recoveryId as 0 | 1 }
}

/** Derives the 20-byte address of a private key. */
export function privateKeyToAddress(privateKey: Uint8Array): Uint8Array {
  const pub = secp.pointFromScalar(privateKey, false)
  if (pub === null) throw new Error('Invalid private key')
  return keccak256(pub.subarray(1)).subarray(12)
}

/** Whether `privateKey` is a valid secp256k1 scalar. */
export const isPrivateKey = (privateKey: Uint8Array): boolean => privateKey.length === 32 && secp.isPrivate(privateKey)

/** The `customCrypto` object given to every Common. */
export const customCrypto: CustomCrypto = { ecrecover, keccak256 }
