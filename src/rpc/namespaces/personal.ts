/**
 * personal_* (reference §3.5; RSKj `co/rsk/rpc/modules/personal/PersonalModuleWalletEnabled.java`,
 * `co/rsk/core/Wallet.java`). Keys live in the node's `Accounts`; passphrase-protected ones in its key store.
 * With `hosted: true` the node holds no wallet and every method answers -32604 (RSKj `PersonalModuleWalletDisabled`);
 * parameters are still decoded first, as jsonrpc4j does before invoking the module.
 */
import { bytesToHex } from '@ethereumjs/util'
import { hexStringParam, JAVA_LONG_MAX, jsonText, removeHexPrefix, string, type Codec } from '../codecs/primitives.js'
import { rskjAddress } from '../codecs/callArgumentsParam.js'
import { txObject } from '../codecs/transaction.js'
import { internalError, invalidParams, walletDisabled } from '../../errors.js'
import { method, noParams, type HandlerContext, type MethodTable } from '../method.js'
import { DEFAULT_UNLOCK_MS } from '../../node/accounts.js'
import { isPrivateKey } from '../../node/crypto.js'
import { sendWithKey } from './eth/transactions.js'

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

/** `HexKeyParam`: hex digits (any case), `0x` optional; null → `Key cannot be null.` (importRawKey). */
const hexKey: Codec<string> = (v) => {
  if (v === null) throw invalidParams('Key cannot be null.')
  const text = typeof v === 'string' ? v : jsonText(v)
  const body = removeHexPrefix(text)
  if (!/^[0-9a-fA-F]*$/.test(body)) throw invalidParams(`Invalid param ${text}: value must be a valid hex.`)
  return body
}

/**
 * `HexDurationParam` (milliseconds): null or `""` → default; `HexStringParam`'s check (`hexStringParam`: `0x` +
 * lowercase hex, at most 66 characters), then fitting a Java long. Not optional: RSKj's personal_unlockAccount takes
 * exactly three parameters (reference §3.1).
 */
const duration: Codec<bigint | undefined> = (v) => {
  if (v === null || v === '') return undefined
  const text = typeof v === 'string' ? v : jsonText(v)
  hexStringParam(text)
  const ms = text.length === 2 ? undefined : BigInt(text)
  if (ms === undefined || ms > JAVA_LONG_MAX) throw invalidParams('Invalid duration param: value must be a valid hex number.')
  return ms
}

/**
 * How long an unlock lasts, in milliseconds: RSKj's `Wallet.unlockAccount` keeps `System.currentTimeMillis() + duration`
 * in a Java long, which wraps past 2^63 − 1: a duration that large (0x7fffffffffffffff) ends in the past, so the
 * account is locked again at its next use (`Wallet.getAccount`: `ending < time`), though the answer is `true`.
 */
function unlockMs(ms: bigint | undefined): number {
  const now = BigInt(Date.now())
  return Number(BigInt.asIntN(64, now + (ms ?? BigInt(DEFAULT_UNLOCK_MS))) - now)
}

/** A private key given as hex: RSKj reads it as a big integer, so it must be in [1, n). Else -32603, as RSKj. */
function privateKey(body: string): Uint8Array {
  if (body.length % 2 === 1) throw internalError(new Error('odd number of hex digits'))
  const k = body === '' ? 0n : BigInt('0x' + body)
  if (k === 0n || k >= SECP256K1_N) throw internalError(new Error('invalid private key'))
  const bytes = Uint8Array.from(Buffer.from(k.toString(16).padStart(64, '0'), 'hex'))
  if (!isPrivateKey(bytes)) throw internalError(new Error('invalid private key'))
  return bytes
}

/** Wraps a handler so that a node without a wallet (hosted) answers -32604 for it. */
const wallet =
  <A extends unknown[]>(f: (ctx: HandlerContext, ...args: A) => unknown) =>
  (ctx: HandlerContext, ...args: A): unknown => {
    if (ctx.node.options.hosted) throw walletDisabled()
    return f(ctx, ...args)
  }

/** A wrong passphrase is a decryption exception in RSKj, i.e. -32603 `Internal server error` (reference §3.5). */
const opening = <T>(p: Promise<T>): Promise<T> => p.catch((e: unknown) => Promise.reject(internalError(e)))

export const personalMethods: MethodTable = {
  personal_newAccountWithSeed: method(
    [string],
    wallet(({ node }, seed: string) => node.accounts.addWithSeed(seed)),
  ),

  personal_newAccount: method(
    [string],
    wallet(({ node }, passphrase: string) => node.accounts.create(passphrase)),
  ),

  personal_importRawKey: method(
    [hexKey, string],
    wallet(({ node }, key: string, passphrase: string) => node.accounts.importKey(privateKey(key), passphrase)),
  ),

  personal_listAccounts: noParams(wallet(({ node }) => node.accounts.list())),

  /** true once unlocked; false for an address outside the key store (seed accounts, coinbase, unknown). */
  personal_unlockAccount: method(
    [rskjAddress, string, duration],
    wallet(({ node }, addr: Uint8Array, passphrase: string, ms: bigint | undefined) =>
      opening(node.accounts.unlockWithPassphrase(bytesToHex(addr), passphrase, unlockMs(ms))),
    ),
  ),

  personal_lockAccount: method(
    [rskjAddress],
    wallet(({ node }, addr: Uint8Array) => node.accounts.lock(bytesToHex(addr))),
  ),

  /** RSKj throws a plain Exception (→ -32603) when the key is locked or unknown. */
  personal_dumpRawKey: method(
    [rskjAddress],
    wallet(({ node }, addr: Uint8Array) => {
      const key = node.accounts.unlockedKey(bytesToHex(addr))
      if (key === undefined) throw internalError(new Error('Address private key is locked or could not be found in this node'))
      return bytesToHex(key.privateKey)
    }),
  ),

  /**
   * Opens the sender's stored key with the passphrase (the account need not be unlocked), then sends as
   * eth_sendTransaction does. No `from`, a sender outside the key store or a wrong passphrase → -32603, as RSKj.
   */
  personal_sendTransaction: method(
    [txObject, string],
    wallet(async (ctx, tx: ReturnType<typeof txObject>, passphrase: string) => {
      if (tx.from === undefined) throw internalError(new Error('from is null'))
      const held = await opening(ctx.node.accounts.keyWithPassphrase(bytesToHex(tx.from), passphrase))
      if (held === undefined) throw internalError(new Error('From address private key could not be found in this node'))
      return sendWithKey(ctx, tx, held.privateKey, 'byte')
    }),
  ),
}
