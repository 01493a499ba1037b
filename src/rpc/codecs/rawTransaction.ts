/**
 * Raw signed transactions as RSKj accepts them (reference §5.4): a legacy RLP list of exactly 9 items, signed for
 * chain id 0 or the node's, with a canonical (low) s. Decoded once; the record is built from the decoded fields.
 * RSKj's checks of the fields and the signature, and its answer for a signature that recovers no key, are
 * rskjRawChecks.ts. Bytes the engine refuses but RSKj reads (RLP that is not canonical, integers with leading zero
 * bytes, a nonce past the engine's, v 34-36) take another path: lenientRlp.ts (which also answers RSKj's errors for RLP
 * it cannot read), nonCanonicalTransaction.ts.
 */
import type { Common } from '@ethereumjs/common'
import { createLegacyTxFromBytesArray, type LegacyTx } from '@ethereumjs/tx'
import { RLP } from '@ethereumjs/rlp'
import { invalidParams, RpcError, ErrorCode } from '../../errors.js'
import { legacySigningHash, recordOf, TX_OPTIONS } from '../../node/chain/txRecord.js'
import type { TxRecord } from '../../node/chain/types.js'
import { binKey } from '../../node/binKey.js'
import { RecentMap } from '../../node/recentMap.js'
import { ecrecover } from '../../node/crypto.js'
import { seedSender } from '../../node/enginePatches/senderCache.js'
import { legacyTxFromFields } from '../../node/enginePatches/legacyTx.js'
import { beyondEngineNonce, hasLeadingZeros, unheldAmounts } from '../../node/chain/rskjTxFields.js'
import { decodeNonCanonical } from './nonCanonicalTransaction.js'
import { lenientTransactionFields } from './lenientRlp.js'
import { noSenderRecovered, rskjSignatureChecks } from './rskjRawChecks.js'

/**
 * Records decoded lately (the 256 most recent), per chain and by raw bytes: a test that reverts to a snapshot and
 * sends the same signed transaction again (signatures are deterministic) sends the same bytes, and decoding, hashing
 * and the sender's address cost 80-130 µs here (3-5 µs when remembered). Only transactions that passed every check
 * are kept, and the engine's transaction is frozen, so a new record around it is what decoding again would give.
 */
const decodedByChain = new WeakMap<Common, RecentMap<string, TxRecord>>()
/** Larger transactions (deployments) are decoded each time: their key would cost more than it saves. */
const DECODED_MAX_BYTES = 2048

/** Decodes a raw signed transaction as RSKj accepts it: a legacy RLP list of 9 items, chain id 0 or the node's. */
export function decodeRawTransaction(raw: Uint8Array, common: Common): TxRecord {
  if (raw.length > DECODED_MAX_BYTES) return decodeAnew(raw, common)
  let decoded = decodedByChain.get(common)
  if (decoded === undefined) decodedByChain.set(common, (decoded = new RecentMap(256)))
  const key = binKey(raw)
  const known = decoded.get(key)
  if (known !== undefined) return { ...known, raw }
  const record = decodeAnew(raw, common)
  // Only canonical bytes are remembered: a record read RSKj's way holds its own re-encoding, not `raw`.
  if (record.raw === raw) decoded.set(key, record)
  return record
}

function decodeAnew(raw: Uint8Array, common: Common): TxRecord {
  // EIP-2718 types are 0x00-0x7f. RSKj reads such bytes as two items (-32603); a clear refusal instead (compatibility.md).
  if (raw.length > 0 && raw[0]! < 0x80) {
    throw new RpcError(ErrorCode.InvalidParams, `Invalid input: typed transactions (EIP-2718 type 0x${raw[0]!.toString(16).padStart(2, '0')}) are not supported; send a legacy (type 0) transaction`)
  }
  let fields: Uint8Array[]
  // Whether the RLP was not nine canonical byte strings: RSKj reads it (lenientRlp.ts) and hashes its re-encoding.
  let lenient = false
  const decoded = canonicalFields(raw)
  if (decoded !== undefined) fields = decoded
  else {
    fields = lenientTransactionFields(raw)
    lenient = true
  }
  const chainId = common.chainId()
  const { chainId: named, realV } = rskjSignatureChecks(fields, 2 * raw.length, chainId)
  const eip155 = named === 0n ? undefined : chainId
  // v 34, 35 or 36 names chain id 0: RSKj signs, hashes and keeps the transaction with its recovery v, 27 or 28.
  if (eip155 === undefined && fields[6]![0] !== realV) {
    fields = fields.slice()
    fields[6] = Uint8Array.of(realV)
    lenient = true
  }
  if (lenient) return decodeNonCanonical(fields, common, eip155)
  let tx: LegacyTx
  try {
    // From the fields decoded above: createLegacyTxFromRLP would decode the same bytes again. A copy of the first
    // transaction decoded where the engine would accept the fields (src/node/enginePatches/legacyTx.ts).
    tx = legacyTxFromFields(common, fields, () => createLegacyTxFromBytesArray(fields, { common, ...TX_OPTIONS }))
  } catch (e) {
    // Integers with leading zero bytes, or a nonce or amounts past the engine's: RSKj reads them (nonCanonicalTransaction.ts).
    if (hasLeadingZeros(fields) || beyondEngineNonce(fields[0]!) || unheldAmounts(fields) !== undefined) return decodeNonCanonical(fields, common, eip155)
    throw invalidParams(`Invalid input: ${e instanceof Error ? e.message : String(e)}`)
  }
  seedRecoveredSender(tx, fields, eip155)
  return recordOf(tx, raw)
}

/** The nine byte strings of a canonical RLP list, as @ethereumjs/rlp reads it; undefined for anything else. */
function canonicalFields(raw: Uint8Array): Uint8Array[] | undefined {
  try {
    const decoded = RLP.decode(raw)
    if (Array.isArray(decoded) && decoded.length === 9 && decoded.every((f) => f instanceof Uint8Array)) return decoded as Uint8Array[]
  } catch {
    // not canonical RLP: read as RSKj reads it
  }
  return undefined
}

/**
 * Recovers the sender from the fields as received and hands the key to the transaction (senderCache.ts), so the
 * engine does not rebuild the signed message from the transaction's numbers (`LegacyTx.getMessageToSign`: each
 * field converted back to bytes through hex strings, then RLP.encode; about 26 µs of the 164 µs a sender cost in a
 * profile of warm transfers, docs/performance.md tenth round). The fields are the engine's own bytes, since it
 * refused leading zeros when it built `tx`, and the recovery is the engine's (`customCrypto.ecrecover`) with the
 * same arguments. r, s and v are checked already (rskjRawChecks.ts), so a recovery that fails means no key: RSKj's
 * answer for that (`noSenderRecovered`). test/crypto.test.ts compares the senders with ethers' on random
 * transactions, with the patches on and off.
 */
function seedRecoveredSender(tx: LegacyTx, fields: Uint8Array[], chainId: bigint | undefined): void {
  let publicKey: Uint8Array
  try {
    publicKey = ecrecover(legacySigningHash(fields, chainId), tx.v!, fields[7]!, fields[8]!, chainId)
  } catch {
    throw noSenderRecovered()
  }
  seedSender(tx, publicKey)
}
