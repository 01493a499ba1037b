/**
 * One transaction of a block, run as the miner runs it and as the tracers replay it: the engine's `runTx` (through
 * src/node/enginePatches/runTx.ts, its lean copy for legacy transactions on RSK's rules when the patches are on) in the
 * block's context (the pool has already checked the block gas limit and RSKj's rules), then, on a chain with REMASC,
 * the fee the engine paid to the coinbase moved to REMASC (RSKj `TransactionExecutor.finalization`). Shared by
 * src/node/miner/miner.ts and src/node/exec/replay.ts so a replay can never run a transaction differently.
 */
import type { Block } from '@ethereumjs/block'
import type { RunTxResult, VM } from '@ethereumjs/vm'
import type { Address } from '@ethereumjs/util'
import { routeFee } from '../rsk/remasc/remasc.js'
import { noteBlockDeletions, runTransaction } from '../enginePatches/index.js'
import type { TxRecord } from './types.js'
import type { LiveState } from '../state/liveState.js'

export interface BlockContext {
  vm: VM
  state: LiveState
  block: Block
  coinbase: Uint8Array
  /** Whether fees go to REMASC (blocks that end with the REMASC transaction). */
  remasc: boolean
}

/**
 * Runs `t` after `gasUsed` gas of the block's earlier transactions; throws what the engine throws.
 *
 * With REMASC, RSKj never touches the coinbase for fees (`TransactionExecutor.finalization` pays REMASC), but the
 * engine pays the coinbase, creating its account when missing, even for a fee of 0. Ethereum's state clearing used to
 * delete that account again when it was left empty; RSK has none (enginePatches/accountRules.ts), so a coinbase that
 * was missing before the transaction, that the payment created, and that is empty after it, is removed here. One the
 * transaction's own execution created stays, value 0 or not, as on RSKj (`MutableRepository.addBalance` makes the
 * account for a transaction sent to it and for a CALL or STATICCALL of a contract, `Program.callToAddress`), unless a
 * revert took it back: the payment, the last write of `runTx` to the coinbase on both of its paths (the engine's and
 * enginePatches/runTx.ts), then found it existing (LiveState `watch`).
 */
export async function runBlockTransaction(ctx: BlockContext, t: TxRecord, gasUsed: bigint): Promise<RunTxResult> {
  // The execution block's coinbase: the address the engine pays.
  const miner = ctx.remasc ? ctx.block.header.coinbase : undefined
  let minerWasMissing = miner === undefined ? false : missing(ctx.state, miner)
  if (typeof minerWasMissing !== 'boolean') minerWasMissing = await minerWasMissing
  // The accounts earlier transactions of the block deleted (RSKIP125: a CREATE may not make one of them again).
  // Noted for the EVM only when there are some: most blocks delete nothing.
  const deleted = deletions.get(ctx)
  if (deleted !== undefined) noteBlockDeletions(ctx.vm.evm, deleted)
  let result: RunTxResult
  let madeByTransaction: boolean | undefined
  if (minerWasMissing) ctx.state.watch(miner!)
  try {
    // A sender with code runs as any other: RSKj has no EIP-3607 rule (TransactionExecutor, the pool's validators
    // check none), and Hardhat and Anvil let an impersonated contract send (enginePatches/contractSender.ts).
    result = await runTransaction(ctx.vm, t.tx, ctx.block, gasUsed, true)
  } finally {
    if (deleted !== undefined) noteBlockDeletions(ctx.vm.evm, undefined)
    if (minerWasMissing) madeByTransaction = ctx.state.unwatch()
  }
  // A failed transaction's are none: the engine empties the set, as RSKj clears them from a failed result.
  const selfdestructed = result.execResult.selfdestruct
  if (selfdestructed !== undefined && selfdestructed.size > 0) {
    const set = deleted ?? new Set<string>()
    for (const address of selfdestructed.keys()) set.add(address)
    deletions.set(ctx, set)
  }
  if (miner !== undefined) {
    const routing = routeFee(ctx.state, ctx.coinbase, result.totalGasSpent * t.tx.gasPrice)
    if (routing !== undefined) await routing
    // Read by the engine's payment just before: known, so answered without a promise.
    if (minerWasMissing && madeByTransaction !== true && missing(ctx.state, miner, true) === true) ctx.state.putAccountNow(miner, undefined)
  }
  return result
}

/** Per block being built or replayed (its context): the addresses its transactions self-destructed so far. */
const deletions = new WeakMap<BlockContext, Set<string>>()

/**
 * A copy of `ctx` with its own record of the block's deletions so far: a transaction run on it and then taken back
 * (the prestate tracer's first run, exec/replay.ts) leaves no deletion behind for the context's next run of it.
 */
export function contextCopy(ctx: BlockContext): BlockContext {
  const copy = { ...ctx }
  const deleted = deletions.get(ctx)
  if (deleted !== undefined) deletions.set(copy, new Set(deleted))
  return copy
}

/** Whether `address` has no account (with `orEmpty`, or an empty one); a promise only while it is still to be read. */
function missing(state: LiveState, address: Address, orEmpty = false): boolean | Promise<boolean> {
  const answer = (): boolean => {
    const account = state.accountNow(address)
    return account === undefined || (orEmpty && account.isEmpty())
  }
  const reading = state.preload([address])
  return reading === undefined ? answer() : reading.then(answer)
}
