/**
 * The call depth of the frame that calls RSK's Environment precompile (RSKIP203 `getCallStackDepth`,
 * src/node/rsk/evm/environmentPrecompile.ts), which a precompile is not given: its input holds data, gas and the EVM.
 * The CALL family's gas function (src/node/rsk/evm/evmProfile.ts), which runs in the calling frame just before the
 * call, notes that frame's depth (`runState.interpreter._env.depth`, an engine field) for its EVM
 * (`runState.interpreter._evm`) when the target is the Environment precompile, and the precompile takes the note.
 * blake2f's calls are noted too: only a call from code cuts its input to 213 bytes (precompileCall.ts
 * `cutOnlyFromCode`), and no note means a transaction or eth_call straight to it.
 * A note left by a call that never reached the precompile (not enough balance for its value, the depth limit) is
 * dropped when the EVM's journal is cleaned up, before and after every transaction and call (accountRules.ts), so a
 * later call straight to the precompile cannot read it.
 *
 * Not a speed patch: in effect whether or not the speed patches are on, so results are the same both ways. Only the
 * calls to the Environment precompile and blake2f pay for it. The two fields are checked where they are read; when
 * either is missing nothing is noted, and the precompile answers as for a call from a transaction.
 */

interface InterpreterFields {
  _evm?: unknown
  _env?: { depth?: unknown }
}

/** The depth noted for each EVM's pending call to the Environment precompile. */
const notes = new WeakMap<object, number>()

/** Notes the depth of the frame running `runState` (a CALL-family gas function's run state), for its EVM. */
export function noteCallerDepth(runState: { interpreter: unknown }): void {
  const interpreter = runState.interpreter as InterpreterFields
  const evm = interpreter._evm
  const depth = interpreter._env?.depth
  if (typeof evm === 'object' && evm !== null && typeof depth === 'number') notes.set(evm, depth)
}

/** Takes (and forgets) the depth noted for `evm`'s call: the calling frame's depth, or undefined (a direct call). */
export function takeCallerDepth(evm: unknown): number | undefined {
  if (typeof evm !== 'object' || evm === null) return undefined
  const depth = notes.get(evm)
  if (depth !== undefined) notes.delete(evm)
  return depth
}

/** Forgets a note `evm` did not take (accountRules.ts, when the EVM's journal is cleaned up). */
export function forgetCallerDepth(evm: object): void {
  notes.delete(evm)
}
