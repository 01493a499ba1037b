/**
 * Keeping the node in its database (database.ts) and reading it back.
 *
 * `sync` runs at the end of every task of the node's queue (every request, every interval block), before the
 * request is answered: whatever changed (new or removed blocks, trie nodes and code, the live state root, the pool,
 * the clock, miner settings, the key store) goes into ONE batch with the new head record. LevelDB applies a batch
 * whole or not at all and has it in its log before the call returns, so a process killed at any moment reopens at
 * the last answered state: every receipt or transaction hash the node answered is there.
 *
 * What is kept, and what is not (docs/persistence.md): blocks, receipts and logs; the state and every historical
 * state; the pool; the clock (time shifts, a pinned next timestamp, the block interval); the coinbase, block gas
 * limit and minimum gas price set by the dev methods; keys made or imported with a passphrase (sealed). Not kept:
 * snapshots (a restart starts a new session, as in Ganache), filters and subscriptions (RSKj loses them too), unlocks
 * (RSKj too), impersonation, console.log settings.
 */
import { bytesToHex, concatBytes, hexToBytes, type PrefixedHexString } from '@ethereumjs/util'
import type { RskNode } from '../node.js'
import type { BlockRecord } from '../chain/types.js'
import type { SealedHex } from '../wallet/keyStore.js'
import { toAddressBytes } from '../accounts.js'
import { Address } from '@ethereumjs/util'
import { decodeBlock, decodeTx, encodeBlock, encodeTx, isPackedBlock } from './blockCodec.js'
import { WriteLog } from './writeLog.js'
import { binKey } from '../binKey.js'
import { DatabaseWriteFailed } from '../errors.js'
import {
  DB_FORMAT,
  DB_VERSION,
  FORK_DB_VERSION,
  DatabaseError,
  HEAD_KEY,
  META_KEY,
  blockKey,
  builtOnKey,
  codeKey,
  nodeKey,
  poolKey,
  writtenKey,
  dbBatch,
  dbGet,
  dbValues,
  logFile,
  type BatchOp,
  type Database,
  type DatabaseMeta,
} from './database.js'

/** The head record: small, rewritten with every batch. */
interface HeadRecord {
  /** Sequence number of the batch that wrote this record (the acknowledgement log's records above it are newer). */
  seq?: string
  number: string
  hash: string
  /** Live state root: the head block's, or after dev-chain edits the edited one. */
  root: string
  clock: { offset: string; drift: string; skipped: string; pinned?: string; interval?: string }
  miner: { coinbase: string; blockGasLimit: string; minimumGasPrice: string }
  keys: SealedHex[]
}

const q = (n: bigint): string => n.toString()
/** A key of LiveState `written` (binary: an address, or an address and a slot), kept as its key and its value. */
const writtenOp = (k: string): BatchOp => {
  const bytes = Buffer.from(k, 'latin1')
  return { type: 'put', key: writtenKey(bytes), value: bytes }
}
/** The log is emptied once LevelDB has caught up and it holds more than this. */
const LOG_CLEAR_BYTES = 1 << 20
const MAX_QUEUED_OPS = 20_000
const utf8 = new TextEncoder()

export class Persistence {
  /** Highest block number written. */
  private head = -1n
  /** Lowest block number removed (evm_revert, evm_reset) since the last batch. */
  private removedFrom?: bigint
  private poolChanges = -1
  private readonly poolWritten = new Set<string>()
  private quick = ''
  private closed = false
  /** Batches written so far (numbered in the head record and the acknowledgement log). */
  private seq = 0n
  /** The acknowledgement log of a directory database (writeLog.ts); LevelDB then catches up in the background. */
  private readonly log: WriteLog | undefined
  /** Batches in the log that LevelDB does not have yet, oldest first, and their op count. */
  private queued: BatchOp[][] = []
  private queuedOps = 0
  private applying = false
  private applied: Promise<void> = Promise.resolve()
  private failure: unknown
  /** Ops for the next batch besides the node's changes (the database description, in the first batch). */
  private extra: BatchOp[] = []

