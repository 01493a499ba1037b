/**
 * The secp256k1 primitives of src/node/crypto.ts (libsecp256k1, natively through `secp256k1-native` where it loads
 * and as WebAssembly) against an independent implementation: ethers' SigningKey (@noble/curves), on random keys and
 * digests; recovery is checked both ways. Signatures must be identical, not
 * just valid: both sides use RFC 6979 nonces and low s, so any difference is a bug. And the sender the node hands a
 * transaction it signed (enginePatches/senderCache.ts) is the one ethers recovers from the signed bytes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { computeAddress, getBytes, getCreate2Address, getCreateAddress, hexlify, keccak256, randomBytes, Signature, SigningKey, Transaction, Wallet } from 'ethers'
import { Common, Mainnet } from '@ethereumjs/common'
import { bytesToHex } from '@ethereumjs/util'
import { create2Address, createAddress, ecrecover, isPrivateKey, privateKeyToAddress, publicKeyOf, signDigest, useNativeSecp256k1 } from '../src/node/crypto.js'
import { nativePublicKey, nativeRecover, nativeSign } from '../src/node/nativeSecp256k1.js'

/** Whether both native halves load and pass their checks here. */
const nativeLoads = nativeRecover() !== undefined && nativeSign() !== undefined && nativePublicKey() !== undefined
import { signTransaction } from '../src/node/chain/txRecord.js'
import { createRskCommon } from '../src/node/chain/common.js'
import { NETWORKS } from '../src/options/index.js'
import { decodeRawTransaction } from '../src/rpc/codecs/rawTransaction.js'
import { createLegacyTxFromRLP } from '@ethereumjs/tx'
import { enginePatches, engineMatchesPin, senderAddressPatched, senderCachePatched, setEnginePatches } from '../src/node/enginePatches/index.js'

const CASES = 100

function randomKey(): Uint8Array {
  for (;;) {
    const key = randomBytes(32)
    if (isPrivateKey(key)) return key
  }
}

/** secp256k1's group order n (SEC 2). */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
const word = (x: bigint) => getBytes(`0x${x.toString(16).padStart(64, '0')}`)

describe('native libsecp256k1', () => {
  it('loads on the platforms with a prebuilt binary (this one included: CI runs on Linux x64)', () => {
    const prebuilt = ['linux-x64', 'linux-arm', 'darwin-x64', 'darwin-arm64', 'win32-x64', 'win32-ia32']
    if (prebuilt.includes(`${process.platform}-${process.arch}`) && process.env.RSKSIM_NATIVE_SECP256K1 === undefined) {
      expect(nativeRecover()).toBeTypeOf('function')
      expect(nativeSign()).toBeTypeOf('function')
      expect(nativePublicKey()).toBeTypeOf('function')
    }
    expect(useNativeSecp256k1(true)).toBe(nativeLoads)
  })
})

