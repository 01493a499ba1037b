/**
 * rsksim's world state (src/node/state/liveState.ts) against a plain model of accounts and slots and the engine's
 * MerkleStateManager: after a random sequence of account, code and storage writes, deletes, cleared storage and
 * nested checkpoints that commit or revert, reads equal the model's, and state roots (asked for inside and outside
 * checkpoints) and EIP-1186 proofs equal those of the engine's state manager holding the model's contents.
 */
import { describe, expect, it } from 'vitest'
import { rng } from './rng.js'
import { copyModel, getSlot, randomWrite, type Model } from './stateModel.js'
import { MerkleStateManager, getMerkleStateProof } from '@ethereumjs/statemanager'
import { Account, Address, bytesToHex, setLengthLeft } from '@ethereumjs/util'
import { LiveState } from '../src/node/state/liveState.js'
import { TrieStore } from '../src/node/state/trieStore.js'
import { encodeAccount } from '../src/node/state/entries.js'
import { accountProof } from '../src/node/chain/proofs.js'
import type { Chain } from '../src/node/chain/chain.js'
import type { BlockRecord } from '../src/node/chain/types.js'


/**
 * The engine's MerkleStateManager holding exactly the model's contents, written afresh: its root is the reference
 * (a root is a function of the contents). A fresh one each time, because a long-lived MerkleStateManager keeps the
 * storage trie of a deleted account in its `_storageTries` and writes a recreated account's slots into it (found by
 * this test: putCode, putStorage, deleteAccount, putAccount, putStorage leaves the deleted slot in its root).
 */
async function reference(model: Model, addresses: Address[], slots: Uint8Array[]): Promise<MerkleStateManager> {
  const ref = new MerkleStateManager()
  for (const [i, a] of model) {
    await ref.putAccount(addresses[i]!, new Account(a.nonce, a.balance))
    if (a.code.length > 0) await ref.putCode(addresses[i]!, a.code)
    for (const [slot, v] of a.storage) await ref.putStorage(addresses[i]!, slots[slot]!, v)
  }
  return ref
}

