/**
 * One queue for everything that touches the node: JSON-RPC requests and timer-driven mining run one at a time,
 * because block building holds an open state checkpoint and interleaving would corrupt it (design §3).
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve()
  private running = false
  /**
   * Runs at the end of every task, inside the queue, first: the miner reverts a pending block the task built on the
   * live state (src/node/miner/pending.ts). Returns undefined when it has nothing to do.
   */
  endEach?: () => Promise<void> | undefined
  /**
   * Runs at the end of every task, inside the queue, before the task's caller sees its result: the on-disk database
   * writes what the task changed there (src/node/persist/persistence.ts), so nothing is answered before it is kept.
   */
  afterEach?: () => Promise<void>

  /** Whether a task is running now (what runs inside one may rely on the node not changing under it). */
  get inTask(): boolean {
    return this.running
  }

  /** Runs `task` after every task queued before it; its result or error is passed through. */
  run<T>(task: () => Promise<T> | T): Promise<T> {
    const p = this.tail.then(async () => {
      this.running = true
      try {
        return await task()
      } finally {
        this.running = false
        const ended = this.endEach?.()
        if (ended !== undefined) await ended
        const after = this.afterEach
        if (after !== undefined) await after()
      }
    })
    // The next task waits for this one whether it succeeds or fails.
    this.tail = p.catch(() => undefined)
    return p
  }
}
