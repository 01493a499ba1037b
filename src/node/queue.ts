/**
 * One queue for everything that touches the node: JSON-RPC requests and timer-driven mining run one at a time,
 * because block building holds an open state checkpoint and interleaving would corrupt it (design §3).
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve()
  /**
   * Runs at the end of every task, inside the queue, before the task's caller sees its result: the on-disk database
   * writes what the task changed there (src/node/persist/persistence.ts), so nothing is answered before it is kept.
   */
  afterEach?: () => Promise<void>

  /** Runs `task` after every task queued before it; its result or error is passed through. */
  run<T>(task: () => Promise<T> | T): Promise<T> {
    const p = this.tail.then(async () => {
      const after = this.afterEach
      if (after === undefined) return task()
      try {
        return await task()
      } finally {
        await after()
      }
    })
    // The next task waits for this one whether it succeeds or fails.
    this.tail = p.catch(() => undefined)
    return p
  }
}
