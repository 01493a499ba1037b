/**
 * Decodes a fork's remote transaction (its eth_getTransactionBy* answer) into the signed bytes the raw-transaction
 * extensions answer (src/rpc/namespaces/eth/rawTransactions.ts), for the remote's transactions (src/rpc/forkExtensions.ts).
 */
import { bytesToBigInt, bytesToHex, hexToBytes, unpadBytes } from '@ethereumjs/util'
import { ErrorCode, RpcError } from '../../errors.js'
import { keccak256 } from '../../node/crypto.js'
import { rlpEncode } from '../../node/rlp.js'
import { REMASC, remascRaw } from '../../node/rsk/remasc/remascTx.js'
import { data } from '../format/hex.js'

/**
 * A fork's remote transaction (its eth_getTransactionBy* JSON) as signed bytes: the legacy RLP of its fields, or, for
 * the REMASC system transaction, RSKj's encoding of it; whichever hashes to the transaction's hash. An RSKj remote
 * has no raw-transaction method; an answer that neither rebuilds is refused rather than guessed.
 */
export function remoteRawTransaction(json: unknown): string | null {
  if (json === null || typeof json !== 'object') return null
  const t = json as Record<string, unknown>
  const hex = (k: string): Uint8Array => {
    const v = t[k]
    if (typeof v !== 'string' || !/^0x[0-9a-fA-F]*$/.test(v)) throw new RpcError(ErrorCode.Internal, `the remote's transaction has no ${k}`)
    return hexToBytes(v.length % 2 === 0 ? (v as `0x${string}`) : (`0x0${v.slice(2)}` as `0x${string}`))
  }
  const int = (k: string): Uint8Array => unpadBytes(hex(k))
  const to = t.to === null || t.to === undefined ? new Uint8Array(0) : hex('to')
  const candidates = [rlpEncode([int('nonce'), int('gasPrice'), int('gas'), to, int('value'), hex('input'), int('v'), int('r'), int('s')])]
  if (bytesToHex(to) === REMASC.toString()) candidates.push(remascRaw(bytesToBigInt(int('nonce'))))
  const hash = typeof t.hash === 'string' ? t.hash.toLowerCase() : ''
  const raw = candidates.find((c) => bytesToHex(keccak256(c)) === hash)
  if (raw === undefined) throw new RpcError(ErrorCode.Internal, `the remote's transaction ${hash} could not be rebuilt as signed bytes that hash to it`)
  return data(raw)
}
