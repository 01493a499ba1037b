/**
 * The simulated node: the composition root that wires chain, pool, clock, miner and key store together, and
 * the two flows that span them (submitting a transaction, mining a block). Everything else lives in the
 * components; RPC handlers reach them through this object.
 */
import { EventEmitter } from 'eventemitter3'
import { Address, bytesToHex, KECCAK256_RLP } from '@ethereumjs/util'
import type { ResolvedFork, ResolvedOptions } from '../options/index.js'
import { ForkError, TransactionRejected } from './errors.js'
import { Chain } from './chain/chain.js'
import { createRskCommon } from './chain/common.js'
import { createForkGenesis, createGenesis } from './chain/genesis.js'
import { connectFork, forkBridgeCall, forkNetwork, forkUncleCoinbase, remoteBlocks, type ForkConfig, type ForkPoint } from './fork/fork.js'
import type { BlockRecord, TxRecord } from './chain/types.js'
import { compactTransactions } from './chain/txRecord.js'
import { TxPool } from './pool/pool.js'
import { admissionError, pendingFundsError } from './pool/admission.js'
import { forwardClock, TxQuotaChecker } from './pool/txQuota.js'
import { quotaRequest } from './pool/quotaRequest.js'
import { Clock } from './miner/clock.js'
import { Miner, type Dropped, type Template } from './miner/miner.js'
import type { MinerConfig } from './miner/config.js'
import type { MergedMiningFields } from './miner/seal.js'
import { Impersonation } from './wallet/impersonation.js'
import { ConsoleCollector } from './exec/consoleLog.js'
import type { EVM } from '@ethereumjs/evm'
import { setMinimumGasPrice } from './chain/common.js'
import { Work } from './miner/work.js'
import { Accounts, MINER_KEY } from './accounts.js'
import { privateKeyToAddress } from './crypto.js'
import { SerialQueue } from './queue.js'
import { Snapshots } from './snapshots/snapshots.js'
import { PeerScoring } from './peers/scoring.js'
import { REMASC_CONFIGS } from './rsk/remasc/remasc.js'
import { RECENT_BLOCKS } from './chain/store.js'
import { openDatabase, levelSource, type Database } from './persist/database.js'
import { checkDatabaseChain, forkAtKeptBlock } from './persist/forkDatabase.js'
import { Persistence } from './persist/persistence.js'

export interface NodeEvents {
  /** A block was appended to the chain. */
  block: [BlockRecord]
  /** A transaction entered the pending set. */
  pendingTransaction: [TxRecord]
  /** Blocks were removed from the chain (evm_revert, evm_reset), oldest first. */
  blocksRemoved: [BlockRecord[]]
  /**
   * `hardhat_reset` forked again at block `n` (the first argument): the remote's blocks above it are no longer part
   * of the chain, and those from `previous` + 1 (the old forked block, the second argument) up to it now are.
   */
  forked: [n: bigint, previous: bigint]
  /** A contract called console.log (src/node/exec/consoleLog.ts): in a mined transaction, or in an eth_call (null). */
  console: [{ message: string; transactionHash: string | null }]
  /** The node is closing: what waits on it outside the queue (eth_sendRawTransactionSync) stops waiting. */
  closed: []
}

