/**
 * The plain model of test/stateful.test.ts: what a dev chain should hold for a fixed set of accounts, written from
 * the documents (docs/extensions.md, docs/persistence.md, docs/compatibility.md), never from rsksim's code.
 *
 * Every transaction has gas price 0 (regtest's minimum gas price is 0), so fees never enter a balance.
 */

export interface Account {
  balance: bigint
  nonce: bigint
  /** The account's balance of the test's Token (ERC-20). */
  token: bigint
  /**
   * Whether the state holds the account: once it got value, a nonce or a balance edit (RSKj's pool refuses a sender
   * the state does not hold; an account set back to nonce 0 and balance 0 is still held).
   */
  exists?: boolean
}

/** A transaction the node acknowledged and has not mined: a value transfer (value > 0) or a token transfer (token > 0). */
export interface PoolTx {
  hash: string
  from: string
  nonce: bigint
  to: string
  value: bigint
  token: bigint
}

/**
 * The node's clock (docs/extensions.md "Mining and time"): the next block's timestamp is the pinned one
 * (`evm_setNextBlockTimestamp`), else max(wall clock + drift + offset, parent + 1). `evm_increaseTime` adds to the
 * offset, which the next block uses up; a pinned block, or one `evm_mine` was given a time for, makes the clock go on
 * from it (a drift, known to the second the request ran in: a range); `evm_setTime` sets the drift and ends the
 * offset and a pinned time (as Anvil 1.7.1 and Ganache do).
 */
export interface Clock {
  offset: bigint
  driftLo: bigint
  driftHi: bigint
  pin: bigint | undefined
}

/** The state a block left (its `stateRoot`): what `anvil_rollback` goes back to. */
export interface Frame {
  accounts: Map<string, Account>
  code: Map<string, string>
  storage: Map<string, string>
  written: Set<string>
  hash: string
  ts: bigint
  minGas: bigint
}

/** What a snapshot takes and a revert gives back: the chain, the state, the pool and the clock. */
export interface World {
  accounts: Map<string, Account>
  /** The code of the accounts the test edits with `anvil_setCode` (`0x` for none). */
  code: Map<string, string>
  /** `<address> <slot>` → the 32-byte value, of the slots the test edits with `anvil_setStorageAt`. */
  storage: Map<string, string>
  /**
   * The edited accounts that the state holds (written at least once, on this chain as it stands: a rollback to a
   * block before the first edit leaves the account out of the state): a dump lists them.
   */
  written: Set<string>
  /** Block number → the state it left, for the blocks the model mined. */
  history: Map<bigint, Frame>
  number: bigint
  headHash: string
  headTs: bigint
  /** The head's `minimumGasPrice`: the pool refuses a lower gas price (here: gas price 0 under a head above 0). */
  headMin: bigint
  /** In the order the node acknowledged them. */
  pool: Map<string, PoolTx>
  /** Transaction hash → the block that holds it. */
  mined: Map<string, { number: bigint; blockHash: string }>
  clock: Clock
}

export const copyAccounts = (a: Map<string, Account>): Map<string, Account> => new Map([...a].map(([k, x]) => [k, { ...x }]))

export const copyWorld = (w: World): World => ({
  accounts: copyAccounts(w.accounts),
  code: new Map(w.code),
  storage: new Map(w.storage),
  written: new Set(w.written),
  history: new Map(w.history),
  number: w.number,
  headHash: w.headHash,
  headTs: w.headTs,
  headMin: w.headMin,
  pool: new Map(w.pool),
  mined: new Map(w.mined),
  clock: { ...w.clock },
})

/**
 * The pool as its users see it: a sender's transactions whose nonces follow its state nonce without a gap are
 * pending (they go into the next block), the others queued (a transaction dropped from the middle leaves a gap).
 */
export function split(w: World): { pending: PoolTx[]; queued: PoolTx[] } {
  const pending: PoolTx[] = []
  const queued: PoolTx[] = []
  const bySender = new Map<string, Map<bigint, PoolTx>>()
  for (const t of w.pool.values()) {
    let m = bySender.get(t.from)
    if (m === undefined) bySender.set(t.from, (m = new Map()))
    m.set(t.nonce, t)
  }
  for (const [from, m] of bySender) {
    let n = w.accounts.get(from)!.nonce
    while (m.has(n)) pending.push(m.get(n)!), m.delete(n), n++
    queued.push(...m.values())
  }
  return { pending, queued }
}

