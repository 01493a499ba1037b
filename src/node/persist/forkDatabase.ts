/**
 * A database and the chain it is opened for (docs/forking.md "A fork on disk"): for a fork, the database is read before
 * the remote is asked anything, so that a restart forks again at the block the database holds; and any database is
 * checked against the chain (its chain id; a fork's database against its remote, or the absence of one), refused
 * before anything is written when they do not belong together.
 */
import type { ResolvedOptions } from '../../options/index.js'
import type { ForkPoint } from '../fork/fork.js'
import { DatabaseError, type Database } from './database.js'

/**
 * A fork's database that holds a chain already: the block it was forked at becomes the block to fork at, so that a
 * restart resumes the same chain (before the remote is asked anything). Refused: a chain of its own, or another block.
 */
export function forkAtKeptBlock(db: Database, fork: NonNullable<ResolvedOptions['fork']>): void {
  const meta = db.meta
  if (meta === undefined) return
  if (meta.fork === undefined) throw new DatabaseError(`the database at ${db.where} holds a chain of its own (not forked): open it without fork, or give the fork another database`)
  const kept = BigInt(meta.fork.number)
  if (fork.blockNumber !== undefined && fork.blockNumber !== kept) {
    throw new DatabaseError(`the database at ${db.where} holds a chain forked at block ${kept}, not ${fork.blockNumber}: leave the fork's block number out (or give that one), or give the fork another database`)
  }
  fork.blockNumber = kept
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

/** Refuses a database made for another chain id than `chainId`. */
function checkChainId(db: Database, chainId: bigint): void {
  if (db.meta !== undefined && BigInt(db.meta.chainId) !== chainId) {
    throw new DatabaseError(`the database at ${db.where} holds a chain with chain id ${BigInt(db.meta.chainId)}; this node is chain id ${chainId} (choose the same network)`)
  }
}
