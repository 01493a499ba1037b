/**
 * RSKj's per-account transaction rate limit ("virtual gas" quotas), as `TransactionPoolImpl.internalAddTransaction`
 * applies it when `transaction.accountTxRateLimit.enabled` is true (the `reference.conf` default, not changed by
 * `config/regtest.conf`). Sources, all under `rskj-core/src/main/java/co/rsk/net/handler/quota/`:
 * `TxQuotaChecker.java` (who gets a quota, how much, the first-transaction rule, the cleaner),
 * `TxQuota.java` (refill by elapsed time, capped; consumption), `TxVirtualGasCalculator.java` (the cost).
 * Every number is a Java `double`/`long` there; the arithmetic below keeps Java's operation order so that the
 * results are the same IEEE doubles.
 */

/** `TxQuotaChecker.MAX_QUOTAS_SIZE`: the map is a `MaxSizeHashMap` (LRU by access) of at most this many accounts. */
export const MAX_QUOTAS_SIZE = 400_000
/** `TxQuotaChecker.MAX_QUOTA_GAS_MULTIPLIER`: a quota holds at most 2,000 seconds of refill. */
export const MAX_QUOTA_GAS_MULTIPLIER = 2000
/** `TxQuotaChecker.MAX_GAS_PER_SECOND_PERCENT`: refill per second is 90 % of the best block's gas limit. */
export const MAX_GAS_PER_SECOND_PERCENT = 0.9
/** `reference.conf` `transaction.accountTxRateLimit.cleanerPeriod` = 30 (minutes; `TransactionPoolImpl.start`). */
export const CLEANER_PERIOD_MS = 30 * 60 * 1000
/** `GasPriceTracker`: the fee market "works" when the last 50 blocks are on average at least 90 % full. */
export const FEE_MARKET_BLOCK_WINDOW = 50
export const FEE_MARKET_COMPLETENESS = 0.9

/** What `debug_accountTransactionQuota` answers: `TxQuota`'s two `@JsonProperty` fields. */
export interface TxQuota {
  /** Milliseconds (the quota clock) of the last refresh or of the creation. */
  timestamp: number
  availableVirtualGas: number
}

/** Java `BigInteger.longValue()` then widening to double: the low 64 bits, signed. */
const javaLong = (v: bigint): number => Number(BigInt.asIntN(64, v))

/** `TxQuotaChecker.getMaxGasPerSecond`: `Math.round(blockGasLimit * 0.9)` (Java rounds half up, as JS does). */
export const maxGasPerSecond = (blockGasLimit: bigint): number => Math.round(javaLong(blockGasLimit) * MAX_GAS_PER_SECOND_PERCENT)
/** `TxQuotaChecker.getMaxQuota`. */
export const maxQuota = (perSecond: number): number => perSecond * MAX_QUOTA_GAS_MULTIPLIER

/** The inputs of `TxVirtualGasCalculator.calculate`. */
export interface VirtualGasInput {
  gasLimit: bigint
  nonce: bigint
  gasPrice: bigint
  /** Serialized size in bytes (`Transaction.getSize()`). */
  size: number
  /** Gas price of the pending transaction this one replaces (same sender and nonce), if any. */
  replacedGasPrice?: bigint
  /** The sender's nonce in the pending state. */
  accountNonce: bigint
  blockGasLimit: bigint
  blockMinGasPrice: bigint
  /** `GasPriceTracker.getGasPrice()` when the fee market works; undefined = `createSkippingGasPriceFactor`. */
  avgGasPrice?: bigint
}

/** `TxVirtualGasCalculator.calculate` (factors and weights as its constants; multiplied in its order). */
export function virtualGas(i: VirtualGasInput): number {
  const txGasLimit = javaLong(i.gasLimit)
  const accountNonce = javaLong(i.accountNonce)
  const futureNonceFactor = javaLong(i.nonce) === accountNonce ? 1 : 2
  let lowGasPriceFactor = 1
  if (i.avgGasPrice !== undefined) {
    const avg = javaLong(i.avgGasPrice)
    const price = javaLong(i.gasPrice)
    // Java: (long - long) / (long - (double) long), so the numerator is a long difference.
    if (price < avg) lowGasPriceFactor = 1 + 3 * ((avg - price) / (avg - javaLong(i.blockMinGasPrice)))
  }
  const nonceFactor = 1 + 4 / (accountNonce + 1)
  const sizeFactor = 1 + i.size / 25000
  let replacementFactor = 1
  if (i.replacedGasPrice !== undefined) {
    const ratio = Number(i.gasPrice) / Number(i.replacedGasPrice)
    if (ratio > 0) replacementFactor = 1 + 1 / ratio
  }
  const gasLimitFactor = 1 + (4 * txGasLimit) / javaLong(i.blockGasLimit)
  const composite = futureNonceFactor * lowGasPriceFactor * nonceFactor * sizeFactor * replacementFactor * gasLimitFactor
  const result = txGasLimit * composite
  // `capeResult`: MAX_FACTOR = 2 * 5 * 5 * 4 * 1.9 * 5.
  return result === Number.POSITIVE_INFINITY ? txGasLimit * (2 * 5 * 5 * 4 * 1.9 * 5) : result
}

/** What the pool knows about a transaction when it asks the checker (`TxQuotaChecker.CurrentContext`, resolved). */
export interface QuotaRequest extends VirtualGasInput {
  /** Sender, lowercase `0x` hex. */
  sender: string
  /** Receiver, lowercase `0x` hex; '' for a contract creation (RSKj's empty `RskAddress.nullAddress()`). */
  receiver: string
  /** Whether the receiver holds code in the best block's state (`RepositorySnapshot.isContract`). */
  receiverIsContract: boolean
}