for (const nativeOn of [true, false]) describe(`secp256k1 primitives (${nativeOn ? 'native' : 'through WebAssembly'})`, () => {
  beforeAll(() => {
    if (nativeOn && !nativeLoads) return
    expect(useNativeSecp256k1(nativeOn)).toBe(nativeOn)
  })
  afterAll(() => void useNativeSecp256k1(true))

  it('a signature recovered again answers the same key; the other recovery bit or another digest is recovered anew (reference: ethers)', () => {
    const key = randomKey()
    const digest = randomBytes(32)
    const sig = new SigningKey(key).sign(digest)
    const recover = (d: Uint8Array, yParity: number) => bytesToHex(ecrecover(d, BigInt(27 + yParity), getBytes(sig.r), getBytes(sig.s)))
    const expected = (d: Uint8Array, yParity: number) => `0x${SigningKey.recoverPublicKey(d, Signature.from({ r: sig.r, s: sig.s, v: 27 + yParity })).slice(4)}`
    const first = ecrecover(digest, BigInt(sig.v), getBytes(sig.r), getBytes(sig.s))
    expect(ecrecover(digest, BigInt(sig.v), getBytes(sig.r), getBytes(sig.s))).toBe(first) // from the memo
    expect(bytesToHex(first)).toBe(`0x${SigningKey.computePublicKey(key).slice(4)}`)
    const flipped = 1 - sig.yParity
    expect(recover(digest, flipped)).toBe(expected(digest, flipped))
    expect(recover(digest, flipped)).not.toBe(recover(digest, sig.yParity))
    const other = randomBytes(32)
    expect(recover(other, sig.yParity)).toBe(expected(other, sig.yParity))
    // Past the memo's bound (1,024 keys) the first key is recovered again, still right.
    for (let i = 0; i < 1100; i++) ecrecover(randomBytes(32), 27n, getBytes(sig.r), getBytes(sig.s))
    const again = ecrecover(digest, BigInt(sig.v), getBytes(sig.r), getBytes(sig.s))
    expect(again).not.toBe(first)
    expect(bytesToHex(again)).toBe(bytesToHex(first))
  })

  it('signDigest gives the signature ethers gives, and ecrecover the key ethers recovers', () => {
    for (let i = 0; i < CASES; i++) {
      const key = randomKey()
      const digest = randomBytes(32)
      const theirs = new SigningKey(key).sign(digest)
      const ours = signDigest(digest, key)
      expect({ r: hexlify(ours.r), s: hexlify(ours.s), recovery: ours.recovery }).toEqual({ r: theirs.r, s: theirs.s, recovery: theirs.yParity })

      const expected = SigningKey.recoverPublicKey(digest, theirs).slice(4) // uncompressed, without 0x04
      expect(bytesToHex(ecrecover(digest, BigInt(theirs.v), getBytes(theirs.r), getBytes(theirs.s)))).toBe(`0x${expected}`)
      // EIP-155 v for chain 33 (RSK regtest): v = recovery + 35 + 2 * 33
      const v155 = BigInt(theirs.yParity) + 35n + 66n
      expect(bytesToHex(ecrecover(digest, v155, getBytes(theirs.r), getBytes(theirs.s), 33n))).toBe(`0x${expected}`)
    }
  })

  it('derives the public key and address ethers derives', () => {
    for (let i = 0; i < 20; i++) {
      const key = randomKey()
      expect(bytesToHex(publicKeyOf(key))).toBe(`0x${new SigningKey(key).publicKey.slice(4)}`)
      expect(publicKeyOf(key)).toBe(publicKeyOf(key)) // kept per key object
      expect(bytesToHex(privateKeyToAddress(key))).toBe(computeAddress(hexlify(key)).toLowerCase())
    }
    // The edges of the scalar range: 1 and n − 1 derive what ethers derives; 0 and n are no keys.
    for (const k of [1n, N - 1n]) expect(bytesToHex(publicKeyOf(word(k)))).toBe(`0x${new SigningKey(word(k)).publicKey.slice(4)}`)
    for (const k of [0n, N]) expect(() => publicKeyOf(word(k))).toThrow('Invalid private key')
  })

  it('takes as private keys the 32-byte scalars 1 … n − 1 (SEC 2)', () => {
    expect([0n, 1n, N - 1n, N, N + 1n].map((k) => isPrivateKey(word(k)))).toEqual([false, true, true, false, false])
    expect(isPrivateKey(word(1n).subarray(1))).toBe(false)
    expect(isPrivateKey(new Uint8Array(33).fill(1))).toBe(false)
  })

  it('refuses a v that is no recovery bit and a signature that recovers no key', () => {
    const digest = randomBytes(32)
    const sig = Signature.from(new SigningKey(randomKey()).sign(digest))
    expect(() => ecrecover(digest, 29n, getBytes(sig.r), getBytes(sig.s))).toThrow('Invalid signature v value')
    expect(() => ecrecover(digest, 27n, new Uint8Array(32), getBytes(sig.s))).toThrow()
    expect(() => ecrecover(digest, 27n, new Uint8Array(33).fill(1), getBytes(sig.s))).toThrow('Invalid signature')
  })

  it('refuses r or s of zero or at or past the group order, and recovers an r that is no x coordinate to nothing', () => {
    const digest = randomBytes(32)
    const sig = Signature.from(new SigningKey(randomKey()).sign(digest))
    for (const bad of [0n, N, N + 1n, 2n ** 256n - 1n]) {
      expect(() => ecrecover(digest, 27n, word(bad), getBytes(sig.s))).toThrow('Invalid signature')
      expect(() => ecrecover(digest, 27n, getBytes(sig.r), word(bad))).toThrow('Invalid signature')
    }
    // x = 5 is on no point of y² = x³ + 7 (125 + 7 = 132 is not a square mod p), so r = 5 recovers nothing.
    expect(() => ecrecover(digest, 27n, word(5n), getBytes(sig.s))).toThrow('Invalid signature')
  })

  it('recovers a high s (n - s) with the other recovery bit to the same key, as the ecrecover precompile must', () => {
    for (let i = 0; i < 20; i++) {
      const key = randomKey()
      const digest = randomBytes(32)
      const sig = new SigningKey(key).sign(digest)
      const high = word(N - BigInt(sig.s))
      const expected = `0x${SigningKey.computePublicKey(key).slice(4)}`
      expect(bytesToHex(ecrecover(digest, BigInt(28 - sig.yParity), getBytes(sig.r), high))).toBe(expected)
      // The largest scalars: r = n - 1 or s = n - 1 are in range (a key may or may not exist; both paths agree below).
      expect(bytesToHex(ecrecover(digest, 27n, getBytes(sig.r), word(N - 1n)))).toMatch(/^0x[0-9a-f]{128}$/)
    }
  })
})

