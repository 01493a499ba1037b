/**
 * Keys the node holds (RSKj `Wallet`): genesis accounts and imported or created ones, each unlocked or not.
 * `eth_accounts` lists them in insertion order (reference §7.2: the cow accounts first, then the miner).
 * The personal module adds passphrase-protected keys on top of this store.
 */
import { bytesToHex, hexToBytes, type PrefixedHexString } from '@ethereumjs/util'
import { keccak256, privateKeyToAddress, signDigest } from './crypto.js'

export interface HeldKey {
  address: Uint8Array
  privateKey: Uint8Array
}

export class Accounts {
  private readonly keys = new Map<string, HeldKey>()
  /** Address → unlock expiry in ms since the epoch (Infinity = for ever). */
  private readonly unlocked = new Map<string, number>()

  /** Adds a key (unlocked for `durationMs`, default for ever) and returns its lowercase `0x` address. */
  add(privateKey: Uint8Array, durationMs = Infinity): string {
    const address = privateKeyToAddress(privateKey)
    const hex = bytesToHex(address)
    if (!this.keys.has(hex)) this.keys.set(hex, { address, privateKey })
    this.unlock(hex, durationMs)
    return hex
  }

  /** Every held address, in the order added. */
  list(): string[] {
    return [...this.keys.keys()]
  }

  has(addressHex: string): boolean {
    return this.keys.has(addressHex)
  }

  unlock(addressHex: string, durationMs = Infinity): void {
    this.unlocked.set(addressHex, Date.now() + durationMs)
  }

  /** Locks an account; true when it was unlocked. */
  lock(addressHex: string): boolean {
    return this.unlocked.delete(addressHex)
  }

  /** The key of an unlocked account, or undefined when it is unknown or locked. */
  unlockedKey(addressHex: string): HeldKey | undefined {
    const until = this.unlocked.get(addressHex)
    if (until === undefined) return undefined
    if (until < Date.now()) {
      this.unlocked.delete(addressHex)
      return undefined
    }
    return this.keys.get(addressHex)
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
  const { r, s, recovery } = signDigest(personalMessageDigest(message), privateKey)
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
