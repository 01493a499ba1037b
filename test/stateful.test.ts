/**
 * A seeded, stateful sequence test of the dev-chain toolkit: random steps (transfers, token transfers, mining,
 * automine on/off, snapshots and reverts, balance and nonce cheats (nonces lowered too), code and storage edits,
 * impersonation, time travel (evm_setTime, a block spacing, evm_mine at a time), coinbase and minimum gas price,
 * dropping pooled transactions, state dump/load (into the same node after new blocks, or a new one), resets,
 * anvil_rollback and anvil_reorg, block and log filters, and with the chain on disk closing and reopening the node,
 * also right after each of the newer kinds) are applied to rsksim and to a plain model (test/stateful/model.ts), and
 * after every step what the node answers through `provider.request` must be what the model holds: balances, nonces
 * and token balances at `latest` and `pending`, edited code and slots, what filters report since their last poll,
 * the block number, the pool (pending and queued), receipts of mined transactions and none for those reverted away
 * or dropped, blocks linked by parentHash with timestamps the clock allows; at each revert, the answers recorded
 * when the snapshot was taken are given again.
 *
 * CI runs a short campaign; `npm run stateful` runs a long one (STATEFUL_STEPS, STATEFUL_SEED, STATEFUL_SEEDS) and
 * prints the figures recorded in docs/robustness.md. A failure names the seed and step; replay it with
 * STATEFUL_SEED=<seed> STATEFUL_SEEDS=1 STATEFUL_STEPS=<past the step> (the steps are the seed's; block timestamps
 * follow the wall clock, and the model allows for it).
 */
import { describe, expect, it } from 'vitest'
import { gunzipSync } from 'node:zlib'
import { AbiCoder, Interface } from 'ethers'
import { createProvider, type Provider } from '../src/index.js'
import { Token } from './fixtures/index.js'
import { NO_QUOTA, rq, tempDirs } from './helpers.js'
import { prng } from './fuzz/shapes.js'
import { applied, backTo, clockAfterLoad, copyAccounts, copyWorld, mine, nextNonce, nextTimestamp, outgoing, record, split, word, type Account, type PoolTx, type World } from './stateful/model.js'

const STEPS = Number(process.env.STATEFUL_STEPS ?? 150)
const SEED = Number(process.env.STATEFUL_SEED ?? 20261128)
const SEEDS = Number(process.env.STATEFUL_SEEDS ?? 2)
const LONG = process.env.STATEFUL_STEPS !== undefined

const tempDir = tempDirs('rsksim-stateful-')
const tokenAbi = new Interface(Token.abi as never)
/** A keyless account: it sends only while impersonated (docs/extensions.md "Accounts"). */
const X = '0x00000000000000000000000000000000000000aa'
/** An account only the state cheats touch: an EOA until `anvil_setCode` gives it code. */
const Y = '0x00000000000000000000000000000000000000bb'
/** The kinds of steps after which, on disk, the node is reopened at once (at least once a seed). */
const REOPEN_AFTER = ['reorg', 'editState', 'setNonce', 'reset', 'rollback', 'dumpLoad', 'setTime', 'timestampInterval', 'mineAt', 'setCoinbase', 'setMinGasPrice', 'filter']
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
const REMASC = '0x0000000000000000000000000000000001000008'
const hex = (n: bigint | number): string => '0x' + n.toString(16)
const wall = (): bigint => BigInt(Math.floor(Date.now() / 1000))

interface Snap {
  world: World
  /** The node's answers when the snapshot was taken. */
  recorded: { hash: string; stateRoot: string; balances: string[] }
}

class Run {
  readonly r: () => number
  p!: Provider
  token = ''
  addrs: string[] = []
  world!: World
  automine = true
  impersonated = new Set<string>()
  snapshots: Snap[] = []
  /** The highest snapshot id ever answered: reverting to one above the model's list must answer false. */
  maxId = 0
  /** Every transaction hash the node answered. */
  known = new Set<string>()
  counts: Record<string, number> = {}
  log: string[] = []
  /** The token's runtime code, and what block 0 holds before anything is sent (for a reset). */
  tokenCode = ''
  genesis: { hash: string; accounts: Map<string, Account> } | undefined
  /** The state right after the token's deployment: a reset and the deployment again come back to it. */
  initial!: World
  /** Every storage slot (`<address> <slot>`) ever edited: one the model does not hold reads zero. */
  slots = new Set<string>()
  /** `anvil_setBlockTimestampInterval`'s spacing in seconds (not a snapshot's: a revert keeps it). */
  interval: bigint | undefined
  /** The coinbase set by `anvil_setCoinbase` (the next blocks' `miner`); unknown until one is set. */
  coinbase: string | undefined
  /** The next blocks' `minimumGasPrice` (regtest's: 0). */
  minGas = 0n
  /** The kinds a reopen has followed at once (on disk). */
  reopenedAfter = new Set<string>()
  /** Installed filters: what their next eth_getFilterChanges must answer, and the logs they returned. */
  filters: Array<{ id: string; kind: 'block' | 'log'; unread: Array<{ number: bigint; key: string }>; returned: Array<{ number: bigint; key: string }> }> = []

  constructor(
    readonly seed: number,
    /** With a database: the directory of the chain (`reopen` closes the node and opens it again from it). */
    private dir: string | undefined,
  ) {
    this.r = prng(seed)
  }

  int = (n: number): number => Math.floor(this.r() * n)
  pick = <T>(xs: readonly T[]): T => xs[this.int(xs.length)]!
  /** A random amount in 1 … max, spread over magnitudes. */
  amount(max: bigint): bigint {
    if (max < 1n) return 0n
    const scale = 10n ** BigInt(this.int(22))
    let x = 0n
    for (let i = 0; i < 3; i++) x = (x << 32n) | BigInt(this.int(2 ** 32))
    const a = 1n + (x % scale)
    return a > max ? 1n + (x % max) : a
  }

  open(dir = this.dir): Promise<Provider> {
    return createProvider({ ...NO_QUOTA, ...(dir !== undefined ? { database: { path: dir } } : {}) })
  }

  async start(): Promise<void> {
    this.p = await this.open()
    const accounts = (await rq(this.p, 'eth_accounts')) as string[]
    this.addrs = [...accounts.slice(0, 5), X]
    await this.readGenesis()
    await this.deployToken()
    this.tokenCode = await rq(this.p, 'eth_getCode', [this.token, 'latest'])
    expect(this.tokenCode.length).toBeGreaterThan(100)
    // The model starts from the chain as the node opened it (genesis and the token's deployment); from here on it
    // is the model that says what the node must answer.
    await this.startWorld()
    for (const a of this.addrs) {
      this.world.accounts.set(a, {
        balance: BigInt(await rq(this.p, 'eth_getBalance', [a, 'latest'])),
        nonce: BigInt(await rq(this.p, 'eth_getTransactionCount', [a, 'latest'])),
        token: await this.tokenOf(a, 'latest'),
      })
      const x = this.world.accounts.get(a)!
      x.exists = x.balance > 0n || x.nonce > 0n
    }
    expect(this.world.accounts.get(X)).toEqual({ balance: 0n, nonce: 0n, token: 0n, exists: false })
    expect(this.world.accounts.get(this.addrs[0]!)!.token).toBe(10n ** 24n)
    record(this.world)
    this.initial = copyWorld(this.world)
    await this.check(true)
  }

