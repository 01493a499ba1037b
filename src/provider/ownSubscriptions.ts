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
 * until `activate` (rpc/subscription.go). Cost: only subscription requests and notifications; other requests pass as
 * before.
 */
import type { RskNode } from '../node/node.js'
import { Subscriptions, type Sink } from '../rpc/subscribe/subscriptions.js'

/** Notifications held for one subscription; `next` is the first not yet emitted. */
interface Held {
  results: unknown[]
  next: number
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

  /** eth_subscribe: the id; its notifications are held until the event loop turns. */
  subscribe(params: unknown): string {
    const id = this.subs.subscribe(params)
    this.held.set(id, { results: [], next: 0 })
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