  constructor(
    private readonly db: Database,
    private readonly node: RskNode,
  ) {
    this.log = db.dir === undefined ? undefined : new WriteLog(logFile(db.dir))
    // From now on the state keeps what it writes for the next batch.
    node.chain.state.recordNewlyWritten()
    node.events.on('blocksRemoved', (dropped: BlockRecord[]) => {
      const low = dropped[0]?.number
      if (low !== undefined && (this.removedFrom === undefined || low < this.removedFrom)) this.removedFrom = low
    })
  }

  /** Writes what changed since the last batch, as one batch. */
  async sync(): Promise<void> {
    if (this.closed) return
    if (this.failure !== undefined) throw new DatabaseWriteFailed(this.db.where, this.failure)
    const { chain, pool } = this.node
    const headNumber = chain.store.headNumber
    // Most requests change nothing: a key of the head record's inputs, cheaper than the record, tells.
    const quick = await this.quickKey()
    const written = chain.state.takeNewlyWritten()
    if (quick === this.quick && this.extra.length === 0 && written.length === 0 && !chain.trees.hasWrites && pool.changes === this.poolChanges && this.removedFrom === undefined && headNumber === this.head) return
    this.seq++
    const headJson = JSON.stringify({ seq: this.seq.toString(), ...(await this.headRecord()) })
    const ops: BatchOp[] = this.extra
    this.extra = []
    for (const k of written) ops.push(writtenOp(k))
    const { nodes, codes } = chain.trees.takeWrites()
    for (const [hash, encoded] of nodes) ops.push({ type: 'put', key: nodeKey(hash), value: encoded })
    for (const [hash, code] of codes) ops.push({ type: 'put', key: codeKey(hash), value: code })
    if (this.removedFrom !== undefined) {
      for (let n = this.removedFrom; n <= this.head; n++) ops.push({ type: 'del', key: blockKey(n) }, { type: 'del', key: builtOnKey(n) })
      if (this.removedFrom - 1n < this.head) this.head = this.removedFrom - 1n
      this.removedFrom = undefined
    }
    for (let n = this.head + 1n; n <= headNumber; n++) {
      const block = chain.store.byNumber(n)!
      ops.push({ type: 'put', key: blockKey(n), value: encodeBlock(block) })
      // The state a dev-chain edit made before the block, which its replays start from (Chain.stateRootBefore).
      const builtOn = chain.builtOn(block.hashHex)
      if (builtOn !== undefined) ops.push({ type: 'put', key: builtOnKey(n), value: concatBytes(block.hash, builtOn) })
    }
    if (pool.changes !== this.poolChanges) this.poolOps(ops)
    ops.push({ type: 'put', key: HEAD_KEY, value: utf8.encode(headJson) })
    try {
      await this.write(ops)
    } catch (e) {
      this.failure ??= e
      throw new DatabaseWriteFailed(this.db.where, e)
    }
    this.head = headNumber
    this.quick = quick
    this.poolChanges = pool.changes
  }

  /** The batch is safe once this returns: in the acknowledgement log (then LevelDB later), or in the store. */
  private async write(ops: BatchOp[]): Promise<void> {
    if (this.log === undefined) return dbBatch(this.db, ops)
    this.log.append(this.seq, ops)
    this.queued.push(ops)
    this.queuedOps += ops.length
    if (!this.applying) this.applied = this.apply()
    // Backpressure: never far ahead of LevelDB.
    if (this.queuedOps > MAX_QUEUED_OPS) await this.applied
  }

  /**
   * Hands the queued batches to LevelDB, merged into one batch per round (later writes of a key win, as they
   * would in order): a LevelDB batch has a fixed cost, and the main thread pays abstract-level's per-call work.
   */
  private async apply(): Promise<void> {
    this.applying = true
    try {
      while (this.queued.length > 0 && this.failure === undefined) {
        const round = this.queued.length === 1 ? this.queued[0]! : this.queued.flat()
        this.queued = []
        this.queuedOps = 0
        try {
          await dbBatch(this.db, round)
        } catch (e) {
          this.failure ??= e
        }
      }
      // Emptied when LevelDB holds every record (and the log has grown enough to be worth the call).
      if (this.failure === undefined && this.log!.size > LOG_CLEAR_BYTES) this.log!.clear()
    } finally {
      this.applying = false
    }
  }

