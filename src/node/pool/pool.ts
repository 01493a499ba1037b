/**
 * The transaction pool: a pending set (nonces that follow the sender's state nonce without a gap) and a queued
 * set (nonces after a gap), keyed by sender and nonce, as RSKj's `TransactionPoolImpl` keeps them.
 * Admission rules live in `admission.ts`; this file only stores, replaces, promotes and orders.
 */
import type { TxRecord } from '../chain/types.js'

type BySender = Map<string, Map<bigint, TxRecord>>

export class TxPool {
  private pending: BySender = new Map()
  private queued: BySender = new Map()
  private readonly byHash = new Map<string, TxRecord>()
  private changeCount = 0

  /** Bumped whenever a transaction enters or leaves the pool (the database writes the pool when it moves). */
  get changes(): number {
    return this.changeCount
  }

  get pendingCount(): number {
    return count(this.pending)
  }

  get queuedCount(): number {
    return count(this.queued)
  }

  has(hashHex: string): boolean {
    return this.byHash.has(hashHex)
  }

  get(hashHex: string): TxRecord | undefined {
    return this.byHash.get(hashHex)
  }

  isPending(hashHex: string): boolean {
    const t = this.byHash.get(hashHex)
    return t !== undefined && this.pending.get(t.fromHex)?.get(t.tx.nonce) === t
  }

  /** The transaction of `sender` with `nonce`, pending or queued. */
  find(senderHex: string, nonce: bigint): TxRecord | undefined {
    return this.pending.get(senderHex)?.get(nonce) ?? this.queued.get(senderHex)?.get(nonce)
  }

  /** Nonce the sender's next transaction would take: its state nonce followed through its pending transactions. */
  nextNonce(senderHex: string, stateNonce: bigint): bigint {
    const mine = this.pending.get(senderHex)
    let n = stateNonce
    while (mine?.has(n)) n++
    return n
  }

  /**
   * Adds (or replaces, same sender and nonce) a transaction; `stateNonce` is the sender's confirmed nonce.
   * Returns where it went and the transactions promoted from queued to pending by it.
   */
  add(t: TxRecord, stateNonce: bigint): { where: 'pending' | 'queued'; replaced?: TxRecord; promoted: TxRecord[] } {
    const replaced = this.find(t.fromHex, t.tx.nonce)
    if (replaced !== undefined) this.remove(replaced)
    const where = t.tx.nonce <= this.nextNonce(t.fromHex, stateNonce) ? 'pending' : 'queued'
    put(where === 'pending' ? this.pending : this.queued, t)
    this.byHash.set(t.hashHex, t)
    this.changeCount++
    const promoted = where === 'pending' ? this.promote(t.fromHex, stateNonce) : []
    return { where, replaced, promoted }
  }

  remove(t: TxRecord): void {
    this.byHash.delete(t.hashHex)
    this.changeCount++
    for (const set of [this.pending, this.queued]) {
      const mine = set.get(t.fromHex)
      if (mine?.get(t.tx.nonce) === t) {
        mine.delete(t.tx.nonce)
        if (mine.size === 0) set.delete(t.fromHex)
      }
    }
  }

  /**
   * Removes a transaction on request (`anvil_dropTransaction`): the sender's pending transactions after it no longer
   * follow its state nonce without a gap, so they go back to queued (as geth's pool demotes them) until it is filled.
   */
  drop(t: TxRecord): void {
    this.remove(t)
    const mine = this.pending.get(t.fromHex)
    if (mine === undefined) return
    for (const later of [...mine.values()]) {
      if (later.tx.nonce > t.tx.nonce) {
        mine.delete(later.tx.nonce)
        put(this.queued, later)
      }
    }
    if (mine.size === 0) this.pending.delete(t.fromHex)
  }

