/**
 * The engine's `runTx` (@ethereumjs/vm 10.1.3, dist/esm/runTx.js) for the transactions rsksim's chains run: legacy
 * transactions on Istanbul rules with none of the later EIPs that add steps to it, the engine's debug logging and
 * profiler off, and the options the miner passes (src/node/chain/runBlockTx.ts). Anything else, and the switch
 * turned off, runs the engine's own `runTx`.
 *
 * Why: for a legacy transfer on Istanbul rules, outside the EVM call, the engine's function (its `_runTx` alone is
 * about 590 lines of the published JavaScript) asks `isActivatedEIP` 25 times and walks the hardfork list 6 times
 * (`consensusType`, `gteHardfork`), this copy 2 and 3 times (in the transaction's intrinsic gas and the journal's
 * cleanup, both the engine's); it also computes the intrinsic gas twice (once more for EIP-8037's split), awaits
 * `beforeTx`/`afterTx` events nobody listens to, and writes the sender's account twice. On Node 20 its body is also
 * the largest single compilation of a fresh process's first transfers (TurboFan, 33-41 ms of about 430-480: docs/performance.md,
 * seventeenth and eighteenth rounds), paid in every test process.
 *
 * What is kept is the engine's path for these transactions, step for step and in the same order of state reads and
 * writes, with the engine's error texts (the miner matches "the tx doesn't have the correct nonce"): the journal's
 * checkpoints, the sender checks (EIP-3607, the upfront cost, the nonce), the gas bought, the call, the refund
 * (capped at `maxRefundQuotient`), the sender's change and the miner's fee, self-destructed accounts deleted, the
 * logs' bloom, the journal's cleanup (which deletes empty touched accounts under EIP-161, and on rsksim's EVMs
 * deletes none: RSK's rule, accountRules.ts) and the receipt. Left out, because it
 * cannot happen on the path taken: the typed-transaction and access-list setup, EIP-2929 warming, EIP-1559 fees,
 * EIP-4844 blobs, EIP-7702 authorizations, EIP-7623's floor, EIP-8037's state gas, the 7864/7928 witnesses and
 * access lists, Clique's signer as miner, pre-Byzantium receipts, and the second balance check (the value alone,
 * already covered by the upfront cost). One write of the sender's account replaces the engine's two (balance, then
 * nonce, with nothing read between).
 *
 * Checked at load: the engine's `runTx` still opens its checkpoint and hands over to `_runTx` as copied (its text),
 * and each VM's journal, EVM and state manager have the members used here before the first transaction of that VM
 * takes this path. test/engine_differential.test.ts runs its scenario (transfers, creates, refunds, self-destructs,
 * reverts, a nonce gap, a sender short of funds) with the patches on and off and compares every receipt, hash and
 * root.
 */
import { runTx as engineRunTx, Bloom, type RunTxResult, type VM } from '@ethereumjs/vm'
import { Hardfork, ConsensusType, type Common } from '@ethereumjs/common'
import { Capability, type LegacyTx } from '@ethereumjs/tx'
import type { Block } from '@ethereumjs/block'
import { Account, Address, EthereumJSErrorWithoutCode, KECCAK256_NULL, equalsBytes, hexToBytes, type PrefixedHexString } from '@ethereumjs/util'
import { activatedEipsArray } from './common.js'
import { enginePatches } from './switch.js'
import { sourceHasAll, sourceOf } from './sourceText.js'
import { withSenderCodeAllowed } from './contractSender.js'

/** EIPs whose steps this copy leaves out: with any of them active, the engine's own `runTx` runs. */
const ENGINE_ONLY_EIPS = [2718, 2929, 2930, 1559, 3651, 4844, 6780, 7623, 7702, 7708, 7778, 7864, 7928, 8037, 8246, 2780]

interface JournalInternals {
  stateManager: VM['stateManager']
  cleanup(): Promise<void>
  checkpoint(): Promise<void>
  commit(): Promise<void>
  revert(): Promise<void>
  putAccount(address: Address, account: Account): Promise<void>
  deleteAccount(address: Address): Promise<void>
}

