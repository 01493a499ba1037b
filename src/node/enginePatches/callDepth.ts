/**
 * The depth of the call frame an EVM last started, for RSK's Environment precompile (RSKIP203 `getCallStackDepth`,
 * src/node/rsk/evm/environmentPrecompile.ts): a precompile is given its input, gas and EVM, not the depth of its call.
 * Each EVM's `_executeCall` (an engine internal: every message call, precompiles included, starts there) records its
 * message's depth before it runs. A precompile starts no frame of its own, so while it runs the value recorded last
 * is the depth of its own call.
 *
 * Not a speed patch: applied to every EVM rsksim creates whether or not the speed patches are on (applyRskRules in
 * accountRules.ts), so results are the same both ways. Checked at load: the engine's `_executeCall` reads
 * `message.depth`. When it does not, nothing is recorded and the Environment precompile answers as at the top level.
 */
import { EVM } from '@ethereumjs/evm'
import { enginePatches } from './switch.js'

interface Message {
  depth: number
}

interface EvmInternals {
  _executeCall(message: Message): Promise<unknown>
}

const proto = EVM.prototype as unknown as Partial<EvmInternals>

/** Whether the engine's `_executeCall` takes a message with a depth, as this was written against. */
export const callDepthFound: boolean =
  enginePatches.installable && typeof proto._executeCall === 'function' && proto._executeCall.toString().includes('message.depth')

/** Where an EVM keeps the depth of the call frame it last started. */
const DEPTH = Symbol('rsksim.callDepth')

type Tracked = EvmInternals & { [DEPTH]?: number }

/** Records each call frame's depth for `evm`; returns whether it took effect. Idempotent per EVM. */
export function trackCallDepth(evm: EVM): boolean {
  if (!callDepthFound) return false
  const e = evm as unknown as Tracked
  if (e[DEPTH] !== undefined) return true
  const executeCall = proto._executeCall!
  e._executeCall = function (this: Tracked, message: Message) {
    this[DEPTH] = message.depth
    return executeCall.call(this, message)
  }
  e[DEPTH] = 0
  return true
}

/** The depth of the call frame `evm` last started, or undefined when it is not tracked. */
export function currentCallDepth(evm: unknown): number | undefined {
  return typeof evm === 'object' && evm !== null ? (evm as Tracked)[DEPTH] : undefined
}