  /** Block 0 and the accounts' balances and nonces in it (the first node's; every regtest node has the same). */
  async readGenesis(): Promise<void> {
    const g = await rq(this.p, 'eth_getBlockByNumber', ['0x0', false])
    const accounts = new Map<string, Account>()
    for (const a of this.addrs) accounts.set(a, { balance: BigInt(await rq(this.p, 'eth_getBalance', [a, '0x0'])), nonce: BigInt(await rq(this.p, 'eth_getTransactionCount', [a, '0x0'])), token: 0n })
    this.genesis ??= { hash: g.hash, accounts }
    expect({ hash: g.hash, accounts }).toEqual(this.genesis)
  }

  async deployToken(): Promise<void> {
    // Sent, and mined at once or (automine off, after a reset) by evm_mine.
    const data = Token.bytecode + AbiCoder.defaultAbiCoder().encode(['uint256'], [10n ** 24n]).slice(2)
    const hash = await rq(this.p, 'eth_sendTransaction', [{ from: this.addrs[0], data, gas: '0x4c4b40' }])
    if (!this.automine) expect(await rq(this.p, 'evm_mine')).toBeNull()
    const receipt = await rq(this.p, 'eth_getTransactionReceipt', [hash])
    expect(receipt.status).toBe('0x1')
    const token = receipt.contractAddress as string
    // The deployer's first transaction: after a reset the token comes back at the same address.
    if (this.token !== '') expect(token).toBe(this.token)
    this.token = token
    // The constructor's Transfer from the zero address: news to the filters.
    this.newBlock(BigInt(receipt.blockNumber), receipt.blockHash, [{ hash, from: '0x' + '0'.repeat(40), to: this.addrs[0]!, token: 10n ** 24n }])
  }

  /** A block mined: its hash and its token transfers' logs (`txs` in the block's order) go to every filter. */
  newBlock(number: bigint, hash: string, txs: Array<{ hash: string; from: string; to: string; token: bigint }>): void {
    for (const f of this.filters) {
      if (f.kind === 'block') f.unread.push({ number, key: hash })
      else for (const t of txs) if (t.token > 0n) f.unread.push({ number, key: `${hash} ${t.hash} ${t.from} ${t.to} ${t.token} false` })
    }
  }

  /** Blocks above `number` left the chain (evm_revert, anvil_rollback, a reset): what the filters do with them. */
  blocksRemoved(number: bigint): void {
    for (const f of this.filters) {
      // What the filter had not returned of those blocks is dropped; a removal it has not reported yet stays.
      f.unread = f.unread.filter((e) => e.number <= number || e.key.endsWith(' true'))
      if (f.kind === 'log') {
        // A log already returned comes again with removed: true (docs/modules/filters-txpool.md "removed").
        for (const e of f.returned.filter((x) => x.number > number)) f.unread.push({ number: e.number, key: e.key.replace(/ false$/, ' true') })
        f.returned = f.returned.filter((e) => e.number <= number)
      }
    }
  }

  /** eth_newBlockFilter or eth_newFilter (the token's Transfer logs), or a poll of one with eth_getFilterChanges. */
  async filterStep(): Promise<string> {
    if (this.filters.length === 0 || (this.filters.length < 4 && this.r() < 0.3)) {
      const kind = this.pick(['block', 'log'] as const)
      const id = (await (kind === 'block' ? rq(this.p, 'eth_newBlockFilter') : rq(this.p, 'eth_newFilter', [{ address: this.token, topics: [TRANSFER] }]))) as string
      this.filters.push({ id, kind, unread: [], returned: [] })
      return `eth_new${kind === 'block' ? 'Block' : ''}Filter ${id}`
    }
    const f = this.pick(this.filters)
    const got = (await rq(this.p, 'eth_getFilterChanges', [f.id])) as Array<string | { blockHash: string; transactionHash: string; topics: string[]; data: string; removed: boolean; address: string }>
    const keys = got.map((x) => {
      if (typeof x === 'string') return x
      expect(x.address).toBe(this.token)
      return `${x.blockHash} ${x.transactionHash} 0x${x.topics[1]!.slice(26)} 0x${x.topics[2]!.slice(26)} ${BigInt(x.data)} ${x.removed}`
    })
    const want = f.unread.map((e) => e.key)
    if (f.kind === 'block') expect(keys, `block filter ${f.id}`).toEqual(want)
    else {
      // Logs of removed blocks (any order among themselves), then the others in chain order.
      const part = (xs: string[], removed: boolean) => xs.filter((k) => k.endsWith(' true') === removed)
      expect(part(keys, true).sort(), `log filter ${f.id}: removed`).toEqual(part(want, true).sort())
      expect(part(keys, false), `log filter ${f.id}`).toEqual(part(want, false))
      f.returned.push(...f.unread.filter((e) => e.key.endsWith(' false')))
    }
    f.unread = []
    return `eth_getFilterChanges ${f.id} (${f.kind}): ${keys.length}`
  }

  /** The model of the chain the node has just after the token's deployment (the accounts are the caller's). */
  async startWorld(): Promise<void> {
    const head = await rq(this.p, 'eth_getBlockByNumber', ['latest', false])
    this.world = {
      accounts: new Map(),
      code: new Map([[Y, '0x'], [this.token, this.tokenCode]]),
      storage: new Map(),
      written: new Set([this.token]),
      history: new Map(),
      number: BigInt(head.number),
      headHash: head.hash,
      headTs: BigInt(head.timestamp),
      headMin: 0n,
      pool: new Map(),
      mined: new Map(),
      clock: { offset: 0n, driftLo: 0n, driftHi: 0n, pin: undefined },
    }
  }

  async tokenOf(a: string, tag: string): Promise<bigint> {
    return BigInt(await rq(this.p, 'eth_call', [{ to: this.token, data: tokenAbi.encodeFunctionData('balanceOf', [a]) }, tag]))
  }

  // ---------------------------------------------------------------------------------------------------- steps

