/**
 * The on-disk chain (issue 15): an abstract-level key-value store, `classic-level` (LevelDB) at a directory, or any
 * abstract-level instance the caller hands over (`memory-level` in tests). Layout, all keys binary:
 *
 *   "rsksim:meta"        JSON {format, version, chainId, networkId, genesis}: what made the database
 *   "rsksim:head"        JSON: head number and hash, live state root, clock, miner settings, key store
 *   "b" + number (8 B)   block record (blockCodec.ts)
 *   "n" + hash           encoded trie node (content-addressed, as RSKj's trie store)
 *   "c" + code hash      contract code
 *   "p" + tx hash        a transaction in the pool
 *
 * Every change the node makes is written as one batch (persistence.ts), so the database always holds a whole
 * state: the last batch LevelDB finished, whatever moment the process was killed.
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import type { NodeSource } from '../state/nodeSource.js'
import { WriteLog } from './writeLog.js'

/** The few abstract-level calls rsksim makes (abstract-level 2/3: classic-level, memory-level). */
export interface LevelLike {
  status?: string
  open(): Promise<void>
  close(): Promise<void>
  get(key: Uint8Array, options: Encodings): Promise<Uint8Array | undefined>
  batch(ops: BatchOp[], options: Encodings): Promise<void>
  iterator(options: Encodings & { gte: Uint8Array; lt: Uint8Array }): AsyncIterable<[Uint8Array, Uint8Array]> & { close(): Promise<void> }
}

/** The same calls with the encodings left to the store's defaults (the store rsksim opens: see Database.opts). */
interface LevelCalls {
  get(key: Uint8Array, options?: Encodings): Promise<Uint8Array | undefined>
  batch(ops: BatchOp[], options?: Encodings): Promise<void>
  iterator(options: Partial<Encodings> & { gte: Uint8Array; lt: Uint8Array }): AsyncIterable<[Uint8Array, Uint8Array]> & {
    close(): Promise<void>
    nextv?(size: number): Promise<Array<[Uint8Array, Uint8Array]>>
  }
}

interface Encodings {
  keyEncoding: 'view'
  valueEncoding: 'view'
}

export type BatchOp = { type: 'put'; key: Uint8Array; value: Uint8Array } | { type: 'del'; key: Uint8Array }

const calls = (level: LevelLike): LevelCalls => level as unknown as LevelCalls

export const dbGet = (db: Pick<Database, 'level' | 'opts'>, key: Uint8Array) => calls(db.level).get(key, db.opts)
export const dbBatch = (db: Database, ops: BatchOp[]) => calls(db.level).batch(ops, db.opts)
/** Every value under a key prefix, in key order, read in bulk (one trip to LevelDB's thread per thousand). */
export async function dbValues(db: Pick<Database, 'level' | 'opts'>, prefix: string): Promise<Uint8Array[]> {
  const it = calls(db.level).iterator({ ...db.opts, ...range(prefix) })
  const out: Uint8Array[] = []
  try {
    if (typeof it.nextv === 'function') {
      for (;;) {
        const entries = await it.nextv(1000)
        if (entries.length === 0) break
        for (const [, v] of entries) out.push(v)
      }
    } else for await (const [, v] of it) out.push(v)
  } finally {
    await it.close().catch(() => undefined)
  }
  return out
}

export const VIEW: Encodings = { keyEncoding: 'view', valueEncoding: 'view' }
export const DB_FORMAT = 'rsksim-db'
/**
 * 2: blocks packed (blockCodec.ts). A database of version 1 (blocks in V8's serialization) is read, and marked 2 by
 * the first batch written to it: the blocks written after that are packed, which an rsksim reading only 1 cannot read.
 */
export const DB_VERSION = 2
/**
 * 3: a forked chain (`fork` in the description): its first block is the forked block of a remote, and what the local
 * trie does not hold is the remote's. An rsksim reading only 2 refuses it rather than open it as a chain of its own.
 */
export const FORK_DB_VERSION = 3

/** A database that cannot be used; the message says why and nothing was written. */
export class DatabaseError extends Error {
  override readonly name = 'DatabaseError'
}

