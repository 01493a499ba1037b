/**
 * Polling filters as the node keeps them (spec "Filter lifecycle", "Events"; RSKj `FilterManager.java`,
 * `Filter.java`, `LogFilter.java`, reference §6). Domain types only: block and transaction hashes, and for log
 * filters the blocks whose matching logs are still to be reported (the RPC layer formats and matches the logs).
 *
 * Memory stays bounded: a filter holds only what it has not yet returned, and a filter that is not polled for
 * `timeout` ms is removed. Expiry is swept lazily, on filter calls and on node events, so no timer keeps the
 * process alive (RSKj sweeps at most once a minute on filter activity; sweeping every time costs one pass over
 * the installed filters, which the event fan-out does anyway).
 */
import type { EventEmitter } from 'eventemitter3'
import type { BlockRecord, TxRecord } from '../chain/types.js'
import type { NodeEvents } from '../node.js'

/** A block whose logs a log filter still has to report; `removed` when `evm_revert`/`evm_reset` dropped it. */
export interface LogBlockEvent {
  block: BlockRecord
  removed: boolean
}

/**
 * On a fork, the part of a new filter's range at or below the forked block (or the remote's blocks a `hardhat_reset`
 * to a higher block added to it), whose matches the remote answers. They are asked for at the next poll
 * (src/rpc/forkLogs.ts), so that a filter holds no logs of its own (a remote's answer may be large, and up to
 * `MAX_FILTERS` filters wait for minutes), and reported in their place among the filter's events, never as removed:
 * nothing here can drop a block below the forked one.
 */
export interface RemoteRange {
  from: bigint
  to: bigint
}

export interface RemoteHistoryEvent {
  remote: RemoteRange
}

export type LogEvent = LogBlockEvent | RemoteHistoryEvent

const isBlockEvent = (e: LogEvent): e is LogBlockEvent => 'block' in e

/** What a log filter needs from its criteria: which blocks (mined later, or removed) fall in its range. */
export interface LogRange {
  covers(block: BlockRecord): boolean
  /** The block numbers it covers (`to` undefined: up to the head); undefined for a filter on one block hash. */
  readonly span?: { from: bigint; to: bigint | undefined }
}

export type PollFilter =
  | { kind: 'block'; lastAccess: number; items: string[] }
  | { kind: 'pendingTransaction'; lastAccess: number; items: string[] }
  | { kind: 'log'; lastAccess: number; items: LogEvent[]; range: LogRange }

/**
 * Most filters installed at once. RSKj sets no bound; every installed filter is visited on each block and
 * pending transaction, and held for `filterTimeout`, so an unbounded number is a way to slow or exhaust the node.
 */
export const MAX_FILTERS = 1_000

/** A new filter was asked for while `MAX_FILTERS` are installed (rpc/ answers -32000 with this text). */
export class TooManyFilters extends Error {
  override readonly name = 'TooManyFilters'
  constructor() {
    super(`too many filters installed (${MAX_FILTERS}): uninstall some with eth_uninstallFilter, or let them expire (no poll for filterTimeout)`)
  }
}

/** The installed filters of one node, numbered `1, 2, …` (spec: ids are QUANTITY; RSKj 9.x uses UUIDs). */
export class FilterManager {
  private nextId = 1n
  private readonly installed = new Map<bigint, PollFilter>()

  constructor(
    events: EventEmitter<NodeEvents>,
    private readonly timeout: () => number,
    // Looked up at each call (not captured) so that a faked `Date` (tests) is honoured.
    private readonly now: () => number = () => Date.now(),
  ) {
    events.on('block', (b) => this.onBlock(b))
    events.on('pendingTransaction', (t) => this.onPending(t))
    events.on('blocksRemoved', (bs) => this.onRemoved(bs))
    events.on('forked', (n, previous) => this.onForked(n, previous))
  }

  /** Number of installed (not yet expired) filters. */
  get size(): number {
    this.sweep()
    return this.installed.size
  }

  newBlockFilter(): bigint {
    return this.install({ kind: 'block', lastAccess: this.now(), items: [] })
  }

  newPendingTransactionFilter(): bigint {
    return this.install({ kind: 'pendingTransaction', lastAccess: this.now(), items: [] })
  }

  /**
   * A log filter over `range` (the RPC layer passes its own object, which also carries the address and topic
   * criteria); `history` are the blocks with matches already on the chain (RSKj collects them at creation and
   * the first poll returns them); `remote`, on a fork, the range whose matches the remote answers, reported first.
   */
  newLogFilter(range: LogRange, history: BlockRecord[], remote?: RemoteRange): bigint {
    const items: LogEvent[] = history.map((block) => ({ block, removed: false }))
    if (remote !== undefined) items.unshift({ remote })
    return this.install({ kind: 'log', lastAccess: this.now(), items, range })
  }

