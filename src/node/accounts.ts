/**
 * Keys the node holds, modelled on RSKj's `co/rsk/core/Wallet.java` (reference §3.5, §7.2):
 *
 * - *initial* accounts (the genesis `cow` keys, configured keys, `personal_newAccountWithSeed`): unlocked for ever,
 *   listed first in the order added, and still listed after `personal_lockAccount` (RSKj's `initialAccounts`);
 * - the *unlocked* map (RSKj's `accounts` + `unlocksTimeouts`): every key that can sign right now, with an expiry;
 * - the passphrase-protected *key store* (personal_newAccount, personal_importRawKey), listed even while locked.
 *
 * `eth_accounts` / `personal_listAccounts` = initial accounts, then the other unlocked or stored ones. RSKj orders
 * those through a `HashSet` (no stable order); rsksim lists them in the order they were added, so the miner
 * coinbase comes right after the initial accounts, as on a fresh RSKj regtest node.
 */
import { randomBytes } from 'node:crypto'
import { bytesToHex, hexToBytes, type PrefixedHexString } from '@ethereumjs/util'
import { isPrivateKey, keccak256, privateKeyToAddress, signDigest } from './crypto.js'
import { KeyStore, type SealedHex } from './wallet/keyStore.js'

export interface HeldKey {
  address: Uint8Array
  privateKey: Uint8Array
}

/** RSKj `PersonalModuleWalletEnabled.unlockAccount`: 30 minutes when no duration is given. */
export const DEFAULT_UNLOCK_MS = 30 * 60 * 1000

export class Accounts {
  /** RSKj `Wallet.initialAccounts`. */
  private readonly initial: string[] = []
  /** RSKj `Wallet.accounts` with its `unlocksTimeouts`: address → key and expiry (ms since the epoch). */
  private readonly unlocked = new Map<string, { key: HeldKey; until: number }>()
  /** Every address ever added, in insertion order (the order of the non-initial part of the list). */
  private readonly seen = new Set<string>()
  readonly store = new KeyStore()

  /** Adds an initial account (RSKj `addAccountWithPrivateKey`): unlocked for ever. Returns its `0x` address. */
  add(privateKey: Uint8Array): string {
    const hex = this.unlock(privateKey, Infinity)
    if (!this.initial.includes(hex)) this.initial.push(hex)
    return hex
  }

  /** `personal_newAccountWithSeed`: key = keccak256(UTF-8 seed), an initial account (RSKj `addAccountWithSeed`). */
  addWithSeed(seed: string): string {
    return this.add(keccak256(new TextEncoder().encode(seed)))
  }

  /** The miner's coinbase key (RSKj `wallet.addAccount(Account)`): unlocked, but not an initial account. */
  addCoinbase(privateKey: Uint8Array): string {
    return this.unlock(privateKey, Infinity)
  }

  /** `personal_newAccount`: a random key sealed under `passphrase`, unlocked for 30 minutes. */
  async create(passphrase: string): Promise<string> {
    let key: Uint8Array
    do key = Uint8Array.from(randomBytes(32))
    while (!isPrivateKey(key))
    return this.importKey(key, passphrase)
  }

  /** `personal_importRawKey`: seals `privateKey` under `passphrase` and unlocks it for `durationMs`. */
  async importKey(privateKey: Uint8Array, passphrase: string, durationMs = DEFAULT_UNLOCK_MS): Promise<string> {
    const hex = bytesToHex(privateKeyToAddress(privateKey))
    await this.store.put(hex, privateKey, passphrase)
    this.seen.add(hex)
    this.unlock(privateKey, durationMs)
    return hex
  }

  /**
   * `personal_unlockAccount`: false when the address is not in the key store (seed and coinbase accounts are not);
   * a wrong passphrase throws `WrongPassphraseError`.
   */
  async unlockWithPassphrase(addressHex: string, passphrase: string, durationMs: number): Promise<boolean> {
    const key = await this.store.decrypt(addressHex, passphrase)
    if (key === undefined) return false
    this.unlock(key, durationMs)
    return true
  }

