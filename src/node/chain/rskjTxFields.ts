/**
 * The nine fields of a raw legacy transaction as RSKj keeps and re-encodes them, for transactions whose integers the
 * engine refuses (leading zero bytes). RSKj reads the fields loosely (org/ethereum/core/Transaction.java, the
 * RLPList constructor) and never writes the received bytes back: its hash (`getHash`, keccak of `getEncoded`), its
 * signed message (`getRawHash`, keccak of `getEncodedRaw`), its size (`getSize`) and the bytes blocks hold are all
 * of its re-encoding (`encode`), in which
 * - the nonce is the received bytes, but a single zero byte or nothing is written as the empty string;
 * - the gas price is a `Coin` (RLP.parseCoinNonNullZero / encodeCoinNonNullZero): nothing stays nothing, zero given
 *   in any other form is written as the single byte 0x00, any other value without leading zeros;
 * - the gas limit and the data are the received bytes;
 * - the value is a `Coin` (parseCoinNullZero / encodeCoinNullZero): zero in any form is the empty string, any other
 *   value without leading zeros;
 * - v is its single byte; r and s are numbers (ECDSASignature.fromComponents reads `new BigInteger(1, bytes)`),
 *   written without leading zeros (`BigIntegers.asUnsignedByteArray`).
 * Pure functions on byte strings: src/rpc/codecs/nonCanonicalTransaction.ts and StoredTxRecord use them.
 */
import { bytesToWord } from '../rlp.js'

const EMPTY = new Uint8Array()
const ZERO_BYTE = Uint8Array.of(0)

/** `bytes` without its leading zero bytes (a view; empty for zero). */
export function withoutLeadingZeros(bytes: Uint8Array): Uint8Array {
  let i = 0
  while (i < bytes.length && bytes[i] === 0) i++
  return i === 0 ? bytes : bytes.subarray(i)
}

/** RSKj's re-encoded fields (`Transaction.encode` with the signature's v, r, s), from the nine fields received. */
export function rskjEncodedFields(fields: readonly Uint8Array[]): Uint8Array[] {
  const [nonce, gasPrice, gasLimit, to, value, data, v, r, s] = fields as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array]
  return [
    nonce.length === 1 && nonce[0] === 0 ? EMPTY : nonce,
    gasPrice.length === 0 ? EMPTY : bytesToWord(gasPrice) === 0n ? ZERO_BYTE : withoutLeadingZeros(gasPrice),
    gasLimit,
    to,
    withoutLeadingZeros(value),
    data,
    v,
    withoutLeadingZeros(r),
    withoutLeadingZeros(s),
  ]
}

/** Whether field `i` is an integer: all but `to` (3), data (5) and v (6). */
const isIntegerField = (i: number): boolean => i !== 3 && i !== 5 && i !== 6

/** The fields with every integer (nonce, gas price, gas limit, value, r, s) without leading zeros: what the engine reads. */
export function engineFields(fields: readonly Uint8Array[]): Uint8Array[] {
  return fields.map((f, i) => (isIntegerField(i) ? withoutLeadingZeros(f) : f))
}

/** Whether any integer field has a leading zero byte, which the engine refuses. */
export function hasLeadingZeros(fields: readonly Uint8Array[]): boolean {
  return fields.some((f, i) => isIntegerField(i) && f.length > 0 && f[0] === 0)
}

/** Whether the engine cannot hold the nonce's number: 2^64 - 1 and over (its `valueOverflowCheck`). */
export function beyondEngineNonce(nonce: Uint8Array): boolean {
  const n = withoutLeadingZeros(nonce)
  return n.length > 8 || (n.length === 8 && n.every((b) => b === 0xff))
}

/** RSKj's `Long.BYTES`: the longest nonce its pool takes. */
const NONCE_MAX_BYTES = 8

/**
 * The pool's refusal of a nonce's bytes, or undefined when they are canonical for RSKj
 * (co/rsk/net/handler/txvalidator/TxValidatorNonceEncodingValidator.java: at most 8 bytes, and no leading zero unless
 * it is the single byte 0x00, which the check lets through).
 */
function nonceEncodingRefusal(nonce: Uint8Array): string | undefined {
  if (nonce.length > NONCE_MAX_BYTES) return `transaction nonce byte length exceeds maximum: ${nonce.length} > ${NONCE_MAX_BYTES}`
  if (nonce.length > 1 && nonce[0] === 0) return 'transaction nonce has non-canonical encoding'
  return undefined
}

/**
 * The pool's refusal of a nonce for its bytes (above), or for a number the engine cannot hold: a canonical 8-byte
 * 2^64 - 1, which RSKj's next step (TxValidatorNonceRangeValidator) refuses as `transaction nonce too high` for any
 * sender whose nonce is below 2^64 - 16.
 */
export function nonceRefusal(nonce: Uint8Array): string | undefined {
  return nonceEncodingRefusal(nonce) ?? (beyondEngineNonce(nonce) ? 'transaction nonce too high' : undefined)
}

/**
 * The gas limit, gas price and value of RSKj's fields when the engine cannot hold them (a gas limit of 2^64 or more, a
 * gas price or value of 2^256 or more, or a gas price × gas limit of 2^256 or more: @ethereumjs/tx's
 * `valueOverflowCheck` and its product check), else undefined.
 */
export function unheldAmounts(fields: readonly Uint8Array[]): { gasLimit: bigint; gasPrice: bigint; value: bigint } | undefined {
  const gasPrice = bytesToWord(fields[1]!)
  const gasLimit = bytesToWord(fields[2]!)
  const value = bytesToWord(fields[4]!)
  const word = 1n << 256n
  if (gasLimit < 1n << 64n && gasPrice < word && value < word && gasPrice * gasLimit < word) return undefined
  return { gasLimit, gasPrice, value }
}

/**
 * What the engine's transaction is built from for RSKj's fields `rskj`: without leading zeros, and with zero (empty)
 * in place of a nonce it cannot hold and, when `unheldAmounts` answers, of the gas limit, gas price and value.
 */
export function heldEngineFields(rskj: readonly Uint8Array[], unheld: boolean): Uint8Array[] {
  const engine = engineFields(rskj)
  if (beyondEngineNonce(engine[0]!)) engine[0] = EMPTY
  if (unheld) engine[1] = engine[2] = engine[4] = EMPTY
  return engine
}