export class RskNode {
  readonly events = new EventEmitter<NodeEvents>()
  /**
   * Chain events (a block, blocks removed, a pending transaction) whose announcement has begun: counted before their
   * listeners run, so that a subscription made by one of them is told only of later events (subscriptions.ts).
   */
  announcements = 0
  readonly queue = new SerialQueue()
  /** Set when `close` begins: a request that queues its own steps (hardhat_mine) stops before its next one. */
  closed = false
  readonly pool = new TxPool()
  readonly clock = new Clock()
  /**
   * RSKj's per-account virtual-gas quotas (`TxQuotaChecker`). RSKj refills them by the wall clock, on a regtest
   * that mines a block a second (`miner.client.delayBetweenBlocks`); rsksim's clock for them is the node's time
   * (wall clock, drift, every `evm_increaseTime`) or the head block's timestamp if later, moving forward only. So
   * each automined block (at least 1 s after its parent) refills as a second of RSKj's regtest does.
   */
  readonly txQuota = new TxQuotaChecker(
    forwardClock(() => Math.max(Date.now() + Number(this.clock.drift + this.clock.skipped) * 1000, this.headTimeMs())),
  )
  readonly accounts = new Accounts()
  readonly snapshots = new Snapshots()
  /** Peers (none in a simulation) and the sco_* ban list. */
  readonly peers = new PeerScoring()
  /** Whether blocks are mined: false after `evm_stopMining`. */
  miningEnabled = true
  readonly miner: Miner
  /** Templates served to merged miners and their reported hash rates. */
  readonly work: Work
  /** Senders accepted without a key (anvil_impersonateAccount and its aliases). */
  readonly impersonation = new Impersonation()
  /** console.log calls of contracts run by the live EVM (mined transactions and eth_call at the head or `pending`). */
  readonly console = new ConsoleCollector()
  /** console.log lines of the block being mined, reported once it is appended. */
  private minedConsole: { message: string; transactionHash: string | null }[] = []
  /** What blocks are built with; the dev-chain setters change it (coinbase, gas limit, minimum gas price). */
  private readonly minerConfig: MinerConfig
  private intervalTimer?: NodeJS.Timeout
  /** The on-disk database, when `database` is set (src/node/persist). */
  private persistence?: Persistence
  /** The database the chain is kept in (`database` option), and the head it resumed at when it held a chain already. */
  database?: { where: string; resumedAt?: { number: bigint; hash: string } }
  /** The remote network this chain forks, when `fork` is set (src/node/fork, docs/forking.md). */
  fork?: ForkPoint

  /** The network's REMASC constants when blocks end with the REMASC transaction (option `remasc`), for its tracer. */
  get remasc(): MinerConfig['remasc'] {
    return this.minerConfig.remasc
  }

  private constructor(
    readonly options: ResolvedOptions,
    readonly chain: Chain,
  ) {
    this.console.attach(chain.vm.evm as EVM)
    this.minerConfig = {
      // RSKj regtest: 0xec4ddeb4380ad69b3e509baad9f158cdf4e4681d.
      coinbase: privateKeyToAddress(MINER_KEY),
      afterTransaction: (t) => {
        for (const message of this.console.take()) this.minedConsole.push({ message, transactionHash: t.hashHex })
      },
      // A pending block's pool transactions print when they are mined, not at each read of `pending`.
      afterPendingTransactions: () => void this.console.take(),
      blockGasLimit: options.blockGasLimit,
      minimumGasPrice: options.minimumGasPrice,
      ...(options.remasc ? { remasc: REMASC_CONFIGS[options.network.name] } : {}),
    }
    // Blocks read for every new block stay records, not packed: REMASC's paid block, `maturity` below (4,000 on
    // mainnet), and with `stateHistory` the state roots of the blocks whose states are kept (Chain.blockAppended).
    const maturity = this.minerConfig.remasc === undefined ? 0 : Number(this.minerConfig.remasc.maturity) + 2
    chain.store.keepRecent(Math.max(RECENT_BLOCKS, maturity, options.stateHistory ?? 0))
    this.miner = new Miner(chain, this.pool, this.clock, this.minerConfig, this.queue)
    this.queue.endEach = () => this.miner.endTask()
    this.work = new Work(this.miner, chain.store)
  }

  /** The miner's coinbase. */
  get coinbase(): Uint8Array {
    return this.minerConfig.coinbase
  }

  /** `anvil_setCoinbase`: the coinbase of the blocks mined from now on. */
  setCoinbase(address: Uint8Array): void {
    this.minerConfig.coinbase = address
  }

  /** `anvil_setMinGasPrice`: the `minimumGasPrice` of the blocks mined from now on (and what BASEFEE answers). */
  setMinimumGasPrice(price: bigint): void {
    this.minerConfig.minimumGasPrice = price
    this.options.minimumGasPrice = price
    setMinimumGasPrice(this.chain.common, price)
  }

  /** `evm_setBlockGasLimit`: the gas limit of the blocks mined from now on, and the pool's per-transaction bound. */
  setBlockGasLimit(gasLimit: bigint): void {
    this.minerConfig.blockGasLimit = gasLimit
    this.options.blockGasLimit = gasLimit
  }

