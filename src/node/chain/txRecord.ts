/**
 * Turning signed transactions into `TxRecord`s: recover the sender once, hash once. Decoding raw bytes from a
 * request (and RSKj's checks on them) is the RPC layer's: src/rpc/codecs/rawTransaction.ts.
 */
import type { Common } from '@ethereumjs/common'
import { createLegacyTx, createLegacyTxFromBytesArray, createLegacyTxFromRLP, type LegacyTx, type LegacyTxData } from '@ethereumjs/tx'
import { RLP } from '@ethereumjs/rlp'
import { Address, bytesToBigInt, unpadBytes } from '@ethereumjs/util'
import { rlpEncode, unpaddedBytes, WORD_LIMIT } from '../rlp.js'
import { keccak256, keccakRlp, privateKeyToAddress, publicKeyOf, signDigest } from '../crypto.js'
import { seedSender } from '../enginePatches/senderCache.js'
import { legacyTxFromFields } from '../enginePatches/legacyTx.js'
import type { TxRecord } from './types.js'
import { flatHex } from './flatHex.js'
import { engineFields, hasLeadingZeros, heldEngineFields, nonceRefusal, unheldAmounts } from './rskjTxFields.js'

/**
 * The engine refuses oversized initcode (EIP-3860) when it builds the transaction; pool admission refuses it with
 * RSKj's -32010 text instead (src/node/pool/admission.ts), so the engine's construction check is off.
 */
export const TX_OPTIONS = { allowUnlimitedInitCodeSize: true }

/** Wraps a signed, frozen transaction; the hash is taken over the bytes received, not a re-encoding. */
export function recordOf(tx: LegacyTx, raw: Uint8Array = tx.serialize()): TxRecord {
  return rskjRecord(tx, raw, tx.getSenderAddress().bytes)
}

/**
 * A transaction "from" an impersonated address, which the node holds no key for (Anvil's and Hardhat's
 * impersonation). It carries a stand-in signature (v for the chain id, r = the sender's address, s = 1, so two
 * senders never share a hash) and answers `from` as its sender; the engine never checks the signature itself.
 */
export function impersonatedTransaction(data: LegacyTxData, from: Uint8Array, common: Common): TxRecord {
  const v = 35n + 2n * common.chainId()
  const tx = createLegacyTx({ ...data, v, r: bytesToBigInt(from), s: 1n }, { common, ...TX_OPTIONS, freeze: false })
  pinSender(tx, from)
  return recordOf(tx)
}

/**
 * `impersonatedTransaction` for the fields eth_sendTransaction builds (`PlainTxData`), where numbers the engine cannot
 * hold (a nonce of 2^64 − 1 or more, amounts past its bounds: rskjTxFields.ts) are kept on the record for admission to
 * refuse with RSKj's pool texts, as `signRskjTransaction` keeps them for a sender with a key; the engine's constructor
 * would throw (-32603) on them.
 */
export function impersonatedPlainTransaction(data: PlainTxData, from: Uint8Array, common: Common): TxRecord {
  const fields = unsignedFields(data, unpaddedBytes(data.gasPrice))
  const unheld = unheldAmounts(fields)
  const refusal = nonceRefusal(fields[0]!)
  if (unheld === undefined && refusal === undefined) return impersonatedTransaction(data, from, common)
  const signed = [...fields, unpaddedBytes(35n + 2n * common.chainId()), unpaddedBytes(bytesToBigInt(from)), Uint8Array.of(1)]
  return pinnedRskjRecord(signed, from, common, refusal, unheld)
}

/**
 * The record of RSKj's nine signed fields `rskj` whose engine transaction (unfrozen, built from `heldEngineFields`)
 * answers `from` as its sender, whatever its own recovery would give; the engine's constructor throws what it refuses.
 */
export function pinnedRskjRecord(rskj: Uint8Array[], from: Uint8Array, common: Common, nonceRefusal?: string, unheld?: TxRecord['unheld']): TxRecord {
  const tx = createLegacyTxFromBytesArray(heldEngineFields(rskj, unheld !== undefined), { common, ...TX_OPTIONS, freeze: false })
  pinSender(tx, from)
  return rskjRecord(tx, rlpEncode(rskj), from, nonceRefusal, unheld)
}

