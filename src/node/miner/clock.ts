/**
 * Block time. RSKj `MinerClock`: the next block's timestamp is max(now + offset, parent + 1); `evm_increaseTime`
 * adds to the offset, which is cleared once a block has been built with it (reference §3.3).
 */
/** Largest block timestamp: RSKj keeps timestamps in a Java long (`BlockHeader.timestamp`). */
export const MAX_TIMESTAMP = 2n ** 63n - 1n

export class Clock {
  /** Seconds added by `evm_increaseTime` and not yet used by a block. */
  offset = 0n
  /**
   * Seconds the node's clock runs ahead of (or behind) the wall clock for good: set by `evm_setNextBlockTimestamp`
   * (time goes on from the pinned block, as in Hardhat and Anvil) and Ganache's `evm_setTime`.
   */
  drift = 0n
  /**
   * Every second `evm_increaseTime` ever added (the offset is consumed by the next block; this is not). The
   * transaction quota clock (src/node/pool/txQuota.ts) counts it so that time travel refills quotas.
   */
  skipped = 0n

  /** Current wall-clock time in whole seconds. */
  static now(): bigint {
    return BigInt(Math.floor(Date.now() / 1000))
  }

  /** The node's current time: the wall clock plus the drift. */
  time(): bigint {
    return Clock.now() + this.drift
  }

  /** Adds `seconds` (ignored when ≤ 0, as RSKj) and returns the accumulated offset. */
  increase(seconds: bigint): bigint {
    if (seconds > 0n) {
      this.offset += seconds
      this.skipped += seconds
    }
    return this.offset
  }

  /** Timestamp of the next block only (`evm_setNextBlockTimestamp`); undefined when not set. */
  pinned: bigint | undefined
  /** Seconds between consecutive blocks (`anvil_setBlockTimestampInterval`); undefined = wall clock. */
  interval: bigint | undefined

  /**
   * Timestamp for a block on top of a parent with `parentTimestamp`: the requested one, else the pinned one, else
   * parent + interval when an interval is set, else now + offset; never at or before the parent's. Consumes the
   * offset and the pinned time. After a requested or pinned time the clock goes on from it, as Anvil 1.7.1's does
   * (`evm_mine(t)`, then a block 3 s later: t + 3; checked by hand).
   */
  next(parentTimestamp: bigint, requested?: bigint): bigint {
    const time = requested === undefined ? this.peek(parentTimestamp) : requested > parentTimestamp ? requested : parentTimestamp + 1n
    if (requested !== undefined || this.pinned !== undefined) this.drift = time - Clock.now()
    this.offset = 0n
    this.pinned = undefined
    return time
  }

  /** The timestamp `next` would give a block now, without consuming anything (the pending block's: pending.ts). */
  peek(parentTimestamp: bigint): bigint {
    const wanted = this.pinned ?? (this.interval !== undefined ? parentTimestamp + this.interval : this.time() + this.offset)
    return wanted > parentTimestamp ? wanted : parentTimestamp + 1n
  }
}
