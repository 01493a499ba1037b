/**
 * RSK's rules that need the engine's internals, applied to every EVM rsksim creates (src/node/chain/chain.ts,
 * src/node/exec/call.ts, src/node/exec/replay.ts), whether or not the speed patches are on: the account rules
 * (accountRules.ts) and the call depth the Environment precompile answers (callDepth.ts).
 */
import type { EVM } from '@ethereumjs/evm'
import { applyAccountRules } from './accountRules.js'
import { trackCallDepth } from './callDepth.js'

export function applyRskRules(evm: EVM): void {
  applyAccountRules(evm)
  trackCallDepth(evm)
}