/**
 * Makes an unfrozen transaction (built with `freeze: false`) answer `from` as its sender, whatever its signature
 * recovers to: for impersonated transactions, stored ones (the sender recorded), and raw ones whose sender RSKj
 * recovers from another message than the engine would (src/rpc/codecs/nonCanonicalTransaction.ts).
 */
function pinSender(tx: LegacyTx, from: Uint8Array): void {
  const sender = new Address(from)
  Object.defineProperty(tx, 'getSenderAddress', { value: () => sender })
}

/**
 * Signs a legacy EIP-155 transaction with `privateKey` (libsecp256k1, RFC 6979). The sender is the key's own: it is
 * handed to the transaction rather than recovered from the signature just made (enginePatches/senderCache.ts).
 */
export function signTransaction(data: LegacyTxData, privateKey: Uint8Array, common: Common): TxRecord {
  const plain = plainFields(data)
  if (plain === undefined) return signBuilt(data, privateKey, common)
  // The fields as the RPC handlers give them (numbers as bigints, bytes as bytes): written once, signed, and the
  // transaction made from the nine signed fields as a raw one is (a copy of the Common's template where the engine
  // would accept them, enginePatches/legacyTx.ts; else the engine's constructor, which answers its own error),
  // rather than the engine building an unsigned transaction and then a signed one (two constructors: a fifth of
  // an eth_sendTransaction's own time in a profile, docs/performance.md "Twenty-fourth round").
  const signedFields = signedLegacyFields(plain, privateKey, common)
  const signed = legacyTxFromFields(common, signedFields, () => createLegacyTxFromBytesArray(signedFields, { common, ...TX_OPTIONS }))
  seedSender(signed, publicKeyOf(privateKey))
  return recordOf(signed, rlpEncode(signedFields))
}

/** The same through the engine's constructors, for fields given in any of the engine's forms (hex strings, numbers). */
function signBuilt(data: LegacyTxData, privateKey: Uint8Array, common: Common): TxRecord {
  const unsigned = createLegacyTx(data, { common, ...TX_OPTIONS })
  const fields = legacyFields(unsigned)
  const signedFields = signedLegacyFields(fields, privateKey, common)
  const signed = createLegacyTxFromBytesArray(signedFields, { common, ...TX_OPTIONS })
  seedSender(signed, publicKeyOf(privateKey))
  return recordOf(signed, rlpEncode(signedFields))
}

/** The fields of a transaction the node signs, as numbers in range and bytes. */
export interface PlainTxData {
  nonce: bigint
  gasPrice: bigint
  gasLimit: bigint
  value: bigint
  to?: Uint8Array
  data: Uint8Array
}

/**
 * The six unsigned fields of `data`, of any size (`plainFields` takes only what the engine holds), the numbers without
 * leading zeros and the gas price as given (`gasPrice`).
 */
function unsignedFields(data: PlainTxData, gasPrice: Uint8Array): Uint8Array[] {
  return [unpaddedBytes(data.nonce), gasPrice, unpaddedBytes(data.gasLimit), data.to ?? EMPTY, unpaddedBytes(data.value), data.data]
}

/**
 * Signs as RSKj's eth_sendTransaction and personal_sendTransaction sign (`TransactionBuilder.withTransactionArguments`,
 * `Transaction.sign` over `getEncodedRaw`, then `toImmutableTransaction`, org/ethereum/core/): over the fields RSKj
 * writes, where a zero gas price is the byte 0x00 (`RLP.encodeCoinNonNullZero` writes a zero `Coin` as `{0}`), while a
 * zero nonce and a zero value are the empty string (`encode`: a nonce `{0}` as null; `encodeCoinNullZero`). The hash,
 * the signature and the bytes a block holds are of those fields. (A zero gas limit, which the pool refuses before its
 * hash is seen, is written as the empty string: RSKj's `BigIntegers.asUnsignedByteArray(0)` depends on its Bouncy
 * Castle build.) Fields the engine reads as they are (a gas price above zero) take `signTransaction`; the others a
 * transaction of the fields without their leading zeros, its sender the key's.
 */