  private async quickKey(): Promise<string> {
    const { chain, clock, options } = this.node
    const root = await chain.state.getStateRoot()
    return `${chain.head.hashHex} ${bytesToHex(root)} ${clock.offset} ${clock.drift} ${clock.skipped} ${clock.pinned} ${clock.interval} ${this.node.coinbaseHex} ${options.blockGasLimit} ${options.minimumGasPrice} ${this.node.accounts.store.changes}`
  }

  private poolOps(ops: BatchOp[]): void {
    const now = new Map(this.node.pool.save().map((t) => [t.hashHex, t]))
    for (const [hashHex, t] of now) if (!this.poolWritten.has(hashHex)) ops.push({ type: 'put', key: poolKey(t.hash), value: encodeTx(t) })
    for (const hashHex of this.poolWritten) if (!now.has(hashHex)) ops.push({ type: 'del', key: poolKey(hexToBytes(hashHex as PrefixedHexString)) })
    this.poolWritten.clear()
    for (const h of now.keys()) this.poolWritten.add(h)
  }

  private async headRecord(): Promise<HeadRecord> {
    const { chain, clock, options } = this.node
    const head = chain.head
    return {
      number: q(head.number),
      hash: head.hashHex,
      root: bytesToHex(await chain.state.getStateRoot()),
      clock: {
        offset: q(clock.offset),
        drift: q(clock.drift),
        skipped: q(clock.skipped),
        ...(clock.pinned !== undefined ? { pinned: q(clock.pinned) } : {}),
        ...(clock.interval !== undefined ? { interval: q(clock.interval) } : {}),
      },
      miner: { coinbase: this.node.coinbaseHex, blockGasLimit: q(options.blockGasLimit), minimumGasPrice: q(options.minimumGasPrice) },
      keys: this.node.accounts.store.exportSealed(),
    }
  }

  /**
   * Writes the description of a new database (with its first batch: the genesis block, or a fork's forked block).
   * `forkLocalRoot`: on a fork, the local root the forked block's state root stands for (createForkGenesis).
   */
  async create(forkLocalRoot?: Uint8Array): Promise<void> {
    const { chain } = this.node
    const first = chain.store.first
    const meta: DatabaseMeta = {
      format: DB_FORMAT,
      version: forkLocalRoot === undefined ? DB_VERSION : FORK_DB_VERSION,
      chainId: q(chain.common.chainId()),
      networkId: this.node.options.network.networkId,
      genesis: first.hashHex,
      ...(forkLocalRoot !== undefined ? { fork: { number: q(first.number), localRoot: bytesToHex(forkLocalRoot) } } : {}),
    }
    // In the same batch as the first block: a database is never found with blocks and no description.
    this.extra = [{ type: 'put', key: META_KEY, value: utf8.encode(JSON.stringify(meta)) }]
    // The accounts the genesis wrote (the state keeps what it writes from now on for the next batches).
    for (const [address, slots] of chain.state.written) {
      this.extra.push(writtenOp(address))
      for (const slot of slots) this.extra.push(writtenOp(address + slot))
    }
    this.head = first.number - 1n
    await this.sync()
  }

