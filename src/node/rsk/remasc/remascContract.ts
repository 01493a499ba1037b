/**
 * REMASC's contract as users reach it (0x01000008; RSKj `co/rsk/remasc/RemascContract`, a precompile). The block's
 * own REMASC transaction does not come here: the miner runs `processMinersFees` itself (remasc.ts). RSKj's contract:
 *
 * - **Methods** (`getFunction`): no data is `processMinersFees()`; otherwise the data must be exactly a 4-byte
 *   selector of `processMinersFees()` or `getStateForDebugging()`. Anything else throws
 *   (`RemascInvalidInvocationException`).
 * - **`processMinersFees()`** throws unless it runs in the block's REMASC transaction (`Remasc.processMinersFees`:
 *   "Invoked Remasc outside last tx of the block"), so from a user it always fails: a contract's CALL pushes 0 and the
 *   value goes back; a transaction sent straight to it keeps the failure without an execution error (status 0x1, the
 *   value stays with the sender: `failureKeptByRskj`, src/node/rsk/evm/evmProfile.ts). So value sent to REMASC never
 *   reaches it.
 * - **`getStateForDebugging()`** answers ABI `bytes` (as RSKj's native contracts write it, nativeAbi.ts): the RLP list
 *   `RemascState.getEncoded` builds: the reward balance and the burned balance (`RLP.encodeCoin`: 0 as 0x80, else
 *   minimal big-endian), an empty list (the siblings, empty since 0.5.0), and the broken-selection-rule flag as one
 *   raw byte (0 or 1). The balances and the flag are REMASC's storage words (`RemascStorageProvider`: keys
 *   `DataWord.fromString("rewardBalance")`, `"burnedBalance"`, `"brokenSelectionRule"`; the flag is true when its
 *   stored bytes start with a non-zero byte), read through the EVM's state (on a fork, the remote's).
 * - **Price** 0 for any data (`getGasForData`), so a failure costs nothing either.
 */
import type { CustomPrecompile, ExecResult, PrecompileInput } from '@ethereumjs/evm'
import { bigIntToUnpaddedBytes, bytesToBigInt, equalsBytes } from '@ethereumjs/util'
import { rlpEncode } from '../../rlp.js'
import { failed, rskjPrecompile } from '../evm/precompileCall.js'
import { abiSelector, nativeAbiBytes } from '../evm/nativeAbi.js'
import { dataWord } from './remascReceipt.js'
import { REMASC, REMASC_ADDRESS_HEX } from './remascTx.js'

const GET_STATE_FOR_DEBUGGING = abiSelector('getStateForDebugging()')
const KEYS = { rewardBalance: dataWord('rewardBalance'), burnedBalance: dataWord('burnedBalance'), brokenSelectionRule: dataWord('brokenSelectionRule') }

/** `RemascState.getEncoded` of REMASC's stored state. */
async function stateForDebugging(input: PrecompileInput): Promise<Uint8Array> {
  const state = input._EVM.stateManager
  const [reward, burned, broken] = await Promise.all([
    state.getStorage(REMASC, KEYS.rewardBalance),
    state.getStorage(REMASC, KEYS.burnedBalance),
    state.getStorage(REMASC, KEYS.brokenSelectionRule),
  ])
  const flag = broken.length > 0 && broken[0] !== 0 ? 1 : 0
  return rlpEncode([bigIntToUnpaddedBytes(bytesToBigInt(reward)), bigIntToUnpaddedBytes(bytesToBigInt(burned)), [], Uint8Array.of(flag)])
}

async function run(input: PrecompileInput): Promise<ExecResult> {
  // Only `getStateForDebugging()` can succeed: no data is `processMinersFees()`, which fails outside the block's
  // REMASC transaction, as does its selector, and any other data fails too.
  if (input.data.length !== 4 || !equalsBytes(input.data, GET_STATE_FOR_DEBUGGING)) return failed(0n)
  return { returnValue: nativeAbiBytes(await stateForDebugging(input)), executionGasUsed: 0n }
}

/** REMASC's contract for calls and transactions from users, for `createEVM({ customPrecompiles })`. */
export function remascPrecompile(): CustomPrecompile[] {
  return [{ address: REMASC_ADDRESS_HEX, function: rskjPrecompile(run, { price: () => 0n }) }]
}
