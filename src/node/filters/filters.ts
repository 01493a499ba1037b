/**
 * Polling filters as the node keeps them (spec "Filter lifecycle", "Events"; RSKj `FilterManager.java`,
 * `Filter.java`, `LogFilter.java`, reference §6). Domain types only: block and transaction hashes, and for log
 * filters the range of blocks whose matching logs are still to be reported (the RPC layer matches and formats them).
 *
 * Memory stays bounded: a filter holds only what it has not yet returned (a log filter: a range of block numbers, read
 * from the chain when polled, and the few blocks the chain no longer has), and a filter that is not polled for
 * `timeout` ms is removed. Expiry is swept lazily, on filter calls and on node events, so no timer keeps the
 * process alive (RSKj sweeps at most once a minute on filter activity; sweeping every time costs one pass over
 * the installed filters, which the event fan-out does anyway).
 */
import type { FilterValues } from './filterValues.js'
import type { EventEmitter } from 'eventemitter3'
import type { BlockRecord, TxRecord } from '../chain/types.js'
import type { NodeEvents } from '../node.js'

/**
 * A block whose logs a log filter still has to report: a `blockHash` filter's block, or (`removed`) a block it had
 * reported that `evm_revert`/`evm_reset` dropped.
 */
export interface LogBlockEvent {
  block: BlockRecord
  removed: boolean
}

/**
 * On a fork, the part of a new filter's range at or below the forked block (or the remote's blocks a `hardhat_reset`
 * to a higher block added to it), whose matches the remote answers. They are asked for at the next poll
 * (src/rpc/forkLogs.ts), so that a filter holds no logs of its own (a remote's answer may be large, and up to
 * `MAX_FILTERS` filters wait for minutes), and reported in their place among the filter's events, never as removed:
 * nothing here can drop a block below the forked block. `hash`: the block of a `blockHash` filter, asked by its hash.
 */
export interface RemoteRange {
  from: bigint
  to: bigint
  hash?: string
}

export interface RemoteHistoryEvent {
  remote: RemoteRange
}

export type LogEvent = LogBlockEvent | RemoteHistoryEvent

const isBlockEvent = (e: LogEvent): e is LogBlockEvent => 'block' in e

/** What the node needs of a log filter's criteria (the RPC layer's object, which also matches and formats the logs). */
export interface LogCriteria {
  /** Whether a block with this logs bloom may hold a matching log. */
  mayHold(bloom: Uint8Array): boolean
  /** How many addresses and topics it names (held against the node's bound, filterValues.ts). */
  readonly values: number
}

/**
 * The blocks whose matching logs are a log filter's events, as RSKj's `LogFilter` gathers them (reference §6): those
 * it scans when made (`retrieveHistoricalData`), and those mined later that `newBlockReceived` takes: every one when
 * `fromBlock` or `toBlock` is `latest` (or omitted; a `blockHash` filter's are both), none otherwise.
 */
export interface LogScope {
  /** The first block of its range of events (when made: the first block scanned, or the next block). */
  from: bigint
  /** The last; undefined: the head, so that every new block is one of its events. */
  to: bigint | undefined
  /** `fromBlock` `latest` or omitted, or a `blockHash` (RSKj `fromLatestBlock`). */
  fromLatest: boolean
  /** A `blockHash` filter's block, hex (its history; the block itself when the chain has it and it may match). */
  hash?: string
  block?: BlockRecord
}

/**
 * A log filter: its events are `items` (a `blockHash` filter's block, blocks it had reported that were removed, the
 * remote's parts on a fork), then the chain's blocks in `next`..`to` (`to` undefined: the head). Blocks are read from
 * the chain at the poll, so a filter holds no block or log for blocks mined after it, however long it waits.
 */
export interface LogFilter extends Omit<LogScope, 'block'> {
  kind: 'log'
  lastAccess: number
  criteria: LogCriteria
  items: LogEvent[]
  /** The first block of `from`..`to` not reported yet. */
  next: bigint
  /** Whether a block was mined since the filter was made (RSKj's events are then that block's: eth_getFilterLogs). */
  received: boolean
}

export type PollFilter =
  | { kind: 'block'; lastAccess: number; items: string[] }
  | { kind: 'pendingTransaction'; lastAccess: number; items: string[] }
  | LogFilter

