/**
 * A database and the chain it is opened for (docs/forking.md "A fork on disk"): for a fork, the database is read before
 * the remote is asked anything, so that a restart forks again at the block the database holds; and any database is
 * checked against the chain (its chain id; a fork's database against its remote, or the absence of one), refused
 * before anything is written when they do not belong together.
 */
import type { ResolvedOptions } from '../../options/index.js'
import type { ForkPoint } from '../fork/fork.js'
import { checkChainId, DatabaseError, openDatabase, type Database } from './database.js'

/**
 * The database of a fork, opened before the remote is asked anything: one that holds a forked chain sets the block to
 * fork at (its own), so a restart resumes the same chain; one that holds a chain of its own is refused.
 */
export async function openForkDatabase(where: NonNullable<ResolvedOptions['database']>, fork: NonNullable<ResolvedOptions['fork']>): Promise<Database> {
  const db = await openDatabase(where)
  const meta = db.meta
  let refusal: string | undefined
  if (meta !== undefined && meta.fork === undefined) refusal = `the database at ${db.where} holds a chain of its own (not forked): open it without fork, or give the fork another database`
  else if (meta?.fork !== undefined && fork.blockNumber !== undefined && fork.blockNumber !== BigInt(meta.fork.number)) {
    refusal = `the database at ${db.where} holds a chain forked at block ${BigInt(meta.fork.number)}, not ${fork.blockNumber}: leave the fork's block number out (or give that one), or give the fork another database`
  }
  if (refusal !== undefined) {
    if (where.level === undefined) await db.level.close().catch(() => undefined)
    throw new DatabaseError(refusal)
  }
  if (meta?.fork !== undefined) fork.blockNumber = BigInt(meta.fork.number)
  return db
}

/**
 * Refuses a database made for another chain id, a forked chain's database opened without its fork, and one whose
 * forked block is not the remote's block at that height (another network, or a remote that reorganised below it).
 */
export function checkDatabaseChain(db: Database, chainId: bigint, fork: ForkPoint | undefined): void {
  const kept = db.meta?.fork
  if (kept === undefined) return checkChainId(db, chainId)
  if (fork === undefined) {
    throw new DatabaseError(`the database at ${db.where} holds a chain forked from a remote at block ${BigInt(kept.number)}: open it with the same fork (fork.url, --fork-url)`)
  }
  if (fork.block.hashHex !== db.meta!.genesis) {
    throw new DatabaseError(`the database at ${db.where} was forked at block ${fork.number} with hash ${db.meta!.genesis}; the remote's block ${fork.number} is ${fork.block.hashHex} (another network, or the remote reorganised below it)`)
  }
  checkChainId(db, chainId)
}