  /**
   * The remote part of a log filter's history while no poll has reported it: the blocks up to the forked one when the
   * filter was made, or those a `hardhat_reset` to a higher block added (a filter holds at most one such part).
   */
  remoteHistory(id: bigint): RemoteRange | undefined {
    const f = this.get(id)
    if (f?.kind !== 'log') return undefined
    for (const e of f.items) if (!isBlockEvent(e)) return e.remote
    return undefined
  }

  /** Forgets `range`, a part of log filter `id`'s remote history that a poll could not report (over the limits). */
  dropRemoteHistory(id: bigint, range: RemoteRange): void {
    const f = this.installed.get(id)
    if (f?.kind === 'log') f.items = f.items.filter((e) => isBlockEvent(e) || e.remote !== range)
  }

  /** The filter, refreshing its inactivity clock (RSKj: any read is an access); undefined when unknown or expired. */
  get(id: bigint): PollFilter | undefined {
    this.sweep()
    const f = this.installed.get(id)
    if (f !== undefined) f.lastAccess = this.now()
    return f
  }

  /** Returns and forgets what the filter has gathered since its previous poll. */
  take(id: bigint): PollFilter | undefined {
    const f = this.get(id)
    if (f === undefined) return undefined
    const snapshot = { ...f, items: f.items } as PollFilter
    f.items = []
    return snapshot
  }

  uninstall(id: bigint): boolean {
    this.sweep()
    return this.installed.delete(id)
  }

  private install(f: PollFilter): bigint {
    this.sweep()
    if (this.installed.size >= MAX_FILTERS) throw new TooManyFilters()
    const id = this.nextId++
    this.installed.set(id, f)
    return id
  }

  private sweep(): void {
    const deadline = this.now() - this.timeout()
    for (const [id, f] of this.installed) if (f.lastAccess <= deadline) this.installed.delete(id)
  }

  private onBlock(b: BlockRecord): void {
    this.sweep()
    for (const f of this.installed.values()) {
      if (f.kind === 'block') f.items.push(b.hashHex)
      else if (f.kind === 'log' && f.range.covers(b)) f.items.push({ block: b, removed: false })
    }
  }

  private onPending(t: TxRecord): void {
    this.sweep()
    for (const f of this.installed.values()) if (f.kind === 'pendingTransaction') f.items.push(t.hashHex)
  }

  /**
   * `hardhat_reset` forked again at block `n`, from the forked block `previous`. The remote's blocks above `n` are no
   * longer part of the chain, so an unreported remote history ends there (or is dropped), as unreported blocks removed
   * by evm_revert are. Forked higher, the remote's blocks from `previous` + 1 to `n` are new to every filter that
   * covers them: they join its unreported remote history, or become one, reported at the next poll (as geth reports
   * the blocks of a new branch after a reorganisation; rsksim's own blocks above `previous` came as removed before).
   */
  private onForked(n: bigint, previous: bigint): void {
    this.sweep()
    for (const f of this.installed.values()) {
      if (f.kind !== 'log') continue
      f.items = f.items.flatMap((e): LogEvent[] => {
        if (isBlockEvent(e) || e.remote.to <= n) return [e]
        return e.remote.from <= n ? [{ remote: { ...e.remote, to: n } }] : []
      })
      const span = f.range.span
      if (span === undefined || n <= previous) continue
      const from = span.from > previous ? span.from : previous + 1n
      const to = span.to === undefined || span.to > n ? n : span.to
      if (from > to) continue
      const unreported = f.items.find((e): e is RemoteHistoryEvent => !isBlockEvent(e))
      if (unreported !== undefined && unreported.remote.to === from - 1n) unreported.remote = { from: unreported.remote.from, to }
      else f.items.push({ remote: { from, to } })
    }
  }

  /**
   * Blocks dropped by evm_revert/evm_reset. What the client has not seen yet is simply forgotten; logs of covered
   * blocks it was already given come back with `removed: true` (spec "Events" 2; geth does the same on a reorg).
   */
  private onRemoved(blocks: BlockRecord[]): void {
    this.sweep()
    const gone = new Set(blocks.map((b) => b.hashHex))
    for (const f of this.installed.values()) {
      if (f.kind === 'block') {
        f.items = f.items.filter((h) => !gone.has(h))
      } else if (f.kind === 'log') {
        const unseen = new Set(f.items.filter(isBlockEvent).filter((e) => !e.removed && gone.has(e.block.hashHex)).map((e) => e.block.hashHex))
        f.items = f.items.filter((e) => !isBlockEvent(e) || e.removed || !unseen.has(e.block.hashHex))
        for (const b of blocks) {
          if (unseen.has(b.hashHex) || !f.range.covers(b)) continue
          if (b.receipts.some((r) => r.logs.length > 0)) f.items.push({ block: b, removed: true })
        }
      }
    }
  }
}