  /** Builds the genesis block and the key store, and starts interval mining when configured. */
  static async create(options: ResolvedOptions): Promise<RskNode> {
    let db: Database | undefined
    let fork: ForkPoint | undefined
    try {
      if (options.database !== undefined) {
        db = await openDatabase(options.database)
        // A fork kept in a database resumes at the block it was forked at: the database is read before the remote is asked.
        if (options.fork !== undefined) forkAtKeptBlock(db, options.fork)
      }
      fork = options.fork === undefined ? undefined : await connectFork(options.fork)
      if (fork !== undefined) adoptFork(options, fork)
      if (db !== undefined) checkDatabaseChain(db, options.network.chainId, fork)
      const chain = await Chain.create(createRskCommon(options.network, options.minimumGasPrice), db === undefined ? undefined : levelSource(db), fork?.state)
      const node = new RskNode(options, chain)
      const accounts = fundedAccounts(options)
      let forkLocalRoot: Uint8Array | undefined
      if (fork !== undefined) node.attachFork(fork)
      if (fork !== undefined && db?.meta === undefined) {
        await createForkGenesis(chain, fork.block, accounts)
        forkLocalRoot = await chain.state.getStateRoot()
      } else if (db?.meta === undefined) {
        await createGenesis(chain, {
          accounts,
          gasLimit: options.blockGasLimit,
          minimumGasPrice: options.minimumGasPrice,
          timestamp: options.genesisTimestamp,
        })
      }
      if (db !== undefined) {
        const persistence = new Persistence(db, node)
        if (db.meta === undefined) await persistence.create(forkLocalRoot)
        else await persistence.restore()
        const head = chain.head
        node.database = { where: db.where, ...(db.meta !== undefined ? { resumedAt: { number: head.number, hash: head.hashHex } } : {}) }
        node.persistence = persistence
        node.queue.afterEach = () => persistence.sync()
      }
      return node.started()
    } catch (e) {
      fork?.remote.close()
      if (db !== undefined && options.database?.level === undefined) await db.level.close().catch(() => undefined)
      throw e
    }
  }

  /** The rest of `create`, once the chain is built or read back. */
  private started(): RskNode {
    const { options } = this
    // The service prints nothing for console.log: hosted mode does not even collect it.
    if (options.hosted) this.consoleLogging = false
    if (!options.hosted) {
      for (const a of options.accounts) this.accounts.add(a.secretKey)
      this.accounts.addCoinbase(MINER_KEY)
    }
    this.setInterval(options.mining.interval)
    return this
  }

  /** Makes `fork` the remote this chain reads what it does not hold from. */
  private attachFork(fork: ForkPoint): void {
    this.fork = fork
    fork.state.guard = this.chain.guard
    this.chain.remoteBlocks = remoteBlocks(fork)
    this.chain.bridge.call = forkBridgeCall(fork)
    this.chain.blocks.uncleCoinbase = forkUncleCoinbase(fork)
  }

  /**
   * `hardhat_reset` with `forking`: forks again, at another block (or URL) of a network with the same chain id. The
   * chain, the pool and the snapshots start over from the new forked block; what was read from the old remote is
   * forgotten (its disk cache stays).
   */
  async refork(config: ForkConfig): Promise<void> {
    const { chain } = this
    if (this.persistence !== undefined) {
      const where = this.options.database?.path ?? 'the given store'
      throw new ForkError(`Invalid reset options: this rsksim keeps its chain, forked at block ${this.fork!.number}, in a database (${where}), which holds that one fork: give another database to fork elsewhere`, true)
    }
    const accounts = fundedAccounts(this.options)
    // The node's options.fork once switched, and the new fork's config: one object (fork.ts ForkPoint).
    const resolved: ResolvedFork = { ...config, keep: this.options.fork?.keep ?? { minimumGasPrice: false, blockGasLimit: false } }
    // Everything asked of the new remote comes first, waited for no longer than the request may run: a slow remote
    // holds the queue no longer than any request, and the chain is not touched until nothing more is to be asked.
    const pending = connectFork(resolved, this.options.network.chainId).then(async (fork) => {
      await Promise.all(accounts.map((a) => fork.state.account(a.address)))
      return fork
    })
    let next: ForkPoint
    try {
      next = await chain.guard.wait(pending)
    } catch (e) {
      void pending.then((abandoned) => abandoned.remote.close(), () => undefined)
      throw e
    }
    // From here on nothing waits for the remote (what the genesis reads was just read): no deadline applies.
    await chain.guard.unbounded(() => this.switchFork(resolved, next, accounts))
  }

