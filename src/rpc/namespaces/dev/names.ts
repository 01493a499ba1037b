/**
 * Naming helpers of the dev-chain methods: one handler under several wire names, and the answer each peer gives
 * for a setter (Anvil answers `null`, Hardhat and Ganache `true`).
 */
import type { HandlerContext, MethodSpec, MethodTable } from '../../method.js'

/** The same handler under each of `names`. */
export function aliases(names: readonly string[], spec: MethodSpec): MethodTable {
  return Object.fromEntries(names.map((n) => [n, spec]))
}

/** A setter's answer in the naming family it was called by: `null` for `anvil_*`, else `true`. */
export function ok(ctx: HandlerContext): true | null {
  return ctx.method.startsWith('anvil_') ? null : true
}
