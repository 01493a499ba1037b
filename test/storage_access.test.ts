/**
 * The EVM's storage reads and writes without a promise (src/node/state/storageAccess.ts): a slot the state holds, or
 * can read from a storage trie in memory, is answered at once, with what the engine's `interpreter.storageLoad`/`storageStore` would give; anything else goes
 * to the interpreter, whose calls are counted here. The values written and read are checked against the state's own
 * asynchronous methods, which test/liveState.test.ts checks against the engine's MerkleStateManager.
 */
import { describe, expect, it } from 'vitest'
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { MerkleStateManager } from '@ethereumjs/statemanager'
import { Account, Address, bytesToHex, setLengthLeft } from '@ethereumjs/util'
import { LiveState } from '../src/node/state/liveState.js'
import { TrieStore } from '../src/node/state/trieStore.js'
import { storageAccess, type StorageFrame } from '../src/node/state/storageAccess.js'

const address = new Address(setLengthLeft(Uint8Array.of(0x42), 20))
const key = setLengthLeft(Uint8Array.of(1), 32)
const other = setLengthLeft(Uint8Array.of(2), 32)
const unset = setLengthLeft(Uint8Array.of(3), 32)
const common = new Common({ chain: Mainnet, hardfork: Hardfork.Istanbul })

/** A run state over `stateManager` whose interpreter does what the engine's does, counting its calls. */
function frame(stateManager: LiveState | MerkleStateManager) {
  const calls = { load: 0, store: 0 }
  const f: StorageFrame & { calls: typeof calls } = {
    calls,
    stateManager,
    env: { address, contract: new Account() },
    interpreter: {
      storageLoad: (k) => {
        calls.load++
        return stateManager.getStorage(address, k)
      },
      storageStore: async (k, v) => {
        calls.store++
        await stateManager.putStorage(address, k, v)
        f.env.contract = (await stateManager.getAccount(address))!
      },
    },
  }
  return f
}

async function funded(state: LiveState | MerkleStateManager): Promise<void> {
  await state.putAccount(address, new Account(3n, 1_000n))
}

