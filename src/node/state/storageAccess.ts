/**
 * The EVM's storage reads and writes (SLOAD, SSTORE's gas and its write) answered without a promise when the world
 * state already holds the slot: the engine's `interpreter.storageLoad`/`storageStore` are async functions over the
 * state manager's promises, three awaits and up to five promises per access, for a value LiveState has in a map. An
 * ERC-20 transfer reads and writes two balances: those were 26 of its 190 promises (docs/performance.md, twentieth
 * round). A slot read for the first time is read from the storage trie at once when its nodes are in memory (slotReads.ts
 * `slotNow`). An account not read yet, a trie node still to load, a fork's slot that may be the remote's, a state
 * manager without the synchronous methods, or EIP-7928 (its block access list records each access inside
 * `storageLoad`/`storageStore`) take the engine's path, unchanged.
 *
 * Only the run state's public fields are used (`stateManager`, `env`, `interpreter`): this is not an engine patch.
 *
 * @example
 * ```ts
 * const storage = storageAccess(common)
 * const value = storage.load(runState, key) // Uint8Array, or a promise when the slot must be read first
 * ```
 */
import { EthereumJSErrorWithoutCode, type Account, type Address } from '@ethereumjs/util'
import type { Common } from '@ethereumjs/common'
import { LiveState } from './liveState.js'

/** The parts of the engine's run state used here (all public in @ethereumjs/evm's `RunState`). */
export interface StorageFrame {
  stateManager: unknown
  env: { address: Address; contract: Account }
  interpreter: {
    storageLoad(key: Uint8Array): Promise<Uint8Array>
    storageStore(key: Uint8Array, value: Uint8Array): Promise<void>
  }
}

export interface StorageAccess {
  /** The slot's value without leading zeros (empty for zero), as `interpreter.storageLoad` answers. */
  load(frame: StorageFrame, key: Uint8Array): Uint8Array | Promise<Uint8Array>
  /** `interpreter.storageStore`: writes the slot, then refreshes the frame's contract account from the state. */
  store(frame: StorageFrame, key: Uint8Array, value: Uint8Array): void | Promise<void>
}

const enginePath: StorageAccess = {
  load: (frame, key) => frame.interpreter.storageLoad(key),
  store: (frame, key, value) => frame.interpreter.storageStore(key, value),
}

const statePath: StorageAccess = {
  load(frame, key) {
    const state = frame.stateManager
    const known = state instanceof LiveState ? state.storageIfKnown(frame.env.address, key) : undefined
    return known ?? frame.interpreter.storageLoad(key)
  },
  store(frame, key, value) {
    const state = frame.stateManager
    const account = state instanceof LiveState ? state.putStorageIfKnown(frame.env.address, key, value) : false
    if (account === false) return frame.interpreter.storageStore(key, value)
    // The engine's storageStore reads the account back after the write and throws this when it is gone.
    if (account === undefined) throw EthereumJSErrorWithoutCode('could not read account while persisting memory')
    frame.env.contract = account
    return undefined
  },
}

/** The storage access for EVMs of `common`. */
export function storageAccess(common: Common): StorageAccess {
  return common.isActivatedEIP(7928) ? enginePath : statePath
}
