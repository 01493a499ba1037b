/**
 * A tracer around one run (an `eth_call`, a replayed transaction, the REMASC system transaction): attached to the EVM
 * while it runs (`listening`) and, for a tracer that reads the state around it (the prestate tracer,
 * tracers/prestateTracer.ts), the run inside a checkpoint taken back once the tracer read the state it left
 * (`settleAround`). Used by call.ts, replay.ts and tracers/index.ts.
 */
import type { EVM } from '@ethereumjs/evm'

/** Something that listens to the EVM's events while a run goes. */
export interface EvmListener {
  attach(evm: EVM): void
  detach(evm: EVM): void
}

/** Something that reads the state `S` around a run: the state the run left (`after`), then the one it started from (`before`). */
export interface StateReader<S> {
  settle?(state: S, when: 'after' | 'before'): Promise<void>
}

/** What a checkpoint is opened and taken back on: the state itself, or the EVM's journal over it (an `eth_call`'s). */
export interface Checkpoints {
  checkpoint(): Promise<void>
  revert(): Promise<void>
}

/**
 * `run` with `listener` attached to `evm`, detached however the run ends.
 *
 * @example
 * const result = await listening(evm, recorder, () => evm.runCall(opts))
 */
export async function listening<T>(evm: EVM, listener: EvmListener | undefined, run: () => Promise<T>): Promise<T> {
  listener?.attach(evm)
  try {
    return await run()
  } finally {
    listener?.detach(evm)
  }
}

/**
 * `run` inside a checkpoint of `checkpoints` over `state`: `reader` reads the state the run left, the checkpoint is
 * taken back (also when the run or the reading throws), then `reader` reads the state the run started from. Answers
 * the run's result; nothing the run did is kept.
 *
 * @example
 * const result = await settleAround(state, state, recorder, () => runBlockTransaction(context, t, gasUsed))
 */
export async function settleAround<S, T>(checkpoints: Checkpoints, state: S, reader: StateReader<S>, run: () => Promise<T>): Promise<T> {
  await checkpoints.checkpoint()
  let result: T
  try {
    result = await run()
    await reader.settle?.(state, 'after')
  } finally {
    await checkpoints.revert()
  }
  await reader.settle?.(state, 'before')
  return result
}