/** What a poll of a log filter reports: `items`, then the matches of the chain's blocks `from`..`to`. */
export interface LogChanges {
  criteria: LogCriteria
  items: LogEvent[]
  from: bigint
  to: bigint
}

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
    /** The node's count of held filter values (filterValues.ts), shared with its logs subscriptions. */
    private readonly values: FilterValues,
    events: EventEmitter<NodeEvents>,
    private readonly timeout: () => number,
    /** The head's number, where the range of a log filter that follows new blocks ends. */
    private readonly head: () => bigint,
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
   * A log filter with `criteria` (the RPC layer's object, which also carries the address and topic criteria) over
   * `scope`, whose first poll reports its history (RSKj collects it at creation): a `blockHash` filter's block, and the
   * blocks of its range already on the chain; `remote`, on a fork, the part of the history the remote answers, reported
   * first (the range's own blocks then start after it).
   */
  newLogFilter(criteria: LogCriteria, scope: LogScope, remote?: RemoteRange): bigint {
    const items: LogEvent[] = []
    if (remote !== undefined) items.push({ remote })
    else if (scope.block !== undefined) items.push({ block: scope.block, removed: false })
    const next = remote !== undefined && remote.to >= scope.from ? remote.to + 1n : scope.from
    const { from, to, fromLatest, hash } = scope
    return this.install({ kind: 'log', lastAccess: this.now(), criteria, items, from, to, fromLatest, hash, next, received: false })
  }

  /**
   * The remote parts of a log filter's events while no poll has reported them, in order: the blocks up to the forked
   * one when the filter was made, or those a `hardhat_reset` to a higher block added.
   */
  remoteHistory(id: bigint): RemoteRange[] {
    const f = this.get(id)
    if (f?.kind !== 'log') return []
    return f.items.filter((e) => !isBlockEvent(e)).map((e) => (e as RemoteHistoryEvent).remote)
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

  /**
   * Returns and forgets what the filter has to report since its previous poll: hashes, or for a log filter its items and
   * the range of blocks whose logs the poll reads. `answered`: the remote parts (the very objects `remoteHistory` gave)
   * whose logs the poll holds. A log filter's events are taken in order up to the first remote part the poll holds no
   * answer for: one a `hardhat_reset` added or changed (onForked) while the poll was asking the remote for the others,
   * or waiting in the node's queue. That part, the events after it and the chain's blocks stay for the next poll, which
   * asks the remote for it: a poll never drops a part it has no answer for, nor reports an answer for a range that has
   * since changed.
   */
  take(
    id: bigint,
    answered: ReadonlyMap<RemoteRange, unknown> = new Map(),
  ): { kind: 'block' | 'pendingTransaction'; items: string[] } | { kind: 'log'; changes: LogChanges } | undefined {
    const f = this.get(id)
    if (f === undefined) return undefined
    if (f.kind !== 'log') {
      const items = f.items
      f.items = []
      return { kind: f.kind, items }
    }
    const unanswered = f.items.findIndex((e) => !isBlockEvent(e) && !answered.has(e.remote))
    if (unanswered >= 0) {
      const items = f.items.slice(0, unanswered)
      f.items = f.items.slice(unanswered)
      return { kind: 'log', changes: { criteria: f.criteria, items, from: f.next, to: f.next - 1n } }
    }
    const to = f.to ?? this.head()
    const changes: LogChanges = { criteria: f.criteria, items: f.items, from: f.next, to }
    f.items = []
    if (to >= f.next) f.next = to + 1n
    return { kind: 'log', changes }
  }

  uninstall(id: bigint): boolean {
    this.sweep()
    return this.remove(id)
  }

  private install(f: PollFilter): bigint {
    this.sweep()
    if (this.installed.size >= MAX_FILTERS) throw new TooManyFilters()
    if (f.kind === 'log') this.values.take(f.criteria.values)
    const id = this.nextId++
    this.installed.set(id, f)
    return id
  }

  private sweep(): void {
    const deadline = this.now() - this.timeout()
    for (const [id, f] of this.installed) if (f.lastAccess <= deadline) this.remove(id)
  }

  /** Uninstalls filter `id`, giving back the values a log filter held. */
  private remove(id: bigint): boolean {
    const f = this.installed.get(id)
    if (f === undefined) return false
    this.installed.delete(id)
    if (f.kind === 'log') this.values.give(f.criteria.values)
    return true
  }

  /**
   * A block was mined. A log filter keeps nothing for it: the blocks of its range are read from the chain when it is
   * polled (the new block is in its range when it follows the head, and out of it otherwise: RSKj's
   * `LogFilter.newBlockReceived` takes every new block from or to `latest`, none otherwise).
   */
  private onBlock(b: BlockRecord): void {
    this.sweep()
    for (const f of this.installed.values()) {
      if (f.kind === 'block') f.items.push(b.hashHex)
      else if (f.kind === 'log') f.received = true
    }
  }

  private onPending(t: TxRecord): void {
    this.sweep()
    for (const f of this.installed.values()) if (f.kind === 'pendingTransaction') f.items.push(t.hashHex)
  }

  /**
   * `hardhat_reset` forked again at block `n`, from the forked block `previous` (rsksim's own blocks above `previous`
   * came as removed just before). The remote's blocks above `n` are no longer part of the chain: an unreported remote
   * history ends there (or is dropped), as unreported blocks removed by evm_revert are, and a filter's range stops at
   * `n` (or goes on from `n` + 1 with the new blocks). Forked higher, the remote's blocks from `previous` + 1 to `n` are
   * new blocks: every filter that takes new blocks gets them as a remote part, reported at its next poll (as geth
   * reports the blocks of a new branch after a reorganisation).
   */
  private onForked(n: bigint, previous: bigint): void {
    this.sweep()
    for (const f of this.installed.values()) {
      if (f.kind !== 'log') continue
      // A part that changes is a new object, never edited in place: a poll asking the remote for the old one reports
      // its answer only while the part is still the filter's (`take`).
      f.items = f.items.flatMap((e): LogEvent[] => {
        if (isBlockEvent(e) || e.remote.to <= n) return [e]
        return e.remote.from <= n ? [{ remote: { ...e.remote, to: n } }] : []
      })
      if (n < previous) this.cut(f, n)
      if (f.to !== undefined || n <= previous) continue
      const from = previous + 1n
      const last = f.items.at(-1)
      if (last !== undefined && !isBlockEvent(last) && last.remote.hash === undefined && last.remote.to === previous) last.remote = { from: last.remote.from, to: n }
      else f.items.push({ remote: { from, to: n } })
      if (from < f.from) f.from = from
      f.next = n + 1n
      f.received = true
    }
  }

  /** The chain now ends at block `k` (blocks above it were dropped): a log filter's range goes on, or stops, there. */
  private cut(f: LogFilter, k: bigint): void {
    if (f.next > k + 1n) f.next = k + 1n
    if (f.to === undefined) {
      // It takes every new block: those mined from k + 1 on are its events.
      if (f.from > k + 1n) f.from = k + 1n
    } else if (f.to > k) {
      f.to = k
    }
  }

  /**
   * Blocks dropped by evm_revert/evm_reset (oldest first). What the client has not seen yet is simply forgotten;
   * logs of the filter's blocks it was already given come back with `removed: true` (spec "Events" 2; geth does the
   * same on a reorg).
   */
  private onRemoved(blocks: BlockRecord[]): void {
    this.sweep()
    const gone = new Set(blocks.map((b) => b.hashHex))
    const k = blocks[0]!.number - 1n
    for (const f of this.installed.values()) {
      if (f.kind === 'block') {
        f.items = f.items.filter((h) => !gone.has(h))
      } else if (f.kind === 'log') {
        const unseen = new Set(f.items.filter(isBlockEvent).filter((e) => !e.removed && gone.has(e.block.hashHex)).map((e) => e.block.hashHex))
        f.items = f.items.filter((e) => !isBlockEvent(e) || e.removed || !unseen.has(e.block.hashHex))
        for (const b of blocks) {
          const reported = b.hashHex === f.hash ? !unseen.has(b.hashHex) : b.number >= f.from && b.number < f.next && (f.to === undefined || b.number <= f.to)
          if (reported && b.receipts.some((r) => r.logs.length > 0) && f.criteria.mayHold(b.header.logsBloom)) f.items.push({ block: b, removed: true })
        }
        this.cut(f, k)
      }
    }
  }
}