/** `TxQuotaChecker` with its `MaxSizeHashMap` and its 30-minute cleaner, driven by a caller-supplied clock. */
export class TxQuotaChecker {
  /** Insertion order of a JS Map = LRU order, kept by re-inserting on every access (`accessOrder = true`). */
  private readonly quotas = new Map<string, TxQuota>()
  /** `lastBlockGasLimit`: -1 (`UNKNOWN_LAST_BLOCK_GAS_LIMIT`) until a transaction was processed. */
  private lastBlockGasLimit = -1n
  private nextClean: number

  /** @param now the quota clock in milliseconds (RSKj: `System::currentTimeMillis`). */
  constructor(private readonly now: () => number) {
    this.nextClean = now() + CLEANER_PERIOD_MS
  }

  get size(): number {
    return this.quotas.size
  }

  /** `getTxQuota` (a `LinkedHashMap.get` in access order: it counts as a use). A copy, so callers cannot edit it. */
  get(address: string): TxQuota | undefined {
    this.cleanIfDue()
    const q = this.touch(address)
    return q === undefined ? undefined : { ...q }
  }

  /** The numbers behind the last refusal, for an error that says what happened (src/node/node.ts). */
  lastRefusal?: { available: number; cost: number; perSecond: number }

  /** `acceptTx`: true when the sender's quota covers the transaction's virtual gas (or it is its first one). */
  acceptTx(r: QuotaRequest): boolean {
    this.cleanIfDue()
    this.lastBlockGasLimit = r.blockGasLimit
    const perSecond = maxGasPerSecond(r.blockGasLimit)
    const max = maxQuota(perSecond)
    // `isFirstTxFromSender`, computed before the sender's quota is created.
    const first = this.touch(r.sender) === undefined && r.accountNonce === 0n && r.nonce === 0n
    const sender = this.update(r.sender, r.accountNonce !== 0n ? max : perSecond, perSecond, max)
    // `updateReceiverQuotaIfRequired`: an account already tracked, or one without code, starts accumulating too.
    if (this.touch(r.receiver) !== undefined || !r.receiverIsContract) this.update(r.receiver, perSecond, perSecond, max)
    const cost = virtualGas(r)
    if (sender.availableVirtualGas >= cost) {
      sender.availableVirtualGas -= cost
      return true
    }
    // `forceVirtualGasSubtraction`: the first transaction is taken anyway and empties the quota.
    if (first) sender.availableVirtualGas = 0
    else this.lastRefusal = { available: sender.availableVirtualGas, cost, perSecond }
    return first
  }

  /** `updateQuota`: a new entry with `initial`, or the existing one refreshed. */
  private update(address: string, initial: number, perSecond: number, max: number): TxQuota {
    const q = this.touch(address)
    if (q !== undefined) {
      refresh(q, this.now(), perSecond, max)
      return q
    }
    const created: TxQuota = { timestamp: this.now(), availableVirtualGas: initial }
    this.quotas.set(address, created)
    // `MaxSizeHashMap.removeEldestEntry`: beyond the bound the least recently used entry goes.
    if (this.quotas.size > MAX_QUOTAS_SIZE) this.quotas.delete(this.quotas.keys().next().value!)
    return created
  }

  private touch(address: string): TxQuota | undefined {
    const q = this.quotas.get(address)
    if (q !== undefined) {
      this.quotas.delete(address)
      this.quotas.set(address, q)
    }
    return q
  }

  /**
   * `cleanMaxQuotas`, which RSKj runs every 30 minutes from the pool's start: every quota is refreshed and those
   * back at the maximum are dropped. rsksim has no timer: when one or more runs fell due since the last call, one
   * pass at the last due instant gives the same result (refills only add, so an entry full at an earlier run is
   * full at the last one, and no entry was created between the runs).
   */
  private cleanIfDue(): void {
    const now = this.now()
    if (now < this.nextClean) return
    const at = this.nextClean + Math.floor((now - this.nextClean) / CLEANER_PERIOD_MS) * CLEANER_PERIOD_MS
    this.nextClean = at + CLEANER_PERIOD_MS
    if (this.lastBlockGasLimit < 0n) return
    const perSecond = maxGasPerSecond(this.lastBlockGasLimit)
    const max = maxQuota(perSecond)
    for (const [address, q] of this.quotas) {
      if (refresh(q, at, perSecond, max) === max) this.quotas.delete(address)
    }
  }
}

/** `TxQuota.refresh`: adds the elapsed seconds times the refill rate, capped at the maximum. */
function refresh(q: TxQuota, now: number, perSecond: number, max: number): number {
  const seconds = (now - q.timestamp) / 1000
  q.timestamp = now
  q.availableVirtualGas = Math.min(max, q.availableVirtualGas + seconds * perSecond)
  return q.availableVirtualGas
}

/**
 * The quota clock in milliseconds: `read()` (the node's time: wall clock, drift and every `evm_increaseTime`),
 * moving forward only. RSKj reads the wall clock; rsksim follows the node's clock so that `evm_increaseTime`,
 * `evm_setNextBlockTimestamp` and `evm_setTime` into the future refill quotas as the time would, while a jump back
 * (`evm_setTime` to the past, `evm_revert` restoring an older drift) neither drains nor freezes them: it is ignored.
 */
export function forwardClock(read: () => number): () => number {
  let last = read()
  let now = last
  return () => {
    const raw = read()
    if (raw > last) now += raw - last
    last = raw
    return now
  }
}
