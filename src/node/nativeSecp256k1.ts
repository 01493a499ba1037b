/**
 * Sender recovery and signing through native libsecp256k1 where it loads: the optional dependency `secp256k1-native` (N-API
 * bindings with prebuilt binaries for Linux x64/arm, macOS x64/arm64 and Windows x64/ia32 inside the package, loaded
 * by `node-gyp-build` from the package's own folder: nothing is compiled and no install script is needed; rsksim's
 * package.json `allowScripts` leaves its script off in a checkout, a user's npm runs it, docs/integrations.md).
 * Measured here: 101-106 µs per recovery against 532-598 µs through WebAssembly, 67-68 µs per signature against
 * 221-231 µs (docs/performance.md "Ninth round"); one recovery per raw transaction was a quarter of an automined
 * transfer through WebAssembly.
 *
 * Loaded defensively, as issue 12 asked of a native binding: when the package is missing (an install that skipped
 * optional dependencies, a platform without a prebuild and no compiler), fails to load, or fails the check below,
 * `nativeRecover()` / `nativeSign()` answer undefined and crypto.ts recovers and signs through WebAssembly
 * (`tiny-secp256k1`), with the same answers (signatures are RFC 6979 in both, so identical). The binding is loaded,
 * and each half made and checked, at the first recovery or signature, not at import.
 * `RSKSIM_NATIVE_SECP256K1=off` in the environment keeps it unloaded.
 *
 * The binding's `secp256k1_ecdsa_recoverable_signature_parse_compact` cannot be called (in 1.1.3 it reads the
 * recovery id from the argument that holds the signature, and throws), so the 65-byte recoverable signature is
 * written here in libsecp256k1's own layout (what `secp256k1_ecdsa_recoverable_signature_save` writes when a scalar
 * is 32 bytes: r and s as their limbs, then the recovery id; both scalar forms the package builds, 4x64 on x64 Unix
 * and 8x32 elsewhere, store limbs least significant first, so on little-endian machines r and s are 32 little-endian
 * bytes each). Scalars must be below the group order there: callers check r and s first (crypto.ts). That
 * layout is an internal of the library, so before first use a known signature must recover to the generator point
 * (the key of private key 1, from SEC 2) and a corrupted one must not, or native recovery is not used; and private
 * key 1 must sign that digest into that signature, or native signing is not used.
 */
import { createRequire } from 'node:module'
import { lazily } from './lazily.js'
import { equalsBytes, hexToBytes } from '@ethereumjs/util'
import { offInEnvironment } from './envSwitch.js'

/** The calls of `secp256k1-native` used here (its API names the C functions). */
interface Binding {
  secp256k1_context_VERIFY: number
  secp256k1_context_SIGN: number
  secp256k1_ec_UNCOMPRESSED: number
  secp256k1_context_create(flags: number): Uint8Array
  secp256k1_ecdsa_sign_recoverable(ctx: Uint8Array, sig: Uint8Array, msg32: Uint8Array, seckey: Uint8Array): void
  secp256k1_ecdsa_recoverable_signature_serialize_compact(ctx: Uint8Array, output64: Uint8Array, sig: Uint8Array): number
  secp256k1_ecdsa_recover(ctx: Uint8Array, pubkey: Uint8Array, sig: Uint8Array, msg32: Uint8Array): void
  secp256k1_ec_pubkey_serialize(ctx: Uint8Array, output: Uint8Array, pubkey: Uint8Array, flags: number): number
  secp256k1_ec_pubkey_create(ctx: Uint8Array, pubkey: Uint8Array, seckey: Uint8Array): number
}

/** Recovers the 64-byte uncompressed public key (no 0x04 prefix), or null when the signature recovers none. */
export type Recover = (msgHash: Uint8Array, rs: Uint8Array, recovery: 0 | 1) => Uint8Array | null
/** Signs a 32-byte digest with a valid private key: r ‖ s (low s, RFC 6979 nonce) and the recovery bit. */
export type Sign = (digest: Uint8Array, privateKey: Uint8Array) => { rs: Uint8Array; recovery: 0 | 1 }
/** The 64-byte uncompressed public key (no 0x04 prefix) of a valid private key. */
export type PublicKey = (privateKey: Uint8Array) => Uint8Array

/** Private key 1 (32 bytes). */
const KEY_ONE = Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 1 : 0))

/** Private key 1 signed the digest 0x00 01 02 … 1f (RFC 6979); its public key is secp256k1's generator G. */
const CHECK = {
  digest: Uint8Array.from({ length: 32 }, (_, i) => i),
  rs: hexToBytes('0xa951b0cf98bd51c614c802a65a418fa42482dc5c45c9394e39c0d98773c51cd530104fdc36d91582b5757e1de73d982e803cc14d75e82c65daf924e38d27d834'),
  recovery: 1 as const,
  generator: hexToBytes(
    '0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8',
  ),
}

