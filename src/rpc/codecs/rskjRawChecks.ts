/**
 * What RSKj checks on the nine fields of a raw transaction before its pool sees it, in its order, with its answers
 * (VETIVER-9.0.3): the `Transaction(RLPList)` constructor (org/ethereum/core/Transaction.java), then
 * `EthModuleTransactionBase.sendRawTransaction` (co/rsk/rpc/modules/eth/), errors mapped by `RskErrorResolver`.
 * And what RSKj answers for a signature from which no key is recovered, which it meets in the pool.
 */
import { SECP256K1_ORDER, SECP256K1_ORDER_DIV_2 } from '@ethereumjs/util'
import { internalError, invalidParams, txRejected, type RpcError } from '../../errors.js'
import { bytesToWord } from '../../node/rlp.js'

/** What v names: the chain id (0 for none) and the recovery v, 27 or 28, that RSKj signs and hashes with. */
export interface SignatureV {
  chainId: bigint
  realV: number
}

/**
 * The checks, first failure answered:
 * 1. `to` neither empty nor 20 bytes: `RskAddress` throws InvalidRskAddressException, which RskErrorResolver answers
 *    -32602 `invalid argument 0: hex string has length N, want 40 for RSK address`, N the length of the request's hex
 *    string without `0x` (`hexLength`: twice the bytes for the even-length hex every signer writes).
 * 2. v of more than one byte: TransactionException `Signature V is invalid`; v given but r or s empty:
 *    `new BigInteger(1, null)` in ECDSASignature.fromComponents (a NullPointerException). Both -32603.
 *    An empty v is an unsigned transaction: chain id 0, no signature.
 * 3. An empty gas limit: -32602 `Missing parameter, gasPrice, gas or value` (the gas price and value are never null
 *    there: `getGasPrice` answers zero for none, `parseCoinNullZero` reads none as zero).
 * 4. `acceptTransactionSignature`: a signature, r and s in [1, n), s below n/2 rounded down, and chain id 0 or the
 *    node's, else -32602 `Invalid chainId: <chain id v names>`.
 * The chain id is `extractChainIdFromV`: 0 for v 27 or 28, else (v − 35) / 2 truncated (a Java int division), so v 34,
 * 35 and 36 name chain id 0 too; the recovery v is `getRealV`: v itself for 27 or 28, else 27 for an odd v, 28 for an
 * even one. A transaction of chain id 0 is signed over the six fields (no EIP-155 suffix) and re-encoded with its
 * recovery v (`getEncodedRaw`, `rlpEncode`).
 */
export function rskjSignatureChecks(fields: readonly Uint8Array[], hexLength: number, nodeChainId: bigint): SignatureV {
  const to = fields[3]!
  if (to.length !== 0 && to.length !== 20) throw invalidParams(`invalid argument 0: hex string has length ${hexLength}, want 40 for RSK address`)
  const v = fields[6]!
  let signed: SignatureV | undefined
  if (v.length > 0) {
    if (v.length !== 1) throw internalError(new Error('Signature V is invalid'))
    if (fields[7]!.length === 0 || fields[8]!.length === 0) throw internalError(new Error('r or s is missing (ECDSASignature.fromComponents)'))
    const b = v[0]!
    signed = b === 27 || b === 28 ? { chainId: 0n, realV: b } : { chainId: BigInt(Math.trunc((b - 35) / 2)), realV: b % 2 === 0 ? 28 : 27 }
  }
  if (fields[2]!.length === 0) throw invalidParams('Missing parameter, gasPrice, gas or value')
  const chainId = signed?.chainId ?? 0n
  if (signed === undefined || !acceptedComponents(fields[7]!, fields[8]!) || (chainId !== 0n && chainId !== nodeChainId)) {
    throw invalidParams(`Invalid chainId: ${chainId}`)
  }
  return signed
}

/** r and s read as numbers (leading zeros or not): r in [1, n), s in [1, n/2) (validateComponents, SECP256K1N_HALF). */
function acceptedComponents(rBytes: Uint8Array, sBytes: Uint8Array): boolean {
  const r = bytesToWord(rBytes)
  const s = bytesToWord(sBytes)
  return r > 0n && r < SECP256K1_ORDER && s > 0n && s < SECP256K1_ORDER_DIV_2
}

/**
 * A signature that passes the checks above but from which no key is recovered (r no curve point's x). RSKj's default
 * signature service (`crypto.library = "native"`, reference.conf; Secp256k1ServiceNative, libsecp256k1 bundled in
 * co.rsk:native) returns no key, `signatureToKey` throws a SignatureException, and `Transaction.getSender` catches it
 * and answers the null address (empty bytes), which no account has: the pool's first check after the same-hash ones,
 * which such a transaction never meets, is TxPendingValidator's -32010 `the sender account doesn't exist`. (Only the
 * Bouncy Castle service, used when the native library cannot load, throws instead: IllegalArgumentException
 * `Invalid point compression`, -32603.)
 */
export const noSenderRecovered = (): RpcError => txRejected("the sender account doesn't exist")
