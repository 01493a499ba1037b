/**
 * A storage slot cache for the live state with the engine's semantics and cheaper keys (written against
 * @ethereumjs/statemanager 10.1.3, dist/esm/cache/storage.js).
 *
 * Why: the engine's unbounded `StorageCache` keeps accounts in a red-black tree (`@js-sdsl` OrderedMap, string
 * comparisons on every lookup) and converts the address and the slot to hex through `@noble/hashes`' checked
 * `bytesToHex` on every get and put. An SSTORE of a fresh slot does two gets and two puts (the gas function and the
 * no-op check read the slot, the engine caches the empty value, then the write), so in a loop of SSTOREs the keys
 * alone cost a few microseconds per slot. Here accounts are in a plain `Map` (the tree's order is never observed:
 * `flush` and `revert` walk the diff maps, `dump` returns one account's map) and keys are binary strings, one
 * character per byte, made by one native call (a third of the cost of building hex, measured with the Map lookup).
 *
 * What leaves the cache is exactly the engine's: `flush` items and `dump` maps are keyed by unprefixed lowercase
 * hex, values are the RLP the engine stores, a diff entry is `undefined` for "was not cached". Installed by
 * `createCaches` on the live state only; copies made by `Caches.shallowCopy` get the engine's own cache.
 */
import { Caches, CacheType, StorageCache } from '@ethereumjs/statemanager'
import { EthereumJSErrorWithoutCode, type Address } from '@ethereumjs/util'
import { enginePatches } from './switch.js'

type SlotMap = Map<string, Uint8Array>

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))

/** One character per byte (codes 0-255): a cheap, collision-free Map key. */
function key(bytes: Uint8Array): string {
  const s: string = Reflect.apply(String.fromCharCode, null, bytes)
  return s
}

/** The engine's key for a binary key: unprefixed lowercase hex. */
function hexOf(k: string): string {
  let h = ''
  for (let i = 0; i < k.length; i++) h += HEX[k.charCodeAt(i)]
  return h
}

/** RLP of the empty string: the engine's "slot known to be empty" (a new array each time, as the engine makes). */
const emptySlot = (): Uint8Array => Uint8Array.of(0x80)

export class FastStorageCache extends StorageCache {
  private slots = new Map<string, SlotMap>()

  constructor(size: number) {
    // The base class's own map stays empty: every method that reads or writes it is replaced below.
    super({ type: CacheType.ORDERED_MAP, size })
  }

  /** As the engine's, with binary keys (the diff maps never leave this class but through `flush`). */
  override _saveCachePreState(a: string, k: string): void {
    const diff = this._diffCache[this._checkpoints]!
    let pre = diff.get(a)
    if (pre === undefined) {
      pre = new Map()
      diff.set(a, pre)
    }
    if (!pre.has(k)) pre.set(k, this.slots.get(a)?.get(k))
  }

  private write(address: Address, slot: Uint8Array, value: Uint8Array): void {
    const a = key(address.bytes)
    const k = key(slot)
    this._saveCachePreState(a, k)
    let map = this.slots.get(a)
    if (map === undefined) {
      map = new Map()
      this.slots.set(a, map)
    }
    map.set(k, value)
  }

  override put(address: Address, slot: Uint8Array, value: Uint8Array): void {
    this.write(address, slot, value)
    this._stats.writes += 1
  }

  override get(address: Address, slot: Uint8Array): Uint8Array | undefined {
    this._stats.reads += 1
    const map = this.slots.get(key(address.bytes))
    if (map === undefined) return undefined
    this._stats.hits += 1
    return map.get(key(slot))
  }

  override del(address: Address, slot: Uint8Array): void {
    this.write(address, slot, emptySlot())
    this._stats.deletions += 1
  }

  override clearStorage(address: Address): void {
    this.slots.set(key(address.bytes), new Map())
  }

  override flush(): [string, string, Uint8Array | undefined][] {
    const items: [string, string, Uint8Array | undefined][] = []
    for (const [a, pre] of this._diffCache[this._checkpoints]!) {
      const map = this.slots.get(a)
      // Same message as the engine's: a diff entry always has its account's map.
      if (map === undefined) throw EthereumJSErrorWithoutCode('internal error: storage cache map for account should be defined')
      const ah = hexOf(a)
      for (const k of pre.keys()) items.push([ah, hexOf(k), map.get(k)])
    }
    this._diffCache[this._checkpoints] = new Map()
    return items
  }

  override revert(): void {
    this._checkpoints -= 1
    const diff = this._diffCache.pop()!
    for (const [a, pre] of diff) {
      let map = this.slots.get(a)
      if (map === undefined) {
        map = new Map()
        this.slots.set(a, map)
      }
      for (const [k, value] of pre) {
        if (value === undefined) map.delete(k)
        else map.set(k, value)
      }
    }
  }

  override size(): number {
    return this.slots.size
  }

  override clear(): void {
    this.slots.clear()
  }

  /** A copy keyed by hex, as the engine's map is (only the RPC state manager calls this; nothing writes to it). */
  override dump(address: Address): SlotMap | undefined {
    const map = this.slots.get(key(address.bytes))
    if (map === undefined) return undefined
    const out: SlotMap = new Map()
    for (const [k, v] of map) out.set(hexOf(k), v)
    return out
  }
}

/** Methods `FastStorageCache` replaces or relies on; if the engine's class lacks one, its own cache is kept. */
const REQUIRED = ['_saveCachePreState', 'put', 'get', 'del', 'clearStorage', 'flush', 'revert', 'commit', 'checkpoint', 'size', 'clear', 'dump']

/** Whether the live state gets `FastStorageCache` (when the patches are on at the time it is created). */
export const storageCachePatched: boolean = enginePatches.installable && REQUIRED.every(
  (m) => typeof (StorageCache.prototype as unknown as Record<string, unknown>)[m] === 'function',
)

/** The engine's default caches, with `FastStorageCache` for storage when the engine's layout was recognised. */
export function createCaches(): Caches {
  const caches = new Caches()
  if (storageCachePatched && enginePatches.active && caches.storage !== undefined) caches.storage = new FastStorageCache(caches.settings.storage.size)
  return caches
}
