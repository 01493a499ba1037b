/**
 * Direct edits of the live world state for the dev-chain methods (`anvil_setBalance`, `hardhat_setCode`,
 * `evm_setAccountStorageAt`, …), as Anvil and Hardhat make them: between blocks, without a transaction. The edit
 * is committed and the trie root recomputed at once, so `latest` reads see it, the next block is built on it and
 * an `evm_snapshot` taken afterwards includes it (snapshots record the live root; src/node/snapshots).
 */
import { Account, Address, bigIntToBytes, setLengthLeft } from '@ethereumjs/util'
import type { Chain } from '../chain/chain.js'
import { WORD_LIMIT } from '../rlp.js'
import type { LiveState } from '../state/liveState.js'

/** Runs `edit` on the live state in a checkpoint, commits it and brings the trie root up to date. */
export async function editState(chain: Chain, edit: (state: LiveState) => Promise<void>): Promise<void> {
  const state = chain.state
  await state.checkpoint()
  try {
    await edit(state)
  } catch (e) {
    await state.revert()
    throw e
  }
  await state.commit()
  await state.getStateRoot()
  chain.stateEdited()
}

/** Changes one account (created empty when it does not exist) and writes it back. */
function editAccount(chain: Chain, address: Uint8Array, change: (account: Account) => void): Promise<void> {
  return editState(chain, async (state) => {
    const addr = new Address(address)
    const account = (await state.getAccount(addr)) ?? new Account()
    change(account)
    await state.putAccount(addr, account)
  })
}

export function setBalance(chain: Chain, address: Uint8Array, balance: bigint): Promise<void> {
  return editAccount(chain, address, (account) => {
    account.balance = balance
  })
}

/** Thrown by `addBalance` when the sum would not fit an EVM word: nothing is changed. */
export class BalanceOverflow extends Error {}

/** Adds `amount` to the account's balance (`anvil_addBalance`); refuses a sum past 2^256 - 1. */
export function addBalance(chain: Chain, address: Uint8Array, amount: bigint): Promise<void> {
  return editAccount(chain, address, (account) => {
    const sum = account.balance + amount
    if (sum >= WORD_LIMIT) throw new BalanceOverflow(`the balance ${account.balance} plus ${amount} is past 2^256 - 1`)
    account.balance = sum
  })
}

export function setNonce(chain: Chain, address: Uint8Array, nonce: bigint): Promise<void> {
  return editAccount(chain, address, (account) => {
    account.nonce = nonce
  })
}

export function setCode(chain: Chain, address: Uint8Array, code: Uint8Array): Promise<void> {
  return editState(chain, async (state) => {
    const addr = new Address(address)
    // putCode needs the account to exist (the engine writes the code hash into it).
    if ((await state.getAccount(addr)) === undefined) await state.putAccount(addr, new Account())
    await state.putCode(addr, code)
  })
}

/** Writes one storage slot (32-byte key and value); a zero value deletes the slot, as SSTORE does. */
export function setStorageAt(chain: Chain, address: Uint8Array, slot: Uint8Array, value: Uint8Array): Promise<void> {
  return editState(chain, async (state) => {
    const addr = new Address(address)
    if ((await state.getAccount(addr)) === undefined) await state.putAccount(addr, new Account())
    await state.putStorage(addr, setLengthLeft(slot, 32), value)
  })
}

/** A 32-byte word as the storage value the engine expects (leading zeros stripped by the engine itself). */
export const word32 = (n: bigint): Uint8Array => setLengthLeft(bigIntToBytes(n), 32)
