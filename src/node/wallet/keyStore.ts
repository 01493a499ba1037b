/**
 * The passphrase-protected key store behind personal_newAccount / personal_importRawKey (reference §3.5).
 *
 * RSKj (`co/rsk/core/Wallet.java`) keeps each key AES-CBC-encrypted under SHA-256(passphrase). A bare hash of the
 * passphrase is a weak key derivation and unauthenticated CBC cannot always tell a wrong passphrase (a lucky
 * padding decrypts to garbage), so rsksim uses scrypt (N = 2^14, r = 8, p = 1, 16-byte random salt) and
 * AES-256-GCM: a wrong passphrase is always detected. N = 2^14 costs about 24 ms (median of 20 on Node 20.20.2,
 * 2 cores), which keeps tests quick while staying a real KDF. The store itself writes nothing: without a database
 * it lives as long as the provider; with one, src/node/persist keeps the sealed keys (`exportSealed`).
 *
 * @example
 * ```ts
 * const store = new KeyStore()
 * await store.put('0xabc…', privateKey, 'secret')
 * const key = await store.decrypt('0xabc…', 'secret') // Uint8Array, or throws WrongPassphraseError
 * ```
 */
import { createCipheriv, createDecipheriv, randomBytes, scrypt, type ScryptOptions } from 'node:crypto'

const SCRYPT: ScryptOptions = { N: 1 << 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }

/** A sealed key as stored on disk: hex strings, still encrypted under its passphrase. */
export interface SealedHex {
  address: string
  salt: string
  iv: string
  tag: string
  ciphertext: string
}

interface Sealed {
  salt: Buffer
  iv: Buffer
  tag: Buffer
  ciphertext: Buffer
}

/** Thrown when a passphrase does not open a stored key (RSKj answers -32603 for it). */
export class WrongPassphraseError extends Error {
  override readonly name = 'WrongPassphraseError'
  constructor() {
    super('could not decrypt key with given passphrase')
  }
}

function deriveKey(passphrase: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(Buffer.from(passphrase, 'utf8'), salt, 32, SCRYPT, (err, key) => (err ? reject(err) : resolve(key))),
  )
}

export class KeyStore {
  /** Lowercase `0x` address → sealed private key, in insertion order. */
  private readonly sealed = new Map<string, Sealed>()
  private putCount = 0

  /** Bumped by every key stored (the database rewrites the key list when it moves). */
  get changes(): number {
    return this.putCount
  }

  /** Stores (or replaces, as RSKj's `keyDS.put` does) the key of `address` under `passphrase`. */
  async put(address: string, privateKey: Uint8Array, passphrase: string): Promise<void> {
    const salt = randomBytes(16)
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', await deriveKey(passphrase, salt), iv)
    const ciphertext = Buffer.concat([cipher.update(privateKey), cipher.final()])
    this.sealed.set(address, { salt, iv, tag: cipher.getAuthTag(), ciphertext })
    this.putCount++
  }

  has(address: string): boolean {
    return this.sealed.has(address)
  }

  /** The sealed keys as hex (they stay encrypted), for the on-disk database (src/node/persist). */
  exportSealed(): SealedHex[] {
    return [...this.sealed].map(([address, s]) => ({
      address,
      salt: s.salt.toString('hex'),
      iv: s.iv.toString('hex'),
      tag: s.tag.toString('hex'),
      ciphertext: s.ciphertext.toString('hex'),
    }))
  }

  /** Puts back a key `exportSealed` gave. */
  importSealed(k: SealedHex): void {
    const b = (h: string) => Buffer.from(h, 'hex')
    this.sealed.set(k.address, { salt: b(k.salt), iv: b(k.iv), tag: b(k.tag), ciphertext: b(k.ciphertext) })
  }

  /** Addresses held, in the order first stored. */
  addresses(): string[] {
    return [...this.sealed.keys()]
  }

  /** The private key of `address`: undefined when not stored; WrongPassphraseError when the passphrase is wrong. */
  async decrypt(address: string, passphrase: string): Promise<Uint8Array | undefined> {
    const s = this.sealed.get(address)
    if (s === undefined) return undefined
    const decipher = createDecipheriv('aes-256-gcm', await deriveKey(passphrase, s.salt), s.iv)
    decipher.setAuthTag(s.tag)
    try {
      return Uint8Array.from(Buffer.concat([decipher.update(s.ciphertext), decipher.final()]))
    } catch {
      throw new WrongPassphraseError()
    }
  }
}
