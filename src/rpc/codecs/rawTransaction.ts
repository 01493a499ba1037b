/**
 * Raw signed transactions as RSKj accepts them (reference §5.4): a legacy RLP list of exactly 9 items, signed for
 * chain id 0 or the node's, with a canonical (low) s. Decoded once; the record is built from the decoded fields.
 * Bytes the engine refuses but RSKj reads (RLP that is not canonical, integers with leading zero bytes, a nonce past
 * the engine's) take another path once the canonical decode has failed: lenientRlp.ts, nonCanonicalTransaction.ts.
 */
import type { Common } from '@ethereumjs/common'
import { Capability, createLegacyTxFromBytesArray, type LegacyTx } from '@ethereumjs/tx'
import { RLP } from '@ethereumjs/rlp'
import { SECP256K1_ORDER, SECP256K1_ORDER_DIV_2 } from '@ethereumjs/util'
import { invalidParams, RpcError, ErrorCode } from '../../errors.js'
import { legacySigningHash, recordOf, TX_OPTIONS } from '../../node/chain/txRecord.js'
import type { TxRecord } from '../../node/chain/types.js'
import { binKey } from '../../node/binKey.js'
import { RecentMap } from '../../node/recentMap.js'
import { bytesToWord } from '../../node/rlp.js'
import { ecrecover } from '../../node/crypto.js'
import { seedSender } from '../../node/enginePatches/senderCache.js'
import { legacyTxFromFields } from '../../node/enginePatches/legacyTx.js'
import { beyondEngineNonce, hasLeadingZeros } from '../../node/chain/rskjTxFields.js'
import { decodeNonCanonical } from './nonCanonicalTransaction.js'
import { lenientTransactionFields } from './lenientRlp.js'

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
  if (raw.length === 0) throw invalidParams('Invalid input: empty transaction')
  if (raw[0]! < 0xc0) {
    throw new RpcError(ErrorCode.InvalidParams, `Invalid input: typed transactions (EIP-2718 type 0x${raw[0]!.toString(16).padStart(2, '0')}) are not supported; send a legacy (type 0) transaction`)
  }
  let fields: Uint8Array[]
  // Whether the RLP itself was not canonical: RSKj reads it (lenientRlp.ts) and hashes its re-encoding.
  let lenient = false
  try {
    const decoded = RLP.decode(raw)
    if (!Array.isArray(decoded) || decoded.length !== 9 || decoded.some((f) => !(f instanceof Uint8Array))) {
      throw new Error('a legacy transaction is an RLP list of 9 byte strings')
    }
    fields = decoded as Uint8Array[]
  } catch (e) {
    const read = lenientTransactionFields(raw)
    if (read === undefined) throw invalidParams(`Invalid input: ${e instanceof Error ? e.message : String(e)}`)
    fields = read
    lenient = true
  }
  const v = bytesToWord(fields[6]!)
  const s = bytesToWord(fields[8]!)
  const chainId = common.chainId()
  const derived = v === 27n || v === 28n ? 0n : (v - 35n) / 2n
  // RSKj `Transaction.acceptTransactionSignature`: s at or over n/2 (rounded down) is refused, n/2 itself too.
  if (fields[6]!.length > 1 || (derived !== 0n && derived !== chainId) || s >= SECP256K1_ORDER_DIV_2) {
    throw invalidParams(`Invalid chainId: ${derived}`)
  }
  if (lenient) {
    if (outsideGroup(fields[7]!) || outsideGroup(fields[8]!)) throw invalidParams(`Invalid chainId: ${derived}`)
    return decodeNonCanonical(fields, common, derived === 0n ? undefined : chainId)
  }
  let tx: LegacyTx
  try {
    // From the fields decoded above: createLegacyTxFromRLP would decode the same bytes again. A copy of the first
    // transaction decoded where the engine would accept the fields (src/node/enginePatches/legacyTx.ts).
    tx = legacyTxFromFields(common, fields, () => createLegacyTxFromBytesArray(fields, { common, ...TX_OPTIONS }))
    seedRecoveredSender(tx, fields, chainId)
    return recordOf(tx, raw)
  } catch (e) {
    if (outsideGroup(fields[7]!) || outsideGroup(fields[8]!)) throw invalidParams(`Invalid chainId: ${derived}`)
    // Integers with leading zero bytes, or a nonce past the engine's: RSKj reads them (nonCanonicalTransaction.ts).
    if (hasLeadingZeros(fields) || beyondEngineNonce(fields[0]!)) return decodeNonCanonical(fields, common, derived === 0n ? undefined : chainId)
    throw invalidParams(`Invalid input: ${e instanceof Error ? e.message : String(e)}`)
  }
}

/**
 * Whether r or s, given as bytes, is 0 or at least the group order: RSKj reads it as a number
 * (`ECDSASignature.fromComponents`) and `acceptTransactionSignature` (`validateComponents`) refuses it, -32602
 * `Invalid chainId: <id>` (reference §5.4). Asked only once the engine refused the transaction. An empty r or s is
 * left to the engine's refusal (RSKj meets a null there: -32603, docs/compatibility.md).
 */
function outsideGroup(bytes: Uint8Array): boolean {
  if (bytes.length === 0) return false
  const n = bytesToWord(bytes)
  return n === 0n || n >= SECP256K1_ORDER
}

/**
 * Recovers the sender from the fields as received and hands the key to the transaction (senderCache.ts), so the
 * engine does not rebuild the signed message from the transaction's numbers (`LegacyTx.getMessageToSign`: each
 * field converted back to bytes through hex strings, then RLP.encode; about 26 µs of the 164 µs a sender cost in a
 * profile of warm transfers, docs/performance.md tenth round). The fields are the engine's own bytes, since it
 * refused leading zeros when it built `tx`, and the recovery is the engine's (`customCrypto.ecrecover`) with the
 * same arguments. Any failure seeds nothing: the engine then recovers as before and answers its own error.
 * test/crypto.test.ts compares the senders with ethers' on random transactions, with the patches on and off.
 */
function seedRecoveredSender(tx: LegacyTx, fields: Uint8Array[], chainId: bigint): void {
  try {
    const eip155 = tx.supports(Capability.EIP155ReplayProtection)
    const digest = legacySigningHash(fields, eip155 ? chainId : undefined)
    seedSender(tx, ecrecover(digest, tx.v!, fields[7]!, fields[8]!, eip155 ? chainId : undefined))
  } catch {
    // The engine recovers (and refuses) the signature itself.
  }
}
