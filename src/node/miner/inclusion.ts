/**
 * Waiting for a transaction to be mined without holding the node's queue (eth_sendRawTransactionSync, EIP-7966).
 * Blocks are appended inside queue tasks (automine, evm_mine, interval mining, merged mining), and the node emits
 * `block` for each one there; a watcher made inside a queue task therefore misses no block appended after it.
 */
import type { EventEmitter } from 'eventemitter3'
import type { BlockRecord } from '../chain/types.js'
import type { NodeEvents } from '../node.js'

/** A watch for one transaction: `mined` settles true when a block holding it is appended, false at the deadline. */
export interface InclusionWatch {
  readonly mined: Promise<boolean>
}

/**
 * Watches `events` for a block holding the transaction `hashHex` until `deadline` (ms since the epoch). Make it inside
 * a queue task, right after the submission or the lookup it follows, so that no block can come between. The timer is
 * not unref'd: a process whose only work is this wait (an in-process provider with interval mining, whose timer is
 * unref'd) must still get its answer.
 */
export function watchInclusion(events: EventEmitter<NodeEvents>, hashHex: string, deadline: number): InclusionWatch {
  let settle: (mined: boolean) => void = () => undefined
  const mined = new Promise<boolean>((resolve) => {
    settle = resolve
  })
  const onBlock = (block: BlockRecord): void => {
    if (block.transactions.some((t) => t.hashHex === hashHex)) done(true)
  }
  const timer = setTimeout(() => done(false), Math.max(0, deadline - Date.now()))
  function done(result: boolean): void {
    clearTimeout(timer)
    events.off('block', onBlock)
    settle(result)
  }
  events.on('block', onBlock)
  return { mined }
}
