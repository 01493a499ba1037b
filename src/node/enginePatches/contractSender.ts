/**
 * A transaction whose sender has code, run as RSKj runs it: RSKj has no EIP-3607 rule (its `TransactionExecutor` and
 * the pool's validators, co/rsk/net/handler/txvalidator/*, check no sender's code), Hardhat and Anvil let an
 * impersonated contract send, and for eth_simulateV1 (src/node/exec/simulate.ts) geth runs a simulated call
 * from a contract (internal/ethapi/simulate.go `processBlock`: "EoA check is always skipped, even in validation mode";
 * transaction_args.go `ToMessage` sets `SkipTransactionChecks`, which core/state_transition.go `preCheck` reads before
 * its `ErrSenderNoEOA` check), and the execution-apis vectors expect it (tests/eth_simulateV1
 * ethSimulate-simple-send-from-contract.io, ethSimulate-contract-calls-itself.io). The engine cannot: its `runTx`
 * (@ethereumjs/vm 10.1.3 dist/esm/runTx.js `_runTx`, "EIP-3607: Reject transactions from senders with deployed code")
 * refuses every sender whose account's code hash is not keccak256 of nothing, whatever the Common's EIPs (the test is
 * not behind `isActivatedEIP(3607)`; only an EIP-7702 delegation passes) and whatever the options (`RunTxOpts` has
 * `skipNonce`, `skipBalance`, `skipBlockGasLimitValidation`, `skipHardForkValidation`, none for it). runTx.ts's copy
 * of `_runTx` skips its own test when asked (`runTransaction(…, senderCodeAllowed)`); this wrapper is for the engine's.
 *
 * How: the engine's `_runTx` reads the sender's account once, through the VM's state manager (`state.getAccount(caller)`),
 * tests it, and writes that same object, its balance and nonce changed, back through the journal
 * (`putAccount(caller, fromAccount)`, twice). For the one transaction, the state
 * manager's first answer for the sender is a copy of its account whose code hash reads as no code; when that copy is
 * written, its real code hash is put back first. Every later read (the call itself, a call to the sender, EXTCODEHASH,
 * the refund) sees the account as it is. Nothing of the engine is touched: two methods of the VM's state manager
 * (rsksim's own LiveState, behind the engine's public StateManagerInterface) are wrapped for the duration of the
 * transaction, then restored; a sender without code runs with no wrapper at all. What it relies on is that order of the engine's `_runTx`, which is not exported and
 * cannot be read at load, so, like runTx.ts, it stands on the pinned engine release (switch.ts): with another release
 * the wrapper is not installed and the engine's refusal stands. Checked at use: a transaction that took the copy
 * must have written it back (else the engine is not the one this was written for: an error, never a silent state).
 *
 * Not a speed patch: in effect whether or not the speed patches are on (runTx.ts skips its test; the engine's `runTx`
 * meets this wrapper), so a block answers the same both ways (test/engine_differential.test.ts). Every block
 * transaction the engine's `runTx` runs goes through it (chain/runBlockTx.ts): mined, pending, replayed and
 * simulated; a sender without code costs one read of its account, which the transaction reads next anyway.
 */
import type { VM } from '@ethereumjs/vm'
import { Account, KECCAK256_NULL, type Address } from '@ethereumjs/util'
import { enginePatches } from './switch.js'

type StateManager = VM['stateManager']

/** rsksim's LiveState answers whether an account it read has code, without a promise (LiveState.hasCodeIfKnown). */
interface KnowsCode {
  hasCodeIfKnown(address: Address): boolean | undefined
}
const knowsCode = (state: object): state is KnowsCode => typeof (state as Partial<KnowsCode>).hasCodeIfKnown === 'function'

/**
 * Runs `run` (one transaction of `sender` on `vm`) with the sender's code hidden from the transaction's own sender
 * check, as described at the top of this file; without the pinned engine, runs it unchanged.
 */
export function withSenderCodeAllowed<T>(vm: VM, sender: Address, run: () => Promise<T>): Promise<T> {
  if (!enginePatches.installable) return run()
  // Most senders have no code: they run as they are, without the wrappers, and without a promise when the state has
  // read the sender already (rsksim's LiveState: the pool read it before the miner runs the transaction).
  const state = vm.stateManager
  const hasCode = knowsCode(state) ? state.hasCodeIfKnown(sender) : undefined
  if (hasCode === false) return run()
  if (hasCode === true) return wrapped(state, sender, run)
  return state.getAccount(sender).then((account) => (account?.isContract() === true ? wrapped(state, sender, run) : run()))
}

/** Runs `run` with the sender's first account read handed a copy without code, written back with it (above). */
async function wrapped<T>(state: StateManager, sender: Address, run: () => Promise<T>): Promise<T> {
  const getAccount = state.getAccount
  const putAccount = state.putAccount
  // The methods are the class's (on its prototype): the wrappers are own properties, deleted afterwards.
  const own = ['getAccount', 'putAccount'].filter((name) => Object.prototype.hasOwnProperty.call(state, name))
  let asked = false
  let handed: Account | undefined
  let codeHash: Uint8Array | undefined
  let writtenBack = false
  state.getAccount = async function (this: StateManager, address: Address): Promise<Account | undefined> {
    const account = await getAccount.call(state, address)
    if (asked || account === undefined || !address.equals(sender)) return account
    asked = true
    if (!account.isContract()) return account
    codeHash = account.codeHash
    handed = new Account(account.nonce, account.balance, account.storageRoot, KECCAK256_NULL)
    return handed
  }
  state.putAccount = function (this: StateManager, address: Address, account: Account | undefined): Promise<void> {
    if (account !== undefined && account === handed) {
      account.codeHash = codeHash!
      writtenBack = true
    }
    return putAccount.call(state, address, account)
  }
  let result: T
  try {
    result = await run()
  } finally {
    state.getAccount = getAccount
    state.putAccount = putAccount
    // Deleted in the reverse order of their adding: V8 then takes the object back to the shape it had (deleting the
    // last-added property first); the other order leaves it in dictionary mode, and with it the live state every
    // later request reads (`%HasFastProperties` false, tried with --allow-natives-syntax on a class of this shape).
    if (!own.includes('putAccount')) delete (state as Partial<StateManager>).putAccount
    if (!own.includes('getAccount')) delete (state as Partial<StateManager>).getAccount
  }
  if (handed !== undefined && !writtenBack) {
    throw new Error('rsksim: the engine did not write back the account of a sender with code as expected (src/node/enginePatches/contractSender.ts)')
  }
  return result
}
