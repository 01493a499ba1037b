/**
 * Raw legacy transactions whose integers carry leading zero bytes, which the engine (@ethereumjs/tx) refuses and
 * RSKj reads (org/ethereum/core/Transaction.java), or whose RLP is not canonical (lenientRlp.ts): taken here only
 * after the canonical decode failed (rawTransaction.ts), so canonical transactions never pay for it.
 *
 * As RSKj: the transaction is its re-encoding (node/chain/rskjTxFields.ts), so its hash is keccak of the re-encoded
 * bytes (not of the bytes received), its sender is recovered from the re-encoded message (`getRawHash`: the nonce
 * and gas limit as received, gas price and value as numbers), its size is the re-encoding's, and a block holds the
 * re-encoded bytes. A nonce RSKj's pool refuses (over 8 bytes, or a leading zero) is kept on the record with the
 * pool's text, which admission answers at the pool's place for it (src/node/pool/admission.ts).
 */
import type { Common } from '@ethereumjs/common'
import { invalidParams } from '../../errors.js'
import { legacySigningHash, pinnedRskjRecord } from '../../node/chain/txRecord.js'
import type { TxRecord } from '../../node/chain/types.js'
import { nonceRefusal as refusalOf, rskjEncodedFields, unheldAmounts } from '../../node/chain/rskjTxFields.js'
import { ecrecover, publicKeyToAddress } from '../../node/crypto.js'
import { noSenderRecovered } from './rskjRawChecks.js'

/**
 * The record of a transaction RSKj reads though the engine refused its bytes, given the nine fields received (v the
 * recovery v, 27 or 28, when it names chain id 0) and the chain id v names (undefined for chain id 0). When no key is
 * recovered from RSKj's message the request gets RSKj's answer for that (rskjRawChecks.ts `noSenderRecovered`); when
 * the engine refuses the fields even without their leading zeros, -32602 `Invalid input: <reason>`, as the canonical
 * decode answers such failures.
 */
export function decodeNonCanonical(fields: Uint8Array[], common: Common, chainId: bigint | undefined): TxRecord {
  const rskj = rskjEncodedFields(fields)
  const nonceRefusal = refusalOf(rskj[0]!)
  // A refused nonce never reaches the engine's execution: admission answers the refusal first. One the engine cannot
  // hold is left out of its transaction (only the fields checked before the nonce are read); so are amounts it cannot
  // hold, which admission refuses at their own checks (types.ts `unheld`).
  const unheld = unheldAmounts(rskj)
  let from: Uint8Array
  try {
    const publicKey = ecrecover(legacySigningHash(rskj, chainId), bytesToV(rskj[6]!), rskj[7]!, rskj[8]!, chainId)
    from = publicKeyToAddress(publicKey).slice()
  } catch {
    throw noSenderRecovered()
  }
  try {
    return pinnedRskjRecord(rskj, from, common, nonceRefusal, unheld)
  } catch (e) {
    throw invalidParams(`Invalid input: ${e instanceof Error ? e.message : String(e)}`)
  }
}

const bytesToV = (v: Uint8Array): bigint => BigInt(v[0] ?? 0)