/** The nonce the sender's next eth_sendTransaction takes: after its pending transactions. */
export function nextNonce(w: World, from: string): bigint {
  let n = w.accounts.get(from)!.nonce
  const taken = new Set([...w.pool.values()].filter((t) => t.from === from).map((t) => t.nonce))
  while (taken.has(n)) n++
  return n
}

/** What the sender's pooled transactions (pending and queued) will take from it. */
export function outgoing(w: World, from: string): { value: bigint; token: bigint; count: number } {
  let value = 0n
  let token = 0n
  let count = 0
  for (const t of w.pool.values()) if (t.from === from) (value += t.value), (token += t.token), count++
  return { value, token, count }
}

/** The accounts after `txs` ran (a copy). */
export function applied(accounts: Map<string, Account>, txs: PoolTx[]): Map<string, Account> {
  const out = new Map([...accounts].map(([a, x]) => [a, { ...x }]))
  for (const t of txs) {
    const from = out.get(t.from)!
    from.exists = true
    from.nonce++
    from.balance -= t.value
    from.token -= t.token
    const to = out.get(t.to)!
    if (t.value > 0n) to.exists = true
    to.balance += t.value
    to.token += t.token
  }
  return out
}

/** The range the next block's timestamp must be in, for a request that ran while the wall clock read w0 … w1. */
export function nextTimestamp(w: World, w0: bigint, w1: bigint, interval?: bigint): [bigint, bigint] {
  if (w.clock.pin !== undefined) return [w.clock.pin, w.clock.pin]
  const floor = w.headTs + 1n
  // A fixed spacing (`anvil_setBlockTimestampInterval`): the parent's time plus it, whatever the clock says.
  if (interval !== undefined) return interval > 0n ? [w.headTs + interval, w.headTs + interval] : [floor, floor]
  const max = (a: bigint, b: bigint) => (a > b ? a : b)
  return [max(floor, w0 + w.clock.driftLo + w.clock.offset), max(floor, w1 + w.clock.driftHi + w.clock.offset)]
}

/**
 * One block mined: the pending transactions (`txs`, checked against the block by the caller) leave the pool for it;
 * the offset is used up, and a pinned time becomes the clock's drift.
 */
export function mine(w: World, txs: PoolTx[], block: { hash: string; timestamp: bigint; minGas: bigint }, w0: bigint, w1: bigint, requested?: bigint): void {
  w.accounts = applied(w.accounts, txs)
  w.number++
  for (const t of txs) w.pool.delete(t.hash), w.mined.set(t.hash, { number: w.number, blockHash: block.hash })
  w.headHash = block.hash
  w.headTs = block.timestamp
  w.headMin = block.minGas
  record(w)
  const at = requested ?? w.clock.pin
  if (at !== undefined) {
    w.clock.driftLo = at - w1
    w.clock.driftHi = at - w0
  }
  w.clock.pin = undefined
  w.clock.offset = 0n
}

/**
 * `anvil_loadState` moves the clock so that the next block is not older than the file's `block.timestamp`
 * (docs/extensions.md "State"): the drift becomes at least that time minus the wall clock.
 */
export function clockAfterLoad(c: Clock, fileTs: bigint, w0: bigint, w1: bigint): void {
  const lo = fileTs - w1
  const hi = fileTs - w0
  if (lo > c.driftLo) c.driftLo = lo
  if (hi > c.driftHi) c.driftHi = hi
}

/** Records the state the head block left (called once a block is mined). */
/** The world back at block `number`, as `frame` (the state that block left) holds it: later blocks forgotten. */
export function backTo(w: World, number: bigint, frame: Frame): void {
  w.number = number
  w.accounts = copyAccounts(frame.accounts)
  w.code = new Map(frame.code)
  w.storage = new Map(frame.storage)
  w.written = new Set(frame.written)
  w.headHash = frame.hash
  w.headTs = frame.ts
  w.headMin = frame.minGas
  for (const n of [...w.history.keys()]) if (n > number) w.history.delete(n)
  for (const [h, at] of [...w.mined]) if (at.number > number) w.mined.delete(h)
}

export function record(w: World): void {
  w.history.set(w.number, { accounts: copyAccounts(w.accounts), code: new Map(w.code), storage: new Map(w.storage), written: new Set(w.written), hash: w.headHash, ts: w.headTs, minGas: w.headMin })
}

/** The word `x` as `eth_getStorageAt` answers it. */
export const word = (x: bigint): string => '0x' + x.toString(16).padStart(64, '0')