describe('storage opcodes without promises (src/node/state/storageAccess.ts)', () => {
  it('reads a slot through the interpreter once, then from the state without a promise', async () => {
    // The slot is in the trie of a computed root, read by a state opened on that root.
    const store = new TrieStore()
    const writer = new LiveState(store)
    await funded(writer)
    await writer.putStorage(address, key, Uint8Array.of(7))
    const root = await writer.getStateRoot()
    const state = new LiveState(store)
    await state.setStateRoot(root)
    const f = frame(state)
    const storage = storageAccess(common)
    const first = storage.load(f, key)
    expect(first).toBeInstanceOf(Promise)
    expect(bytesToHex(await first)).toBe('0x07')
    expect(f.calls.load).toBe(1)
    const second = storage.load(f, key)
    expect(second).toBeInstanceOf(Uint8Array)
    expect(bytesToHex(second as Uint8Array)).toBe('0x07')
    expect(f.calls.load).toBe(1)
  })

  it('reads a slot not read yet at once from a storage trie in memory, and writes it so', async () => {
    const store = new TrieStore()
    const writer = new LiveState(store)
    await funded(writer)
    await writer.putStorage(address, key, Uint8Array.of(7))
    await writer.putStorage(address, other, Uint8Array.of(9))
    const state = new LiveState(store)
    await state.setStateRoot(await writer.getStateRoot())
    const f = frame(state)
    const storage = storageAccess(common)
    // The account is read through the interpreter's path; its storage trie is then in memory.
    expect(bytesToHex(await storage.load(f, key))).toBe('0x07')
    expect(f.calls.load).toBe(1)
    expect(bytesToHex(storage.load(f, other) as Uint8Array)).toBe('0x09')
    expect(bytesToHex(storage.load(f, unset) as Uint8Array)).toBe('0x')
    expect(storage.store(f, unset, Uint8Array.of(5))).toBeUndefined()
    expect(f.calls).toEqual({ load: 1, store: 0 })
    // The same values and root as the engine's state manager with the same writes.
    const merkle = new MerkleStateManager()
    await funded(merkle)
    for (const [k, v] of [[key, 7], [other, 9], [unset, 5]] as const) await merkle.putStorage(address, k, Uint8Array.of(v))
    expect(bytesToHex(await state.getStateRoot())).toBe(bytesToHex(await merkle.getStateRoot()))
  })

  it('writes a slot it holds without the interpreter and refreshes the frame\'s contract as the engine does', async () => {
    const store = new TrieStore()
    const state = new LiveState(store)
    await funded(state)
    const f = frame(state)
    const storage = storageAccess(common)
    // An account not read yet: the interpreter's path.
    const fresh = new LiveState(store)
    await fresh.setStateRoot(await state.getStateRoot())
    const g = frame(fresh)
    await storage.store(g, key, Uint8Array.of(0xab, 0xcd))
    expect(g.calls.store).toBe(1)
    expect(bytesToHex(await fresh.getStorage(address, key))).toBe('0xabcd')
    // The account read (its storage empty): the first write of a slot is done at once.
    expect(storage.store(f, key, Uint8Array.of(0xab, 0xcd))).toBeUndefined()
    expect(f.calls.store).toBe(0)
    expect(bytesToHex(await state.getStorage(address, key))).toBe('0xabcd')
    // Read now: written at once, no promise, and the frame's contract is the state's account, a copy.
    f.env.contract = new Account()
    expect(storage.store(f, key, Uint8Array.of(0x01))).toBeUndefined()
    expect(f.calls.store).toBe(0)
    expect(bytesToHex(await state.getStorage(address, key))).toBe('0x01')
    expect([f.env.contract.nonce, f.env.contract.balance]).toEqual([3n, 1_000n])
    f.env.contract.balance = 5n
    expect((await state.getAccount(address))!.balance).toBe(1_000n)
    // Zero clears the slot, as putStorage does.
    expect(storage.store(f, key, new Uint8Array(0))).toBeUndefined()
    expect(bytesToHex(storage.load(f, key) as Uint8Array)).toBe('0x')
    expect(f.calls).toEqual({ load: 0, store: 0 })
  })

  it('refuses a write to a missing account with the engine\'s message, read or not', async () => {
    const state = new LiveState(new TrieStore())
    const f = frame(state)
    const storage = storageAccess(common)
    await expect(Promise.resolve().then(() => storage.store(f, key, Uint8Array.of(1)))).rejects.toThrow('putStorage() called on non-existing account')
    // The account is known missing now: refused synchronously, with the same message.
    expect(() => storage.store(f, key, Uint8Array.of(1))).toThrow('putStorage() called on non-existing account')
  })

  it('leaves a state manager without the synchronous methods, and EIP-7928, to the interpreter', async () => {
    const merkle = new MerkleStateManager()
    await funded(merkle)
    const f = frame(merkle)
    const storage = storageAccess(common)
    await storage.store(f, key, Uint8Array.of(9))
    expect(bytesToHex(await storage.load(f, key))).toBe('0x09')
    expect(storage.load(f, key)).toBeInstanceOf(Promise)
    expect(f.calls).toEqual({ load: 2, store: 1 })

    const state = new LiveState(new TrieStore())
    await funded(state)
    const g = frame(state)
    const withBal = storageAccess(new Common({ chain: Mainnet, hardfork: Hardfork.Prague, eips: [7928] }))
    await withBal.store(g, key, Uint8Array.of(9))
    await withBal.store(g, key, Uint8Array.of(8))
    expect(bytesToHex(await withBal.load(g, key))).toBe('0x08')
    expect(g.calls).toEqual({ load: 1, store: 2 })
  })
})
