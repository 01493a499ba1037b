/**
 * eth_simulateV1 (execution-apis `src/eth/execute.yaml`, docs/reference/ethsimulatev1-notes; geth
 * internal/ethapi/simulate.go): a sequence of blocks of calls, each block on the state the one before left, nothing
 * kept.
 *
 * Why the miner's path and not eth_call's: a simulated call is a transaction in a block. It takes its sender's nonce
 * (so a contract deployed by one call is at the address the next call names), buys its gas and pays its fee (to
 * REMASC, as on RSK), and later calls see all of that. `execute` (eth_call) runs a bare message and reverts it, so it
 * keeps none of this; `runBlockTransaction` (src/node/chain/runBlockTx.ts) is what the miner and the replays run, so
 * a simulated transaction runs exactly as it would in a mined block (RSK's account rules, RSKIP125's CREATE rule
 * between the calls of a block). Each call is a stand-in transaction (txRecord.ts `impersonatedTransaction`), from
 * its `from` without a key.
 *
 * The checks a transaction gets are made here first, in geth's order (`sanitizeCall`, then core/state_transition.go
 * `preCheck` with the init code size, `buyGas` and the intrinsic gas), so that a refusal gives the spec's code
 * (-38010 and the others, rpc/namespaces/eth/simulate.ts) and geth's text (`err: <reason> (supplied gas N)`,
 * internal/ethapi/api.go `applyMessageWithEVM`): with `validation` false (the default) the call's own nonce is not checked:
 * it is the simulated transaction's (its `nonce` and so its hash), while the call runs on the sender's nonce in the
 * simulated state (a creation lands at `getCreateAddress(from, state nonce)`, which is then raised by one), as geth
 * does (simulate.go `sanitizeCall` keeps a given nonce; `ToMessage(…, skipNonceChecks)`; core/state_transition.go
 * `execute` takes the address and the raise from the state), and the gas price defaults to 0, so no fee is paid; with
 * `validation` true the nonce must be the sender's, and the gas price (default: the block's minimum) must be one the
 * miner takes (pool/admission.ts `minedPriceRefusal`). In both modes, as in geth, the calls of a block must fit in
 * its gas limit, the sender must afford gas × price + value, and the gas must cover the intrinsic gas. A sender with
 * code runs in both modes, as in geth (simulate.go `processBlock`: "EoA check is always skipped, even in validation
 * mode", `ToMessage` setting `SkipTransactionChecks`) and the spec's vectors (ethSimulate-simple-send-from-contract,
 * ethSimulate-contract-calls-itself); RSKj's `TransactionExecutor.init` has no such check either, so no block
 * transaction of rsksim refuses one (chain/runBlockTx.ts, enginePatches/contractSender.ts).
 * The pool's admission rules (a sender account must exist, quotas) are rules for the pool, not for a block: not
 * applied.
 *
 * Gas: a call without `gas` gets what its block has left (the spec's default); then, as geth's `gasBudget`, every
 * call's gas is cut to what is left of one budget for the whole request, `callGasCap` (geth's RPC gas cap), which
 * each call's gas used draws down. A call that fails after its gas was cut says so, in geth's words.
 */
import { Address, bytesToHex, toChecksumAddress } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import type { EVM } from '@ethereumjs/evm'
import type { Chain } from '../chain/chain.js'
import type { BlockRecord, LogRecord, ReceiptRecord, TxRecord } from '../chain/types.js'
import { executionBlockOf } from '../chain/execBlock.js'
import { runBlockTransaction, type BlockContext } from '../chain/runBlockTx.js'
import { receiptOf } from '../chain/receiptOf.js'
import { impersonatedTransaction } from '../chain/txRecord.js'
import { MAX_INITCODE_SIZE, minedPriceRefusal } from '../pool/admission.js'
import { RemoteFailed } from '../errors.js'
import type { LiveState } from '../state/liveState.js'
import { applyOverrides, intrinsicGas, vmAt, type StateOverrides } from './call.js'
import { TransferLogs } from './transferLogs.js'
import { simulatedBlock } from './simulatedBlock.js'

/** At most this many blocks a request, the blocks filling gaps in the numbers included (geth's and the spec's 256). */
export const MAX_SIMULATE_BLOCKS = 256

/**
 * Seconds from a simulated block to the next when the request gives no `time` (geth simulate.go `timestampIncrement`;
 * the spec's notes: "the timestamp of previous block + network block time"). RSK has no slot, its blocks come as
 * merged mining finds them; geth's 12 s (which Anvil also adds) keeps a simulation's answer the same as theirs and
 * independent of the wall clock (docs/extensions.md "Simulating blocks of calls").
 */
export const TIMESTAMP_INCREMENT = 12n