const text = new TextEncoder()
export const META_KEY = text.encode('rsksim:meta')
export const HEAD_KEY = text.encode('rsksim:head')

function prefixed(prefix: string, body: Uint8Array): Uint8Array {
  const k = new Uint8Array(1 + body.length)
  k[0] = prefix.charCodeAt(0)
  k.set(body, 1)
  return k
}

export const blockKey = (n: bigint): Uint8Array => {
  const body = new Uint8Array(8)
  new DataView(body.buffer).setBigUint64(0, n)
  return prefixed('b', body)
}
/** Block n's edited pre-state (Chain.blockBuilt), when it has one: the value is the block's hash then the root. */
export const builtOnKey = (n: bigint): Uint8Array => {
  const k = blockKey(n)
  k[0] = 'e'.charCodeAt(0)
  return k
}
export const nodeKey = (hash: Uint8Array): Uint8Array => prefixed('n', hash)
export const codeKey = (hash: Uint8Array): Uint8Array => prefixed('c', hash)
export const poolKey = (hash: Uint8Array): Uint8Array => prefixed('p', hash)
/** An address, or an address and a slot, written in the state (LiveState `written`, for `anvil_dumpState`). */
export const writtenKey = (key: Uint8Array): Uint8Array => prefixed('w', key)
/** The key range of one prefix, for iterators. */
export const range = (prefix: string): { gte: Uint8Array; lt: Uint8Array } => ({
  gte: Uint8Array.of(prefix.charCodeAt(0)),
  lt: Uint8Array.of(prefix.charCodeAt(0) + 1),
})

export interface DatabaseMeta {
  format: string
  version: number
  chainId: string
  networkId: string
  /** Genesis block hash, 0x hex: on a fork, the forked block's (the first block the database holds). */
  genesis: string
  /**
   * A forked chain's remote block (docs/forking.md): its number and the local root its state root stands for (the
   * funded accounts written over the remote's state: TrieStore.alias). The remote's URL is not kept (it may hold a key).
   */
  fork?: { number: string; localRoot: string }
}

/** An open database: its store, where it is, and what made it (undefined when it is new). */
export interface Database {
  level: LevelLike
  where: string
  meta: DatabaseMeta | undefined
  /**
   * Encodings to name on each call: none for the store rsksim opens (Uint8Array is its default, and naming
   * encodings per call costs abstract-level about a third of a batch), 'view' for a store the caller handed over.
   */
  opts: Encodings | undefined
  /** The directory of a database rsksim opened (it holds the acknowledgement log, writeLog.ts). */
  dir?: string
}

/** Where a directory database keeps its acknowledgement log. */
export const logFile = (dir: string): string => path.join(dir, 'rsksim-acks.log')

/**
 * Opens the database at `dir` (created when missing) or the given store. Refuses, before writing anything, a
 * directory that is not an rsksim database, one another process holds open, or one made by a newer rsksim. Whether
 * the chain it holds is the node's (chain id, fork) is checked once the node knows its chain: forkDatabase.ts.
 */
export async function openDatabase(where: { path?: string; level?: LevelLike }): Promise<Database> {
  let level: LevelLike
  let label: string
  let dir: string | undefined
  const opts = where.level !== undefined ? VIEW : undefined
  if (where.level !== undefined) {
    level = where.level
    label = 'the given store'
  } else if (where.path !== undefined) {
    dir = path.resolve(where.path)
    label = dir
    if (existsSync(dir)) {
      if (!statSync(dir).isDirectory()) throw new DatabaseError(`${dir} is a file; --db needs a directory`)
      const files = readdirSync(dir)
      if (files.length > 0 && !files.includes('CURRENT')) throw new DatabaseError(`${dir} is not empty and holds no database: refusing to write there`)
    }
    level = await classicLevel(dir)
  } else {
    throw new DatabaseError('database: give a path (or a level store)')
  }
  if (level.status !== 'open') {
    try {
      await level.open()
    } catch (e) {
      const cause = (e as { cause?: { message?: string } }).cause?.message ?? (e as Error).message
      if (/lock/i.test(cause)) throw new DatabaseError(`${label} is in use by another process (LevelDB lock held): stop it first`)
      throw new DatabaseError(`cannot open the database at ${label}: ${cause}`)
    }
  }
  try {
    if (dir !== undefined) await replayLog({ level, opts }, dir)
    const raw = await dbGet({ level, opts }, META_KEY)
    if (raw === undefined) {
      if (await hasAnyKey(level, opts)) throw new DatabaseError(`${label} holds a LevelDB database that is not rsksim's: refusing to write there`)
      return { level, where: label, meta: undefined, opts, ...(dir !== undefined ? { dir } : {}) }
    }
    return { level, where: label, meta: parseMeta(raw, label), opts, ...(dir !== undefined ? { dir } : {}) }
  } catch (e) {
    if (where.level === undefined) await level.close().catch(() => undefined)
    throw e
  }
}

