/**
 * The live world state: the engine's MerkleStateManager, except that a write which changes nothing is not made.
 *
 * Why: the state manager marks every `putAccount`/`putStorage` as modified, and computing the state root writes
 * each modified entry back into the trie (walk the path, re-encode and re-hash every node on it) even when the value
 * is the one already there. Each block makes many such writes: REMASC rewrites its constant `siblings` word and,
 * on a chain with a zero gas price, "pays" 0 to RSK Labs, the federators and the miner (reference §2.2); the engine
 * writes the coinbase back after a zero fee. Measured: 10 trie puts and 6 deletes for an empty block, most of them
 * no-ops. Skipping them leaves every state root identical (the trie is content-addressed) and only saves work.
 *
 * The comparison reads the state caches (the engine reads an account or slot before it writes it), so it is cheap. Historical views and `eth_call` copies (`shallowCopy`) are the engine's own class: they never compute roots.
 */
import { MerkleStateManager } from '@ethereumjs/statemanager'
import { RLP } from '@ethereumjs/rlp'
import { equalsBytes, unpadBytes, type Account, type Address } from '@ethereumjs/util'
import { flatHex } from './flatHex.js'
import { cachedSlot } from '../enginePatches/index.js'

export class RskStateManager extends MerkleStateManager {
  /**
   * Every address and storage slot ever written: the trie keeps only their hashes, and `anvil_dumpState` must name
   * them (src/node/dev/stateDump.ts). Entries whose account or slot is gone again are skipped when dumping.
   */
  readonly written = new Map<string, Set<string>>()

  private remember(address: Address, slot?: Uint8Array): void {
    const key = flatHex(address.bytes)
    let slots = this.written.get(key)
    if (slots === undefined) this.written.set(key, (slots = new Set()))
    if (slot !== undefined) slots.add(flatHex(slot))
  }

  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    if (sameAccount(await this.getAccount(address), account)) return
    this.remember(address)
    return super.putAccount(address, account)
  }

  override async putCode(address: Address, code: Uint8Array): Promise<void> {
    this.remember(address)
    return super.putCode(address, code)
  }

  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    // Compared with the cached slot only (the engine caches a slot when it reads it, and caches RLP of the unpadded
    // value): a miss is written as usual. Malformed values go to the engine for its own errors.
    const cached = value.length <= 32 ? cachedSlot(this, address, key) : undefined
    if (cached !== undefined && equalsBytes(cached, RLP.encode(unpadBytes(value)))) return
    this.remember(address, key)
    return super.putStorage(address, key, value)
  }
}

function sameAccount(a: Account | undefined, b: Account | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  return a.nonce === b.nonce && a.balance === b.balance && equalsBytes(a.storageRoot, b.storageRoot) && equalsBytes(a.codeHash, b.codeHash)
}