export interface SimulatedCallInput {
  from?: Uint8Array
  to?: Uint8Array
  gas?: bigint
  gasPrice?: bigint
  value?: bigint
  nonce?: bigint
  data?: Uint8Array
}

export interface SimulatedBlockInput {
  number?: bigint
  time?: bigint
  gasLimit?: bigint
  feeRecipient?: Uint8Array
  stateOverrides?: StateOverrides
  /**
   * Why the block's state overrides cannot be applied (a `movePrecompileToAddress`: rpc/codecs/simulate.ts `moves`):
   * refused when the block's turn comes, where geth's override.go `Apply` refuses it.
   */
  refusedOverride?: string
  calls: SimulatedCallInput[]
}

/** What the simulated blocks are built with: the node's current mining settings, read by the caller. */
export interface SimulationSettings {
  validation: boolean
  traceTransfers: boolean
  /** The miner's coinbase, minimum gas price and REMASC setting. */
  coinbase: Uint8Array
  minimumGasPrice: bigint
  remasc: boolean
  /** The gas of the whole request, all calls together (`callGasCap`: geth's RPC gas cap, simulate.go `gasBudget`). */
  gasBudget: bigint
  /** Called between calls: throws once the request's deadline has passed (exec/guard.ts `check`). */
  checkDeadline(): void
}

export interface SimulatedCall {
  returnData: Uint8Array
  /** The engine's logs, with the transfers among them when `traceTransfers` is on. */
  logs: LogRecord[]
  gasUsed: bigint
  /** The gas used before the refund (geth `ExecutionResult.MaxUsedGas`): the intrinsic gas and the execution's. */
  maxUsedGas: bigint
  status: 0 | 1
  /**
   * `revert` (with the revert data as `returnData` of the receipt) or the engine's error name, with `capped` when the
   * call's gas had been cut to what was left of the request's budget.
   */
  error?: { revert: Uint8Array } | { vm: string; capped: boolean }
}

export interface SimulatedBlock {
  block: BlockRecord
  calls: SimulatedCall[]
}

/** Why a simulation was refused before it ended; rpc/namespaces/eth/simulate.ts gives each its spec code. */
export type SimulationRefusal =
  | 'nonceTooLow'
  | 'nonceTooHigh'
  | 'nonceMax'
  | 'intrinsicGas'
  | 'insufficientFunds'
  | 'blockGasLimit'
  | 'blockNumber'
  | 'blockTimestamp'
  | 'senderNotEoa'
  | 'maxInitCodeSize'
  | 'gasPriceTooLow'
  | 'gasPriceCap'
  | 'tooManyBlocks'
  | 'stateOverride'

export class SimulationRefused extends Error {
  override readonly name = 'SimulationRefused'
  constructor(
    readonly reason: SimulationRefusal,
    message: string,
  ) {
    super(message)
  }
}

/** Runs `blocks` on top of `base` (a mined block, or the pending block of the request); nothing is kept. */
export async function simulate(chain: Chain, base: BlockRecord, blocks: SimulatedBlockInput[], settings: SimulationSettings): Promise<SimulatedBlock[]> {
  const planned = plan(base, blocks)
  const { state, vm } = await vmAt(chain, base)
  const depth = state.openCheckpoints
  await state.checkpoint()
  // BLOCKHASH (and the BlockHeader precompile) of a simulated block's number answers that block, as geth's does.
  const built = new Map<bigint, BlockRecord>()
  const budget = { left: settings.gasBudget }
  // The pending block (above the head) is the chain's block of its number for the simulation: BLOCKHASH answers it, as
  // geth's simulated chain answers its base header.
  if (base.number > chain.head.number) built.set(base.number, base)
  let parent = base
  try {
    return await chain.withSimulatedBlocks(built, async () => {
      const out: SimulatedBlock[] = []
      for (const input of planned) {
        const done = await runBlock(chain, state, vm, parent, input, settings, budget)
        out.push(done)
        built.set(done.block.number, done.block)
        parent = done.block
      }
      return out
    })
  } finally {
    // Every checkpoint above the request's: the simulation's, and any a failing engine left open.
    await state.revertTo(depth)
  }
}

type Planned = SimulatedBlockInput & { number: bigint; time: bigint }

/**
 * Numbers and timestamps, checked before anything runs (geth `sanitizeChain`): a number defaults to the previous + 1
 * and a gap is filled with empty blocks; a time defaults to the previous block's + 12 s, a gap's blocks' too; both
 * must increase strictly.
 */