export function signRskjTransaction(data: PlainTxData, privateKey: Uint8Array, common: Common): TxRecord {
  const fields = unsignedFields(data, data.gasPrice === 0n ? Uint8Array.of(0) : unpaddedBytes(data.gasPrice))
  // Numbers the engine cannot hold (a nonce of 2^64 − 1 or more, amounts past its bounds) are kept on the record and
  // refused by admission at the pool's place for them (types.ts `nonceRefusal`, `unheld`), as RSKj's pool refuses them.
  const unheld = unheldAmounts(fields)
  const refusal = nonceRefusal(fields[0]!)
  if (data.gasPrice !== 0n && unheld === undefined && refusal === undefined) return signTransaction(data, privateKey, common)
  const signed = signedLegacyFields(fields, privateKey, common)
  const from = privateKeyToAddress(privateKey)
  // The engine's transaction holds the numbers without their leading zeros, so its own recovery would use another
  // message than the one signed: it is handed the key's sender. The common case, a zero gas price alone, as
  // signTransaction does it (a copy of the Common's template, its sender cache seeded: the engine's constructor and a
  // pinned method cost a send at gas price 0 a fifth of its time); else an unfrozen transaction, its sender pinned.
  if (unheld === undefined && refusal === undefined) {
    const engine = heldEngineFields(signed, false)
    const seeded = legacyTxFromFields(common, engine, () => createLegacyTxFromBytesArray(engine, { common, ...TX_OPTIONS }))
    if (seedSender(seeded, publicKeyOf(privateKey))) return rskjRecord(seeded, rlpEncode(signed), from)
  }
  return pinnedRskjRecord(signed, from, common, refusal, unheld)
}

/**
 * The record of the engine transaction `tx` with the bytes `raw` (hashed as they are: RSKj's, which may not be the
 * engine's encoding) and the sender `from`, with what admission refuses it for (`nonceRefusal`, `unheld`; types.ts).
 */
function rskjRecord(tx: LegacyTx, raw: Uint8Array, from: Uint8Array, nonceRefusal?: string, unheld?: TxRecord['unheld']): TxRecord {
  const hash = keccak256(raw)
  const record: TxRecord = { tx, raw, hash, hashHex: flatHex(hash), from, fromHex: flatHex(from) }
  if (nonceRefusal !== undefined) record.nonceRefusal = nonceRefusal
  if (unheld !== undefined) record.unheld = unheld
  return record
}

/**
 * The nine fields of the signed transaction: the six given, then v, r and s. The message and the signed bytes are
 * written from the fields (rsksim's RLP) rather than by the engine's getHashedMessageToSign and serialize, which
 * turn every number into bytes through hex strings (about 26 µs for the message alone in a profile:
 * docs/performance.md, tenth round). test/crypto.test.ts compares the bytes with ethers' signed transaction and with
 * the engine's serialize(). EIP-155 (the chain id in the message and in v) as the engine applies it to an unsigned
 * transaction: from Spurious Dragon on, which every RSK Common is past.
 */
function signedLegacyFields(fields: Uint8Array[], privateKey: Uint8Array, common: Common): Uint8Array[] {
  const eip155 = common.gteHardfork('spuriousDragon')
  const chainId = common.chainId()
  const { r, s, recovery } = signDigest(legacySigningHash(fields, eip155 ? chainId : undefined), privateKey)
  const v = BigInt(recovery) + (eip155 ? 35n + 2n * chainId : 27n)
  return [...fields, unpaddedBytes(v), unpadBytes(r), unpadBytes(s)]
}

/**
 * The six signed fields, where `data` holds its numbers as bigints in range and its bytes as Uint8Arrays (what
 * eth_sendTransaction and eth_signTransaction pass); undefined for any other form, which the engine converts.
 */
