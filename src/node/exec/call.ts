/**
 * Local execution without a transaction: `eth_call` and `eth_estimateGas` (reference §5.1, §5.2).
 *
 * A call runs inside a checkpoint of the state of its block that is always reverted, so nothing it does is kept.
 * Like RSKj's `ReversibleTransactionExecutor`, a call skips the balance and nonce pre-checks and runs in the
 * context of the selected block (its number, timestamp, coinbase, gas limit).
 */
import { EVMError, type EVM, type EVMResult, type ExecResult } from '@ethereumjs/evm'
import { Account, Address, bigIntToBytes, bytesToBigInt, setLengthLeft } from '@ethereumjs/util'
import type { StateManagerInterface } from '@ethereumjs/common'
import type { VM } from '@ethereumjs/vm'
import type { Chain } from '../chain/chain.js'
import { executionBlock } from '../chain/execBlock.js'
import type { BlockRecord } from '../chain/types.js'
import { failureKeptByRskj, isRskPrecompile } from '../rsk/evm/evmProfile.js'
import { LocalCallGasTooLow } from '../errors.js'
import { LiveState } from '../state/liveState.js'
import { listening, settleAround, type EvmListener, type StateReader } from './listen.js'

export interface CallRequest {
  from?: Uint8Array
  to?: Uint8Array
  gas?: bigint
  gasPrice?: bigint
  value?: bigint
  data?: Uint8Array
}

/** Temporary changes of one account for one call (spec "State override entry"). */
export interface AccountOverride {
  balance?: bigint
  nonce?: bigint
  code?: Uint8Array
  state?: Map<bigint, bigint>
  stateDiff?: Map<bigint, bigint>
}

export type StateOverrides = Map<string, { address: Uint8Array; override: AccountOverride }>

export interface CallOutcome {
  /** Gas used by the whole transaction, intrinsic gas included and refunds deducted. */
  gasUsed: bigint
  /** Gas used before refunds (the gas the transaction needed to hold). */
  gasPeak: bigint
  returnValue: Uint8Array
  /** Engine error name (`revert`, `out of gas`, …) when execution failed. */
  error?: string
  /** Address of the created contract, for creation calls. */
  createdAddress?: Uint8Array
  /** The engine's result as it came (a tracer reads it); undefined when nothing ran (the gas below the intrinsic). */
  execResult?: ExecResult
}

/**
 * Something that listens to the EVM while the call runs (a tracer: exec/tracers); with `settle`, as exec/replay.ts
 * `TxListener.settle`: the state the call left, then (the call taken back) the one it started from (listen.ts).
 */
export interface CallListener extends EvmListener, StateReader<StateManagerInterface> {}

/** Intrinsic gas of a transaction (RSK: 21,000 / 53,000 for creation, 4 per zero byte, 16 per other byte, 2 per initcode word). */
export function intrinsicGas(data: Uint8Array, isCreate: boolean): bigint {
  // Bytes counted as numbers, one BigInt at the end: a BigInt sum per byte allocated 1.4 KB per balanceOf call.
  let zeros = 0
  for (let i = 0; i < data.length; i++) if (data[i] === 0) zeros++
  const dataGas = zeros * 4 + (data.length - zeros) * 16 + (isCreate ? 2 * Math.ceil(data.length / 32) : 0)
  return (isCreate ? 53_000n : 21_000n) + BigInt(dataGas)
}

