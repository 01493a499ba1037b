/**
 * The execution deadline of one node (RSKj's global `rpc.timeout`, reference §1.1–1.2: a request running longer is
 * answered -32011 `Execution has got timeout out.`).
 *
 * JavaScript cannot interrupt a running function, so the EVM checks the deadline itself: every EVM of the node runs
 * JUMPDEST through a custom opcode that calls `tick()` (every loop passes a JUMPDEST, so no bytecode runs long
 * without one). Past the deadline each JUMPDEST fails its frame as out of gas, an ordinary EVM error: the engine
 * unwinds every frame and reverts every checkpoint as it always does, so the live state is left exactly as before
 * the call. The request then answers the timeout, whatever the execution returned (`within`). Long loops outside
 * the EVM (block replays) call `check()`, which throws `ExecutionTimeout` directly.
 *
 * The deadline is armed around each JSON-RPC request and suspended while a block is built: a mined block must
 * never depend on the clock. One guard per node, not per process: two providers in one process run interleaved,
 * and one's deadline must never stop the other's block.
 */
import { EVMError } from '@ethereumjs/evm'

/** Thrown when a request ran past its deadline; the dispatcher answers it with RSKj's -32011 (rpc/ translates). */
export class ExecutionTimeout extends Error {
  override readonly name = 'ExecutionTimeout'
  constructor() {
    super('Execution has got timeout out.')
  }
}

/** How many JUMPDESTs pass between two reads of the clock (a loop iteration costs far more than a counter). */
const TICKS_PER_CHECK = 256

export class ExecutionGuard {
  private deadline = Number.POSITIVE_INFINITY
  private ticks = 0
  /** The armed deadline has passed: every further JUMPDEST fails until the request ends. */
  private expired = false

  /** Called by the JUMPDEST opcode: fails the frame (out of gas) once the deadline has passed. */
  readonly tick = (): void => {
    if (!this.expired) {
      if (++this.ticks < TICKS_PER_CHECK) return
      this.ticks = 0
      if (!this.passed()) return
      this.expired = true
    }
    throw new EVMError(EVMError.errorMessages.OUT_OF_GAS)
  }

  /** Throws `ExecutionTimeout` when the armed deadline has passed. */
  check(): void {
    if (this.expired || this.passed()) throw new ExecutionTimeout()
  }

  /**
   * Runs `task` with a deadline `ms` from now (0 = none). Throws `ExecutionTimeout` if the deadline passed while it
   * ran, even when the task itself returned (an execution stopped by the deadline returns an out-of-gas result).
   */
  within<T>(ms: number, task: () => Promise<T> | T): Promise<T> {
    return this.with(ms > 0 ? Date.now() + ms : Number.POSITIVE_INFINITY, task, true)
  }

  /**
   * Waits for `pending` (a fork's remote read) no longer than the armed deadline: past it the request fails with
   * `ExecutionTimeout`, so a slow remote holds the node's queue no longer than any request may run. The read itself
   * goes on, and what it brings is kept for the next request (src/node/fork/forkState.ts). Without a deadline
   * (block building) it waits for the read.
   */
  async wait<T>(pending: Promise<T>): Promise<T> {
    if (this.deadline === Number.POSITIVE_INFINITY) return pending
    const left = this.deadline - Date.now()
    if (left <= 0) {
      this.expired = true
      throw new ExecutionTimeout()
    }
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.expired = true
        reject(new ExecutionTimeout())
      }, left)
    })
    try {
      return await Promise.race([pending, late])
    } finally {
      clearTimeout(timer)
    }
  }

  /** Runs `task` with no deadline: block building, whose result must not depend on the clock. */
  unbounded<T>(task: () => Promise<T> | T): Promise<T> {
    return this.with(Number.POSITIVE_INFINITY, task, false)
  }

  private passed(): boolean {
    return this.deadline !== Number.POSITIVE_INFINITY && Date.now() > this.deadline
  }

  private async with<T>(deadline: number, task: () => Promise<T> | T, report: boolean): Promise<T> {
    const previous = { deadline: this.deadline, expired: this.expired }
    this.deadline = deadline
    this.expired = false
    try {
      let result: T
      try {
        result = await task()
      } catch (e) {
        // Whatever an execution stopped by the deadline led to (a failed estimate, a revert), the answer is the timeout.
        throw report && this.expired ? new ExecutionTimeout() : e
      }
      if (report && this.expired) throw new ExecutionTimeout()
      return result
    } finally {
      this.deadline = previous.deadline
      this.expired = previous.expired
    }
  }
}