describe('LiveState against the engine\'s trie and a model of the state', () => {
  // "storage read synchronously first": slot reads and writes try storageIfKnown/putStorageIfKnown first, as the
  // EVM's SLOAD and SSTORE do (src/node/state/storageAccess.ts).
  it.each([
    ['through promises', false],
    ['storage read synchronously first', true],
  ])('random writes, deletes, cleared storage and nested checkpoints give the model\'s reads, roots and proofs (%s)', async (_name, synchronous) => {
    const sync = synchronous ? { hits: 0 } : undefined
    const r = rng(21)
    const n = (k: number) => Math.floor(r() * k)
    const addresses = Array.from({ length: 8 }, (_, i) => new Address(setLengthLeft(Uint8Array.of(i + 1, 0xaa), 20)))
    const slots = Array.from({ length: 6 }, (_, i) => setLengthLeft(Uint8Array.of(i * 7), 32))
    const codes = [Uint8Array.of(0x60, 0x00), Uint8Array.of(0x5b, 0x00, 0x01, 0x02)]
    const store = new TrieStore()
    const ours = new LiveState(store)
    let model: Model = new Map()
    const saved: Model[] = []
    let roots = 0
    const w = { r, ours, model, addresses, slots, codes, sync }
    for (let step = 0; step < 4000; step++) {
      const i = n(addresses.length)
      const address = addresses[i]!
      const op = r()
      if (op < 0.56) {
        await randomWrite(w, i, step)
      } else if (op < 0.68) {
        const m = model.get(i)
        const a = await ours.getAccount(address)
        expect(a === undefined ? null : [a.nonce, a.balance]).toEqual(m === undefined ? null : [m.nonce, m.balance])
        const slot = n(slots.length)
        expect(bytesToHex(await getSlot(ours, sync, address, slots[slot]!))).toBe(bytesToHex(m?.storage.get(slot) ?? new Uint8Array()))
        expect(bytesToHex(await ours.getCode(address))).toBe(bytesToHex(m?.code ?? new Uint8Array()))
      } else if (op < 0.78) {
        await ours.checkpoint()
        saved.push(copyModel(model))
      } else if (op < 0.88 && saved.length > 0) {
        const before = saved.pop()!
        if (r() < 0.5) await ours.commit()
        else {
          await ours.revert()
          model = w.model = before
        }
      } else if (op < 0.92) {
        // Inside checkpoints too: the miner asks for the block's root before it commits (src/node/miner/miner.ts).
        const ref = await reference(model, addresses, slots)
        expect(bytesToHex(await ours.getStateRoot())).toBe(bytesToHex(await ref.getStateRoot()))
        roots++
      }
    }
    while (saved.pop() !== undefined) await ours.commit()
    const ref = await reference(model, addresses, slots)
    const stateRoot = await ours.getStateRoot()
    expect(bytesToHex(stateRoot)).toBe(bytesToHex(await ref.getStateRoot()))
    expect(roots).toBeGreaterThan(100)
    if (sync !== undefined) expect(sync.hits).toBeGreaterThan(500)

    // Proofs of the final state, walked by src/node/chain/proofs.ts, equal the engine's EIP-1186 builder's.
    const chain = { trees: store, requireState: async () => undefined } as unknown as Chain
    const block = { header: { stateRoot } } as unknown as BlockRecord
    let proved = 0
    for (const address of addresses) {
      const mine = await accountProof(chain, block, address.bytes, slots)
      const theirs = await getMerkleStateProof(ref, address, slots)
      expect(mine.accountProof.map(bytesToHex)).toEqual(theirs.accountProof)
      expect(bytesToHex(mine.storageHash)).toBe(theirs.storageHash)
      if (theirs.storageProof.length > 0) {
        expect(mine.storageProof.map((s) => s.proof.map(bytesToHex))).toEqual(theirs.storageProof.map((s) => s.proof))
        proved++
      }
    }
    expect(proved).toBeGreaterThan(0)
  })

  it("writes an account's leaf as the engine's Account.serialize() does", () => {
    const r = rng(7)
    const edges = [0n, 1n, 0x7fn, 0x80n, 0xffn, 0x100n, 0xffff_ffff_ffffn, 0x1_0000_0000_0000n, 2n ** 64n, 2n ** 256n - 1n]
    const big = () => {
      const bytes = Math.floor(r() * 33)
      let n = 0n
      for (let i = 0; i < bytes; i++) n = (n << 8n) | BigInt(Math.floor(r() * 256))
      return n
    }
    const hash = () => Uint8Array.from({ length: 32 }, () => Math.floor(r() * 256))
    const accounts = [...edges.map((n) => new Account(n, n)), ...Array.from({ length: 500 }, () => new Account(big() % 2n ** 64n, big(), hash(), hash()))]
    for (const a of accounts) expect(bytesToHex(encodeAccount(a))).toBe(bytesToHex(a.serialize()))
  })

  it('answers what it read before without a lookup, and refuses bad writes as the engine does, read or not', async () => {
    // Reads of an entry already read are answered without an async frame (liveState.ts `known`): both paths must
    // refuse with a rejected promise (never a synchronous throw) and the engine's MerkleStateManager's messages.
    const failure = async (f: () => Promise<unknown>): Promise<string> => {
      let p: Promise<unknown> | undefined
      expect(() => (p = f())).not.toThrow()
      return p!.then(
        () => 'resolved',
        (e: Error) => e.message,
      )
    }
    const ref = new MerkleStateManager()
    const key = new Uint8Array(32)
    const cases: Array<[string, (s: LiveState | MerkleStateManager, a: Address) => Promise<unknown>]> = [
      ['short key read', (s, a) => s.getStorage(a, new Uint8Array(31))],
      ['short key write', (s, a) => s.putStorage(a, new Uint8Array(31), Uint8Array.of(1))],
      ['long value', (s, a) => s.putStorage(a, key, new Uint8Array(33))],
      ['missing account', (s, a) => s.putStorage(a, key, Uint8Array.of(1))],
    ]
    for (const [name, f] of cases) {
      const expected = await failure(() => f(ref, new Address(setLengthLeft(Uint8Array.of(9), 20))))
      expect(expected, name).not.toBe('resolved')
      const fresh = new LiveState(new TrieStore())
      const a = new Address(setLengthLeft(Uint8Array.of(9), 20))
      expect(await failure(() => f(fresh, a)), `${name}, never read`).toBe(expected)
      await fresh.getAccount(a)
      expect(await failure(() => f(fresh, a)), `${name}, read before`).toBe(expected)
    }

    // Answers are the same either way, and copies: changing what was handed out changes nothing.
    const store = new TrieStore()
    const s = new LiveState(store)
    const a = new Address(setLengthLeft(Uint8Array.of(1), 20))
    await s.putAccount(a, new Account(1n, 5n))
    await s.putCode(a, Uint8Array.of(0x60, 0x01))
    await s.putStorage(a, key, Uint8Array.of(0, 7))
    await s.getStateRoot()
    const cold = new LiveState(store)
    await cold.setStateRoot(await s.getStateRoot())
    for (const state of [cold, cold, s]) {
      const got = (await state.getAccount(a))!
      expect([got.nonce, got.balance]).toEqual([1n, 5n])
      got.balance = 99n
      expect(bytesToHex(await state.getStorage(a, key))).toBe('0x07')
      expect(bytesToHex(await state.getCode(a))).toBe('0x6001')
      expect(await state.getCodeSize(a)).toBe(2)
      expect(await state.getCodeSize(new Address(setLengthLeft(Uint8Array.of(2), 20)))).toBe(0)
    }
  })

  it('synchronous access (REMASC): preload reads what is missing, then …Now answers and writes as the async methods do', async () => {
    const key = (i: number) => setLengthLeft(Uint8Array.of(i), 32)
    const a = new Address(setLengthLeft(Uint8Array.of(1), 20))
    const b = new Address(setLengthLeft(Uint8Array.of(2), 20))
    const store = new TrieStore()
    const s = new LiveState(store)
    await s.putAccount(a, new Account(2n, 50n))
    await s.putStorage(a, key(1), Uint8Array.of(9))
    const root = await s.getStateRoot()
    // A state that read nothing yet: a promise until every entry and slot asked for is read, then none.
    const cold = new LiveState(store)
    await cold.setStateRoot(root)
    expect(() => cold.accountNow(a)).toThrow(/was not loaded/)
    const reading = cold.preload([a, b], a, [key(1), key(2)])
    expect(reading).toBeInstanceOf(Promise)
    await reading
    expect(cold.preload([a, b], a, [key(1), key(2)])).toBeUndefined()
    expect(() => cold.storageNow(a, key(3))).toThrow(/was not loaded/)
    // Reads equal the engine's state manager's over the same contents; a missing account reads as undefined.
    const ref = new MerkleStateManager()
    await ref.putAccount(a, new Account(2n, 50n))
    await ref.putStorage(a, key(1), Uint8Array.of(9))
    expect([cold.accountNow(a)!.nonce, cold.accountNow(a)!.balance]).toEqual([2n, 50n])
    expect(cold.accountNow(b)).toBeUndefined()
    expect(bytesToHex(cold.storageNow(a, key(1)))).toBe(bytesToHex(await ref.getStorage(a, key(1))))
    expect(bytesToHex(cold.storageNow(a, key(2)))).toBe(bytesToHex(await ref.getStorage(a, key(2))))
    // Writes through either API give the same root as the engine's state manager given the same writes.
    cold.putAccountNow(b, new Account(0n, 7n))
    cold.putStorageNow(a, key(2), Uint8Array.of(0, 3))
    cold.putStorageNow(a, key(1), new Uint8Array())
    await ref.putAccount(b, new Account(0n, 7n))
    await ref.putStorage(a, key(2), Uint8Array.of(3))
    await ref.putStorage(a, key(1), new Uint8Array())
    expect(bytesToHex(await cold.getStateRoot())).toBe(bytesToHex(await ref.getStateRoot()))
    // The account handed out is a copy, as getAccount's is; writes inside a checkpoint revert with it.
    cold.accountNow(b)!.balance = 1000n
    await cold.checkpoint()
    cold.putAccountNow(b, new Account(0n, 8n))
    await cold.revert()
    expect(cold.accountNow(b)!.balance).toBe(7n)
  })

  it('an old root stays readable after later writes, and rollback forgets what came after a mark', async () => {
    const store = new TrieStore()
    const s = new LiveState(store)
    const a = new Address(setLengthLeft(Uint8Array.of(1), 20))
    await s.putAccount(a, new Account(0n, 5n))
    const first = await s.getStateRoot()
    const mark = store.mark()
    await s.putAccount(a, new Account(0n, 9n))
    const second = await s.getStateRoot()
    const view = new LiveState(store)
    await view.setStateRoot(first)
    expect((await view.getAccount(a))?.balance).toBe(5n)
    store.rollback(mark)
    expect(await s.hasStateRoot(second)).toBe(false)
    expect(await s.hasStateRoot(first)).toBe(true)
    await expect(view.setStateRoot(second)).rejects.toThrow('State trie does not contain state root')
  })
})
