/**
 * Signing with the node's keys, as MetaMask, Hardhat and Anvil offer it and ethers' and viem's signers call it
 * (the service and RSKj have none of these: extensions, answered -32601 in hosted mode):
 *
 * - `personal_sign(data, address[, passphrase])`: EIP-191 personal message, the same signature as `eth_sign(address, data)`;
 *   the passphrase (geth's, web3.js sends it) opens a locked key-store account.
 * - `eth_signTypedData_v4(address, typedData)` and `eth_signTypedData` (same order, as MetaMask and Hardhat): EIP-712.
 *   The digest comes from `ox`'s `TypedData.getSignPayload` (wevm's library under viem, bundled into dist): a
 *   maintained, tested encoder, rather than one written here.
 * - `eth_signTransaction(tx)`: the raw signed legacy transaction of eth_sendTransaction's fields, not sent, in canonical
 *   bytes (a zero gas price as the empty string, not RSKj's `0x00`, which eth_sendTransaction signs: docs/compatibility.md).
 * - `personal_ecRecover(data, signature)` (geth's; web3.js `personal.ecRecover`): the address whose key made `signature`
 *   over the EIP-191 personal message `data`, as personal_sign makes it. Needs no key of the node.
 *
 * Impersonated addresses have no key: the node refuses them with a -32602 that says so.
 */
import { bytesToHex, hexToBytes, type PrefixedHexString } from '@ethereumjs/util'
import * as TypedData from 'ox/TypedData'
import { internalError, invalidParams } from '../../errors.js'
import { address, data as dataCodec, optional, string, type Codec } from '../codecs/primitives.js'
import { txObject } from '../codecs/transaction.js'
import { method, type HandlerContext, type MethodTable } from '../method.js'
import { data } from '../format/hex.js'
import { personalMessageDigest, signMessage, signRsv } from '../../node/accounts.js'
import { ecrecover, publicKeyToAddress } from '../../node/crypto.js'
import { signWithKey, walletKey } from './eth/transactions.js'

/** Typed data as a JSON string (MetaMask, ethers) or an object (viem sends a string too). */
const typedData: Codec<TypedData.Definition> = (v) => {
  let o: unknown = v
  if (typeof v === 'string') {
    try {
      o = JSON.parse(v)
    } catch {
      throw invalidParams('Invalid typed data: not valid JSON')
    }
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw invalidParams('Invalid typed data: expected an object')
  const t = o as Record<string, unknown>
  if (typeof t.types !== 'object' || t.types === null || typeof t.primaryType !== 'string' || typeof t.message !== 'object' || t.message === null) {
    throw invalidParams('Invalid typed data: expected { types, primaryType, domain, message }')
  }
  return o as TypedData.Definition
}

const signTypedData = method([address, typedData], (ctx, from, typed) => {
  const key = walletKey(ctx, from, `Could not find account for address: ${bytesToHex(from)}`)
  let digest: PrefixedHexString
  try {
    // ox derives the domain type from `domain` itself; MetaMask-style requests also list it in `types`.
    const { EIP712Domain: _domain, ...types } = typed.types as Record<string, unknown>
    digest = TypedData.getSignPayload({ ...typed, types } as TypedData.Definition)
  } catch (e) {
    throw invalidParams(`Invalid typed data: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`)
  }
  return data(signRsv(hexToBytes(digest), key))
})

/**
 * personal_sign's key. geth's personal_sign takes a passphrase third (`personal_sign(data, address, passphrase)`), and
 * web3.js sends it (`web3.eth.personal.sign(data, address, passphrase)`); MetaMask, Hardhat and Anvil take two. An
 * unlocked account signs whatever the passphrase; a locked key-store account is opened with it, as
 * personal_sendTransaction opens it (a wrong passphrase: -32603, as RSKj's key store answers it).
 */
async function personalSignKey(ctx: HandlerContext, from: Uint8Array, passphrase: string | undefined): Promise<Uint8Array> {
  const notFound = `Could not find account for address: ${bytesToHex(from)}`
  if (passphrase === undefined || ctx.node.accounts.unlockedKey(bytesToHex(from)) !== undefined) return walletKey(ctx, from, notFound)
  const held = await ctx.node.accounts.keyWithPassphrase(bytesToHex(from), passphrase).catch((e: unknown) => Promise.reject(internalError(e)))
  return held?.privateKey ?? walletKey(ctx, from, notFound)
}

/**
 * geth's `personal_ecRecover`: a 65-byte signature r ‖ s ‖ v with v 27 or 28 (geth's texts for a wrong length or v),
 * over the personal message's digest; a signature no key makes is -32602 too.
 */
const ecRecover = method([dataCodec, dataCodec], (_ctx, message, signature) => {
  if (signature.length !== 65) throw invalidParams('signature must be 65 bytes long')
  const v = signature[64]!
  if (v !== 27 && v !== 28) throw invalidParams('invalid Ethereum signature (V is not 27 or 28)')
  let publicKey: Uint8Array
  try {
    publicKey = ecrecover(personalMessageDigest(message), BigInt(v), signature.subarray(0, 32), signature.subarray(32, 64))
  } catch {
    throw invalidParams('invalid signature: no key makes it')
  }
  return data(publicKeyToAddress(publicKey))
})

export const signingMethods: MethodTable = {
  personal_sign: method([dataCodec, address, optional(string)], async (ctx, message, from, passphrase) =>
    data(signMessage(message, await personalSignKey(ctx, from, passphrase))),
  ),
  personal_ecRecover: ecRecover,
  eth_signTypedData_v4: signTypedData,
  eth_signTypedData: signTypedData,
  eth_signTransaction: method([txObject], async (ctx, tx) => {
    if (tx.from === undefined) throw invalidParams('from is null')
    const key = walletKey(ctx, tx.from, `Could not find account for address: ${bytesToHex(tx.from)}`)
    return data((await signWithKey(ctx, tx, key)).raw)
  }),
}