function load(): Binding | undefined {
  try {
    return createRequire(import.meta.url)('secp256k1-native') as Binding
  } catch {
    return undefined
  }
}

/** A recover function over the binding. */
function recoverWith(binding: Binding): Recover {
  const ctx = binding.secp256k1_context_create(binding.secp256k1_context_VERIFY)
  const sig = new Uint8Array(65)
  const pubkey = new Uint8Array(64) // libsecp256k1's internal point
  return (msgHash, rs, recovery) => {
    for (let i = 0; i < 32; i++) {
      sig[i] = rs[31 - i]!
      sig[32 + i] = rs[63 - i]!
    }
    sig[64] = recovery
    try {
      binding.secp256k1_ecdsa_recover(ctx, pubkey, sig, msgHash)
    } catch {
      return null // "public key could not be recovered": r is no point's x coordinate
    }
    const out = new Uint8Array(65)
    binding.secp256k1_ec_pubkey_serialize(ctx, out, pubkey, binding.secp256k1_ec_UNCOMPRESSED)
    return out.subarray(1)
  }
}

/** The signing context, made once for signatures and public keys (libsecp256k1 builds its generator table then). */
let signing: Uint8Array | undefined
const signingContext = (binding: Binding): Uint8Array => (signing ??= binding.secp256k1_context_create(binding.secp256k1_context_SIGN))

/** A sign function over the binding. */
function signWith(binding: Binding): Sign {
  const ctx = signingContext(binding)
  const sig = new Uint8Array(65) // libsecp256k1's internal recoverable signature
  return (digest, privateKey) => {
    binding.secp256k1_ecdsa_sign_recoverable(ctx, sig, digest, privateKey)
    const rs = new Uint8Array(64)
    const recovery = binding.secp256k1_ecdsa_recoverable_signature_serialize_compact(ctx, rs, sig)
    return { rs, recovery: recovery as 0 | 1 }
  }
}

/** A public-key function over the binding. */
function publicKeyWith(binding: Binding): PublicKey {
  const ctx = signingContext(binding)
  const pubkey = new Uint8Array(64) // libsecp256k1's internal point
  return (privateKey) => {
    binding.secp256k1_ec_pubkey_create(ctx, pubkey, privateKey)
    const out = new Uint8Array(65)
    binding.secp256k1_ec_pubkey_serialize(ctx, out, pubkey, binding.secp256k1_ec_UNCOMPRESSED)
    return out.subarray(1)
  }
}

const same = (a: Uint8Array | null, b: Uint8Array): boolean => a !== null && equalsBytes(a, b)

/** Whether `recover` answers the known vector with G, and a corrupted digest with another key. */
function recoverPassesCheck(recover: Recover): boolean {
  const key = recover(CHECK.digest, CHECK.rs, CHECK.recovery)
  const other = recover(CHECK.digest.map((b) => b ^ 0xff), CHECK.rs, CHECK.recovery)
  return same(key, CHECK.generator) && !same(other, CHECK.generator)
}

/** Whether private key 1's public key is the generator G. */
function publicKeyPassesCheck(publicKey: PublicKey): boolean {
  return same(publicKey(KEY_ONE), CHECK.generator)
}

/** Whether `sign` signs the known digest with private key 1 into the known signature. */
function signPassesCheck(sign: Sign): boolean {
  const signed = sign(CHECK.digest, KEY_ONE)
  return same(signed.rs, CHECK.rs) && signed.recovery === CHECK.recovery
}

/** The binding, loaded at the first call (undefined when switched off or missing). */
const bindingOnce = lazily((): Binding | undefined => (offInEnvironment('RSKSIM_NATIVE_SECP256K1') ? undefined : load()))

/** One half (recovery or signing) over the binding, if it loads and passes its check; undefined otherwise. */
function checked<F>(make: (binding: Binding) => F, passes: (f: F) => boolean): F | undefined {
  const b = bindingOnce()
  if (b === undefined) return undefined
  try {
    const f = make(b)
    return passes(f) ? f : undefined
  } catch {
    return undefined
  }
}

/**
 * Native recovery, or undefined when the binding is switched off, missing, or failed the recovery check. Made at the
 * first call, not at import: the libsecp256k1 0.1 that secp256k1-native 1.1.3 bundles builds its verification tables
 * (`secp256k1_ecmult_context_build`) when the context is created (about
 * 10 ms here), which a process that only signs (eth_sendTransaction seeds the sender's key) never needs.
 */
export const nativeRecover = lazily(() => checked(recoverWith, recoverPassesCheck))

/** Native signing, or undefined when the binding is switched off, missing, or failed the signing check; made at the first call. */
export const nativeSign = lazily(() => checked(signWith, signPassesCheck))

/** Native public keys, or undefined when the binding is switched off, missing, or failed the check (key 1 → G); made at the first call. */
export const nativePublicKey = lazily(() => checked(publicKeyWith, publicKeyPassesCheck))