  /** Reads the chain back into a node built over the database's nodes (chain.trees has it as its source). */
  async restore(): Promise<void> {
    const { where } = this.db
    const { chain, node } = { chain: this.node.chain, node: this.node }
    const damaged = (what: string) => new DatabaseError(`the database at ${where} is damaged: ${what}`)
    const rawHead = await dbGet(this.db, HEAD_KEY)
    if (rawHead === undefined) throw damaged('no head record')
    const head = JSON.parse(new TextDecoder().decode(rawHead)) as HeadRecord
    this.seq = BigInt(head.seq ?? '0')
    const values = await dbValues(this.db, 'b')
    // Blocks older than the store's records stay packed as they were read (format 2); the first and the newest
    // become records.
    const recordsFrom = values.length - chain.store.recentLimit
    for (let k = 0; k < values.length; k++) {
      const value = values[k]!
      try {
        if (k > 0 && k < recordsFrom && isPackedBlock(value)) chain.store.appendPacked(value)
        else chain.store.append(decodeBlock(value, chain.common, () => chain.store.byNumber(chain.store.headNumber)))
      } catch (e) {
        throw damaged(`a block record is unreadable (${(e as Error).message})`)
      }
    }
    const meta = this.db.meta
    const firstNumber = meta?.fork === undefined ? 0n : BigInt(meta.fork.number)
    if (values.length === 0 || chain.store.first.number !== firstNumber || chain.head.hashHex !== head.hash) throw damaged(`the blocks end at ${chain.store.headNumber}, the head record names ${head.number}`)
    if (meta !== undefined && chain.store.first.hashHex !== meta.genesis) throw damaged('its genesis block is not the one it was made with')
    const setRoot = async (root: string) => {
      try {
        await chain.state.setStateRoot(hexToBytes(root as PrefixedHexString))
      } catch {
        throw damaged(`the state ${root} is missing`)
      }
    }
    if (meta?.fork !== undefined) {
      // The forked block's state root (the remote's) stands for the local root made over it at the fork's start.
      await setRoot(meta.fork.localRoot)
      chain.trees.alias(chain.store.first.header.stateRoot, await chain.state.rootNode())
    }
    await setRoot(head.root)
    // The live state may be an edit on top of the head: the next block records it (Chain.editedRoot).
    chain.stateEdited()
    for (const v of await dbValues(this.db, 'e')) chain.restoreBuiltOn(bytesToHex(v.subarray(0, 32)), v.slice(32))
    // The addresses and slots written so far, which anvil_dumpState lists (the trie keeps only their hashes). A
    // database written before they were kept has none: its dumps list what was written since it was reopened.
    for (const v of await dbValues(this.db, 'w')) chain.state.restoreWritten(binKey(v))
    chain.genesisTrees = chain.trees.mark()
    chain.trees.setEra(chain.store.headNumber)
    node.clock.offset = BigInt(head.clock.offset)
    node.clock.drift = BigInt(head.clock.drift)
    node.clock.skipped = BigInt(head.clock.skipped)
    node.clock.pinned = head.clock.pinned === undefined ? undefined : BigInt(head.clock.pinned)
    node.clock.interval = head.clock.interval === undefined ? undefined : BigInt(head.clock.interval)
    node.setCoinbase(toAddressBytes(head.miner.coinbase))
    node.setBlockGasLimit(BigInt(head.miner.blockGasLimit))
    node.setMinimumGasPrice(BigInt(head.miner.minimumGasPrice))
    for (const k of head.keys) node.accounts.restoreSealed(k)
    const txs = (await dbValues(this.db, 'p')).map((v) => decodeTx(v, chain.common))
    await node.pool.restore(txs, async (sender) => (await chain.state.getAccount(new Address(toAddressBytes(sender))))?.nonce ?? 0n)
    // A database of an earlier format version is marked with this one by the next batch, which writes blocks in it.
    if (meta !== undefined && meta.version < DB_VERSION) {
      meta.version = DB_VERSION
      this.extra.push({ type: 'put', key: META_KEY, value: utf8.encode(JSON.stringify(meta)) })
    }
    // What was read is what is written: the next batch holds only changes.
    this.head = chain.store.headNumber
    this.poolChanges = node.pool.changes
    for (const t of txs) this.poolWritten.add(t.hashHex)
    this.quick = await this.quickKey()
    chain.trees.takeWrites()
  }

  /**
   * Writes what is left and closes the store (unless the caller handed it over: theirs to close). After a failed
   * write there is nothing more to write: requests already answered the failure.
   */
  async close(ownsStore: boolean): Promise<void> {
    if (this.closed) return
    try {
      if (this.failure === undefined) await this.sync()
      await this.applied
    } finally {
      this.closed = true
      if (this.log !== undefined) {
        if (this.failure === undefined) this.log.clear()
        this.log.close()
      }
      if (ownsStore) await this.db.level.close()
    }
  }
}