describe('native and WebAssembly libsecp256k1', () => {
  it('recover the same keys, or both nothing, on random and edge signatures', () => {
    if (!nativeLoads) return
    const cases: [Uint8Array, Uint8Array, Uint8Array, bigint][] = []
    for (let i = 0; i < 200; i++) {
      const digest = randomBytes(32)
      const sig = new SigningKey(randomKey()).sign(digest)
      cases.push([digest, getBytes(sig.r), getBytes(sig.s), BigInt(sig.v)])
      cases.push([digest, randomBytes(32), randomBytes(32), 27n + BigInt(i % 2)])
      cases.push([digest, word(N - 1n - BigInt(i)), word(BigInt(i) + 1n), 27n + BigInt(i % 2)])
    }
    const answer = (c: (typeof cases)[number]) => {
      try {
        return bytesToHex(ecrecover(c[0], c[3], c[1], c[2]))
      } catch (e) {
        return (e as Error).message
      }
    }
    try {
      useNativeSecp256k1(true)
      const natively = cases.map(answer)
      useNativeSecp256k1(false)
      const wasm = cases.map(answer)
      expect(natively).toEqual(wasm)
      // The 200 real signatures recover a key, and about half the others (an r is an x coordinate half the time).
      expect(natively.filter((a) => a.startsWith('0x')).length).toBeGreaterThan(300)
      expect(natively.filter((a) => a === 'Invalid signature').length).toBeGreaterThan(100)
    } finally {
      useNativeSecp256k1(true)
    }
  })

  it('sign the same digests into the same signatures (RFC 6979 nonces, low s)', () => {
    if (!nativeLoads) return
    const cases = Array.from({ length: 100 }, () => [randomBytes(32), randomKey()] as const)
    const signAll = () =>
      cases.map(([digest, key]) => {
        const { r, s, recovery } = signDigest(digest, key)
        return `${hexlify(r)}${hexlify(s).slice(2)}:${recovery}`
      })
    try {
      useNativeSecp256k1(true)
      const natively = signAll()
      useNativeSecp256k1(false)
      expect(natively).toEqual(signAll())
    } finally {
      useNativeSecp256k1(true)
    }
  })
})

describe('contract addresses (createAddress, create2Address: the EVM patch and receipts use them)', () => {
  it("are ethers' getCreateAddress and getCreate2Address for random creators, nonces, salts and initcode", () => {
    const nonces = [0n, 1n, 127n, 128n, 255n, 256n, 65_535n, 2n ** 32n, 2n ** 53n + 1n, 2n ** 64n - 2n]
    for (let i = 0; i < 200; i++) {
      const from = randomBytes(20)
      const nonce = i < nonces.length ? nonces[i]! : BigInt(Math.floor(Math.random() * 2 ** 40))
      expect(bytesToHex(createAddress(from, nonce))).toBe(getCreateAddress({ from: hexlify(from), nonce }).toLowerCase())
      const salt = randomBytes(32)
      const initCode = randomBytes([0, 1, 135, 136, 137, 2_241][i % 6]!)
      expect(bytesToHex(create2Address(from, salt, initCode))).toBe(getCreate2Address(hexlify(from), hexlify(salt), keccak256(initCode)).toLowerCase())
    }
  })
})