/** Runs `req` at `block` with `gasLimit`, applying `overrides`, with `listener` on the EVM; never keeps any change. */
export async function execute(
  chain: Chain,
  block: BlockRecord,
  req: CallRequest,
  gasLimit: bigint,
  overrides?: StateOverrides,
  listener?: CallListener,
): Promise<CallOutcome> {
  const { evm, state } = await evmAt(chain, block)
  const data = req.data ?? new Uint8Array()
  const isCreate = req.to === undefined
  const intrinsic = intrinsicGas(data, isCreate)
  // Asked only where the gas runs short (not on every call).
  const toPrecompile = (): boolean => req.to !== undefined && isRskPrecompile(bytesToBigInt(req.to))
  const caller = new Address(req.from ?? new Uint8Array(20))
  const execBlock = executionBlock(chain.common, block)
  // The pending block holds a checkpoint of its own on the live state (miner/pending.ts): only the call's are reverted.
  const depth = state instanceof LiveState ? state.openCheckpoints : 0
  await evm.journal.checkpoint()
  try {
    if (overrides !== undefined) await applyOverrides(state, overrides)
    if (gasLimit < intrinsic) {
      // RSKj subtracts the intrinsic gas from the limit where no code runs (GasCost.subtract throws); where code runs,
      // the program spends it and fails out of gas, answered like any failure.
      if (toPrecompile()) throw new LocalCallGasTooLow(gasLimit, intrinsic, 'precompile')
      if (isCreate ? data.length === 0 : (await state.getCode(new Address(req.to!))).length === 0) {
        throw new LocalCallGasTooLow(gasLimit, intrinsic, 'no code')
      }
      return { gasUsed: intrinsic, gasPeak: intrinsic, returnValue: new Uint8Array(), error: 'out of gas' }
    }
    const run = (): Promise<EVMResult> =>
      evm.runCall({
        block: execBlock,
        caller,
        origin: caller,
        to: isCreate ? undefined : new Address(req.to!),
        value: req.value ?? 0n,
        data,
        gasLimit: gasLimit - intrinsic,
        gasPrice: req.gasPrice ?? 0n,
        skipBalance: true,
      })
    let result: EVMResult
    if (listener === undefined) result = await run()
    // A listener that reads the state around the call gets the call inside a checkpoint of its own (the overrides stay),
    // on the EVM's journal, as every checkpoint of the call.
    else if (listener.settle !== undefined) result = await settleAround(evm.journal, state, listener, () => listening(evm, listener, run))
    else result = await listening(evm, listener, run)
    // A precompile runs out of gas only below its price: RSKj subtracts the intrinsic gas and the price from the limit.
    if (result.execResult.exceptionError?.error === EVMError.errorMessages.OUT_OF_GAS && toPrecompile()) {
      throw new LocalCallGasTooLow(gasLimit, intrinsic, 'precompile')
    }
    return outcome(result.execResult, intrinsic, req.to, result.createdAddress?.bytes)
  } finally {
    await evm.journal.revert()
    await evm.journal.cleanup()
    // Checkpoints of frames an exception left open (a fork's remote failed mid-call): stateEntries.ts `revertOpen`.
    if (state instanceof LiveState) await state.revertTo(depth)
  }
}

/** The call's outcome; a failure RSKj keeps without an execution error (evmProfile.ts `failureKeptByRskj`) is none. */
function outcome(r: ExecResult, intrinsic: bigint, to: Uint8Array | undefined, createdAddress?: Uint8Array): CallOutcome {
  const peak = intrinsic + r.executionGasUsed
  const refund = r.exceptionError === undefined ? (r.gasRefund ?? 0n) : 0n
  const capped = refund > peak / 2n ? peak / 2n : refund
  return {
    gasUsed: peak - capped,
    gasPeak: peak,
    returnValue: r.returnValue,
    ...(r.exceptionError !== undefined && !failureKeptByRskj(to, r.exceptionError.error) ? { error: r.exceptionError.error } : {}),
    ...(createdAddress !== undefined ? { createdAddress } : {}),
    execResult: r,
  }
}

/** Writes `overrides` into `state` (eth_call's third parameter; eth_simulateV1's `stateOverrides`, simulate.ts). */
export async function applyOverrides(state: StateManagerInterface, overrides: StateOverrides): Promise<void> {
  for (const { address, override } of overrides.values()) {
    const addr = new Address(address)
    if (override.balance !== undefined || override.nonce !== undefined) {
      const account = (await state.getAccount(addr)) ?? new Account()
      if (override.balance !== undefined) account.balance = override.balance
      if (override.nonce !== undefined) account.nonce = override.nonce
      await state.putAccount(addr, account)
    }
    if (override.code !== undefined) await state.putCode(addr, override.code)
    if (override.state !== undefined) {
      await state.clearStorage(addr)
      for (const [k, v] of override.state) await state.putStorage(addr, slotKey(k), bigIntToBytes(v))
    }
    if (override.stateDiff !== undefined) {
      for (const [k, v] of override.stateDiff) await state.putStorage(addr, slotKey(k), bigIntToBytes(v))
    }
  }
}

const slotKey = (k: bigint): Uint8Array => setLengthLeft(bigIntToBytes(k), 32)

/**
 * The VM a call or a simulation runs on: the live one for the head and the pending block, a VM of its own over a
 * historical view for older blocks, kept per view (Chain keeps the latest historical view) so that repeated calls at one
 * block reuse it.
 */
export async function vmAt(chain: Chain, block: BlockRecord): Promise<{ vm: VM; state: LiveState }> {
  if (block === chain.head || chain.viewOf(block) !== undefined) return { vm: chain.vm, state: chain.state }
  const state = await chain.stateAt(block)
  let vm = historicalVms.get(state)
  if (vm === undefined) {
    vm = await chain.vmOver(state)
    historicalVms.set(state, vm)
  }
  return { vm, state }
}

async function evmAt(chain: Chain, block: BlockRecord): Promise<{ evm: EVM; state: StateManagerInterface }> {
  const { vm, state } = await vmAt(chain, block)
  return { evm: vm.evm as EVM, state }
}

const historicalVms = new WeakMap<LiveState, VM>()