  /** The stored key opened with `passphrase` (personal_sendTransaction); undefined when not in the key store. */
  async keyWithPassphrase(addressHex: string, passphrase: string): Promise<HeldKey | undefined> {
    const key = await this.store.decrypt(addressHex, passphrase)
    return key === undefined ? undefined : { address: privateKeyToAddress(key), privateKey: key }
  }

  /** A key-store entry read back from the database: listed, locked until unlocked with its passphrase. */
  restoreSealed(k: SealedHex): void {
    this.store.importSealed(k)
    this.seen.add(k.address)
  }

  /** Every listed address: initial accounts first, then the others in the order added. */
  list(): string[] {
    const rest = [...this.seen].filter((a) => !this.initial.includes(a) && (this.unlocked.has(a) || this.store.has(a)))
    return [...this.initial, ...rest]
  }

  /** Whether `addressHex` is listed by eth_accounts. */
  has(addressHex: string): boolean {
    return this.initial.includes(addressHex) || this.unlocked.has(addressHex) || this.store.has(addressHex)
  }

  /** `personal_lockAccount`: removes the key from the unlocked map; true when it was there. */
  lock(addressHex: string): boolean {
    return this.unlocked.delete(addressHex)
  }

  /** The key of an unlocked account, or undefined when it is unknown, locked or its unlock expired. */
  unlockedKey(addressHex: string): HeldKey | undefined {
    const entry = this.unlocked.get(addressHex)
    if (entry === undefined) return undefined
    if (entry.until < Date.now()) {
      this.unlocked.delete(addressHex)
      return undefined
    }
    return entry.key
  }

  private unlock(privateKey: Uint8Array, durationMs: number): string {
    const address = privateKeyToAddress(privateKey)
    const hex = bytesToHex(address)
    this.seen.add(hex)
    this.unlocked.set(hex, { key: { address, privateKey }, until: Date.now() + durationMs })
    return hex
  }
}

/** `eth_sign` digest: keccak256("\x19Ethereum Signed Message:\n" + decimal length + message) (reference §4). */
export function personalMessageDigest(message: Uint8Array): Uint8Array {
  const prefix = new TextEncoder().encode(`\x19Ethereum Signed Message:\n${message.length}`)
  const all = new Uint8Array(prefix.length + message.length)
  all.set(prefix)
  all.set(message, prefix.length)
  return keccak256(all)
}

/** 65-byte `r ‖ s ‖ v` signature with v = 27 / 28, as RSKj's `ECKey` gives it. */
export function signMessage(message: Uint8Array, privateKey: Uint8Array): Uint8Array {
  return signRsv(personalMessageDigest(message), privateKey)
}

/** The 65-byte `r ‖ s ‖ v` signature (v = 27/28) of a 32-byte digest, as eth_sign and EIP-712 signers give it. */
export function signRsv(digest: Uint8Array, privateKey: Uint8Array): Uint8Array {
  const { r, s, recovery } = signDigest(digest, privateKey)
  const out = new Uint8Array(65)
  out.set(r, 0)
  out.set(s, 32)
  out[64] = 27 + recovery
  return out
}

/** RSKj's regtest seeds: keccak256("cow"), keccak256("cow1"), … (reference §7.2). */
export function cowKey(index: number): Uint8Array {
  return keccak256(new TextEncoder().encode(index === 0 ? 'cow' : `cow${index}`))
}

/** Key of RSKj's regtest miner coinbase: keccak256("regtest_miner_secret_please_change") → 0xec4ddeb4…681d. */
export const MINER_KEY = keccak256(new TextEncoder().encode('regtest_miner_secret_please_change'))

export const toAddressBytes = (hex: string): Uint8Array => hexToBytes(hex as PrefixedHexString)
