/**
 * eth_subscribe / eth_unsubscribe for one owner (an in-process provider). RSKj serves them over WebSocket only
 * (`co/rsk/rpc/modules/eth/subscribe/*`, `EthSubscriptionNotificationEmitter`); rsksim also serves them in process
 * (default mode only) so that EIP-1193 clients get push notifications. Notification shapes follow RSKj:
 * `BlockHeaderNotification` (newHeads), `LogsNotification` (logs, with `removed`), pending transaction hashes,
 * and `syncing` answered as a synced node (no notification is ever sent).
 */
import { randomBytes } from 'node:crypto'
import { bytesToHex } from '@ethereumjs/util'
import type { RskNode } from '../../node/node.js'
import type { BlockRecord, LogRecord, TxRecord } from '../../node/chain/types.js'
import { subscriptionFilterObject } from '../codecs/objects.js'
import { formatBlock } from '../format/block.js'
import { blockLogs, markRemoved } from '../format/log.js'
import { bloomMatcher, filterValueCount, rawLogMatcher } from '../namespaces/eth/logs.js'
import { ErrorCode, invalidParams, RpcError } from '../../errors.js'
import { filterValuesOf } from '../../node/filters/filterValues.js'

/** Receives `{ subscription, result }` for each notification. */
export type Sink = (subscription: string, result: unknown) => void

/** Subscriptions one owner may hold at once: bounds the per-block fan-out an abusive client can cause. */
export const MAX_SUBSCRIPTIONS = 1000


/** The fields of RSKj's `BlockHeaderNotification`, in its order. */
const HEADER_FIELDS = [
  'difficulty', 'extraData', 'gasLimit', 'gasUsed', 'logsBloom', 'miner', 'number', 'parentHash', 'receiptsRoot',
  'sha3Uncles', 'stateRoot', 'timestamp', 'transactionsRoot', 'hash',
] as const

export function headerNotification(block: BlockRecord): Record<string, unknown> {
  const full = formatBlock(block, false)
  const out: Record<string, unknown> = {}
  for (const k of HEADER_FIELDS) out[k] = full[k]
  // RSKj: HexUtils.toJsonHex(baseEvent), "0x" when empty (eth_getBlock* answers null there).
  out.baseEvent = full.baseEvent ?? '0x'
  return out
}

type Kind =
  | { type: 'newHeads' }
  | { type: 'newPendingTransactions' }
  | { type: 'syncing' }
  | { type: 'logs'; keep: (l: LogRecord) => boolean; mayHold: (bloom: Uint8Array) => boolean; values: number }

/** RSKj `EthSubscribeParamsDeserializer`: `[type]` or `['logs', {address?, topics?}]`. */
function parseParams(params: unknown): Kind {
  // Texts of RSKj's deserializer where it has one; an unknown type has none there (it fails on a null class).
  if (!Array.isArray(params)) throw invalidParams('eth_subscribe parameters are expected to be arrays')
  if (params.length > 2) throw invalidParams('eth_subscribe can only have one object to configure subscription')
  const list: unknown[] = params
  const type = list[0]
  if (typeof type !== 'string') throw invalidParams('Invalid subscription type')
  if (type === 'newHeads' || type === 'newPendingTransactions' || type === 'syncing') return { type }
  if (type === 'logs') {
    const p = list[1] ?? {}
    if (typeof p !== 'object' || p === null || Array.isArray(p)) throw invalidParams('Invalid logs subscription params')
    // The matchers (bloom bits included) are built once here, not on every block.
    const filter = subscriptionFilterObject(p)
    return { type: 'logs', keep: rawLogMatcher(filter), mayHold: bloomMatcher(filter), values: filterValueCount(filter) }
  }
  throw invalidParams(`Unknown subscription type '${type}'`)
}

/**
 * Whether a parsed request body (one request or a batch) has a request for eth_subscribe: only such a body needs
 * `Subscriptions.forBody`. Dispatch matches method names exactly (src/rpc/dispatch.ts `handleOne`), and so does this.
 */
export function callsSubscribe(payload: unknown): boolean {
  if (Array.isArray(payload)) {
    for (const req of payload) if (isSubscribe(req)) return true
    return false
  }
  return isSubscribe(payload)
}

const isSubscribe = (req: unknown): boolean => typeof req === 'object' && req !== null && (req as { method?: unknown }).method === 'eth_subscribe'

/**
 * A subscription and `since`, the node's announcement count when it was made (`RskNode.announcements`): it is told of
 * events whose announcement began later. One made by a listener while an event is announced (in process, a `block` or
 * `message` listener runs inside the announcement) is not told of that event, as a WebSocket client's subscription,
 * which arrives after it, would not be.
 */
type Subscription = Kind & { since: number }

export class Subscriptions {
  private readonly active = new Map<string, Subscription>()
  /** Set by `close`: the owner (a socket) is gone. */
  private closed = false
  private readonly off: Array<() => void> = []

