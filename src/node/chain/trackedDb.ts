/**
 * The trie node store, an in-memory map that remembers which keys were added since a mark, so that
 * `evm_revert` can drop the nodes of the blocks it removes and memory stays flat over thousands of
 * snapshot/revert cycles. Trie nodes are content-addressed and never deleted by the trie itself, so a key
 * first written after a mark cannot be referenced by any state from before it.
 */
import { Buffer } from 'node:buffer'
import { MapDB, bytesToUnprefixedHex } from '@ethereumjs/util'

type Value = string | Uint8Array

/**
 * The same key as one flat string. Keys arrive as hex built two characters at a time (`bytesToUnprefixedHex`),
 * which V8 keeps as a rope of ~26 nodes (~850 heap bytes) for a 32-byte node hash; a map key lives as long as
 * its node, so it is copied once into a flat ~80-byte string. Hex is ASCII, so latin1 round-trips it.
 */
function flatKey(key: string): string {
  return Buffer.from(key, 'latin1').toString('latin1')
}

class Journal {
  /** Keys in the order they were first added. */
  readonly added: string[] = []
}

export class TrackedMapDB extends MapDB<string, Value> {
  constructor(
    database: Map<string, Value> = new Map(),
    private readonly journal = new Journal(),
  ) {
    super(database)
  }

  override async put(key: string, value: Value): Promise<void> {
    const k = (key as unknown) instanceof Uint8Array ? bytesToUnprefixedHex(key as unknown as Uint8Array) : key.toString()
    if (this._database.has(k)) {
      this._database.set(k, value)
      return
    }
    const stored = flatKey(k)
    this.journal.added.push(stored)
    this._database.set(stored, value)
  }

  override async batch(ops: Parameters<MapDB<string, Value>['batch']>[0]): Promise<void> {
    for (const op of ops) {
      if (op.type === 'put') await this.put(op.key, op.value)
      else await this.del(op.key)
    }
  }

  /** Storage tries share the map and the journal. */
  override shallowCopy(): TrackedMapDB {
    return new TrackedMapDB(this._database, this.journal)
  }

  /** A position to roll back to. */
  mark(): number {
    return this.journal.added.length
  }

  /** Deletes every key first added after `mark`. */
  rollback(mark: number): void {
    const { added } = this.journal
    for (let i = mark; i < added.length; i++) this._database.delete(added[i]!)
    added.length = mark
  }
}
