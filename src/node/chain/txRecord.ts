/**
 * Turning signed transactions into `TxRecord`s: decode once, check the signature and chain id as RSKj does
 * (reference §5.4), recover the sender once, hash once.
 */
import type { Common } from '@ethereumjs/common'
import { createLegacyTx, createLegacyTxFromBytesArray, type LegacyTx, type LegacyTxData } from '@ethereumjs/tx'
import { RLP } from '@ethereumjs/rlp'
import { Address, bytesToBigInt } from '@ethereumjs/util'
import { invalidParams, RpcError, ErrorCode } from '../../errors.js'
import { keccak256, signDigest } from '../crypto.js'
import type { TxRecord } from './types.js'
import { flatHex } from './flatHex.js'

const SECP256K1_N_DIV_2 = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n
/**
 * The engine refuses oversized initcode (EIP-3860) when it builds the transaction; pool admission refuses it with
 * RSKj's -32010 text instead (src/node/pool/admission.ts), so the engine's construction check is off.
 */
const TX_OPTIONS = { allowUnlimitedInitCodeSize: true }

/** Wraps a signed, frozen transaction; the hash is taken over the bytes received, not a re-encoding. */
export function recordOf(tx: LegacyTx, raw: Uint8Array = tx.serialize()): TxRecord {
  const from = tx.getSenderAddress().bytes
  const hash = keccak256(raw)
  return { tx, raw, hash, hashHex: flatHex(hash), from, fromHex: flatHex(from) }
}

/** Decodes a raw signed transaction as RSKj accepts it: a legacy RLP list of 9 items, chain id 0 or the node's. */
export function decodeRawTransaction(raw: Uint8Array, common: Common): TxRecord {
  if (raw.length === 0) throw invalidParams('Invalid input: empty transaction')
  if (raw[0]! < 0xc0) {
    throw new RpcError(ErrorCode.InvalidParams, `Invalid input: typed transactions (EIP-2718 type 0x${raw[0]!.toString(16).padStart(2, '0')}) are not supported; send a legacy (type 0) transaction`)
  }
  let fields: Uint8Array[]
  try {
    const decoded = RLP.decode(raw)
    if (!Array.isArray(decoded) || decoded.length !== 9 || decoded.some((f) => !(f instanceof Uint8Array))) {
      throw new Error('a legacy transaction is an RLP list of 9 byte strings')
    }
    fields = decoded as Uint8Array[]
  } catch (e) {
    throw invalidParams(`Invalid input: ${e instanceof Error ? e.message : String(e)}`)
  }
  const v = bytesToBigInt(fields[6]!)
  const s = bytesToBigInt(fields[8]!)
  const chainId = common.chainId()
  const derived = v === 27n || v === 28n ? 0n : (v - 35n) / 2n
  if (fields[6]!.length > 1 || (derived !== 0n && derived !== chainId) || s > SECP256K1_N_DIV_2) {
    throw invalidParams(`Invalid chainId: ${derived}`)
  }
  let tx: LegacyTx
  try {
    // From the fields decoded above: createLegacyTxFromRLP would decode the same bytes again.
    tx = createLegacyTxFromBytesArray(fields, { common, ...TX_OPTIONS })
    return recordOf(tx, raw)
  } catch (e) {
    throw invalidParams(`Invalid input: ${e instanceof Error ? e.message : String(e)}`)
  }
}

/**
 * A transaction "from" an impersonated address, which the node holds no key for (Anvil's and Hardhat's
 * impersonation). It carries a placeholder signature (v for the chain id, r = the sender's address, s = 1, so two
 * senders never share a hash) and answers `from` as its sender; the engine never checks the signature itself.
 */
export function impersonatedTransaction(data: LegacyTxData, from: Uint8Array, common: Common): TxRecord {
  const v = 35n + 2n * common.chainId()
  const tx = createLegacyTx({ ...data, v, r: bytesToBigInt(from), s: 1n }, { common, ...TX_OPTIONS, freeze: false })
  const sender = new Address(from)
  Object.defineProperty(tx, 'getSenderAddress', { value: () => sender })
  return recordOf(tx)
}

/** Signs a legacy EIP-155 transaction with `privateKey` (libsecp256k1, RFC 6979). */
export function signTransaction(data: LegacyTxData, privateKey: Uint8Array, common: Common): TxRecord {
  const unsigned = createLegacyTx(data, { common, ...TX_OPTIONS })
  const { r, s, recovery } = signDigest(unsigned.getHashedMessageToSign(), privateKey)
  const v = BigInt(recovery) + 35n + 2n * common.chainId()
  const signed = createLegacyTx({ ...data, v, r, s }, { common, ...TX_OPTIONS })
  return recordOf(signed)
}