  /** Moves the sender's queued transactions whose nonce now follows without a gap into pending. */
  promote(senderHex: string, stateNonce: bigint): TxRecord[] {
    const q = this.queued.get(senderHex)
    if (q === undefined) return []
    const promoted: TxRecord[] = []
    let n = this.nextNonce(senderHex, stateNonce)
    for (let t = q.get(n); t !== undefined; t = q.get(++n)) {
      q.delete(n)
      put(this.pending, t)
      promoted.push(t)
    }
    if (q.size === 0) this.queued.delete(senderHex)
    return promoted
  }

  /**
   * After a block: drops transactions whose nonce is below the sender's new state nonce, and promotes queued ones.
   * `stateNonce` gives a sender's confirmed nonce.
   */
  async settle(stateNonce: (senderHex: string) => Promise<bigint>): Promise<TxRecord[]> {
    const promoted: TxRecord[] = []
    const senders = new Set([...this.pending.keys(), ...this.queued.keys()])
    for (const sender of senders) {
      const nonce = await stateNonce(sender)
      for (const set of [this.pending, this.queued]) {
        for (const t of [...(set.get(sender)?.values() ?? [])]) if (t.tx.nonce < nonce) this.remove(t)
      }
      // A pending transaction whose predecessor vanished goes back to queued.
      const mine = this.pending.get(sender)
      if (mine !== undefined) {
        let n = nonce
        while (mine.has(n)) n++
        for (const t of [...mine.values()]) {
          if (t.tx.nonce > n) {
            mine.delete(t.tx.nonce)
            put(this.queued, t)
          }
        }
        if (mine.size === 0) this.pending.delete(sender)
      }
      promoted.push(...this.promote(sender, nonce))
    }
    return promoted
  }

  /**
   * Pending transactions in block order: the highest gas price first among each sender's next transaction,
   * nonce order within a sender (RSKj `TxPendingValidator` / Ganache ordering).
   */
  ordered(): TxRecord[] {
    const queues: TxRecord[][] = []
    for (const bySender of this.pending.values()) {
      if (bySender.size === 0) continue
      const q = Array.from(bySender.values())
      if (q.length > 1) q.sort(byNonce)
      queues.push(q)
    }
    // One sender (automine's usual case): its transactions in nonce order.
    if (queues.length <= 1) return queues[0] ?? []
    const next = new Array<number>(queues.length).fill(0)
    const out: TxRecord[] = []
    for (;;) {
      // The sender whose next transaction pays most; the first sender in pool order on a tie.
      let best = -1
      for (let i = 0; i < queues.length; i++) {
        const t = queues[i]![next[i]!]
        if (t !== undefined && (best < 0 || t.tx.gasPrice > queues[best]![next[best]!]!.tx.gasPrice)) best = i
      }
      if (best < 0) return out
      out.push(queues[best]![next[best]!++]!)
    }
  }

  /** Every pending and queued transaction, for `txpool_*` and `eth_pendingTransactions`. */
  content(): { pending: BySender; queued: BySender } {
    return { pending: this.pending, queued: this.queued }
  }

  clear(): void {
    this.pending.clear()
    this.queued.clear()
    this.byHash.clear()
    this.changeCount++
  }

  /** A copy of the pool's contents, for snapshots. */
  save(): TxRecord[] {
    return [...this.byHash.values()]
  }

  /** Restores a `save()`d content; `stateNonce` gives each sender's confirmed nonce. */
  async restore(txs: TxRecord[], stateNonce: (senderHex: string) => Promise<bigint>): Promise<void> {
    this.clear()
    for (const t of txs) put(this.queued, t), this.byHash.set(t.hashHex, t)
    this.changeCount++
    await this.settle(stateNonce)
  }
}

function put(set: BySender, t: TxRecord): void {
  let mine = set.get(t.fromHex)
  if (mine === undefined) set.set(t.fromHex, (mine = new Map()))
  mine.set(t.tx.nonce, t)
}

function count(set: BySender): number {
  let n = 0
  for (const m of set.values()) n += m.size
  return n
}

const cmp = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0)
const byNonce = (a: TxRecord, b: TxRecord): number => cmp(a.tx.nonce, b.tx.nonce)
