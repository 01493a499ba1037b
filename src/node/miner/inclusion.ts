/**
 * Waiting for a transaction to be mined without holding the node's queue (eth_sendRawTransactionSync, EIP-7966).
 * Blocks are appended inside queue tasks (automine, evm_mine, interval mining, merged mining), and the node emits
 * `block` for each one there; a watcher made inside a queue task therefore misses no block appended after it.
 */
import type { EventEmitter } from 'eventemitter3'
import type { BlockRecord } from '../chain/types.js'
import type { NodeEvents } from '../node.js'

/**
 * How a watch ends: `mined` when a block holding the transaction is appended, `timeout` at the deadline, `closed` when
 * the node closes first (its timer then holds the process no longer).
 */
export type InclusionOutcome = 'mined' | 'timeout' | 'closed'

/**
 * Watches `events` for a block holding the transaction `hashHex` until `deadline` (ms since the epoch). Make it inside
 * a queue task, right after the submission or the lookup it follows, so that no block can come between. The timer is
 * not unref'd: a process whose only work is this wait (an in-process provider with interval mining, whose timer is
 * unref'd) must still get its answer.
 */
export function watchInclusion(events: EventEmitter<NodeEvents>, hashHex: string, deadline: number): Promise<InclusionOutcome> {
  let settle: (outcome: InclusionOutcome) => void = () => undefined
  const outcome = new Promise<InclusionOutcome>((resolve) => {
    settle = resolve
  })
  const onBlock = (block: BlockRecord): void => {
    if (block.transactions.some((t) => t.hashHex === hashHex)) done('mined')
  }
  const onClosed = (): void => done('closed')
  const timer = setTimeout(() => done('timeout'), Math.max(0, deadline - Date.now()))
  function done(how: InclusionOutcome): void {
    clearTimeout(timer)
    events.off('block', onBlock)
    events.off('closed', onClosed)
    settle(how)
  }
  events.on('block', onBlock)
  events.on('closed', onClosed)
  return outcome
}
