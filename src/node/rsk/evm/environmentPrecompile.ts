/**
 * RSK's Environment precompile (0x01000011, RSKIP203; RSKj `co/rsk/pcc/environment/Environment`, a native contract
 * with one method): `getCallStackDepth()` answers, as a uint32 word, the call depth of its caller plus one (RSKj
 * `GetCallStackDepth`: `programInvoke.getCallDeep() + 1`, and 1 when called by a transaction directly). A contract
 * called by a transaction reads 1; one called by that contract reads 2.
 *
 * As any RSKj native contract (`co/rsk/pcc/NativeContract`): the method is chosen by the data's first four bytes (the
 * ABI selector; bytes after it are ignored, as a method without arguments decodes none); no data, 1-3 bytes or an
 * unknown selector fail. Its price is 0, so a failure costs nothing either (`Program.executePrecompiledAndHandleError`).
 * The caller's depth is noted by the CALL family's gas function (src/node/enginePatches/callDepth.ts).
 */
import type { CustomPrecompile, ExecResult, PrecompileInput } from '@ethereumjs/evm'
import { bigIntToBytes, equalsBytes, setLengthLeft } from '@ethereumjs/util'
import { takeCallerDepth } from '../../enginePatches/index.js'
import { failed, rskjPrecompile } from './precompileCall.js'
import { abiSelector } from './nativeAbi.js'

const ENVIRONMENT = '0x0000000000000000000000000000000001000011'
/** The precompile's address as the stack word a CALL names it by (src/node/rsk/evm/evmProfile.ts). */
export const ENVIRONMENT_WORD = 0x01000011n
const GET_CALL_STACK_DEPTH = abiSelector('getCallStackDepth()')

function environment(input: PrecompileInput): ExecResult {
  const data = input.data
  const caller = takeCallerDepth(input._EVM)
  if (data.length < 4 || !equalsBytes(data.subarray(0, 4), GET_CALL_STACK_DEPTH)) {
    return failed(0n)
  }
  // The caller's depth + 1 (RSKj: callDeep + 1, a transaction's own frame being 0); a call from no frame (a
  // transaction or eth_call straight to the precompile) answers 1, as RSKj does without a calling program.
  const depth = caller === undefined ? 1 : caller + 1
  return { returnValue: setLengthLeft(bigIntToBytes(BigInt(depth)), 32), executionGasUsed: 0n }
}

/** The Environment precompile, for `createEVM({ customPrecompiles })`. */
export function environmentPrecompile(): CustomPrecompile[] {
  return [{ address: ENVIRONMENT, function: rskjPrecompile(environment, { price: () => 0n }) }]
}
