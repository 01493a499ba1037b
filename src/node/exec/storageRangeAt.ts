/**
 * An account's storage as it was just before transaction `txIndex` of a mined block ran, a page at a time
 * (debug_storageRangeAt). geth's `stateAtTransaction` runs the block's transactions 0 … txIndex-1 on the parent's
 * state and stops before txIndex (`eth/state_accessor.go`); Ganache 7 does the same. Here the block is replayed
 * likewise (replay.ts: on a copy, always reverted) and the page read from the state it reached.
 */
import { Address } from '@ethereumjs/util'
import type { Chain } from '../chain/chain.js'
import type { BlockRecord } from '../chain/types.js'
import { keccak256 } from '../crypto.js'
import { binKey } from '../binKey.js'
import type { LiveState } from '../state/liveState.js'
import type { StorageRange } from '../state/storageRange.js'
import { replayBlock, stateBefore } from './replay.js'

/**
 * The page of `address`'s storage from trie key `start` (32 bytes), at most `max` slots, before transaction `txIndex`
 * of `block` (0 ≤ txIndex < its transaction count; the block has a parent on this chain). Undefined when the account
 * did not exist then; `'remote'` on a fork when its storage is the remote's. A slot's preimage (`key`) is filled from
 * the slots this node ever wrote to the account (the trie keeps only keccak256 of each slot).
 */
export async function storageRangeAt(chain: Chain, block: BlockRecord, parent: BlockRecord, txIndex: number, address: Uint8Array, start: Uint8Array, max: number): Promise<StorageRange | undefined | 'remote'> {
  const addr = new Address(address)
  let page: StorageRange | undefined | 'remote'
  const read = async (state: LiveState): Promise<void> => {
    page = await state.storageRange(addr, start, max)
  }
  if (txIndex === 0) await read(await stateBefore(chain, block, parent))
  else await replayBlock(chain, block, () => undefined, txIndex - 1, read)
  if (page === undefined || page === 'remote') return page
  fillPreimages(chain, address, page)
  return page
}

/** Sets `key` on the entries that lack it, from the live state's record of the slots written to `address`. */
function fillPreimages(chain: Chain, address: Uint8Array, page: StorageRange): void {
  if (page.entries.every((e) => e.key !== undefined)) return
  const written = chain.state.written.get(binKey(address))
  if (written === undefined) return
  const byHash = new Map<string, Uint8Array>()
  for (const k of written) {
    const slot = new Uint8Array(Buffer.from(k, 'latin1'))
    byHash.set(binKey(keccak256(slot)), slot)
  }
  for (const e of page.entries) e.key ??= byHash.get(binKey(e.hashed))
}
