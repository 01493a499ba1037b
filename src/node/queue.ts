/**
 * One queue for everything that touches the node: JSON-RPC requests and timer-driven mining run one at a time,
 * because block building holds an open state checkpoint and interleaving would corrupt it (design §3).
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve()

  /** Runs `task` after every task queued before it; its result or error is passed through. */
  run<T>(task: () => Promise<T> | T): Promise<T> {
    const p = this.tail.then(task)
    // The next task waits for this one whether it succeeds or fails.
    this.tail = p.catch(() => undefined)
    return p
  }
}
