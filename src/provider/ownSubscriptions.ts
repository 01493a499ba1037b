/**
 * The in-process provider's own subscriptions (eth_subscribe / eth_unsubscribe through `provider.request`), with
 * the order a WebSocket client gets (src/server/ws.ts): no notification of a subscription before its id has reached
 * the caller.
 *
 * In process, `request` answers eth_subscribe without waiting for the node's queue, but a block, a pending
 * transaction or a revert that a request sent earlier is still building runs on the same microtask queue, and may be
 * announced after the subscription is made yet before the code awaiting the id resumes: a client that files its
 * subscriptions by id only once the id came back (web3.js v4, `Web3SubscriptionManager.addSubscription`) dropped it,
 * and a listener added right after the `await` never saw it. So did a subscription made by a listener while a block
 * was being announced: it was told of that block in the same synchronous run, before any code awaiting its id ran.
 * The id reaches the caller on microtasks alone (the caller's awaits, a client's layers), so a subscription's
 * notifications wait, in order, until the event loop next turns (`setImmediate`), as geth's `Notifier` buffers them
 * until `activate` (rpc/subscription.go), or until a request sent after the subscription was made answers, whichever
 * comes first. The second rule keeps the common test written on microtasks alone working (`await eth_subscribe`,
 * `await evm_mine`, then read what the listener got): that request was sent after the id came back, so its block is
 * announced before its answer, as a WebSocket client gets it. Left open: a request another flow sends after the
 * subscribe call and that answers before the subscriber's own layers have resumed (a few microtasks) lets its
 * notifications through first; no provider can tell that flow from the subscriber's own.
 * Cost: subscription requests and notifications, and one comparison per request while a subscription holds some.
 */
import type { RskNode } from '../node/node.js'
import { Subscriptions, type Sink } from '../rpc/subscribe/subscriptions.js'

/** Notifications held for one subscription; `next` is the first not yet emitted. */
interface Held {
  results: unknown[]
  next: number
  /** How many requests had been sent to the provider when the subscription was made (`Provider.request`'s count). */
  made: number
}

export class OwnSubscriptions {
  private readonly subs: Subscriptions
  /** Subscriptions whose id may not have reached the caller yet, with what they were told meanwhile. */
  private readonly held = new Map<string, Held>()
  /** Ids to release at the next turn of the event loop, in the order they were made. */
  private waiting: string[] = []
  private scheduled = false

  /** `emit` delivers one notification (the provider's `message` and `data` events). */
  constructor(
    node: RskNode,
    private readonly emit: Sink,
  ) {
    this.subs = new Subscriptions(node, (id, result) => {
      const held = this.held.size === 0 ? undefined : this.held.get(id)
      if (held === undefined) emit(id, result)
      else held.results.push(result)
    })
  }

  /**
   * eth_subscribe: the id; its notifications are held until the event loop turns or a request counted after `made`
   * answers (`releaseMadeBefore`).
   */
  subscribe(params: unknown, made: number): string {
    const id = this.subs.subscribe(params)
    this.held.set(id, { results: [], next: 0, made })
    this.waiting.push(id)
    if (!this.scheduled) {
      this.scheduled = true
      setImmediate(this.release)
    }
    return id
  }

  /** eth_unsubscribe: once it answers true, nothing more is emitted for the id, what was held included. */
  unsubscribe(params: unknown): boolean {
    return this.subs.unsubscribe(params)
  }

  /**
   * Called before a request answers, with its count (the requests sent before it, itself included): what the
   * subscriptions made before it was sent hold is emitted, in the order they were made. The request was sent after
   * those eth_subscribe calls had answered, so by the time its own answer is read their ids were. A listener that
   * throws stops the release there (the request rejects, as when a listener throws while its block is announced);
   * what is left waits for the next turn, as in `release`.
   */
  releaseMadeBefore(sent: number): void {
    if (this.held.size === 0) return
    let n = 0
    while (n < this.waiting.length && (this.held.get(this.waiting[n]!)?.made ?? -1) < sent) n++
    if (n === 0) return
    const ids = this.waiting.splice(0, n)
    this.flushAll(ids)
  }

  /** Drops every subscription and what they hold. */
  close(): void {
    this.subs.close()
    this.held.clear()
    this.waiting = []
  }

  /**
   * Emits what the waiting subscriptions were told, each in order, then lets their notifications through. Ids made
   * meanwhile (by a listener) wait for the next turn. A listener that throws stops the release there, as it stops an
   * event's other listeners; what is left is released at the next turn, so nothing is lost or sent twice.
   */
  private readonly release = (): void => {
    this.scheduled = false
    const ids = this.waiting
    this.waiting = []
    this.flushAll(ids)
  }

  /**
   * Flushes `ids` (taken from the front of `waiting`) in order. If a listener throws, the ids not done (the one whose
   * listener threw included: it resumes after the notification that threw) go back to the front of `waiting` for the
   * next turn, and the error goes on to the caller.
   */
  private flushAll(ids: readonly string[]): void {
    let done = 0
    try {
      for (; done < ids.length; done++) this.flush(ids[done]!)
    } finally {
      if (done < ids.length) {
        this.waiting = [...ids.slice(done), ...this.waiting]
        if (!this.scheduled) {
          this.scheduled = true
          setImmediate(this.release)
        }
      }
    }
  }

  private flush(id: string): void {
    const held = this.held.get(id)
    if (held === undefined) return
    // A listener may unsubscribe meanwhile (nothing more goes out), or cause notifications (they join the queue).
    while (held.next < held.results.length && this.subs.has(id)) this.emit(id, held.results[held.next++])
    this.held.delete(id)
  }
}