  private async switchFork(resolved: ResolvedFork, next: ForkPoint, accounts: ReturnType<typeof fundedAccounts>): Promise<void> {
    const { chain } = this
    this.options.fork = resolved
    const previous = chain.store.first.number
    const dropped = chain.store.headNumber > previous ? chain.store.range(previous + 1n, chain.store.headNumber) : []
    this.fork?.remote.close()
    adoptFork(this.options, next)
    this.setMinimumGasPrice(this.options.minimumGasPrice)
    this.setBlockGasLimit(this.options.blockGasLimit)
    chain.store.clear()
    chain.trees.reset(next.state)
    chain.forgetViews()
    await chain.state.setStateRoot(KECCAK256_RLP)
    chain.stateEdited()
    this.attachFork(next)
    await this.pool.restore([], async () => 0n)
    await createForkGenesis(chain, next.block, accounts)
    chain.trees.setEra(chain.store.headNumber)
    if (dropped.length > 0) this.announceRemoved(dropped)
    this.events.emit('forked', next.number, previous)
  }

  /** Mining mode "auto": each accepted transaction is mined at once. */
  get automine(): boolean {
    return this.options.mining.auto && this.miningEnabled
  }

  /**
   * Admits a signed transaction to the pool (RSKj rules and texts, -32010 on refusal) and, under automine, mines
   * it. Returns the block it was mined in, if any.
   */
  async submit(t: TxRecord): Promise<BlockRecord | undefined> {
    const head = this.chain.head
    const account = await this.chain.state.getAccount(new Address(t.from))
    const reason = admissionError(t, {
      pool: this.pool,
      account,
      blockGasLimit: this.options.blockGasLimit,
      minimumGasPrice: head.header.minimumGasPrice,
    })
    if (reason !== null) throw new TransactionRejected(reason)
    // RSKj `TransactionPoolImpl.internalAddTransaction`: a transaction bound for the queued set skips the quota.
    const pendingNonce = this.pool.nextNonce(t.fromHex, account?.nonce ?? 0n)
    if (this.options.accountTxRateLimit && t.tx.nonce <= pendingNonce && !this.txQuota.acceptTx(await quotaRequest(this.chain, this.pool, t, pendingNonce))) {
      throw new TransactionRejected(this.quotaRefusal(t))
    }
    const unfunded = t.tx.nonce <= pendingNonce ? pendingFundsError(t, this.pool, account?.balance ?? 0n) : null
    if (unfunded !== null) throw new TransactionRejected(unfunded)
    const { where, promoted } = this.pool.add(t, account?.nonce ?? 0n)
    if (where === 'pending') this.announcePending(t)
    for (const p of promoted) this.announcePending(p)
    if (!this.automine || where !== 'pending') return undefined
    let mined
    try {
      mined = await this.mine()
    } catch (e) {
      // The block could not be built (a fork's remote failed): the error is the answer, so nothing stays behind.
      this.pool.remove(t)
      throw e
    }
    const { block, dropped } = mined
    // An admitted transaction the engine still refused is reported, never silently lost.
    const refused = dropped.find((d) => d.tx === t)
    if (refused !== undefined) throw new TransactionRejected(refused.reason)
    return block.transactions.includes(t) ? block : undefined
  }

  /** The head block's timestamp in ms (0 before the genesis exists, when the quota checker is built). */
  private headTimeMs(): number {
    return this.chain === undefined ? 0 : Number(this.chain.head.header.timestamp) * 1000
  }

  /**
   * RSKj's text, `account exceeds quota` (TransactionPoolImpl), exactly as the service answers it in hosted mode;
   * otherwise followed by what happened and what to do, since a test author meets it without knowing the quota.
   */
  private quotaRefusal(t: TxRecord): string {
    const r = this.txQuota.lastRefusal
    if (this.options.hosted || r === undefined) return 'account exceeds quota'
    return (
      `account exceeds quota: ${t.fromHex} has ${Math.floor(r.available)} virtual gas left and this transaction costs ` +
      `${Math.ceil(r.cost)} (RSKj's per-account rate limit); it refills by ${r.perSecond} per second of the node's clock ` +
      `(evm_increaseTime refills it), or turn the limit off with accountTxRateLimit: false (--no-tx-rate-limit)`
    )
  }

  /** Whether console.log output of contracts is reported (`anvil_setLoggingEnabled`). */
  get consoleLogging(): boolean {
    return this.console.enabled
  }

  set consoleLogging(on: boolean) {
    this.console.enabled = on
  }

  /** Reports console.log lines of an eth_call at the head (none for estimates: they run many times). */
  reportCallConsole(report: boolean): void {
    const lines = this.console.take()
    if (report) for (const message of lines) this.events.emit('console', { message, transactionHash: null })
  }

