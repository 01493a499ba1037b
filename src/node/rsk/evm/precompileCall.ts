/**
 * What RSKj does around every precompile it calls (`org/ethereum/vm/program/Program.callToPrecompiledAddress`), for
 * the precompiles rsksim gives the engine (ethereumPrecompiles.ts, secp256k1Precompiles.ts, environmentPrecompile.ts):
 *
 * - at most the precompile's maximum input reaches it (RSKIP516, `getInputLength`);
 * - its price (`getGasForData`, on that input) is charged first, all the call's gas when it has less;
 * - a failure costs the price, and the rest of the call's gas goes back to the caller (RSKIP197,
 *   `executePrecompiledAndHandleError`).
 */
import { EVMError, type ExecResult, type PrecompileFunc, type PrecompileInput } from '@ethereumjs/evm'
import { takeCallerDepth } from '../../enginePatches/index.js'

export interface PrecompileRule {
  /** RSKIP516's cut: at most this many bytes reach the precompile (undefined: all). */
  maxInput?: number
  /**
   * The cut applies only to a call from code (`Program.callToPrecompiledAddress`): a transaction or local call
   * straight to the precompile is priced and run on its whole data (`TransactionExecutor.call`). Where that differs
   * (blake2f, which refuses any length but 213), the CALL family notes the calling frame for the precompile's
   * address (evmProfile.ts, enginePatches/callDepth.ts), and no note means a direct call.
   */
  cutOnlyFromCode?: boolean
  /** RSKj's `getGasForData` for the (cut) input. */
  price: (data: Uint8Array) => bigint
}

/** A failed precompile call that used `gasUsed`. */
export const failed = (gasUsed: bigint, error: EVMError['error'] = EVMError.errorMessages.INTERNAL_ERROR): ExecResult => ({
  returnValue: new Uint8Array(0),
  executionGasUsed: gasUsed,
  exceptionError: new EVMError(error),
})

/** `run` under RSKj's rules above: its result when it succeeds, a failure at the price when it fails. */
export function rskjPrecompile(run: PrecompileFunc, rule: PrecompileRule): PrecompileFunc {
  return async (input: PrecompileInput) => {
    const cut = rule.maxInput !== undefined && input.data.length > rule.maxInput && (rule.cutOnlyFromCode !== true || takeCallerDepth(input._EVM) !== undefined)
    const data = cut ? input.data.subarray(0, rule.maxInput) : input.data
    const price = rule.price(data)
    if (price > input.gasLimit) return failed(input.gasLimit, EVMError.errorMessages.OUT_OF_GAS)
    const result = await run(data === input.data ? input : { ...input, data })
    return result.exceptionError === undefined ? result : failed(price, result.exceptionError.error)
  }
}