interface EvmInternals {
  journal: JournalInternals
  stateManager: VM['stateManager'] & { originalStorageCache: { clear(): void } }
  eip2780PrepOog: boolean
  eip7928CallPostTargetOog: boolean
  createTxTargetAlive: boolean
  DEBUG: boolean
  _optsCached: { profiler?: { enabled?: boolean } }
  runCall: VM['evm']['runCall']
}

interface VmInternals {
  DEBUG: boolean
  _opts: { profilerOpts?: { reportAfterTx?: boolean } }
  events: { listenerCount(topic: string): number }
  _emit(topic: string, data: unknown): Promise<void>
  errorStr(): string
}

/**
 * What the engine's `runTx` must still contain for this copy to stand for it (property names survive bundling).
 * `_runTx` itself is not exported; the pinned version (switch.ts) stands for it.
 */
const COPIED = ['journal.cleanup()', 'journal.checkpoint()', '_runTx(vm, opts)', 'journal.commit()', 'journal.revert()', 'originalStorageCache.clear()']
const CHECKED_EIPS = [2718, 2930, 1559, 2929]
const engineText = sourceOf(engineRunTx)

/** Whether the engine's `runTx` is the one this copy was made from (else the engine's runs). */
export const runTxPatched: boolean =
  enginePatches.installable &&
  sourceHasAll(engineText, COPIED) &&
  [...engineText.matchAll(/isActivatedEIP\((\d+)\)/g)].every((m) => CHECKED_EIPS.includes(Number(m[1])))

/**
 * Whether a Common's rules take this path, per list of active EIPs: Common's own array, made anew whenever its hardfork
 * or EIPs change and shared by its copies (every transaction holds a copy of the chain's Common), so a copy is checked
 * once, not at each of its transactions.
 */
const rulesChecked = new WeakMap<readonly number[], boolean>()

function rulesFit(common: Common): boolean {
  const eips = activatedEipsArray(common)
  const known = eips === undefined ? undefined : rulesChecked.get(eips)
  if (known !== undefined) return known
  const fits =
    !ENGINE_ONLY_EIPS.some((eip) => common.isActivatedEIP(eip)) &&
    common.gteHardfork(Hardfork.Byzantium) &&
    common.consensusType() !== ConsensusType.ProofOfAuthority
  if (eips !== undefined) rulesChecked.set(eips, fits)
  return fits
}

/** VMs whose members were found where this copy reads them. */
const shapeChecked = new WeakMap<object, boolean>()

function shapeFits(vm: VM): boolean {
  const known = shapeChecked.get(vm)
  if (known !== undefined) return known
  const v = vm as unknown as VmInternals & { evm: EvmInternals }
  const evm = v.evm
  const journal = evm?.journal
  const fn = (o: unknown, names: string[]) => typeof o === 'object' && o !== null && names.every((n) => typeof (o as Record<string, unknown>)[n] === 'function')
  const fits =
    typeof v._opts === 'object' &&
    v._opts !== null &&
    typeof evm?._optsCached === 'object' &&
    fn(v, ['_emit', 'errorStr']) &&
    fn(v.events, ['listenerCount']) &&
    fn(evm, ['runCall']) &&
    ['eip2780PrepOog', 'eip7928CallPostTargetOog', 'createTxTargetAlive'].every((f) => typeof (evm as unknown as Record<string, unknown>)[f] === 'boolean') &&
    fn(journal, ['cleanup', 'checkpoint', 'commit', 'revert', 'putAccount', 'deleteAccount']) &&
    journal.stateManager === vm.stateManager &&
    evm.stateManager === vm.stateManager &&
    fn(evm.stateManager.originalStorageCache, ['clear'])
  shapeChecked.set(vm, fits)
  return fits
}