  /** @internal Use `provider.openSubscriptions(sink)`. */
  constructor(
    private readonly node: RskNode,
    private readonly sink: Sink,
  ) {
    const onBlock = (b: BlockRecord): void => {
      this.onBlock(b, false, this.node.announcements)
      this.rethrow()
    }
    const onRemoved = (bs: BlockRecord[]): void => {
      const at = this.node.announcements
      // Newest first: the reverse of the order in which they were announced.
      for (let i = bs.length - 1; i >= 0; i--) this.onBlock(bs[i]!, true, at)
      this.rethrow()
    }
    const onPending = (t: TxRecord): void => {
      const at = this.node.announcements
      for (const [id, k] of this.active) if (k.type === 'newPendingTransactions' && k.since < at) this.tell(id, t.hashHex)
      this.rethrow()
    }
    node.events.on('block', onBlock)
    node.events.on('blocksRemoved', onRemoved)
    node.events.on('pendingTransaction', onPending)
    this.off.push(
      () => node.events.off('block', onBlock),
      () => node.events.off('blocksRemoved', onRemoved),
      () => node.events.off('pendingTransaction', onPending),
    )
  }

  /**
   * eth_subscribe / eth_unsubscribe answered for this owner (see dispatch `LocalMethods`), for a request body that
   * subscribes nothing: one table for every such body, built once.
   */
  readonly methods: Readonly<Record<string, (params: unknown) => unknown>> = {
    eth_subscribe: (params) => this.subscribe(params),
    eth_unsubscribe: (params) => this.unsubscribe(params),
  }

  /**
   * The same methods for one request body that calls eth_subscribe (`callsSubscribe`): `made` is told each id the
   * body subscribes, as it is made (before any notification for it). The WebSocket server uses it to hold that id's
   * notifications until the reply carrying the id is sent, and to cancel those subscriptions when the body is
   * answered by a bare error (a timeout or a reply over the size limit, which stop a whole batch): no id reached
   * the client, which could neither use nor cancel them.
   */
  forBody(made: (id: string) => void): Readonly<Record<string, (params: unknown) => unknown>> {
    return {
      eth_subscribe: (params) => {
        const id = this.subscribe(params)
        made(id)
        return id
      },
      eth_unsubscribe: (params) => this.unsubscribe(params),
    }
  }

  /** Whether subscription `id` is active. */
  has(id: string): boolean {
    return this.active.has(id)
  }

  /** Cancels subscription `id` (as eth_unsubscribe does); false when it is not active. */
  cancel(id: string): boolean {
    return this.drop(id)
  }

  get size(): number {
    return this.active.size
  }

  subscribe(params: unknown): string {
    // A batch still running when its socket closed (an element waiting for a block, a fork's remote): what it would
    // subscribe now reaches nobody, and `close` has already given back what the socket held.
    if (this.closed) throw new RpcError(ErrorCode.Generic, 'the connection that subscribes is closed')
    const kind = parseParams(params)
    if (this.active.size >= MAX_SUBSCRIPTIONS) throw invalidParams(`too many subscriptions (limit ${MAX_SUBSCRIPTIONS})`)
    // The node-wide bound on filter values, shared with eth_newFilter's log filters (src/node/filters/filterValues.ts).
    if (kind.type === 'logs') filterValuesOf(this.node).take(kind.values)
    // RSKj `SubscriptionId`: 16 random bytes as DATA.
    const id = bytesToHex(randomBytes(16))
    this.active.set(id, { ...kind, since: this.node.announcements })
    return id
  }

  unsubscribe(params: unknown): boolean {
    const id = Array.isArray(params) ? params[0] : undefined
    if (typeof id !== 'string') throw invalidParams('Invalid subscription id')
    return this.drop(id.toLowerCase())
  }

  /** Drops every subscription and stops listening to the node; later subscriptions are refused. */
  close(): void {
    this.closed = true
    for (const id of [...this.active.keys()]) this.drop(id)
    for (const f of this.off.splice(0)) f()
  }

  /** Removes one subscription and gives back the filter values it held. */
  private drop(id: string): boolean {
    const kind = this.active.get(id)
    if (kind === undefined) return false
    this.active.delete(id)
    if (kind.type === 'logs') filterValuesOf(this.node).give(kind.values)
    return true
  }

  /** The first error a sink threw while an event was told (`tell`). */
  private failure: { error: unknown } | undefined

  /**
   * One notification to the sink. An in-process listener that throws does not keep the other subscriptions, or this
   * one's next notifications, from being told: the first error is thrown once the whole event was told (`rethrow`).
   */
  private tell(id: string, result: unknown): void {
    try {
      this.sink(id, result)
    } catch (error) {
      this.failure ??= { error }
    }
  }

  private rethrow(): void {
    const failure = this.failure
    this.failure = undefined
    if (failure !== undefined) throw failure.error
  }

  /** Tells the subscriptions made before announcement `at` began of a block (appended, or `removed`). */
  private onBlock(block: BlockRecord, removed: boolean, at: number): void {
    let header: Record<string, unknown> | undefined
    for (const [id, k] of this.active) {
      if (k.since >= at) continue
      if (k.type === 'newHeads' && !removed) this.tell(id, (header ??= headerNotification(block)))
      else if (k.type === 'logs') {
        // RSKj's LogsNotification: the eth_getLogs fields in the same order, logIndex counted within the transaction.
        // A listener of the in-process provider may unsubscribe on a block's first log: the rest are not sent.
        for (const log of markRemoved(blockLogs(block, k.keep, k.mayHold, true), removed)) {
          if (this.active.get(id) !== k) break
          this.tell(id, log)
        }
      }
    }
  }
}
