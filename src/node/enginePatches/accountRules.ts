/**
 * Two of RSK's account rules where the engine applies Ethereum's EIP-161, on engine internals that no public option
 * reaches. Not speed patches: they are on whenever the engine is the pinned release, whatever the speed switch says
 * (switch.ts), so that results are the same with the patches on and off.
 *
 * - **No state clearing.** RSKj has none: an account a transaction touches stays, even empty (a CALL, a STATICCALL
 *   or a transaction moving 0 to a missing address creates it: `MutableRepository.addBalance` makes the account
 *   through `getAccountStateOrCreateNew` before looking at the amount), and only SELFDESTRUCT removes one. The
 *   engine's journal deletes, when a transaction ends, every account it touched that is left empty
 *   (`Journal.cleanup`, from Spurious Dragon on). Here each journal's `touched` set is emptied just before its
 *   cleanup runs, which then only resets the journal. Visible where an account exists empty: a second CALL to it
 *   costs no new-account gas (evmProfile.ts charges 25,000 only for a missing account, as RSKj's `VM` does), and
 *   EXTCODEHASH answers keccak256("") (evmProfile.ts).
 * - **A contract created by a transaction starts at nonce 0.** RSKj's `TransactionExecutor.create` makes the
 *   account (nonce 0) and never raises its nonce; only a contract made by CREATE or CREATE2 starts at 1 (RSKIP125,
 *   `Program.createContract`). The engine raises both to 1 (EIP-161 a). Visible in `eth_getTransactionCount` of
 *   the contract and in the addresses of the contracts it creates with CREATE, keccak256(rlp([address, nonce]))
 *   from its constructor on. Here the new account of a depth-0 creation gets nonce 0 back when the engine hands it
 *   to `_addToBalance`, which `_executeCreate` does right after raising the nonce and before the initcode runs.
 *
 * Checked at load: the texts of the engine's `EVM._executeCreate` (the nonce raised, then `_addToBalance` with the
 * same account and message) and, per journal before its first use, `Journal.cleanup` (it deletes from `touched`,
 * a Set on the instance). When a check fails, the rule is not applied and the engine's EIP-161 behaviour remains.
 */
import { EVM } from '@ethereumjs/evm'
import type { Account } from '@ethereumjs/util'
import { enginePatches } from './switch.js'
import { forgetCallerDepth } from './callDepth.js'
import { sourceHasAll, sourceOf, withoutSpace } from './sourceText.js'

interface Message {
  depth: number
}

interface EvmInternals {
  journal: JournalInternals
  _executeCreate(message: Message): Promise<unknown>
  _addToBalance(account: Account, message: Message): Promise<void>
}

interface JournalInternals {
  touched: Set<string>
  cleanup(): Promise<void>
}

/**
 * `_executeCreate` raises the new account's nonce, then passes that account and the message to `_addToBalance`, its
 * only call of it.
 */
function createTextFits(text: string): boolean {
  const raised = text.indexOf(withoutSpace('toAccount.nonce += '))
  const added = text.indexOf(withoutSpace('this._addToBalance(toAccount, message)'))
  return raised > 0 && added > raised && text.split('_addToBalance(').length === 2
}

const proto = EVM.prototype as unknown as Partial<EvmInternals>

/** Whether the engine's `_executeCreate` is the one the nonce rule was written against. */
export const creationNonceRuleFound: boolean =
  enginePatches.installable && typeof proto._addToBalance === 'function' && createTextFits(sourceOf(proto._executeCreate))

/** Journal prototypes whose `cleanup` was checked: whether it deletes touched accounts as expected. */
const cleanupChecked = new WeakMap<object, boolean>()

function cleanupFits(journal: JournalInternals): boolean {
  const p = Object.getPrototypeOf(journal) as object
  let fits = cleanupChecked.get(p)
  if (fits === undefined) {
    fits = sourceHasAll(sourceOf((p as Partial<JournalInternals>).cleanup), ['this.touched', 'deleteAccount', 'cleanJournal'])
    cleanupChecked.set(p, fits)
  }
  return fits && journal.touched instanceof Set
}

/** Marks an EVM the rules were applied to, with what took effect. */
const applied = Symbol('rsksim.accountRules')

/** Depth-0 creations under way, by message: the account handed to `_addToBalance` for one of them gets nonce 0. */
const topCreations = new WeakSet<Message>()

/**
 * Applies RSK's account rules to `evm` (every EVM rsksim creates); returns which took effect. Idempotent per EVM.
 */
export function applyAccountRules(evm: EVM): { stateClearingOff: boolean; creationNonceZero: boolean } {
  const e = evm as unknown as EvmInternals & { [applied]?: ReturnType<typeof applyAccountRules> }
  const done = e[applied]
  if (done !== undefined) return done
  const result = { stateClearingOff: false, creationNonceZero: false }
  const journal = e.journal
  if (typeof journal === 'object' && journal !== null && typeof journal.cleanup === 'function') {
    const clearing = enginePatches.installable && cleanupFits(journal)
    const cleanup = journal.cleanup
    journal.cleanup = function (this: JournalInternals) {
      if (clearing) this.touched.clear()
      // Between transactions and calls (the journal's cleanup runs before and after each), a depth noted for a call
      // to the Environment precompile that never reached it is dropped (callDepth.ts).
      forgetCallerDepth(evm)
      return cleanup.call(this)
    }
    result.stateClearingOff = clearing
  }
  if (creationNonceRuleFound && e._executeCreate === proto._executeCreate && e._addToBalance === proto._addToBalance) {
    const executeCreate = proto._executeCreate!
    const addToBalance = proto._addToBalance!
    e._executeCreate = function (this: EvmInternals, message: Message) {
      if (message.depth === 0) topCreations.add(message)
      return executeCreate.call(this, message)
    }
    e._addToBalance = function (this: EvmInternals, account: Account, message: Message) {
      if (topCreations.delete(message)) account.nonce = 0n
      return addToBalance.call(this, account, message)
    }
    result.creationNonceZero = true
  }
  e[applied] = result
  return result
}