function plan(base: BlockRecord, blocks: SimulatedBlockInput[]): Planned[] {
  const out: Planned[] = []
  let number = base.number
  let time = base.header.timestamp
  for (const b of blocks) {
    const wanted = b.number ?? number + 1n
    if (wanted <= number) throw new SimulationRefused('blockNumber', `block numbers must be in order: ${wanted} <= ${number}`)
    if (wanted - base.number > BigInt(MAX_SIMULATE_BLOCKS)) {
      // geth's text (simulate.go `sanitizeChain`): at most 256 blocks after the base, gaps included.
      throw new SimulationRefused('tooManyBlocks', 'too many blocks')
    }
    for (let n = number + 1n; n < wanted; n++) {
      time += TIMESTAMP_INCREMENT
      out.push({ number: n, time, calls: [] })
    }
    number = wanted
    if (b.time !== undefined && b.time <= time) throw new SimulationRefused('blockTimestamp', `block timestamps must be in order: ${b.time} <= ${time}`)
    time = b.time ?? time + TIMESTAMP_INCREMENT
    out.push({ ...b, number, time })
  }
  return out
}

/** What is left of the request's gas (geth simulate.go `gasBudget`). */
interface Budget {
  left: bigint
}

async function runBlock(chain: Chain, state: LiveState, vm: VM, parent: BlockRecord, input: Planned, settings: SimulationSettings, budget: Budget): Promise<SimulatedBlock> {
  const coinbase = input.feeRecipient ?? settings.coinbase
  const gasLimit = input.gasLimit ?? parent.header.gasLimit
  const difficulty = parent.header.difficulty
  const fields = { number: input.number, timestamp: input.time, gasLimit, coinbase, difficulty }
  const context: BlockContext = { vm, state, block: executionBlockOf(chain.common, fields), coinbase, remasc: settings.remasc }
  // Overrides are applied before the block's calls (geth `processBlock`), inside the simulation's checkpoint; one that
  // cannot be is refused here, as geth's `Apply` refuses it: after the earlier blocks ran.
  if (input.refusedOverride !== undefined) throw new SimulationRefused('stateOverride', input.refusedOverride)
  if (input.stateOverrides !== undefined) await applyOverrides(state, input.stateOverrides)
  const txs: TxRecord[] = []
  const receipts: ReceiptRecord[] = []
  const calls: SimulatedCall[] = []
  let gasUsed = 0n
  let paidFees = 0n
  for (const call of input.calls) {
    settings.checkDeadline()
    const { t, run, capped } = await transactionFor(chain, state, call, gasLimit - gasUsed, settings, budget)
    const transfers = settings.traceTransfers ? new TransferLogs() : undefined
    transfers?.attach(vm.evm as EVM)
    let result
    try {
      result = await runBlockTransaction(context, run, gasUsed)
    } catch (e) {
      throw refusalOf(e)
    } finally {
      transfers?.detach(vm.evm as EVM)
    }
    gasUsed += result.totalGasSpent
    // Never below zero: the call's gas was at most what was left.
    budget.left -= result.totalGasSpent
    paidFees += result.totalGasSpent * t.tx.gasPrice
    // The receipt the miner would write (a precompile's own failure in a transaction sent to it is no failure), of
    // the transaction that ran (its creation's address from the nonce it ran with).
    const receipt = receiptOf(run, result, gasUsed)
    receipts.push(receipt)
    txs.push(t)
    const failed = receipt.status === 0
    const returned = result.execResult.returnValue
    calls.push({
      // As geth: a failed call's return data is in its error, not in `returnData`.
      returnData: failed ? new Uint8Array() : returned,
      logs: transfers === undefined ? receipt.logs : transfers.logs(receipt.logs),
      gasUsed: result.totalGasSpent,
      maxUsedGas: result.execResult.executionGasUsed + t.tx.getIntrinsicGas(),
      status: receipt.status,
      ...(failed ? { error: receipt.error === 'revert' ? { revert: returned } : { vm: receipt.error!, capped } } : {}),
    })
  }
  const block = simulatedBlock(parent, { ...fields, gasUsed, paidFees, minimumGasPrice: settings.minimumGasPrice }, txs, receipts)
  return { block, calls }
}

const MAX_NONCE = 2n ** 64n - 1n

/** geth's text of a transaction the checks refuse (internal/ethapi/api.go `applyMessageWithEVM`). */
const refused = (reason: SimulationRefusal, text: string, gas: bigint): SimulationRefused => new SimulationRefused(reason, `err: ${text} (supplied gas ${gas})`)

/** A call's transactions: `t` the block's (with the call's own nonce), `run` the one the engine runs (the sender's). */
interface CallTransactions {
  t: TxRecord
  run: TxRecord
  /** Whether the call's gas was cut to what was left of the request's budget. */
  capped: boolean
}

