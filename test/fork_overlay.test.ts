/**
 * A fork's state (src/node/state/overlay.ts): the local trie over a remote's values. Against a plain model of the
 * whole state (the remote's accounts, code and slots, then every local change), a random sequence of account,
 * code and storage writes, zeroed slots, deletes, cleared storage, nested checkpoints and swaps back to earlier
 * roots (what evm_revert does) reads exactly the model.
 */
import { describe, expect, it } from 'vitest'
import { rng } from './rng.js'
import { copyModel, getSlot, randomWrite, type Model } from './stateModel.js'
import { Address, bytesToHex, setLengthLeft, KECCAK256_NULL } from '@ethereumjs/util'
import { LiveState } from '../src/node/state/liveState.js'
import { TrieStore } from '../src/node/state/trieStore.js'
import { binKey } from '../src/node/binKey.js'
import { remoteAccount, type RemoteValues } from '../src/node/state/overlay.js'
import { keccak256 } from '../src/node/crypto.js'


describe('a fork\'s local trie over the remote\'s state', () => {
  // "storage read synchronously first": as the EVM's SLOAD and SSTORE read (src/node/state/storageAccess.ts).
  it.each([
    ['through promises', false],
    ['storage read synchronously first', true],
  ])('reads the model after random writes, deletes, cleared storage, checkpoints and root swaps (%s)', async (_name, synchronous) => {
    const sync = synchronous ? { hits: 0 } : undefined
    const r = rng(16)
    const n = (k: number) => Math.floor(r() * k)
    const addresses = Array.from({ length: 10 }, (_, i) => new Address(setLengthLeft(Uint8Array.of(i + 1, 0xbb), 20)))
    const slots = Array.from({ length: 6 }, (_, i) => setLengthLeft(Uint8Array.of(i * 5 + 1), 32))
    const codes = [Uint8Array.of(0x60, 0x00), Uint8Array.of(0x5b, 0x00, 0x01, 0x02)]
    // The remote: half the addresses exist there, some with code and storage.
    const remote: Model = new Map()
    for (let i = 0; i < addresses.length; i += 2) {
      const storage = new Map<number, Uint8Array>()
      for (let s = 0; s < slots.length; s++) if (r() < 0.6) storage.set(s, Uint8Array.of(1 + n(200), n(256)))
      remote.set(i, { nonce: BigInt(n(5)), balance: BigInt(1 + n(10_000)), code: i % 4 === 0 ? codes[1]! : new Uint8Array(), storage })
    }
    const codeByHash = new Map<string, Uint8Array>()
    const values: RemoteValues = {
      async account(address) {
        const i = addresses.findIndex((a) => bytesToHex(a.bytes) === bytesToHex(address))
        const m = remote.get(i)
        if (m === undefined) return undefined
        const codeHash = m.code.length > 0 ? keccak256(m.code) : KECCAK256_NULL
        codeByHash.set(binKey(codeHash), m.code)
        return { account: remoteAccount(m.nonce, m.balance, codeHash), code: m.code }
      },
      code: (hash) => codeByHash.get(binKey(hash)),
      async storage(address, key) {
        const i = addresses.findIndex((a) => bytesToHex(a.bytes) === bytesToHex(address))
        const s = slots.findIndex((k) => bytesToHex(k) === bytesToHex(key))
        return remote.get(i)?.storage.get(s) ?? new Uint8Array()
      },
    }
    const store = new TrieStore(undefined, values)
    const ours = new LiveState(store)
    let model = copyModel(remote)
    const saved: Model[] = []
    const w = { r, ours, model, addresses, slots, codes, sync }
    const roots: Array<[Uint8Array, Model]> = []
    let swaps = 0
    let reads = 0
    for (let step = 0; step < 5000; step++) {
      const i = n(addresses.length)
      const address = addresses[i]!
      const op = r()
      if (op < 0.53) {
        await randomWrite(w, i, step)
      } else if (op < 0.68) {
        const m = model.get(i)
        const a = await ours.getAccount(address)
        expect(a === undefined ? null : [a.nonce, a.balance]).toEqual(m === undefined ? null : [m.nonce, m.balance])
        for (let slot = 0; slot < slots.length; slot++) {
          expect(bytesToHex(await getSlot(ours, sync, address, slots[slot]!))).toBe(bytesToHex(m?.storage.get(slot) ?? new Uint8Array()))
        }
        expect(bytesToHex(await ours.getCode(address))).toBe(bytesToHex(m?.code ?? new Uint8Array()))
        reads++
      } else if (op < 0.71) {
        await ours.checkpoint()
        saved.push(copyModel(model))
      } else if (op < 0.84 && saved.length > 0) {
        const before = saved.pop()!
        if (r() < 0.5) await ours.commit()
        else {
          await ours.revert()
          model = w.model = before
        }
      } else if (op < 0.92 && saved.length === 0) {
        // Outside checkpoints: a root is a state to come back to (a block, a snapshot).
        roots.push([await ours.getStateRoot(), copyModel(model)])
      } else if (op < 0.95 && saved.length === 0 && roots.length > 0) {
        const [root, then] = roots[n(roots.length)]!
        await ours.setStateRoot(root)
        model = w.model = copyModel(then)
        swaps++
      }
    }
    expect(reads).toBeGreaterThan(300)
    expect(swaps).toBeGreaterThan(30)
    if (sync !== undefined) expect(sync.hits).toBeGreaterThan(500)
  })

  it('a deleted remote account and a zeroed remote slot stay deleted and zero under later roots', async () => {
    const a = new Address(setLengthLeft(Uint8Array.of(7), 20))
    const b = new Address(setLengthLeft(Uint8Array.of(8), 20))
    const key = setLengthLeft(Uint8Array.of(1), 32)
    const values: RemoteValues = {
      account: async () => ({ account: remoteAccount(1n, 100n, undefined), code: new Uint8Array() }),
      code: () => undefined,
      storage: async () => Uint8Array.of(42),
    }
    const s = new LiveState(new TrieStore(undefined, values))
    expect((await s.getAccount(a))?.balance).toBe(100n)
    expect(await s.getStorage(b, key)).toEqual(Uint8Array.of(42))
    await s.deleteAccount(a)
    await s.putStorage(b, key, new Uint8Array())
    const root = await s.getStateRoot()
    const view = new LiveState(s.store)
    await view.setStateRoot(root)
    expect(await view.getAccount(a)).toBeUndefined()
    expect(await view.getStorage(b, key)).toEqual(new Uint8Array())
    expect((await view.getAccount(b))?.balance).toBe(100n)
    // A storage slot never written is still the remote's.
    expect(await view.getStorage(b, setLengthLeft(Uint8Array.of(2), 32))).toEqual(Uint8Array.of(42))
  })
})