/** Whether `runTransaction` runs `tx` on `vm` through this copy (else through the engine's `runTx`). */
export function takesThisPath(vm: VM, tx: LegacyTx): boolean {
  const v = vm as unknown as VmInternals & { evm: EvmInternals }
  return (
    runTxPatched &&
    enginePatches.active &&
    shapeFits(vm) &&
    !v.DEBUG &&
    !v.evm.DEBUG &&
    v._opts.profilerOpts?.reportAfterTx !== true &&
    v.evm._optsCached.profiler?.enabled !== true &&
    !tx.supports(Capability.EIP2718TypedTransaction) &&
    rulesFit(vm.common) &&
    (tx.common === vm.common || rulesFit(tx.common))
  )
}

/**
 * Runs `tx` in `block` after `blockGasUsed` gas of the block's earlier transactions, as the engine's
 * `runTx(vm, { tx, block, blockGasUsed, skipHardForkValidation: true, skipBlockGasLimitValidation: true })` does
 * (the pool has checked the block gas limit and RSKj's rules); throws what it throws. With `senderCodeAllowed`
 * (every block transaction: chain/runBlockTx.ts), a sender with code is not refused, as RSKj refuses none: this
 * path skips its own EIP-3607 test, and the engine's `runTx` runs inside contractSender.ts's wrapper.
 */
export function runTransaction(vm: VM, tx: LegacyTx, block: Block, blockGasUsed: bigint, senderCodeAllowed = false): Promise<RunTxResult> {
  if (takesThisPath(vm, tx)) return runLegacyTx(vm, tx, block, blockGasUsed, senderCodeAllowed)
  const run = (): Promise<RunTxResult> => engineRunTx(vm, { tx, block, blockGasUsed, skipHardForkValidation: true, skipBlockGasLimitValidation: true })
  return senderCodeAllowed ? withSenderCodeAllowed(vm, tx.getSenderAddress(), run) : run()
}

/** The engine's `runTx` wrapper: its checkpoint around `_runTx`, committed or reverted, and the caches cleared. */
async function runLegacyTx(vm: VM, tx: LegacyTx, block: Block, blockGasUsed: bigint, senderCodeAllowed: boolean): Promise<RunTxResult> {
  const evm = vm.evm as unknown as EvmInternals
  const journal = evm.journal
  await journal.cleanup()
  await journal.checkpoint()
  try {
    const result = await runLegacyTxBody(vm, evm, tx, block, blockGasUsed, senderCodeAllowed)
    await journal.commit()
    return result
  } catch (e) {
    await journal.revert()
    throw e
  } finally {
    evm.stateManager.originalStorageCache.clear()
  }
}

