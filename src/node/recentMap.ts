/**
 * A Map that keeps the `max` entries used most recently: reading an entry makes it the newest, adding one past the
 * bound drops the oldest. For memos of pure functions, where a miss only costs the computation again.
 */
export class RecentMap<K, V> {
  private readonly map = new Map<K, V>()

  constructor(private readonly max: number) {}

  get(key: K): V | undefined {
    const value = this.map.get(key)
    if (value !== undefined) {
      this.map.delete(key)
      this.map.set(key, value)
    }
    return value
  }

  set(key: K, value: V): void {
    this.map.delete(key)
    this.map.set(key, value)
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!)
  }

  clear(): void {
    this.map.clear()
  }
}