  /** A value or token transfer by eth_sendTransaction from a random account; X's outcome as the docs say. */
  async transfer(kind: 'value' | 'token'): Promise<string | undefined> {
    const from = this.pick(this.addrs)
    const to = this.pick(this.addrs)
    const w = this.world
    const out = outgoing(w, from)
    // RSKj's nonce window (16 ahead of the confirmed nonce) and the block gas limit bound what may wait.
    const acct = w.accounts.get(from)!
    if (out.count >= 12 || nextNonce(w, from) - acct.nonce >= 12 || w.pool.size >= 50) return undefined
    const avail = kind === 'value' ? acct.balance - out.value : acct.token - out.token
    const amount = this.amount(avail)
    const tx =
      kind === 'value'
        ? { from, to, value: hex(amount), gasPrice: '0x0' }
        : { from, to: this.token, data: tokenAbi.encodeFunctionData('transfer', [to, amount]), gas: '0x186a0', gasPrice: '0x0' }
    if (from === X && !this.impersonated.has(X)) {
      // No key and not impersonated: refused, nothing changes.
      await expectError(rq(this.p, 'eth_sendTransaction', [tx]), -32602, /Could not find account/)
      return `send from unimpersonated ${from}: refused`
    }
    if (from === X && acct.exists !== true) {
      await expectError(rq(this.p, 'eth_sendTransaction', [tx]), -32010, /the sender account doesn't exist/)
      return `send from nonexistent ${from}: refused`
    }
    if (amount === 0n) return undefined
    if (w.headMin > 0n) {
      // The head (rolled back to, or reverted to) has a minimum gas price above 0: gas price 0 is refused.
      await expectError(rq(this.p, 'eth_sendTransaction', [tx]), -32010, /transaction's gas price lower than block's minimum/)
      return `send at gas price 0 under a minimum of ${w.headMin}: refused`
    }
    const w0 = wall()
    const hash = (await rq(this.p, 'eth_sendTransaction', [tx])) as string
    const w1 = wall()
    this.known.add(hash)
    const t: PoolTx = { hash, from, nonce: nextNonce(w, from), to, value: kind === 'value' ? amount : 0n, token: kind === 'token' ? amount : 0n }
    w.pool.set(hash, t)
    if (this.automine) await this.blocks(1, w0, w1)
    return `${kind} ${amount} ${from.slice(0, 6)}→${to.slice(0, 6)} nonce ${t.nonce}${this.automine ? ' (automined)' : ''}`
  }

  /**
   * Reads the `count` blocks the last request mined and checks each against the model: the first holds exactly the
   * pending transactions (then REMASC's), the others only REMASC's; parent hashes link; timestamps as the clock says.
   */
  async blocks(count: number, w0: bigint, w1: bigint, requested?: bigint): Promise<void> {
    for (let i = 0; i < count; i++) {
      const w = this.world
      const { pending } = split(w)
      const at = i === 0 ? requested : undefined
      const [lo, hi] = at !== undefined ? [at, at] : nextTimestamp(w, w0, w1, this.interval)
      const block = await rq(this.p, 'eth_getBlockByNumber', [hex(w.number + 1n), true])
      expect(block, `block ${w.number + 1n}`).not.toBeNull()
      expect(block.parentHash).toBe(w.headHash)
      const ts = BigInt(block.timestamp)
      expect(ts >= lo && ts <= hi, `block ${w.number + 1n} timestamp ${ts} in [${lo}, ${hi}]`).toBe(true)
      const txs = block.transactions as Array<{ hash: string; from: string; to: string }>
      expect(txs.at(-1)?.to).toBe(REMASC)
      expect(txs.slice(0, -1).map((t) => t.hash).sort()).toEqual(pending.map((t) => t.hash).sort())
      if (this.coinbase !== undefined) expect(block.miner, `block ${w.number + 1n}'s miner`).toBe(this.coinbase)
      expect(block.minimumGasPrice, `block ${w.number + 1n}'s minimumGasPrice`).toBe(hex(this.minGas))
      const order = new Map(txs.map((t, i) => [t.hash, i]))
      this.newBlock(w.number + 1n, block.hash, [...pending].sort((a, b) => order.get(a.hash)! - order.get(b.hash)!))
      mine(w, pending, { hash: block.hash, timestamp: ts, minGas: this.minGas }, w0, w1, at)
      this.counts['blocks mined'] = (this.counts['blocks mined'] ?? 0) + 1
      this.counts['transactions mined'] = (this.counts['transactions mined'] ?? 0) + pending.length
    }
  }

  async mineStep(): Promise<string> {
    const n = 1 + this.int(3)
    const how = this.int(3)
    const w0 = wall()
    // evm_mine is the service's method: RSKj answers null (reference §3.3).
    if (how === 0) expect(await rq(this.p, 'evm_mine', n === 1 ? [] : [{ blocks: n }])).toBeNull()
    else if (how === 1) expect(await rq(this.p, 'anvil_mine', [n])).toBeNull()
    else expect(await rq(this.p, 'hardhat_mine', [hex(n)])).toBe(true)
    const w1 = wall()
    await this.blocks(n, w0, w1)
    return `mine ${n} (${['evm_mine', 'anvil_mine', 'hardhat_mine'][how]})`
  }

  async automineStep(): Promise<string> {
    const on = !this.automine
    const method = this.pick(['evm_setAutomine', 'anvil_setAutomine'])
    expect(await rq(this.p, method, [on])).toBe(method.startsWith('anvil_') ? null : true)
    this.automine = on
    // Switching automine on mines nothing by itself (the pool waits for the next transaction or evm_mine).
    expect(await rq(this.p, 'anvil_getAutomine')).toBe(on)
    return `automine ${on}`
  }

  async answers(): Promise<Snap['recorded']> {
    const head = await rq(this.p, 'eth_getBlockByNumber', ['latest', false])
    const balances: string[] = []
    for (const a of this.addrs) balances.push(await rq(this.p, 'eth_getBalance', [a, 'latest']), (await this.tokenOf(a, 'latest')).toString())
    return { hash: head.hash, stateRoot: head.stateRoot, balances }
  }

  async snapshot(): Promise<string> {
    const id = await rq(this.p, this.pick(['evm_snapshot', 'anvil_snapshot']))
    // Ids count from 1 and a revert keeps the id it went back to, dropping later ones (RSKj's rule, docs/extensions.md).
    expect(id).toBe(hex(this.snapshots.length + 1))
    this.snapshots.push({ world: copyWorld(this.world), recorded: await this.answers() })
    this.maxId = Math.max(this.maxId, this.snapshots.length)
    await this.checkMetadata()
    return `snapshot ${id}`
  }

  async revert(): Promise<string> {
    // Mostly a live id; else any id ever answered, or the next one (dropped by a revert or a restart, or never given).
    const id = this.snapshots.length > 0 && this.r() < 0.75 ? 1 + this.int(this.snapshots.length) : 1 + this.int(this.maxId + 1)
    const ok = await rq(this.p, this.pick(['evm_revert', 'anvil_revert']), [hex(id)])
    const snap = this.snapshots[id - 1]
    expect(ok).toBe(snap !== undefined)
    if (snap === undefined) return `revert ${id}: no such snapshot (false)`
    this.blocksRemoved(snap.world.number)
    this.world = copyWorld(snap.world)
    this.snapshots.length = id
    expect(await this.answers()).toEqual(snap.recorded)
    await this.checkMetadata()
    return `revert ${id}`
  }

  async checkMetadata(): Promise<void> {
    const { snapshots } = await rq(this.p, 'anvil_metadata')
    expect(snapshots).toEqual(Object.fromEntries(this.snapshots.map((s, i) => [hex(i + 1), [Number(s.world.number), s.world.headHash]])))
  }

  async setBalance(): Promise<string> {
    const a = this.pick(this.addrs)
    // Never below what the account's pooled transactions send, so that they stay good.
    const v = outgoing(this.world, a).value + this.amount(10n ** 24n)
    const method = this.pick(['anvil_setBalance', 'hardhat_setBalance', 'evm_setAccountBalance'])
    expect(await rq(this.p, method, [a, hex(v)])).toBe(method.startsWith('anvil_') ? null : true)
    this.world.accounts.get(a)!.balance = v
    this.world.accounts.get(a)!.exists = true
    return `${method} ${a.slice(0, 6)} ${v}`
  }

  async setNonce(): Promise<string | undefined> {
    const a = this.pick(this.addrs)
    const w = this.world
    const acct = w.accounts.get(a)!
    const pooled = [...w.pool.values()].filter((t) => t.from === a).map((t) => t.nonce)
    // Upwards only past the account's pooled nonces (a pooled transaction under the state nonce could never be mined).
    // Downwards (at most 3, within RSKj's nonce window): the sender's pooled transactions wait, queued, until sends
    // fill the nonces from the new one on (eth_sendTransaction takes the lowest free nonce from the state's).
    const down = acct.nonce > 0n && this.r() < 0.4
    let n: bigint
    if (down) {
      n = acct.nonce - 1n - BigInt(this.int(Math.min(3, Number(acct.nonce))))
      if (nextNonce(w, a) - n >= 12) return undefined
    } else {
      if (pooled.length > 0) return undefined
      n = acct.nonce + 1n + BigInt(this.int(3))
    }
    const method = this.pick(['anvil_setNonce', 'hardhat_setNonce', 'evm_setAccountNonce', 'ganache_setNonce'])
    expect(await rq(this.p, method, [a, hex(n)])).toBe(method.startsWith('anvil_') ? null : true)
    acct.nonce = n
    acct.exists = true
    return `${method} ${a.slice(0, 6)} ${n}${down ? ' (lowered)' : ''}`
  }

  /** anvil_setCode on Y (an EOA, or a contract once it has code) or anvil_setStorageAt on Y or the token. */
  async editState(): Promise<string> {
    const w = this.world
    const fam = this.pick(['anvil', 'hardhat', 'evm', 'ganache'])
    const answer = fam === 'anvil' ? null : true
    if (this.r() < 0.4) {
      // Code that stops at once (0x00 first), so that value sent to Y still goes through; now and then none.
      const code = this.r() < 0.3 ? '0x' : '0x00' + Array.from({ length: this.int(24) }, () => this.int(256).toString(16).padStart(2, '0')).join('')
      expect(await rq(this.p, fam === 'evm' ? 'evm_setAccountCode' : `${fam}_setCode`, [Y, code])).toBe(answer)
      w.code.set(Y, code)
      w.written.add(Y)
      return `${fam} setCode ${Y.slice(-4)} ${code.length / 2 - 1} bytes`
    }
    const at = this.r() < 0.5 ? Y : this.token
    // Slots the token's layout leaves unused (its variables and mappings' keys are elsewhere).
    const slot = word(0xdead0000n + BigInt(this.int(4)))
    const value = word(this.r() < 0.25 ? 0n : this.amount(2n ** 200n))
    expect(await rq(this.p, fam === 'evm' ? 'evm_setAccountStorageAt' : `${fam}_setStorageAt`, [at, slot, value])).toBe(answer)
    w.storage.set(`${at} ${slot}`, value)
    this.slots.add(`${at} ${slot}`)
    w.written.add(at)
    return `${fam} setStorageAt ${at.slice(-4)} ${slot.slice(-2)} = ${BigInt(value)}`
  }

  /**
   * anvil_reorg: the newest `depth` blocks replaced by as many new ones, block `offset` holding the transactions
   * paired with it (value and token transfers from held keys with nothing pooled, with their nonces); the pool's
   * transactions stay pooled.
   */
  async reorg(): Promise<string | undefined> {
    const w = this.world
    const depths = [...w.history.keys()].filter((n) => n < w.number && w.number - n <= 4n).map((n) => w.number - n)
    if (depths.length === 0) return undefined
    const depth = this.pick(depths)
    const base = w.number - depth
    const frame = w.history.get(base)!
    for (const [a, x] of frame.accounts) {
      const out = outgoing(w, a)
      if (out.value > x.balance || out.token > x.token) return undefined
    }
    const accounts = copyAccounts(frame.accounts)
    const senders = this.addrs.slice(0, 5).filter((a) => outgoing(w, a).count === 0)
    const planned: Array<{ offset: number; t: Omit<PoolTx, 'hash'> }> = []
    const count = senders.length === 0 ? 0 : this.int(4)
    const byOffset = Array.from({ length: Number(depth) }, () => [] as Array<Omit<PoolTx, 'hash'>>)
    for (let i = 0; i < count; i++) byOffset[this.int(Number(depth))]!.push({ from: '', nonce: 0n, to: '', value: 0n, token: 0n })
    // Nonces and amounts in block order: each transaction on the state the ones before it leave.
    const params: Array<[Record<string, string>, number]> = []
    for (let offset = 0; offset < byOffset.length; offset++) {
      for (const slot of byOffset[offset]!) {
        const from = this.pick(senders)
        const to = this.pick(this.addrs)
        const acct = accounts.get(from)!
        const token = this.r() < 0.4
        const amount = this.amount(token ? acct.token : acct.balance)
        if (amount === 0n) continue
        Object.assign(slot, { from, to, nonce: acct.nonce, value: token ? 0n : amount, token: token ? amount : 0n })
        const tx = { from, nonce: hex(acct.nonce), gasPrice: '0x0', ...(token ? { to: this.token, data: tokenAbi.encodeFunctionData('transfer', [to, amount]), gas: '0x186a0' } : { to, value: hex(amount) }) }
        params.push([tx, offset])
        const [after] = [applied(accounts, [{ ...slot, hash: '' } as PoolTx])]
        for (const [a, x] of after) accounts.set(a, x)
        planned.push({ offset, t: slot })
      }
    }
    const w0 = wall()
    expect(await rq(this.p, 'anvil_reorg', [Number(depth), params])).toBeNull()
    const w1 = wall()
    this.snapshots = this.snapshots.filter((s) => s.world.number <= base)
    // The chain as at `base`, then the new blocks, each checked against what was planned for it.
    backTo(w, base, frame)
    this.blocksRemoved(base)
    for (let offset = 0; offset < Number(depth); offset++) {
      const block = await rq(this.p, 'eth_getBlockByNumber', [hex(w.number + 1n), true])
      expect(block.parentHash, `reorged block ${w.number + 1n}'s parent`).toBe(w.headHash)
      const txs = block.transactions as Array<{ hash: string; from: string; to: string; nonce: string; value: string; input: string }>
      expect(txs.at(-1)?.to).toBe(REMASC)
      const mined = txs.slice(0, -1).map((x): PoolTx => {
        const isToken = x.to === this.token
        const args = isToken ? tokenAbi.decodeFunctionData('transfer', x.input) : undefined
        return { hash: x.hash, from: x.from, nonce: BigInt(x.nonce), to: isToken ? (args![0] as string).toLowerCase() : x.to, value: BigInt(x.value), token: isToken ? (args![1] as bigint) : 0n }
      })
      const want = planned.filter((p) => p.offset === offset).map((p) => p.t)
      // In the miner's order (docs/extensions.md): by sender and nonce here, all at gas price 0.
      const bySender = (xs: Array<Omit<PoolTx, 'hash'>>) => [...xs].sort((a, b) => (a.from + a.nonce < b.from + b.nonce ? -1 : 1))
      expect(bySender(mined.map(({ hash: _, ...x }) => x)), `reorged block ${w.number + 1n}`).toEqual(bySender(want))
      for (const t of mined) this.known.add(t.hash)
      // The new blocks are mined as evm_mine mines blocks: their times as the clock says (a pinned time and an offset
      // are used up by the first).
      const ts = BigInt(block.timestamp)
      const [lo, hi] = nextTimestamp(w, w0, w1, this.interval)
      expect(ts >= lo && ts <= hi, `reorged block ${w.number + 1n} timestamp ${ts} in [${lo}, ${hi}]`).toBe(true)
      expect(block.minimumGasPrice).toBe(hex(this.minGas))
      if (this.coinbase !== undefined) expect(block.miner).toBe(this.coinbase)
      this.newBlock(w.number + 1n, block.hash, mined)
      mine(w, mined, { hash: block.hash, timestamp: ts, minGas: this.minGas }, w0, w1)
    }
    // The pool is kept where its nonces still fit.
    for (const t of [...w.pool.values()]) if (t.nonce < w.accounts.get(t.from)!.nonce) w.pool.delete(t.hash)
    await this.checkMetadata()
    return `anvil_reorg ${depth} with ${planned.length} transactions`
  }

  /** evm_setTime / anvil_setTime: the clock set (docs/extensions.md "Mining and time"). */
  async setTime(): Promise<string> {
    const t = wall() - 1000n + BigInt(this.int(2_000_000))
    const method = this.pick(['evm_setTime', 'anvil_setTime'])
    const w0 = wall()
    const got = await rq(this.p, method, [hex(t)])
    const w1 = wall()
    // The answer: the clock's offset from the wall clock, a JSON number.
    expect(typeof got === 'number' && got >= t - w1 && got <= t - w0, `${method} answered ${got}, in [${t - w1}, ${t - w0}]`).toBe(true)
    // The clock reads t from now on; an evm_increaseTime offset and a pinned next time end (Anvil 1.7.1 and
    // Ganache: the next block is at t). A time under the head's gives the head's + 1.
    const c = this.world.clock
    c.driftLo = t - w1
    c.driftHi = t - w0
    c.offset = 0n
    c.pin = undefined
    return `${method} ${t}`
  }

  /** anvil_setBlockTimestampInterval (seconds) / hardhat_… (milliseconds), or …removeBlockTimestampInterval. */
  async timestampInterval(): Promise<string> {
    const fam = this.pick(['anvil', 'hardhat'])
    if (this.r() < 0.45) {
      expect(await rq(this.p, `${fam}_removeBlockTimestampInterval`, [])).toBe(this.interval !== undefined)
      this.interval = undefined
      return `${fam}_removeBlockTimestampInterval`
    }
    const s = 1n + BigInt(this.int(600))
    expect(await rq(this.p, `${fam}_setBlockTimestampInterval`, [fam === 'anvil' ? Number(s) : Number(s * 1000n)])).toBe(fam === 'anvil' ? null : true)
    this.interval = s
    return `${fam}_setBlockTimestampInterval ${s} s`
  }

  /** evm_mine with a timestamp after the head's: the block has it, and the clock goes on from it. */
  async mineAt(): Promise<string> {
    const t = this.world.headTs + 1n + BigInt(this.r() < 0.1 ? 1_000_000 : this.int(3000))
    const w0 = wall()
    expect(await rq(this.p, 'evm_mine', this.r() < 0.5 ? [hex(t)] : [{ timestamp: Number(t), blocks: 1 }])).toBeNull()
    const w1 = wall()
    await this.blocks(1, w0, w1, t)
    return `evm_mine at ${t}`
  }

  /** anvil_setCoinbase and its aliases: the next blocks' miner. */
  async setCoinbase(): Promise<string> {
    const a = '0x' + Array.from({ length: 20 }, () => this.int(256).toString(16).padStart(2, '0')).join('')
    const fam = this.pick(['anvil', 'hardhat', 'ganache'])
    expect(await rq(this.p, `${fam}_setCoinbase`, [a])).toBe(fam === 'anvil' ? null : true)
    this.coinbase = a
    return `${fam}_setCoinbase ${a.slice(0, 8)}`
  }

  /**
   * anvil_setMinGasPrice and its aliases: a block mined with a minimum above 0 (the pool empty: its transactions at
   * gas price 0 would be dropped), then the minimum back at 0 and a block with it.
   */
  async setMinGasPrice(): Promise<string | undefined> {
    if (this.world.pool.size > 0) return undefined
    const v = this.amount(10n ** 12n)
    for (const price of [v, 0n]) {
      const fam = this.pick(['anvil', 'hardhat', 'ganache'])
      expect(await rq(this.p, `${fam}_setMinGasPrice`, [hex(price)])).toBe(fam === 'anvil' ? null : true)
      this.minGas = price
      const w0 = wall()
      expect(await rq(this.p, 'evm_mine')).toBeNull()
      await this.blocks(1, w0, wall())
    }
    return `setMinGasPrice ${v}, a block, then 0 and a block`
  }

  /** evm_reset and its aliases (no fork): back to genesis, empty pool, no snapshots; then the token again. */
  async reset(): Promise<string> {
    const method = this.pick(['evm_reset', 'anvil_reset', 'hardhat_reset', 'ganache_reset'])
    // evm_reset is RSKj's (void: null); the aliases answer in their family (docs/extensions.md "Answers").
    expect(await rq(this.p, method, [])).toBe(method === 'anvil_reset' || method === 'evm_reset' ? null : true)
    // Installed filters stay; the blocks above genesis are removed blocks to them.
    this.blocksRemoved(0n)
    expect(await rq(this.p, 'eth_blockNumber')).toBe('0x0')
    await this.readGenesis()
    expect(await rq(this.p, 'txpool_content')).toEqual({ pending: {}, queued: {} })
    expect(await rq(this.p, 'eth_getCode', [this.token, 'latest'])).toBe('0x')
    expect(await rq(this.p, 'eth_getCode', [Y, 'latest'])).toBe('0x')
    for (const k of this.slots) expect(await rq(this.p, 'eth_getStorageAt', [...k.split(' '), 'latest']), k).toBe(word(0n))
    this.snapshots = []
    await this.checkMetadata()
    // Back to genesis with the clock at the wall clock (no offset, no drift); the aliases also end impersonation and
    // the time settings (a pinned next time, the block spacing), evm_reset (RSKj's) keeps them (docs/extensions.md).
    const alias = method !== 'evm_reset'
    if (alias) this.impersonated.clear()
    if (alias) this.interval = undefined
    const pin = alias ? undefined : this.world.clock.pin
    const g = await rq(this.p, 'eth_getBlockByNumber', ['0x0', false])
    const atGenesis: World = { ...copyWorld(this.initial), number: 0n, headHash: g.hash, headTs: BigInt(g.timestamp), clock: { offset: 0n, driftLo: 0n, driftHi: 0n, pin } }
    // The coinbase after a reset: the docs do not say; it is read again once set.
    this.coinbase = undefined
    // The mining mode is kept (it is no time setting); the deployment is mined under either.
    const w0 = wall()
    await this.deployToken()
    const w1 = wall()
    const [lo, hi] = nextTimestamp(atGenesis, w0, w1, this.interval)
    await this.startWorld()
    this.world.accounts = copyAccounts(this.initial.accounts)
    record(this.world)
    if (pin !== undefined) (this.world.clock.driftLo = pin - w1), (this.world.clock.driftHi = pin - w0)
    expect(this.world.headTs >= lo && this.world.headTs <= hi, `deployment block time ${this.world.headTs} in [${lo}, ${hi}]`).toBe(true)
    expect(this.world.number).toBe(this.initial.number)
    return `${method}, the token deployed again`
  }

  /** anvil_rollback: the newest blocks removed, the head and state back to the block below them. */
  async rollback(): Promise<string | undefined> {
    const w = this.world
    const depths = [...w.history.keys()].filter((n) => n < w.number).map((n) => w.number - n)
    if (depths.length === 0) return undefined
    const depth = this.r() < 0.6 ? depths.reduce((a, b) => (a < b ? a : b)) : this.pick(depths)
    const frame = w.history.get(w.number - depth)!
    // The pool is kept where its nonces still fit (docs/extensions.md): a pooled transaction under its sender's nonce
    // at that block is dropped. The model rolls back only where every sender can still pay all it has pooled from
    // its own balance (a pooled transaction its sender cannot pay waits, which the model does not follow).
    for (const [a, x] of frame.accounts) {
      const out = outgoing(w, a)
      if (out.value > x.balance || out.token > x.token) return undefined
    }
    const got = await rq(this.p, 'anvil_rollback', depth === 1n && this.r() < 0.3 ? [] : [Number(depth)])
    expect(got).toBeNull()
    this.blocksRemoved(w.number - depth)
    backTo(w, w.number - depth, frame)
    for (const t of [...w.pool.values()]) if (t.nonce < w.accounts.get(t.from)!.nonce) w.pool.delete(t.hash)
    this.snapshots = this.snapshots.filter((s) => s.world.number <= w.number)
    await this.checkMetadata()
    return `anvil_rollback ${depth}`
  }

  async impersonate(): Promise<string> {
    const on = !this.impersonated.has(X)
    const method = on ? this.pick(['anvil_impersonateAccount', 'hardhat_impersonateAccount']) : this.pick(['anvil_stopImpersonatingAccount', 'hardhat_stopImpersonatingAccount'])
    expect(await rq(this.p, method, [X])).toBe(method.startsWith('anvil_') ? null : true)
    if (on) this.impersonated.add(X)
    else this.impersonated.delete(X)
    return method
  }

  async increaseTime(): Promise<string> {
    const s = 1n + BigInt(this.int(5000))
    const anvil = this.r() < 0.5
    const got = await rq(this.p, anvil ? 'anvil_increaseTime' : 'evm_increaseTime', [hex(s)])
    this.world.clock.offset += s
    // The answer is the offset accumulated since the last block (a QUANTITY; Anvil's name: a JSON number).
    expect(got).toBe(anvil ? Number(this.world.clock.offset) : hex(this.world.clock.offset))
    return `increaseTime ${s}`
  }

  async setNextBlockTimestamp(): Promise<string> {
    const t = this.world.headTs + 1n + BigInt(this.r() < 0.1 ? 1_000_000 : this.int(3000))
    const method = this.pick(['evm_setNextBlockTimestamp', 'anvil_setNextBlockTimestamp'])
    expect(await rq(this.p, method, [hex(t)])).toBe(method.startsWith('anvil_') ? null : true)
    this.world.clock.pin = t
    return `${method} ${t}`
  }

  async drop(): Promise<string> {
    const pooled = [...this.world.pool.values()]
    // Now and then a hash that is not in the pool (mined, reverted away, or never sent).
    const other = [...this.known].filter((h) => !this.world.pool.has(h))
    const inPool = pooled.length > 0 && (other.length === 0 || this.r() < 0.85)
    const hash = inPool ? this.pick(pooled).hash : other.length > 0 ? this.pick(other) : '0x' + '12'.repeat(32)
    const anvil = this.r() < 0.5
    const got = await rq(this.p, anvil ? 'anvil_dropTransaction' : 'hardhat_dropTransaction', [hash])
    const there = this.world.pool.has(hash)
    expect(got).toBe(anvil ? (there ? hash : null) : there)
    this.world.pool.delete(hash)
    return `drop ${hash.slice(0, 10)} (${there ? 'pooled' : 'not pooled'})`
  }

  /** anvil_dumpState, then anvil_loadState into the same node (after edits it must undo) or into a new one. */
  async dumpLoad(): Promise<string> {
    const fam = this.pick(['anvil', 'hardhat', 'ganache'])
    const hexDump = (await rq(this.p, `${fam}_dumpState`)) as string
    // Loaded as the hex the dump answered, or as the state file's JSON object (docs/extensions.md "State").
    const dump: unknown = this.r() < 0.7 ? hexDump : JSON.parse(gunzipSync(Buffer.from(hexDump.slice(2), 'hex')).toString('utf8'))
    const headTs = this.world.headTs
    if (this.r() < 0.5) {
      const w = this.world
      const file = { accounts: copyAccounts(w.accounts), code: new Map(w.code), storage: new Map(w.storage), written: new Set(w.written) }
      // Then what a test does before it loads the file again: with automine on and nothing pooled, new blocks (mined
      // transfers, empty blocks), nonces moved either way, code and slots edited; else balance edits only (they keep
      // pooled transactions good).
      const rich = this.automine && w.pool.size === 0
      const steps = 1 + this.int(rich ? 4 : 2)
      const done: string[] = []
      for (let i = 0; i < steps; i++) {
        const k = rich ? (i === 0 && this.r() < 0.5 ? 'editState' : this.pick(['setBalance', 'setNonce', 'editState', 'transfer', 'token', 'mine'] as const)) : 'setBalance'
        const what = await (k === 'setBalance' ? this.setBalance() : k === 'setNonce' ? this.setNonce() : k === 'editState' ? this.editState() : k === 'mine' ? this.mineStep() : this.transfer(k === 'token' ? 'token' : 'value'))
        if (what !== undefined) done.push(what)
      }
      await this.check(false)
      const w0 = wall()
      expect(await rq(this.p, `${this.pick(['anvil', 'hardhat', 'ganache'])}_loadState`, [dump])).toBe(true)
      clockAfterLoad(this.world.clock, headTs, w0, wall())
      // The file lists the accounts that existed; loading writes those over the state and leaves the others as they
      // are (docs/extensions.md "State"): the file's balance and code, the larger of the two nonces, the file's
      // (non-zero) slots, the others kept. An account exists once it got value, a nonce or a balance edit (a flag of
      // the model). The token's balances are slots of the token: a
      // holder's non-zero balance in the file is written, a zero one (no slot in the file) leaves the balance it has.
      const now = this.world
      for (const [a, was] of file.accounts) {
        const acct = now.accounts.get(a)!
        if (was.exists === true) {
          acct.exists = true
          acct.balance = was.balance
          if (was.nonce > acct.nonce) acct.nonce = was.nonce
        }
        if (was.token > 0n) acct.token = was.token
      }
      for (const a of file.written) now.code.set(a, file.code.get(a)!)
      for (const [k, v] of file.storage) if (BigInt(v) !== 0n) now.storage.set(k, v)
      return `${fam}_dumpState, ${done.length} steps (${done.join('; ')}), loadState into the same node`
    }
    // A new node: a new chain (block history is not in the file) with the accounts of the file; the old node's pool,
    // blocks, snapshots, impersonations and settings stay behind.
    const dir = this.dir === undefined ? undefined : tempDir()
    const next = await this.open(dir)
    const w0 = wall()
    expect(await rq(next, `${this.pick(['anvil', 'hardhat', 'ganache'])}_loadState`, [dump])).toBe(true)
    const w1 = wall()
    await this.p.disconnect()
    this.p = next
    this.dir = dir
    const head = await rq(this.p, 'eth_getBlockByNumber', ['latest', false])
    const { accounts, code, storage, written } = this.world
    // The file's code and non-zero slots; a slot the file does not hold is zero on the new chain (the model's too).
    const kept = new Map([...storage].filter(([, v]) => BigInt(v) !== 0n))
    // No block of the new chain is the model's yet: anvil_rollback waits for one.
    this.world = { accounts, code, storage: kept, written, history: new Map(), number: 0n, headHash: head.hash, headTs: BigInt(head.timestamp), headMin: 0n, pool: new Map(), mined: new Map(), clock: { offset: 0n, driftLo: 0n, driftHi: 0n, pin: undefined } }
    clockAfterLoad(this.world.clock, headTs, w0, w1)
    expect(head.number).toBe('0x0')
    this.automine = true
    this.impersonated.clear()
    this.snapshots = []
    // A new node's settings: no block spacing, its own coinbase, regtest's minimum gas price.
    this.interval = undefined
    this.coinbase = undefined
    this.minGas = 0n
    this.filters = []
    return `${fam}_dumpState, loadState into a new node`
  }

  /** Closes the node and opens it again on its database: everything but snapshots and impersonation is kept. */
  async reopen(): Promise<string> {
    await this.p.disconnect()
    this.p = await this.open()
    // docs/persistence.md "What survives a restart": not snapshots (a new session), not impersonations; the mining
    // mode is the options' (automine here), as at any start.
    // Nor filters (docs/persistence.md): an id from before the restart is not found.
    if (this.filters.length > 0) await expectError(rq(this.p, 'eth_getFilterChanges', [this.pick(this.filters).id]), -32000, /filter not found/)
    this.filters = []
    this.snapshots = []
    this.impersonated.clear()
    this.automine = true
    return 'reopen'
  }

  async step(i: number): Promise<void> {
    type Kind = readonly [number, string, () => Promise<string | undefined>]
    const kinds: Kind[] = [
      [20, 'transfer', () => this.transfer('value')],
      [14, 'token', () => this.transfer('token')],
      [8, 'mine', () => this.mineStep()],
      [6, 'automine', () => this.automineStep()],
      [7, 'snapshot', () => this.snapshot()],
      [7, 'revert', () => this.revert()],
      [4, 'setBalance', () => this.setBalance()],
      [3, 'setNonce', () => this.setNonce()],
      [4, 'impersonate', () => this.impersonate()],
      [3, 'increaseTime', () => this.increaseTime()],
      [3, 'setNextBlockTimestamp', () => this.setNextBlockTimestamp()],
      [5, 'drop', () => this.drop()],
      [2, 'dumpLoad', () => this.dumpLoad()],
      [4, 'editState', () => this.editState()],
      [1, 'reset', () => this.reset()],
      [3, 'rollback', () => this.rollback()],
      [3, 'reorg', () => this.reorg()],
      [2, 'setTime', () => this.setTime()],
      [2, 'timestampInterval', () => this.timestampInterval()],
      [2, 'mineAt', () => this.mineAt()],
      [1, 'setCoinbase', () => this.setCoinbase()],
      [1, 'setMinGasPrice', () => this.setMinGasPrice()],
      [5, 'filter', () => this.filterStep()],
      ...(this.dir !== undefined ? [[4, 'reopen', () => this.reopen()] as const] : []),
    ]
    let roll = this.r() * kinds.reduce((s, k) => s + k[0], 0)
    const [, name, run] = kinds.find((k) => (roll -= k[0]) < 0) ?? kinds[0]!
    let what: string | undefined
    try {
      what = await run()
      if (what !== undefined) {
        // Refusals the model predicted (a keyless sender, a snapshot id a revert or restart dropped) and drops of a hash
        // not in the pool (answered null or false) are counted apart.
        const key = name !== 'dumpLoad' && /refused|no such snapshot/.test(what) ? `${name} refused` : what.endsWith('(not pooled)') ? 'drop (not pooled)' : name
        this.counts[key] = (this.counts[key] ?? 0) + 1
        this.log.push(`${i}: ${what}`)
        if (this.log.length > 40) this.log.shift()
        await this.check(['revert', 'reopen', 'dumpLoad', 'reset', 'rollback', 'reorg'].includes(name))
        // On disk, a reopen right after each of these kinds at least once a seed (then now and then): what the step
        // left must survive the restart (docs/persistence.md "What survives a restart").
        if (this.dir !== undefined && REOPEN_AFTER.includes(name) && (!this.reopenedAfter.has(name) || this.r() < 0.1)) {
          this.reopenedAfter.add(name)
          what = `${what}, then reopen`
          await this.reopen()
          this.log.push(`${i}: reopen`)
          this.counts[`reopen after ${name}`] = (this.counts[`reopen after ${name}`] ?? 0) + 1
          await this.check(true)
        }
      }
    } catch (e) {
      const err = e as Error
      err.message = `seed ${this.seed}, step ${i} (${what ?? name}): ${err.message}\nlast steps:\n${this.log.join('\n')}`
      throw err
    }
  }

  // ---------------------------------------------------------------------------------------------------- checks

  /** The node's answers against the model; `full` reads every transaction ever answered, not a sample. */
  async check(full: boolean): Promise<void> {
    const { p, world: w } = this
    expect(BigInt(await rq(p, 'eth_blockNumber')), 'eth_blockNumber').toBe(w.number)
    const { pending, queued } = split(w)
    const then = applied(w.accounts, pending)
    const got: Record<string, string[]> = {}
    const want: Record<string, string[]> = {}
    for (const a of this.addrs) {
      const m = w.accounts.get(a)!
      const n = then.get(a)!
      want[a] = [m.balance, n.balance, m.nonce, n.nonce, m.token, n.token].map(String)
      got[a] = [
        BigInt(await rq(p, 'eth_getBalance', [a, 'latest'])),
        BigInt(await rq(p, 'eth_getBalance', [a, 'pending'])),
        BigInt(await rq(p, 'eth_getTransactionCount', [a, 'latest'])),
        BigInt(await rq(p, 'eth_getTransactionCount', [a, 'pending'])),
        await this.tokenOf(a, 'latest'),
        await this.tokenOf(a, 'pending'),
      ].map(String)
    }
    expect(got, 'balance, pending balance, nonce, pending nonce, token, pending token').toEqual(want)

    // The edited code and storage slots (a slot never edited, or edited on a chain since left, reads zero).
    const codes: Record<string, string> = {}
    for (const a of w.code.keys()) codes[a] = await rq(p, 'eth_getCode', [a, 'latest'])
    expect(codes, 'eth_getCode').toEqual(Object.fromEntries(w.code))
    const slots: Record<string, string> = {}
    for (const k of this.slots) slots[k] = await rq(p, 'eth_getStorageAt', [...k.split(' '), 'latest'])
    expect(slots, 'eth_getStorageAt').toEqual(Object.fromEntries([...this.slots].map((k) => [k, w.storage.get(k) ?? word(0n)])))

    // The pool: txpool_content lists each transaction under its sender (no 0x) and nonce, pending or queued.
    const content = await rq(p, 'txpool_content')
    const listed: string[] = []
    for (const section of ['pending', 'queued'] as const) {
      for (const [sender, byNonce] of Object.entries(content[section] as Record<string, Record<string, Array<{ hash: string }>>>)) {
        for (const [nonce, txs] of Object.entries(byNonce)) for (const t of txs) listed.push(`${section} 0x${sender} ${BigInt(nonce)} ${t.hash}`)
      }
    }
    const modelled = [...pending.map((t) => ['pending', t] as const), ...queued.map((t) => ['queued', t] as const)].map(([s, t]) => `${s} ${t.from} ${t.nonce} ${t.hash}`)
    expect(listed.sort(), 'txpool_content').toEqual(modelled.sort())

    // The newest blocks link by parentHash, with rising timestamps; the head is the model's.
    let child: { parentHash: string; timestamp: string } | undefined
    for (let n = w.number; n >= 0n && n >= w.number - 3n; n--) {
      const b = await rq(p, 'eth_getBlockByNumber', [hex(n), false])
      if (n === w.number) expect(b.hash, 'head hash').toBe(w.headHash)
      if (child !== undefined) {
        expect(child.parentHash, `block ${n + 1n}'s parentHash`).toBe(b.hash)
        expect(BigInt(child.timestamp) > BigInt(b.timestamp), `block ${n + 1n} after its parent`).toBe(true)
      }
      child = b
    }

    // Transactions: mined ones have a receipt (status 1) in the block that holds them; pooled ones are found and
    // have none; those reverted away, dropped or left on another node's chain are not found at all.
    const sample = <T>(xs: T[], k: number): T[] => (full || xs.length <= k ? xs : [...xs.slice(-k / 2), ...Array.from({ length: k / 2 }, () => this.pick(xs))])
    for (const [hash, at] of sample([...w.mined], 20)) {
      const receipt = await rq(p, 'eth_getTransactionReceipt', [hash])
      expect(receipt && { status: receipt.status, blockNumber: BigInt(receipt.blockNumber), blockHash: receipt.blockHash }, `receipt of ${hash}`).toEqual({ status: '0x1', blockNumber: at.number, blockHash: at.blockHash })
    }
    for (const t of sample([...w.pool.values()], 10)) {
      const tx = await rq(p, 'eth_getTransactionByHash', [t.hash])
      expect(tx && { blockNumber: tx.blockNumber, from: tx.from, nonce: BigInt(tx.nonce) }, `pooled ${t.hash}`).toEqual({ blockNumber: null, from: t.from, nonce: t.nonce })
      expect(await rq(p, 'eth_getTransactionReceipt', [t.hash]), `receipt of pooled ${t.hash}`).toBeNull()
    }
    const gone = [...this.known].filter((h) => !w.mined.has(h) && !w.pool.has(h))
    for (const hash of sample(gone, 10)) {
      expect(await rq(p, 'eth_getTransactionReceipt', [hash]), `receipt of gone ${hash}`).toBeNull()
      expect(await rq(p, 'eth_getTransactionByHash', [hash]), `gone ${hash}`).toBeNull()
    }
  }
}

async function expectError(promise: Promise<unknown>, code: number, message: RegExp): Promise<void> {
  const e = await promise.then(
    () => undefined,
    (err: unknown) => err as { code?: number; message?: string },
  )
  expect(e && { code: e.code, ok: message.test(e.message ?? '') }, `expected ${code} ${String(message)}, got ${e?.code} ${e?.message}`).toEqual({ code, ok: true })
}

async function campaign(dir: () => string | undefined): Promise<void> {
  const totals: Record<string, number> = {}
  const start = performance.now()
  for (let s = 0; s < SEEDS; s++) {
    const run = new Run(SEED + s, dir())
    await run.start()
    for (let i = 0; i < STEPS; i++) await run.step(i)
    for (const [k, v] of Object.entries(run.counts)) totals[k] = (totals[k] ?? 0) + v
    await run.p.disconnect()
  }
  if (LONG) console.log(`stateful: ${SEEDS} seeds from ${SEED} × ${STEPS} steps in ${((performance.now() - start) / 1000).toFixed(1)} s: ${JSON.stringify(totals)}`)
}

describe('stateful sequences of the dev-chain toolkit', () => {
  it(`in memory: ${SEEDS} seeds × ${STEPS} random steps match the model`, async () => {
    await campaign(() => undefined)
  })

  it(`on disk: ${SEEDS} seeds × ${STEPS} random steps, the node closed and reopened at random, match the model`, async () => {
    await campaign(() => tempDir())
  })
})

