/**
 * The fork's disk cache: the remote's answers at one fork block, so that the next run over the same block (the next
 * test file, the next `vitest` run) asks the remote nothing it asked before. What a remote answers about a fixed
 * block never changes, so entries never expire; the block hash in the file name keeps a reorganised block apart.
 *
 * One JSON-lines file per fork, `${dir}/${chainId}/${blockNumber}-${blockHash}.jsonl`, each line
 * `JSON.stringify([key, value])`. Several processes may append to one file at once (vitest workers forking the same
 * block): each flush is ONE appendFileSync, which keeps lines whole in practice, and loading skips any line that is
 * not a whole entry, so neither a crash mid-write nor an interleaving breaks the next run. A cache that cannot be
 * written (read-only directory, disk full) goes on in memory only, said once with console.warn: a cache is an
 * optimisation, never a reason to fail.
 */
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import path from 'node:path'

/** What a memory-only cache keeps: the remote's blocks and transactions (keys are the method, then the JSON params). */
const MEMORY_METHODS = ['eth_getBlockByHash[', 'eth_getBlockByNumber[', 'eth_getTransactionByHash[']
/** How many answers a memory-only cache keeps (a block without its transactions is a few KB). */
const MEMORY_ENTRIES = 1_024

/** Which fork a cache file belongs to. */
export interface ForkCacheKey {
  chainId: bigint
  blockNumber: bigint
  /** `0x` + 64 hex digits. */
  blockHash: string
}

/**
 * The remote's answers at one fork block, in memory and in a JSON-lines file.
 *
 * @example
 * ```ts
 * const cache = ForkCache.open(ForkCache.defaultDir(), { chainId: 31n, blockNumber: 5_910_000n, blockHash })
 * cache.get('eth_getCode["0x…","0x5a2d70"]') // undefined: not cached yet
 * cache.set('eth_getCode["0x…","0x5a2d70"]', '0x')
 * cache.flush() // one append to ~/.cache/rsksim/fork/31/5910000-0x….jsonl
 * ```
 */
export class ForkCache {
  /** The cache file. */
  readonly path: string
  private readonly entries = new Map<string, unknown>()
  private queue: string[] = []
  private writable = true
  /** The file ends in a cut line: the next write starts a new line first, so its first entry is not glued to it. */
  private cutLine = false

  private constructor(file: string) {
    this.path = file
  }

  /**
   * Opens (creating directories) the cache file of one fork and reads every complete line into memory; a damaged or
   * cut line is skipped. Never throws for the file system: a directory that cannot be made gives a memory-only cache.
   */
  static open(dir: string, key: ForkCacheKey): ForkCache {
    if (!/^0x[0-9a-fA-F]{64}$/.test(key.blockHash)) throw new TypeError(`fork cache: the block hash must be 0x and 64 hex digits, not ${key.blockHash}`)
    if (key.chainId < 0n || key.blockNumber < 0n) throw new RangeError('fork cache: chain id and block number must not be negative')
    const cache = new ForkCache(path.join(dir, String(key.chainId), `${key.blockNumber}-${key.blockHash.toLowerCase()}.jsonl`))
    try {
      mkdirSync(path.dirname(cache.path), { recursive: true })
    } catch (e) {
      cache.disable(e)
      return cache
    }
    let text = ''
    try {
      text = readFileSync(cache.path, 'utf8')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
        console.warn(`rsksim: the fork cache ${cache.path} could not be read (${reason(e)}); starting it empty`)
      }
    }
    cache.load(text)
    return cache
  }

  /**
   * A cache kept in memory only, for a fork with the disk cache off (`cache: false`): the routes still ask the remote
   * only once for what they need several times (a block by hash to see whose it is, then to answer with it).
   */
  static inMemory(): ForkCache {
    const cache = new ForkCache('(memory)')
    cache.writable = false
    cache.memoryOnly = true
    return cache
  }

  /**
   * Kept in memory only (`inMemory`): only the remote's blocks and transactions by hash or number, which the routes
   * ask again and again to decide whose a block or transaction is, and at most `MEMORY_ENTRIES` of them, oldest out
   * first. Other answers (logs, traces, calls) can be large, and nothing else would bound them.
   */
  private memoryOnly = false

  /** The default directory: $RSKSIM_FORK_CACHE, else $XDG_CACHE_HOME/rsksim/fork, else ~/.cache/rsksim/fork. */
  static defaultDir(): string {
    const own = process.env.RSKSIM_FORK_CACHE
    if (own !== undefined && own !== '') return own
    // The XDG spec: a relative $XDG_CACHE_HOME is invalid and is ignored.
    const xdg = process.env.XDG_CACHE_HOME
    if (xdg !== undefined && path.isAbsolute(xdg)) return path.join(xdg, 'rsksim', 'fork')
    return path.join(homedir(), '.cache', 'rsksim', 'fork')
  }

  /** How many entries are kept. */
  get size(): number {
    return this.entries.size
  }

  /** The cached value, or `undefined` when not cached (a cached null is null). */
  get(key: string): unknown {
    return this.entries.get(key)
  }

  has(key: string): boolean {
    return this.entries.has(key)
  }

  /** Keeps `value` (plain JSON; `undefined` is kept as null) in memory at once and queues it for the file. */
  set(key: string, value: unknown): void {
    const kept = value === undefined ? null : value
    if (this.memoryOnly) {
      if (!MEMORY_METHODS.some((m) => key.startsWith(m))) return
      this.entries.delete(key)
      this.entries.set(key, kept)
      if (this.entries.size > MEMORY_ENTRIES) this.entries.delete(this.entries.keys().next().value!)
      return
    }
    const line = `${JSON.stringify([key, kept])}\n`
    if (this.entries.has(key) && `${JSON.stringify([key, this.entries.get(key)])}\n` === line) return
    this.entries.set(key, kept)
    if (this.writable) this.queue.push(line)
  }

  /**
   * Writes the queued entries with ONE appendFileSync. Never throws: a failed write turns the cache into memory-only,
   * said once with console.warn.
   */
  flush(): void {
    if (this.queue.length === 0) return
    const text = (this.cutLine ? '\n' : '') + this.queue.join('')
    this.queue = []
    try {
      appendFileSync(this.path, text)
      this.cutLine = false
    } catch (e) {
      this.disable(e)
    }
  }

  private load(text: string): void {
    const end = text.lastIndexOf('\n')
    this.cutLine = text.length > 0 && end !== text.length - 1
    for (const line of text.slice(0, end + 1).split('\n')) {
      if (line === '') continue
      let entry: unknown
      try {
        entry = JSON.parse(line)
      } catch {
        continue
      }
      if (Array.isArray(entry) && entry.length === 2 && typeof entry[0] === 'string') this.entries.set(entry[0], entry[1])
    }
  }

  private disable(e: unknown): void {
    if (!this.writable) return
    this.writable = false
    this.queue = []
    console.warn(`rsksim: the fork cache ${this.path} cannot be written (${reason(e)}); keeping it in memory only`)
  }
}

/** An fs error's message, which names its code and the path (`EACCES: permission denied, open '…'`). */
function reason(e: unknown): string {
  return e instanceof Error ? e.message : String(e)
}