/** The stand-in transactions of `call`, after the checks that give the spec's errors (see the top of this file). */
async function transactionFor(chain: Chain, state: LiveState, call: SimulatedCallInput, gasLeft: bigint, settings: SimulationSettings, budget: Budget): Promise<CallTransactions> {
  // Without a gas limit, what the block has left (the spec's default); more than that is refused (geth `sanitizeCall`).
  const wanted = call.gas ?? gasLeft
  if (wanted > gasLeft) throw new SimulationRefused('blockGasLimit', `block gas limit reached: remaining: ${gasLeft}, required: ${wanted}`)
  const capped = wanted > budget.left
  const gas = capped ? budget.left : wanted
  const from = call.from ?? new Uint8Array(20)
  // geth names the sender as go-ethereum's `Address.Hex` writes it: EIP-55 (a keccak: only for a refusal's text).
  const sender = (): string => toChecksumAddress(bytesToHex(from))
  const account = await state.getAccount(new Address(from))
  const nonce = account?.nonce ?? 0n
  if (settings.validation && call.nonce !== undefined && call.nonce !== nonce) {
    const which = call.nonce < nonce ? 'nonceTooLow' : 'nonceTooHigh'
    throw refused(which, `nonce too ${which === 'nonceTooLow' ? 'low' : 'high'}: address ${sender()}, tx: ${call.nonce} state: ${nonce}`, gas)
  }
  // EIP-2681: the engine's transactions cannot carry this nonce (it would be raised past 2^64 - 1). geth refuses it so
  // with validation (-32603, core/state_transition.go `preCheck`, ErrNonceMax) and runs it without; here in both.
  if (nonce >= MAX_NONCE) throw refused('nonceMax', `nonce has max value: address ${sender()}, nonce: ${nonce}`, gas)
  // Without validation, a given nonce is the transaction's (geth `sanitizeCall`); the engine's transactions cannot carry
  // 2^64 - 1 either (geth would show it): refused with the same text. Over 64 bits is refused when decoded, as geth's.
  const shown = call.nonce ?? nonce
  if (shown >= MAX_NONCE) throw refused('nonceMax', `nonce has max value: address ${sender()}, nonce: ${shown}`, gas)
  const gasPrice = call.gasPrice ?? (settings.validation ? settings.minimumGasPrice : 0n)
  if (settings.validation) {
    const refusal = minedPriceRefusal(gasPrice, settings.minimumGasPrice)
    if (refusal !== undefined) {
      const reason = gasPrice < settings.minimumGasPrice ? 'gasPriceTooLow' : 'gasPriceCap'
      throw refused(reason, `${refusal}: address ${sender()}, gasPrice: ${gasPrice}, minimumGasPrice: ${settings.minimumGasPrice}`, gas)
    }
  }
  const data = call.data ?? new Uint8Array()
  // RSKIP438 (EIP-3860): a block refuses a creation with more init code (RSKj TransactionExecutor.init
  // `isInitCodeSizeInvalidForTx`, the pool's MAX_INITCODE_SIZE); geth's -38025 and text (core/vm/common.go).
  if (call.to === undefined && data.length > MAX_INITCODE_SIZE) {
    throw refused('maxInitCodeSize', `max initcode size exceeded: code size ${data.length} limit ${MAX_INITCODE_SIZE}`, gas)
  }
  const value = call.value ?? 0n
  const want = gas * gasPrice + value
  const have = account?.balance ?? 0n
  if (have < want) throw refused('insufficientFunds', `insufficient funds for gas * price + value: address ${sender()} have ${have} want ${want}`, gas)
  const intrinsic = intrinsicGas(data, call.to === undefined)
  if (gas < intrinsic) throw refused('intrinsicGas', `intrinsic gas too low: have ${gas}, want ${intrinsic}`, gas)
  const fields = { gasPrice, gasLimit: gas, ...(call.to !== undefined ? { to: call.to } : {}), value, data }
  const run = impersonatedTransaction({ ...fields, nonce }, from, chain.common)
  const t = shown === nonce ? run : impersonatedTransaction({ ...fields, nonce: shown }, from, chain.common)
  return { t, run, capped }
}

/** What the engine refused, past the checks above (they should leave none), in the spec's terms where it has them. */
function refusalOf(e: unknown): unknown {
  if (e instanceof RemoteFailed || !(e instanceof Error)) return e
  const text = e.message.replace(/ \(vm hf=[\s\S]*\)$/, '')
  if (text.startsWith('INTRINSIC_GAS_TOO_LOW')) return new SimulationRefused('intrinsicGas', text)
  if (text.startsWith("sender doesn't have enough funds")) return new SimulationRefused('insufficientFunds', text)
  // Only with an engine other than the pinned release, where the sender's code cannot be let through (contractSender.ts).
  if (text.startsWith('invalid sender address')) return new SimulationRefused('senderNotEoa', text)
  return e
}