/**
 * Applies the acknowledgement log's batches that LevelDB did not get before the last process ended (their sequence
 * numbers are above the one in LevelDB's head record), then empties the log.
 */
async function replayLog(db: Pick<Database, 'level' | 'opts'>, dir: string): Promise<void> {
  const file = logFile(dir)
  // A log with bytes but no whole record (its first record torn by the kill) is emptied too: this process appends
  // to the same file, and a reader stops at the torn bytes, so every record written after them would be unreadable.
  if (!existsSync(file) || statSync(file).size === 0) return
  const records = WriteLog.read(file)
  const rawHead = await dbGet(db, HEAD_KEY)
  const done = rawHead === undefined ? 0n : BigInt((JSON.parse(new TextDecoder().decode(rawHead)) as { seq?: string }).seq ?? '0')
  for (const r of records) if (r.seq > done) await calls(db.level).batch(r.ops, db.opts)
  const log = new WriteLog(file)
  log.clear()
  log.close()
}

function parseMeta(raw: Uint8Array, label: string): DatabaseMeta {
  let meta: DatabaseMeta
  try {
    meta = JSON.parse(new TextDecoder().decode(raw)) as DatabaseMeta
  } catch {
    throw new DatabaseError(`the database at ${label} has an unreadable description (rsksim:meta)`)
  }
  if (meta.format !== DB_FORMAT) throw new DatabaseError(`${label} is not an rsksim database`)
  if (typeof meta.version !== 'number' || meta.version > FORK_DB_VERSION) {
    throw new DatabaseError(`the database at ${label} has format version ${String(meta.version)}, newer than this rsksim reads (${FORK_DB_VERSION}): use a newer rsksim`)
  }
  if ((meta.version === FORK_DB_VERSION) !== (meta.fork !== undefined)) throw new DatabaseError(`the database at ${label} has a damaged description (rsksim:meta): its version and its fork disagree`)
  return meta
}

async function hasAnyKey(level: LevelLike, opts: Encodings | undefined): Promise<boolean> {
  const it = calls(level).iterator({ ...opts, gte: new Uint8Array(0), lt: Uint8Array.of(0xff, 0xff, 0xff, 0xff) })
  try {
    for await (const _ of it) return true
    return false
  } finally {
    await it.close().catch(() => undefined)
  }
}

/** classic-level, loaded only when a directory is asked for (an optional dependency: a native LevelDB binding). */
async function classicLevel(dir: string): Promise<LevelLike> {
  let mod: { ClassicLevel: new (location: string, options: Encodings) => LevelLike }
  try {
    mod = (await import('classic-level')) as unknown as typeof mod
  } catch (e) {
    throw new DatabaseError(`an on-disk database needs the classic-level package (npm install classic-level): ${(e as Error).message}`)
  }
  return new mod.ClassicLevel(dir, VIEW)
}

/** Trie nodes and code read from the database on first touch (state/nodeSource.ts). */
export function levelSource(db: Database): NodeSource {
  return {
    getNode: (hash) => dbGet(db, nodeKey(hash)),
    getCode: (hash) => dbGet(db, codeKey(hash)),
  }
}
