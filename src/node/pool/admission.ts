/**
 * Pool admission: the checks of RSKj's `TransactionPoolImpl` / `TxPendingValidator`, in its order, with its texts
 * (reference §5.5). Each failure is answered as -32010 with the text verbatim.
 */
import type { TxRecord } from '../chain/types.js'
import type { TxPool } from './pool.js'

/** EIP-3860 initcode limit (RSKIP438). */
export const MAX_INITCODE_SIZE = 49_152
/** RSKj `TxPendingValidator` maximum serialized size. */
export const MAX_TX_SIZE = 131_072
/** RSKj `transaction.accountSlots`: how far ahead of the confirmed nonce a transaction may be. */
export const ACCOUNT_SLOTS = 16n
/** RSKj `transaction.gasPriceBump`: a replacement must pay at least 40 % more. */
export const GAS_PRICE_BUMP_PERCENT = 40n
/**
 * RSKIP252 (RSKj `TxGasPriceCap`): when blocks have a minimum gas price, the pool refuses a transaction priced over 80
 * times it, and a block may hold none priced over 100 times it.
 */
export const GAS_PRICE_CAP_FOR_TRANSACTION = 80n
export const GAS_PRICE_CAP_FOR_BLOCK = 100n

export interface AdmissionContext {
  pool: TxPool
  /** Sender's confirmed account: undefined when it has no state. */
  account: { nonce: bigint; balance: bigint } | undefined
  blockGasLimit: bigint
  minimumGasPrice: bigint
}

/** Returns the RSKj rejection text, or null when the pool takes the transaction. */
export function admissionError(t: TxRecord, ctx: AdmissionContext): string | null {
  const { tx } = t
  const existing = ctx.pool.get(t.hashHex)
  if (existing !== undefined) {
    return ctx.pool.isPending(t.hashHex)
      ? 'pending transaction with same hash already exists'
      : 'queued transaction with same hash already exists'
  }
  // RSKj `TxPendingValidator.isValid`: a sender with no state, whatever the price (only a federator's free Bridge
  // transaction, which rsksim has none of, costs nothing to validate).
  if (ctx.account === undefined) return "the sender account doesn't exist"
  const isCreate = tx.to === undefined
  if (isCreate && tx.data.length > MAX_INITCODE_SIZE) return "transaction's init code size is invalid"
  if (t.raw.length > MAX_TX_SIZE) return `transaction's size is higher than defined maximum: ${t.raw.length} > ${MAX_TX_SIZE}`
  const gasLimit = t.unheld?.gasLimit ?? tx.gasLimit
  if (gasLimit > ctx.blockGasLimit) {
    return `transaction's gas limit of ${gasLimit} is higher than the block's gas limit of ${ctx.blockGasLimit}`
  }
  // TxValidatorNonceEncodingValidator, after the gas limit (TxPendingValidator's steps).
  if (t.nonceRefusal !== undefined) return t.nonceRefusal
  const nonce = ctx.account?.nonce ?? 0n
  if (tx.nonce < nonce) return 'transaction nonce too low'
  if (tx.nonce >= nonce + ACCOUNT_SLOTS) return 'transaction nonce too high'
  const balance = ctx.account?.balance ?? 0n
  // RSKj checks gasPrice × gas only and lets the value fail at execution, which drops the transaction
  // silently; rsksim counts the value too so that no accepted transaction is lost (docs/compatibility.md).
  // Amounts the engine cannot hold (types.ts `unheld`) cost 2^256 or more: no balance pays them.
  if (t.unheld !== undefined || balance < tx.gasPrice * tx.gasLimit + tx.value) return 'insufficient funds'
  if (tx.gasPrice < ctx.minimumGasPrice) return "transaction's gas price lower than block's minimum"
  if (tx.getIntrinsicGas() > tx.gasLimit) return "transaction's basic cost is above the gas limit"
  if (ctx.minimumGasPrice > 0n && tx.gasPrice > ctx.minimumGasPrice * GAS_PRICE_CAP_FOR_TRANSACTION) return "transaction's gas price exceeds cap"
  const replaced = ctx.pool.find(t.fromHex, tx.nonce)
  if (replaced !== undefined) {
    const old = replaced.tx.gasPrice
    if (!(tx.gasPrice > old && tx.gasPrice * 100n >= old * (100n + GAS_PRICE_BUMP_PERCENT))) {
      return 'gas price not enough to bump transaction'
    }
  }
  return null
}

/**
 * Why a block with minimum gas price `minimumGasPrice` cannot hold a transaction priced `gasPrice`, or undefined: under
 * the minimum, or (RSKIP252) over 100 times it. RSKj's miner leaves such a transaction out of the block and removes it
 * from the pool (`MinerUtils.filterTransactions`); the pool's own checks use the head's minimum, so a transaction
 * admitted before `anvil_setMinGasPrice` moved it can meet this.
 */
export function minedPriceRefusal(gasPrice: bigint, minimumGasPrice: bigint): string | undefined {
  if (gasPrice < minimumGasPrice) return "transaction's gas price lower than block's minimum"
  if (minimumGasPrice > 0n && gasPrice > minimumGasPrice * GAS_PRICE_CAP_FOR_BLOCK) return "transaction's gas price exceeds cap"
  return undefined
}

/**
 * RSKj `TransactionPoolImpl.senderCanPayPendingTransactionsAndNewTx`, for a transaction bound for the pending set
 * (after the quota): the sender's pending transactions (but the one it replaces) and it, each its value plus gasPrice ×
 * gas, must not cost more than the sender's balance. Null when they fit, else RSKj's text.
 */
export function pendingFundsError(t: TxRecord, pool: TxPool, balance: bigint): string | null {
  const cost = (r: TxRecord): bigint => r.tx.value + r.tx.gasPrice * r.tx.gasLimit
  let total = cost(t)
  for (const other of pool.content().pending.get(t.fromHex)?.values() ?? []) if (other.tx.nonce !== t.tx.nonce) total += cost(other)
  return total <= balance ? null : 'insufficient funds to pay for pending and new transactions'
}