/** The engine's `_runTx` on the path described at the top of this file. */
async function runLegacyTxBody(vm: VM, evm: EvmInternals, tx: LegacyTx, block: Block, blockGasUsed: bigint, senderCodeAllowed: boolean): Promise<RunTxResult> {
  const v = vm as unknown as VmInternals
  const state = vm.stateManager
  const journal = evm.journal
  if (tx.value < 0n) throw EthereumJSErrorWithoutCode(`value field cannot be negative, received ${tx.value}`)
  if (v.events.listenerCount('beforeTx') > 0) await v._emit('beforeTx', tx)
  const caller = tx.getSenderAddress()
  evm.eip7928CallPostTargetOog = false

  // Intrinsic gas (no EIP-7623 floor, no EIP-8037 state part on this path).
  const intrinsicGas = tx.getIntrinsicGas()
  if (tx.gasLimit < intrinsicGas) {
    throw failure(vm, block, tx, `INTRINSIC_GAS_TOO_LOW: tx gas limit ${Number(tx.gasLimit)} is lower than the minimum gas limit of ${Number(intrinsicGas)}`)
  }
  const gasLimit = tx.gasLimit - intrinsicGas

  // The sender: an account without code (the engine's EIP-3607 test; not for a block's transactions, as RSKj has no
  // such rule: contractSender.ts), able to pay the upfront cost, with the transaction's nonce.
  let fromAccount = (await state.getAccount(caller)) ?? new Account()
  const { nonce, balance } = fromAccount
  if (!senderCodeAllowed && !equalsBytes(fromAccount.codeHash, KECCAK256_NULL)) throw failure(vm, block, tx, 'invalid sender address, address is not EOA (EIP-3607)')
  const upFrontCost = tx.getUpfrontCost()
  if (balance < upFrontCost) {
    throw failure(vm, block, tx, `sender doesn't have enough funds to send tx. The upfront cost is: ${upFrontCost} and the sender's account (${caller}) only has: ${balance}`)
  }
  if (nonce !== tx.nonce) {
    throw failure(vm, block, tx, `the tx doesn't have the correct nonce. account has nonce of: ${nonce} tx has nonce of: ${tx.nonce}`)
  }

  // Gas bought and the nonce taken, then the call in a checkpoint of its own.
  const gasPrice = tx.gasPrice
  const txCost = tx.gasLimit * gasPrice
  fromAccount.balance -= txCost
  fromAccount.nonce += 1n
  await journal.putAccount(caller, fromAccount)
  await journal.checkpoint()
  let results: RunTxResult
  try {
    results = (await evm.runCall({ block, gasPrice, caller, gasLimit, to: tx.to, value: tx.value, data: tx.data, skipNonceIncrement: true })) as RunTxResult
  } catch (e) {
    await journal.revert()
    throw e
  }
  if (evm.eip2780PrepOog) await journal.revert()
  else await journal.commit()
  evm.eip7928CallPostTargetOog = false
  evm.createTxTargetAlive = false

  // Gas used, the refund (at most a fifth of it: maxRefundQuotient), the sender's change and the miner's fee.
  const execResult = results.execResult
  results.totalGasSpent = execResult.executionGasUsed + intrinsicGas
  let gasRefund = execResult.gasRefund ?? 0n
  results.gasRefund = gasRefund
  if (gasRefund !== 0n) {
    const maxRefund = results.totalGasSpent / vm.common.param('maxRefundQuotient')
    if (gasRefund > maxRefund) gasRefund = maxRefund
    results.totalGasSpent -= gasRefund
  }
  results.blockGasSpent = results.totalGasSpent
  results.amountSpent = results.totalGasSpent * gasPrice
  fromAccount = (await state.getAccount(caller)) ?? new Account()
  fromAccount.balance += txCost - results.amountSpent
  await journal.putAccount(caller, fromAccount)
  const miner = block.header.coinbase
  const minerAccount = (await state.getAccount(miner)) ?? new Account()
  results.minerValue = results.amountSpent
  minerAccount.balance += results.minerValue
  await journal.putAccount(miner, minerAccount)

  // Self-destructed accounts, in the engine's order (no EIP-6780 on this path: every one is deleted).
  if (execResult.selfdestruct !== undefined) {
    const addresses = [...execResult.selfdestruct.keys()].sort((a, b) => a.localeCompare(b))
    for (const hex of addresses) await journal.deleteAccount(new Address(hexToBytes(hex as PrefixedHexString)))
  }
  results.bloom = logsBloom(execResult.logs, vm.common)
  await journal.cleanup()
  evm.stateManager.originalStorageCache.clear()
  results.receipt = {
    status: execResult.exceptionError !== undefined ? 0 : 1,
    cumulativeBlockGasUsed: blockGasUsed + results.totalGasSpent,
    bitvector: results.bloom.bitvector,
    logs: execResult.logs ?? [],
  }
  if (v.events.listenerCount('afterTx') > 0) await v._emit('afterTx', { transaction: tx, ...results })
  return results
}

/** The engine's `txLogsBloom`: each log's address and topics. */
function logsBloom(logs: RunTxResult['execResult']['logs'], common: Common): Bloom {
  const bloom = new Bloom(undefined, common)
  if (logs !== undefined) {
    for (const log of logs) {
      bloom.add(log[0])
      for (const topic of log[1]) bloom.add(topic)
    }
  }
  return bloom
}

/** The engine's annotated error: "<message> (vm hf=… -> block … -> tx …)". */
function failure(vm: VM, block: Block, tx: LegacyTx, message: string): Error {
  return EthereumJSErrorWithoutCode(`${message} (${(vm as unknown as VmInternals).errorStr()} -> ${block.errorStr()} -> ${tx.errorStr()})`)
}