describe('sender of a transaction the node signs', () => {
  const common = new Common({ chain: Mainnet })
  const data = { nonce: 3n, gasLimit: 21000n, gasPrice: 1n, value: 5n, to: '0x7986b3df570230288501eea3d890bd66948c9b79' } as const

  it('is seeded from the key (no recovery) and is the sender ethers recovers from the signed bytes', () => {
    expect(senderCachePatched).toBe(engineMatchesPin)
    for (let i = 0; i < 10; i++) {
      const key = randomKey()
      const record = signTransaction(data, key, common)
      const parsed = Transaction.from(bytesToHex(record.raw))
      expect(bytesToHex(record.from)).toBe(parsed.from!.toLowerCase())
      // Identity, not equality: the engine answers the very key handed to it, so it recovered nothing. Handing it over
      // is the patch (senderCache.ts), so only while the patches run (not under RSKSIM_ENGINE_PATCHES=off).
      if (senderCachePatched && enginePatches.active) expect(record.tx.getSenderPublicKey()).toBe(publicKeyOf(key))
    }
  })

  it("writes the bytes ethers signs for the same fields and key, and the engine's serialize() gives them back, with the patches on and off", async () => {
    const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)]!
    const was = enginePatches.active
    try {
      for (const on of [true, false]) {
        setEnginePatches(on && engineMatchesPin)
        await signsAsEthers(pick)
      }
    } finally {
      setEnginePatches(was)
    }
  })

  async function signsAsEthers(pick: <T>(xs: T[]) => T): Promise<void> {
    for (const c of [common, createRskCommon(NETWORKS.regtest)]) {
      for (let i = 0; i < 40; i++) {
        const key = randomKey()
        const fields = {
          nonce: pick([0n, 1n, 127n, 128n, 2n ** 32n]),
          gasPrice: pick([0n, 1n, 60_000_000n, 10n ** 18n]),
          gasLimit: pick([21_000n, 6_800_000n]),
          to: i % 4 === 0 ? undefined : (hexlify(randomBytes(20)) as `0x${string}`),
          value: pick([0n, 1n, 10n ** 24n]),
          data: hexlify(randomBytes(pick([0, 1, 68, 300]))) as `0x${string}`,
        }
        const expected = await new Wallet(hexlify(key)).signTransaction({ type: 0, chainId: c.chainId(), ...fields, nonce: Number(fields.nonce), to: fields.to ?? null })
        // As the RPC handlers pass them (bytes as bytes: the fields written once, the transaction a template copy
        // where the patches are on) and in the engine's other forms (hex strings: built by the engine).
        const asBytes = { ...fields, to: fields.to === undefined ? undefined : getBytes(fields.to), data: getBytes(fields.data) }
        for (const given of [asBytes, fields]) {
          const record = signTransaction(given, key, c)
          expect(bytesToHex(record.raw)).toBe(expected)
          expect(bytesToHex(record.tx.serialize())).toBe(expected)
          expect(bytesToHex(record.hash)).toBe(keccak256(expected))
          expect(bytesToHex(record.tx.hash())).toBe(keccak256(expected))
          expect(record.tx.nonce).toBe(fields.nonce)
          expect(record.tx.value).toBe(fields.value)
          expect(record.tx.to?.toString()).toBe(fields.to)
          expect(record.tx.getSenderAddress().toString()).toBe(new Wallet(hexlify(key)).address.toLowerCase())
        }
      }
    }
  }

  it("a raw transaction's sender address is the one ethers recovers, asked once or again, with the patches on and off", () => {
    expect(senderAddressPatched).toBe(engineMatchesPin)
    const was = enginePatches.active
    try {
      for (const on of [true, false]) {
        setEnginePatches(on && engineMatchesPin)
        for (let i = 0; i < 5; i++) {
          const raw = signTransaction(data, randomKey(), common).raw
          const tx = createLegacyTxFromRLP(raw, { common })
          const expected = Transaction.from(bytesToHex(raw)).from!.toLowerCase()
          expect(tx.getSenderAddress().toString()).toBe(expected)
          expect(tx.getSenderAddress().toString()).toBe(expected)
          // Remembered (the same object) only with the patch in effect.
          expect(tx.getSenderAddress() === tx.getSenderAddress()).toBe(on && senderAddressPatched)
        }
      }
    } finally {
      setEnginePatches(was)
    }
  })

  it('is recovered as usual, to the same address, with the engine patches off', () => {
    const key = randomKey()
    const was = enginePatches.active
    setEnginePatches(false)
    try {
      const record = signTransaction(data, key, common)
      expect(record.tx.getSenderPublicKey()).not.toBe(publicKeyOf(key))
      expect(bytesToHex(record.tx.getSenderPublicKey())).toBe(bytesToHex(publicKeyOf(key)))
      expect(bytesToHex(record.from)).toBe(computeAddress(hexlify(key)).toLowerCase())
    } finally {
      setEnginePatches(was)
    }
  })
})