  /** Mines one block now (optionally at `timestamp`) with what the pool holds (or only the transactions of `only`). */
  async mine(timestamp?: bigint, only?: Set<string>): Promise<{ block: BlockRecord; dropped: Dropped[] }> {
    this.minedConsole = []
    const previous = this.chain.head
    const mined = await this.miner.mine(timestamp, only)
    // The block before is settled: its transactions keep only their bytes (txRecord.ts `compactTransactions`).
    compactTransactions(previous.transactions, this.chain.common)
    await this.chain.blockAppended(this.options.stateHistory, () => this.snapshots.roots())
    this.announceMined(mined.block)
    return mined
  }

  /** Announces a block this node mined (`block`), then prints its console.log lines, even when a listener threw. */
  private announceMined(block: BlockRecord): void {
    try {
      this.announce('block', block)
    } finally {
      this.flushMinedConsole()
    }
  }

  /** Announces blocks removed from the chain, oldest first (`blocksRemoved`). */
  announceRemoved(blocks: BlockRecord[]): void {
    this.announce('blocksRemoved', blocks)
  }

  /** Announces a transaction that entered the pending set (`pendingTransaction`). */
  private announcePending(t: TxRecord): void {
    this.announce('pendingTransaction', t)
  }

  /**
   * Tells every listener of a chain event, each even when one before it throws (in process a user's `message` or
   * `block` listener runs inside it): the other subscriptions, sockets, filters and eth_sendRawTransactionSync
   * watchers still learn of it. The first error then goes on to whatever caused the event (the request answers
   * -32603). Node events take no `once` listeners (`listeners()` would not remove them).
   */
  private announce<E extends 'block' | 'blocksRemoved' | 'pendingTransaction'>(event: E, value: NodeEvents[E][0]): void {
    this.announcements++
    let failure: { error: unknown } | undefined
    for (const listener of this.events.listeners(event) as Array<(v: NodeEvents[E][0]) => void>) {
      try {
        listener(value)
      } catch (error) {
        failure ??= { error }
      }
    }
    if (failure !== undefined) throw failure.error
  }

  private flushMinedConsole(): void {
    const lines = this.minedConsole
    this.minedConsole = []
    for (const line of lines) this.events.emit('console', line)
  }

  /** Mines a merged-mining template with the fields a miner submitted; undefined when it went stale. */
  async mineTemplate(t: Template, fields: MergedMiningFields): Promise<BlockRecord | undefined> {
    this.minedConsole = []
    const block = await this.miner.mineTemplate(t, fields)
    if (block !== undefined) {
      await this.chain.blockAppended(this.options.stateHistory, () => this.snapshots.roots())
      this.work.forget(t)
      this.announceMined(block)
    }
    return block
  }

  /** Starts (ms > 0) or stops (0) interval mining. */
  setInterval(ms: number): void {
    if (this.intervalTimer !== undefined) clearInterval(this.intervalTimer)
    this.intervalTimer = undefined
    if (ms > 0) {
      this.intervalTimer = setInterval(() => {
        if (this.miningEnabled) void this.queue.run(() => this.mine()).catch(() => undefined)
      }, ms)
      this.intervalTimer.unref?.()
    }
  }

  /** Stops timers, lets queued work finish and, with a database, writes the last changes and closes it. */
  async close(): Promise<void> {
    this.closed = true
    this.setInterval(0)
    await this.queue.run(() => undefined).catch(() => undefined)
    await this.persistence?.close(this.options.database?.level === undefined)
    this.persistence = undefined
    this.fork?.remote.close()
    this.events.emit('closed')
    this.events.removeAllListeners()
  }

  /** Lowercase `0x` address of the coinbase. */
  get coinbaseHex(): string {
    return bytesToHex(this.coinbase)
  }
}

/**
 * A fork's network comes from the remote: chain and network ids, and the forked block's minimum gas price and gas
 * limit unless the user gave them (`fork.keep`).
 */
function adoptFork(options: ResolvedOptions, fork: ForkPoint): void {
  options.network = forkNetwork(fork.chainId, fork.networkId)
  if (options.fork?.keep.minimumGasPrice !== true) options.minimumGasPrice = fork.block.header.minimumGasPrice
  if (options.fork?.keep.blockGasLimit !== true) options.blockGasLimit = fork.block.header.gasLimit
}

/** The accounts funded at genesis (or on a fork's first block): address and balance. */
function fundedAccounts(options: ResolvedOptions): Array<{ address: Uint8Array; balance: bigint }> {
  return options.accounts.map((a) => ({ address: privateKeyToAddress(a.secretKey), balance: a.balance }))
}