function plainFields(data: LegacyTxData): Uint8Array[] | undefined {
  const { nonce, gasPrice, gasLimit, value, to } = data
  const bytes = data.data ?? EMPTY
  if (!isWord(nonce) || !isWord(gasPrice) || !isWord(gasLimit) || !isWord(value)) return undefined
  if (!(bytes instanceof Uint8Array) || (to !== undefined && !(to instanceof Uint8Array && to.length === 20))) return undefined
  return [unpaddedBytes(nonce), unpaddedBytes(gasPrice), unpaddedBytes(gasLimit), to ?? EMPTY, unpaddedBytes(value), bytes]
}

const isWord = (x: unknown): x is bigint => typeof x === 'bigint' && x >= 0n && x < WORD_LIMIT

const EMPTY = new Uint8Array()

/**
 * The digest a legacy transaction's signature signs: keccak-256 of the RLP list of its first six fields, plus chain
 * id, 0 and 0 under EIP-155 (`chainId` given). For transactions the node signs and for raw ones it recovers
 * (src/rpc/codecs/rawTransaction.ts).
 */
export function legacySigningHash(fields: readonly Uint8Array[], chainId: bigint | undefined): Uint8Array {
  const signed = fields.slice(0, 6)
  if (chainId !== undefined) signed.push(unpaddedBytes(chainId), EMPTY, EMPTY)
  return keccakRlp(signed)
}

/** The six signed fields of a legacy transaction as its RLP holds them (numbers unpadded; no `to` for a deployment). */
function legacyFields(tx: LegacyTx): Uint8Array[] {
  return [unpaddedBytes(tx.nonce), unpaddedBytes(tx.gasPrice), unpaddedBytes(tx.gasLimit), tx.to?.bytes ?? EMPTY, unpaddedBytes(tx.value), tx.data]
}

/**
 * A transaction kept as its bytes, sender and hash: decoded on first use, its sender the one stored (never
 * recovered again: impersonated transactions carry a stand-in signature). Blocks read back from the database hold
 * these, and so do mined blocks once the next block is mined (`compactTransactions`): a decoded transaction object
 * costs about 1.2 KB of heap per block (measured with a token transfer per block).
 */
export class StoredTxRecord implements TxRecord {
  readonly hash: Uint8Array
  readonly hashHex: string
  readonly fromHex: string
  private decoded?: LegacyTx

  constructor(
    readonly raw: Uint8Array,
    readonly from: Uint8Array,
    private readonly common: Common,
    hash?: Uint8Array,
  ) {
    this.hash = hash ?? keccak256(raw)
    this.hashHex = flatHex(this.hash)
    this.fromHex = flatHex(from)
  }

  get tx(): LegacyTx {
    if (this.decoded === undefined) {
      const tx = storedTx(this.raw, this.common)
      pinSender(tx, this.from)
      this.decoded = tx
    }
    return this.decoded
  }
}


/**
 * The engine's transaction of stored bytes. Bytes with leading zeros in an integer (a gas limit or a zero gas price
 * as RSKj re-encodes them, node/chain/rskjTxFields.ts) are read without them: the engine refuses them as they are.
 */
function storedTx(raw: Uint8Array, common: Common): LegacyTx {
  try {
    return createLegacyTxFromRLP(raw, { common, ...TX_OPTIONS, freeze: false })
  } catch (e) {
    const fields = RLP.decode(raw)
    if (!Array.isArray(fields) || !fields.every((f) => f instanceof Uint8Array) || !hasLeadingZeros(fields as Uint8Array[])) throw e
    return createLegacyTxFromBytesArray(engineFields(fields as Uint8Array[]), { common, ...TX_OPTIONS, freeze: false })
  }
}

/** Replaces the block's transactions by their compact form (the REMASC transaction is compact already). */
export function compactTransactions(transactions: TxRecord[], common: Common): void {
  for (let i = 0; i < transactions.length; i++) {
    const t = transactions[i]!
    if (t.system === undefined && !(t instanceof StoredTxRecord)) transactions[i] = new StoredTxRecord(t.raw, t.from, common, t.hash)
  }
}
