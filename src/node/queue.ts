/**
 * One queue for everything that touches the node: JSON-RPC requests and timer-driven mining run one at a time,
 * because block building holds an open state checkpoint and interleaving would corrupt it (design §3).
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve()
  private busy = false

  /** Runs `task` after every task queued before it; its result or error is passed through. */
  run<T>(task: () => Promise<T> | T): Promise<T> {
    // Fast path: nothing queued, so the task may start at once (saves a microtask hop per request).
    if (!this.busy) {
      this.busy = true
      const p = Promise.resolve().then(task).finally(() => this.release(p))
      this.tail = p
      return p
    }
    const p = this.tail.then(task, task).finally(() => this.release(p))
    this.tail = p
    return p
  }

  private release(p: Promise<unknown>): void {
    if (this.tail === p) this.busy = false
  }
}
