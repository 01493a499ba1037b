/**
 * RSKIP125's rule that a CREATE or CREATE2 may not make an account that an earlier transaction of the same block
 * deleted (RSKj `Program.createContract`: an address in `deletedAccountsInBlock` fails as a collision), on engine
 * internals that no public option reaches.
 *
 * - The block's deletions: src/node/chain/runBlockTx.ts keeps, per block being built or replayed, the addresses its
 *   earlier transactions self-destructed (RSKj's block executor hands every transaction executor that set), and
 *   notes them here for the EVM while one of the block's transactions runs (`noteBlockDeletions`). Local calls run
 *   with none, as RSKj's `ReversibleTransactionExecutor` runs them with an empty set.
 * - The collision, in CREATE's logic function (src/node/rsk/evm/evmProfile.ts `createLogic`), which is given the run
 *   state, not the EVM: the EVM is the engine field `runState.interpreter._evm`, and the creating frame's depth,
 *   address and account are `runState.interpreter._env` (`depth`, `address`, `contract`). RSKj raises the creator's
 *   nonce before it tests the address; the engine keeps the creator's account in `_env.contract` and writes it
 *   through `runState.interpreter.journal`, so the nonce is raised there (`raiseCreatorNonce`), as the engine's own
 *   CREATE does.
 *
 * Not a speed patch: in effect whether or not the speed patches are on, so results are the same both ways. The fields
 * are checked where they are read; when one is missing no deletion is seen, and the engine's CREATE runs unchanged.
 */
import type { Account, Address } from '@ethereumjs/util'

interface InterpreterFields {
  _evm?: unknown
  _env?: { depth?: unknown; address?: unknown; contract?: unknown }
  journal?: { putAccount?: unknown }
}

/** The creating frame, as CREATE's logic function needs it. */
export interface Creator {
  depth: number
  address: Address
  contract: Account
}

/** The deletions noted for each EVM while one of a block's transactions runs. */
const notes = new WeakMap<object, ReadonlySet<string>>()

/** Notes `deleted` (addresses as lowercase `0x` hex) for `evm`'s transaction; undefined forgets them. */
export function noteBlockDeletions(evm: object, deleted: ReadonlySet<string> | undefined): void {
  if (deleted === undefined) notes.delete(evm)
  else notes.set(evm, deleted)
}

/**
 * The deletions of the block whose transaction `runState` belongs to, with the creating frame; undefined when there
 * are none or a field is not where the engine keeps it.
 */
export function blockDeletionsOf(runState: { interpreter: unknown }): { deleted: ReadonlySet<string>; creator: Creator } | undefined {
  const interpreter = runState.interpreter as InterpreterFields
  const evm = interpreter._evm
  if (typeof evm !== 'object' || evm === null) return undefined
  const deleted = notes.get(evm)
  if (deleted === undefined || deleted.size === 0) return undefined
  const env = interpreter._env
  if (typeof env?.depth !== 'number' || typeof env.address !== 'object' || typeof env.contract !== 'object' || typeof interpreter.journal?.putAccount !== 'function') return undefined
  return { deleted, creator: { depth: env.depth, address: env.address as Address, contract: env.contract as Account } }
}

/** Raises the creating frame's nonce as the engine's CREATE does (only after `blockDeletionsOf` answered). */
export async function raiseCreatorNonce(runState: { interpreter: unknown }, creator: Creator): Promise<void> {
  const journal = (runState.interpreter as { journal: { putAccount(address: Address, account: Account): Promise<void> } }).journal
  creator.contract.nonce += 1n
  await journal.putAccount(creator.address, creator.contract)
}
