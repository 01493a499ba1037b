/**
 * A plain model of the world state and the random writes the state tests (liveState, fork_overlay) apply both to it
 * and to a LiveState: the same write on both sides, so that reads, roots and proofs can be compared afterwards.
 */
import { expect } from 'vitest'
import { Account, type Address } from '@ethereumjs/util'
import type { LiveState } from '../src/node/state/liveState.js'

export interface ModelAccount {
  nonce: bigint
  balance: bigint
  code: Uint8Array
  storage: Map<number, Uint8Array>
}
/** Accounts by address index; slots by slot index. */
export type Model = Map<number, ModelAccount>

export const copyModel = (m: Model): Model => new Map([...m].map(([k, a]) => [k, { ...a, storage: new Map(a.storage) }]))

const blank = (code: Uint8Array = new Uint8Array()): ModelAccount => ({ nonce: 0n, balance: 0n, code, storage: new Map() })

/**
 * A slot write: with `sync`, through `putStorageIfKnown` first (as the EVM's SSTORE does, src/node/state/
 * storageAccess.ts), falling back to `putStorage` when the slot was not read; a synchronous throw becomes a rejection.
 * Counts the writes answered synchronously in `sync.hits`.
 */
export async function putSlot(ours: LiveState, sync: { hits: number } | undefined, address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
  if (sync !== undefined) {
    const account = ours.putStorageIfKnown(address, key, value)
    if (account !== false) {
      // The account read back after the write (what the engine's storageStore puts in the frame): the state's own.
      const now = await ours.getAccount(address)
      expect(account === undefined ? null : [account.nonce, account.balance]).toEqual(now === undefined ? null : [now.nonce, now.balance])
      sync.hits++
      return
    }
  }
  await ours.putStorage(address, key, value)
}

/** A slot read: with `sync`, through `storageIfKnown` first (as SLOAD does), counting its answers in `sync.hits`. */
export async function getSlot(ours: LiveState, sync: { hits: number } | undefined, address: Address, key: Uint8Array): Promise<Uint8Array> {
  const known = sync === undefined ? undefined : ours.storageIfKnown(address, key)
  if (known === undefined) return ours.getStorage(address, key)
  sync!.hits++
  return known
}

/**
 * One random write to account `i` of `addresses`, on the state and on the model: an account change as the engine
 * makes it (read, change, write back), a slot (a third of them zeroed), a deleted account, cleared storage or code,
 * with the odds 18 : 27 : 5 : 3 : 3. A slot of a missing account is refused, as the engine's state manager refuses it.
 * `sync`: slot writes try the synchronous path first (`putSlot`).
 */
export async function randomWrite(
  w: { r: () => number; ours: LiveState; model: Model; addresses: Address[]; slots: Uint8Array[]; codes: Uint8Array[]; sync?: { hits: number } },
  i: number,
  step: number,
): Promise<void> {
  const n = (k: number) => Math.floor(w.r() * k)
  const { ours, model } = w
  const address = w.addresses[i]!
  const op = w.r() * 56
  if (op < 18) {
    const a = (await ours.getAccount(address)) ?? new Account()
    a.nonce = BigInt(step % 3)
    a.balance = BigInt(n(1000))
    await ours.putAccount(address, a)
    model.set(i, { ...(model.get(i) ?? blank()), nonce: a.nonce, balance: a.balance })
  } else if (op < 45) {
    const slot = n(w.slots.length)
    const value = w.r() < 0.3 ? new Uint8Array(0) : Uint8Array.from({ length: 1 + n(32) }, () => 1 + n(255))
    const m = model.get(i)
    if (m === undefined) await expect(putSlot(ours, w.sync, address, w.slots[slot]!, value)).rejects.toThrow('non-existing account')
    else {
      await putSlot(ours, w.sync, address, w.slots[slot]!, value)
      if (value.length === 0) m.storage.delete(slot)
      else m.storage.set(slot, value)
    }
  } else if (op < 50) {
    await ours.deleteAccount(address)
    model.delete(i)
  } else if (op < 53) {
    await ours.clearStorage(address)
    model.set(i, { ...(model.get(i) ?? blank()), storage: new Map() })
  } else {
    const code = w.codes[n(w.codes.length)]!
    await ours.putCode(address, code)
    model.set(i, { ...(model.get(i) ?? blank(code)), code })
  }
}
