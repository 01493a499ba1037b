/**
 * An index from 32-byte hashes to block positions, keyed by the hash's first four bytes as a small integer: a
 * 66-character hex key costs about 90 heap bytes per entry and an integer key nothing beyond the entry. Different
 * hashes may share a key, so a lookup yields candidates that the caller checks against the full hash.
 */
export class PrefixIndex {
  private readonly map = new Map<number, number | number[]>()

  add(hashHex: string, position: number): void {
    const key = prefixOf(hashHex)
    const known = this.map.get(key)
    if (known === undefined) this.map.set(key, position)
    else if (typeof known === 'number') this.map.set(key, [known, position])
    else known.push(position)
  }

  remove(hashHex: string, position: number): void {
    const key = prefixOf(hashHex)
    const known = this.map.get(key)
    if (known === position) this.map.delete(key)
    else if (Array.isArray(known)) {
      const rest = known.filter((p) => p !== position)
      this.map.set(key, rest.length === 1 ? rest[0]! : rest)
    }
  }

  /** The first candidate position for which `matches` holds. */
  find(hashHex: string, matches: (position: number) => boolean): number | undefined {
    const known = this.map.get(prefixOf(hashHex))
    if (known === undefined) return undefined
    if (typeof known === 'number') return matches(known) ? known : undefined
    return known.find(matches)
  }

  clear(): void {
    this.map.clear()
  }
}

/** The first four bytes of a `0x` hex hash as a 32-bit integer (a V8 small integer: no heap object). */
function prefixOf(hashHex: string): number {
  return parseInt(hashHex.slice(2, 10), 16) | 0
}
