/**
 * The response-size budget of a trace (RSKj `rpc.maxResponseSize`, 10 MiB, reference §1.1): tracers add the JSON
 * size of what they record as they record it and stop the replay as soon as the reply would pass the limit, so an
 * opcode-by-opcode trace of a long loop costs at most the limit in memory and time, not gigabytes.
 */

/** Thrown by a tracer whose reply would pass the limit; the dispatcher answers RSKj's -32011 (rpc/ translates). */
export class ResponseTooLarge extends Error {
  override readonly name = 'ResponseTooLarge'
  constructor(readonly limit: number) {
    super(`Response size limit of ${limit} bytes exceeded`)
  }
}

export class SizeBudget {
  private used = 0

  /** `limit` in bytes; 0 = unlimited. */
  constructor(readonly limit: number) {}

  /** Counts `bytes` more of the reply; throws `ResponseTooLarge` past the limit. */
  spend(bytes: number): void {
    if (this.limit === 0) return
    this.used += bytes
    if (this.used > this.limit) throw new ResponseTooLarge(this.limit)
  }
}
