/**
 * The live state's storage cache (src/node/enginePatches/storageCache.ts) behaves exactly as the engine's: the same
 * random sequence of puts, deletes, clears, checkpoints, commits, reverts and flushes gives the same reads, flush
 * items and dumps on both.
 */
import { describe, expect, it } from 'vitest'
import { CacheType, StorageCache } from '@ethereumjs/statemanager'
import { Address } from '@ethereumjs/util'
import { FastStorageCache, storageCachePatched } from '../src/node/enginePatches/storageCache.js'
import { engineMatchesPin } from '../src/node/enginePatches/switch.js'
import { rng } from './rng.js'

describe('storage cache', () => {
  it('is in effect exactly when the installed engine is the pinned release', () => {
    expect(storageCachePatched).toBe(engineMatchesPin)
  })

  it('matches the engine cache on random operation sequences', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const r = rng(seed)
      const pick = (n: number) => Math.floor(r() * n)
      const engine = new StorageCache({ type: CacheType.ORDERED_MAP, size: 1000 })
      const fast = new FastStorageCache(1000)
      const addrBytes = [1, 2, 3].map((b) => new Uint8Array(20).fill(b))
      // Fresh Address and key instances each time, as the EVM makes them, plus reused ones.
      const address = () => new Address(addrBytes[pick(3)]!.slice())
      const key = () => new Uint8Array(32).fill(pick(6))
      let depth = 0
      for (let step = 0; step < 400; step++) {
        const op = pick(10)
        if (op < 3) {
          const [a, k, v] = [address(), key(), Uint8Array.of(0x80 + pick(3))]
          engine.put(a, k, v)
          fast.put(a, k, v)
        } else if (op === 3) {
          const [a, k] = [address(), key()]
          engine.del(a, k)
          fast.del(a, k)
        } else if (op === 4 && pick(4) === 0) {
          const a = address()
          engine.clearStorage(a)
          fast.clearStorage(a)
        } else if (op === 5) {
          engine.checkpoint()
          fast.checkpoint()
          depth++
        } else if (op === 6 && depth > 0) {
          engine.commit()
          fast.commit()
          depth--
        } else if (op === 7 && depth > 0) {
          engine.revert()
          fast.revert()
          depth--
        } else if (op === 8 && pick(3) === 0) {
          expect(fast.flush()).toEqual(engine.flush())
        }
        const [a, k] = [address(), key()]
        expect(fast.get(a, k)).toEqual(engine.get(a, k))
        expect(fast.dump(a)).toEqual(engine.dump(a))
        expect(fast.size()).toBe(engine.size())
      }
      expect(fast.flush()).toEqual(engine.flush())
    }
  })
})