describe('sender of a raw transaction (rawTransaction.ts recovers it from the fields as received)', () => {
  const common = createRskCommon(NETWORKS.regtest)
  const wallets = Array.from({ length: 4 }, () => new SigningKey(hexlify(randomKey())))

  /** A random legacy transaction signed by ethers: EIP-155 for chain 33 or not (v 27/28), a deployment or a call. */
  function randomRaw(i: number): string {
    const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)]!
    const tx = Transaction.from({
      type: 0,
      chainId: i % 2 === 0 ? 33n : 0n,
      nonce: pick([0, 1, 127, 128, 0xffff, 2 ** 32]),
      gasPrice: pick([0n, 1n, 60_000_000n, 10n ** 18n]),
      gasLimit: pick([21_000n, 100_000n, 6_800_000n]),
      to: i % 5 === 0 ? null : hexlify(randomBytes(20)),
      value: pick([0n, 1n, 10n ** 24n]),
      data: hexlify(randomBytes(pick([0, 1, 4, 68, 300]))),
    })
    tx.signature = wallets[i % wallets.length]!.sign(tx.unsignedHash)
    return tx.serialized
  }

  it("is the sender ethers recovers, with the patches on and off, and the key is the engine's own recovery", () => {
    const was = enginePatches.active
    try {
      for (const on of [true, false]) {
        setEnginePatches(on && engineMatchesPin)
        for (let i = 0; i < 120; i++) {
          const raw = randomRaw(i)
          const record = decodeRawTransaction(getBytes(raw), common)
          expect(bytesToHex(record.from), raw).toBe(Transaction.from(raw).from!.toLowerCase())
          // The key handed over (or recovered by the engine) is what the engine recovers from a fresh copy.
          const fresh = createLegacyTxFromRLP(getBytes(raw), { common, allowUnlimitedInitCodeSize: true })
          expect(bytesToHex(record.tx.getSenderPublicKey())).toBe(bytesToHex(fresh.getSenderPublicKey()))
        }
      }
    } finally {
      setEnginePatches(was)
    }
  })

  it('refuses a signature that recovers no key as RSKj does, -32010 `the sender account doesn\'t exist`, patches on or off', () => {
    const tx = Transaction.from(randomRaw(0))
    // r = 5 is the x coordinate of no curve point: libsecp256k1 recovers nothing.
    const bad = Transaction.from({ ...tx.toJSON(), signature: { r: `0x${'00'.repeat(31)}05`, s: tx.signature!.s, v: tx.signature!.v } })
    const was = enginePatches.active
    const messages: string[] = []
    try {
      for (const on of [true, false]) {
        setEnginePatches(on && engineMatchesPin)
        try {
          decodeRawTransaction(getBytes(bad.serialized), common)
          messages.push('decoded')
        } catch (e) {
          messages.push((e as Error).message)
        }
      }
    } finally {
      setEnginePatches(was)
    }
    // RSKj's native signature service recovers no key, Transaction.getSender answers the null address, and the pool
    // finds no account for it (test/eth_sendRawTransaction_encoding.test.ts asserts the code through the provider).
    expect(messages).toEqual(["the sender account doesn't exist", "the sender account doesn't exist"])
  })
})
