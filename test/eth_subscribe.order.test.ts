/**
 * eth_subscribe in process: a subscription's notifications come after its id has reached the caller (the code that
 * awaited `provider.request`, or a client's layers above it), in order, none lost, none twice; none after
 * eth_unsubscribe. Over WebSocket the same holds (test/ws.test.ts); here the id and the notifications share the
 * microtask queue, so each test races the subscription against an event at every point a request sent with it can
 * announce one (a block, its logs, a pending transaction, a revert), or makes it from a listener while an event is
 * being announced. What must arrive is told by a second subscription made and settled before the race: every event
 * it is told of after the id must reach the new one, none it was told of before the request may.
 */
import { describe, expect, it, vi } from 'vitest'
import { Interface, Transaction, Wallet } from 'ethers'
import { Web3 } from 'web3'
import type { Provider, ProviderOptions } from '../src/index.js'
import { COW, COW1, COW_KEY, deploy, fresh, rejects, rq } from './helpers.js'
import { Events } from './fixtures/index.js'

const events = new Interface(Events.abi as never)

/** Lets `n` turns of the microtask queue pass. */
async function ticks(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await Promise.resolve()
}

/** Lets the event loop turn once (what a subscription's notifications wait for at most). */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

type Message = { data: { subscription: string; result: any } }

/** A listener of `event` that records each message as `show` writes it and throws on the first one. */
function throwsOnce<M>(p: Provider, event: 'message' | 'data', show: (m: M) => string): string[] {
  const got: string[] = []
  p.on(event, (m: M) => {
    got.push(show(m))
    if (got.length === 1) throw new Error('listener failed')
  })
  return got
}

interface Race {
  options?: ProviderOptions
  /** Run once per provider before the race (deploys, snapshots). */
  setup?: (p: Provider) => Promise<void>
  params: unknown[]
  /** Sends, without awaiting, the request whose event races the subscription. */
  race: (p: Provider) => Promise<unknown>
  /** Causes one more event once the id is known: it must always be notified. */
  after: (p: Provider) => Promise<unknown>
  /** What identifies a notification (a block number, a log's place, a hash). */
  key: (result: any) => string
  /** How many events the settled subscription is told of in all. */
  events: number
}

/**
 * The provider lets the event loop turn before a request once 10 ms passed since it last did: made to happen now, so
 * that what a test runs next (well within 10 ms) runs on microtasks alone, as the test means it to.
 */
async function yieldNow(p: Provider): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 11))
  await rq(p, 'eth_chainId')
}

/** Awaits `f()` through `n` async functions, as a client's layers above `provider.request` do. */
async function through<T>(n: number, f: () => Promise<T>): Promise<T> {
  return n === 0 ? f() : await through(n - 1, f)
}

/** Microtask turns between one race and the next; the caller's layers make its window wider than this. */
const STEP = 3
const LAYERS = 12

/**
 * Races `eth_subscribe`, awaited through a client's layers, against `race`, sent 0, STEP, 2 × STEP, ... microtask
 * turns before it, on a fresh provider each time, until the race's events are told before the subscription is
 * requested. Returns how many times events told while the id was on its way were notified, so a caller can check
 * that the race was really run.
 */
async function raceSubscribe(r: Race): Promise<number> {
  let inWindow = 0
  for (let k = 0; ; k += STEP) {
    const p = await fresh(r.options)
    await r.setup?.(p)
    const settled = await rq(p, 'eth_subscribe', r.params)
    await yieldNow(p)
    const seen: string[] = []
    let id: string | undefined
    p.on('message', (m: Message) => {
      if (m.data.subscription === settled) seen.push('event ' + r.key(m.data.result))
      else seen.push('message ' + r.key(m.data.result) + (id === undefined ? ' before the id' : ''))
    })
    const raced = r.race(p)
    await ticks(k)
    seen.push('request')
    id = await through(LAYERS, () => rq(p, 'eth_subscribe', r.params))
    seen.push('id')
    // A listener added right after the await.
    const late: string[] = []
    p.on('message', (m: Message) => {
      if (m.data.subscription === id) late.push(r.key(m.data.result))
    })
    await raced
    await r.after(p)
    await nextTurn()
    const at = (mark: string): number => seen.indexOf(mark)
    const told = seen.filter((s) => s.startsWith('event ')).map((s) => s.slice(6))
    const messages = seen.filter((s) => s.startsWith('message ')).map((s) => s.slice(8))
    expect(told, `k=${k}`).toHaveLength(r.events)
    // Nothing before the id; the listener added after the await saw everything.
    expect(messages.filter((m) => m.endsWith(' before the id')), `k=${k}`).toEqual([])
    expect(late, `k=${k}`).toEqual(messages)
    // In the settled subscription's order, a run that ends with its last event: none lost, none twice.
    expect(late, `k=${k}`).toEqual(told.slice(told.length - late.length))
    const before = seen.slice(0, at('request')).filter((s) => s.startsWith('event ')).length
    const after = seen.slice(at('id')).filter((s) => s.startsWith('event ')).length
    expect(late.length, `k=${k}: none told before the request, all told after the id`).toBeGreaterThanOrEqual(after)
    expect(late.length, `k=${k}`).toBeLessThanOrEqual(told.length - before)
    if (late.length > after) inWindow++
    await p.disconnect()
    // From here on the race is over before the subscription is requested.
    if (before > 0) return inWindow
    if (k > 3000) throw new Error('the race never announced anything before the subscription was requested')
  }
}

describe('eth_subscribe in process: notifications after the id', () => {
  it('newHeads: a block evm_mine (sent first, not awaited) announces while the id is on its way', async () => {
    const inWindow = await raceSubscribe({
      params: ['newHeads'],
      race: (p) => rq(p, 'evm_mine'),
      after: (p) => rq(p, 'evm_mine'),
      key: (h) => h.number,
      events: 2,
    })
    expect(inWindow).toBeGreaterThan(0)
  })

  it('logs: the logs of a transaction sent in the same tick and mined at once', async () => {
    let addr = ''
    const emit = (p: Provider) => rq(p, 'eth_sendTransaction', [{ from: COW, to: addr, gas: '0x4c4b40', data: events.encodeFunctionData('emitMany', [3]) }])
    const inWindow = await raceSubscribe({
      setup: async (p) => void (addr = await deploy(p, Events)),
      params: ['logs', {}],
      race: emit,
      after: emit,
      key: (l) => `${l.blockNumber}/${l.transactionIndex}/${l.logIndex}/${l.removed}`,
      events: 6, // three Value logs, twice
    })
    expect(inWindow).toBeGreaterThan(0)
  })

  it('logs: the removed: true logs evm_revert announces', async () => {
    let snap = ''
    const inWindow = await raceSubscribe({
      setup: async (p) => {
        const addr = await deploy(p, Events)
        snap = await rq(p, 'evm_snapshot')
        for (let i = 0; i < 2; i++) {
          await rq(p, 'eth_sendTransaction', [{ from: COW, to: addr, gas: '0x4c4b40', data: events.encodeFunctionData('emitMany', [2]) }])
        }
      },
      params: ['logs', { topics: [events.getEvent('Value')!.topicHash] }],
      race: (p) => rq(p, 'evm_revert', [snap]),
      after: (p) => rq(p, 'evm_mine'), // no logs: nothing more to tell
      key: (l) => `${l.blockNumber}/${l.logIndex}/${l.removed}`,
      events: 4,
    })
    expect(inWindow).toBeGreaterThan(0)
  })

  it('newPendingTransactions: a transaction sent in the same tick enters the pool while the id is on its way', async () => {
    const inWindow = await raceSubscribe({
      options: { mining: { auto: false } },
      params: ['newPendingTransactions'],
      race: (p) => rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x1' }]),
      after: (p) => rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x2' }]),
      key: (hash) => hash,
      events: 2,
    })
    expect(inWindow).toBeGreaterThan(0)
  })
})

/**
 * Follows the subscriptions a test makes with `subscribe`: what each was told, as seen by a listener added before it
 * and by one added right after its id came back, and what any was told before its id came back (`beforeId`, by the
 * `message` or the legacy `data` event).
 * Subscriptions in `others` are left out.
 */
function follow(p: Provider, key: (result: any) => string, others: readonly string[] = []) {
  const known = new Set<string>()
  const early = new Map<string, string[]>()
  const late = new Map<string, string[]>()
  const beforeId: string[] = []
  const add = (to: Map<string, string[]>, id: string, k: string): void => void to.set(id, [...(to.get(id) ?? []), k])
  p.on('message', (m: Message) => {
    const id = m.data.subscription
    if (others.includes(id)) return
    if (!known.has(id)) beforeId.push(key(m.data.result))
    add(early, id, key(m.data.result))
  })
  // The legacy `data` event comes with each `message`, so it waits for the id as well.
  p.on('data', (d) => {
    if (!others.includes(d.params.subscription) && !known.has(d.params.subscription)) beforeId.push('data ' + key(d.params.result))
  })
  const subscribe = async (params: unknown[], layers = 0): Promise<string> => {
    const id: string = await through(layers, () => rq(p, 'eth_subscribe', params))
    known.add(id)
    p.on('message', (m: Message) => {
      if (m.data.subscription === id) add(late, id, key(m.data.result))
    })
    return id
  }
  return { early, late, beforeId, subscribe }
}

const headOrLog = (r: any): string => (typeof r === 'string' ? r : r.logIndex === undefined ? `head ${r.number}` : `log ${r.blockNumber}/${r.logIndex}`)

describe('eth_subscribe in process: a subscription made by a listener while an event is announced', () => {
  it('newHeads from a `block` listener, logs from another subscription\'s `message` listener', async () => {
    const p = await fresh()
    const addr = await deploy(p, Events)
    const logs = await rq(p, 'eth_subscribe', ['logs', { address: addr }])
    await nextTurn()
    const f = follow(p, headOrLog, [logs])
    const made: Promise<string>[] = []
    p.on('block', (b) => {
      if (b.number === '0x2') made.push(f.subscribe(['newHeads']))
    })
    p.on('message', (m: Message) => {
      if (m.data.subscription === logs && made.length === 1) made.push(f.subscribe(['logs', { address: addr }]))
    })
    const emit = (): Promise<unknown> => rq(p, 'eth_sendTransaction', [{ from: COW, to: addr, gas: '0x4c4b40', data: events.encodeFunctionData('emitMany', [3]) }])
    await emit() // block 0x2: both subscriptions are made while it is announced
    await emit() // block 0x3
    await nextTurn()
    const [heads, logs2] = await Promise.all(made)
    expect(f.beforeId).toEqual([])
    for (const id of [heads!, logs2!]) expect(f.late.get(id), id).toEqual(f.early.get(id))
    // Block 0x3's, told after the ids; not block 0x2, whose announcement had begun when they were made.
    expect(f.late.get(heads!)).toEqual(['head 0x3'])
    expect(f.late.get(logs2!)).toEqual(['log 0x3/0x0', 'log 0x3/0x1', 'log 0x3/0x2'])
  })

  it('newPendingTransactions from a `message` listener, while a transaction and the one it unblocks are announced', async () => {
    const p = await fresh({ mining: { auto: false } })
    const pending = await rq(p, 'eth_subscribe', ['newPendingTransactions'])
    await nextTurn()
    const f = follow(p, headOrLog, [pending])
    let made: Promise<string> | undefined
    p.on('message', (m: Message) => {
      if (m.data.subscription === pending) made ??= f.subscribe(['newPendingTransactions'])
    })
    // Nonce 1 waits in the queued set; nonce 0 enters the pending set and moves it there too: two announcements.
    const second: string = await rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x1', nonce: '0x1' }])
    expect(made).toBeUndefined()
    const first: string = await rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x1', nonce: '0x0' }])
    await nextTurn()
    const id = await made!
    expect(f.beforeId).toEqual([])
    expect(f.late.get(id)).toEqual(f.early.get(id))
    // Made while `first` was announced: told of `second` only, whose announcement came after.
    expect(f.late.get(id)).toEqual([second])
    expect(first).not.toBe(second)
  })

  it('newHeads from a `message` listener while what waited for another id is released', async () => {
    const p = await fresh()
    const f = follow(p, headOrLog)
    await yieldNow(p)
    // A's block 0x1 waits for A's id; when it is released, A's listener subscribes B (through a client's layers)
    // and mines block 0x2, which is announced before B's id has reached its caller.
    const minedA = rq(p, 'evm_mine')
    const a = await f.subscribe(['newHeads'])
    let b: Promise<string> | undefined
    let minedB: Promise<unknown> | undefined
    p.on('message', (m: Message) => {
      if (m.data.subscription !== a || b !== undefined) return
      minedB = rq(p, 'evm_mine')
      b = f.subscribe(['newHeads'], 3 * LAYERS)
    })
    await minedA
    await nextTurn()
    await minedB
    await nextTurn()
    expect(f.beforeId).toEqual([])
    expect(f.late.get(a)).toEqual(['head 0x1', 'head 0x2'])
    expect(f.late.get(await b!)).toEqual(['head 0x2'])
    expect(f.early.get(await b!)).toEqual(['head 0x2'])
  })

  it('newHeads under interval mining, from the listeners of blocks the timer mines', async () => {
    const p = await fresh({ mining: { auto: false, interval: 5 } })
    // Another subscription already listens to the node's blocks (one made by the listener below would only hear the
    // next block announced, the node's event not calling listeners added while it runs).
    const other = await rq(p, 'eth_subscribe', ['syncing'])
    const f = follow(p, headOrLog, [other])
    // One subscription from each of three blocks' listeners, until the last has been told of three blocks.
    const made: Array<{ from: string; id: Promise<string> }> = []
    await new Promise<void>((resolve) => {
      p.on('block', (b) => {
        if (made.length < 3) made.push({ from: b.number, id: f.subscribe(['newHeads']) })
        else if (f.late.size === 3 && [...f.late.values()].every((l) => l.length >= 3)) resolve()
      })
    })
    await p.disconnect()
    expect(f.beforeId).toEqual([])
    for (const { from, id } of made) {
      const got = f.late.get(await id)!
      expect(got).toEqual(f.early.get(await id))
      // Consecutive blocks from the one whose listener subscribed, or the next.
      const start = Number(got[0]!.slice(5))
      expect([Number(from), Number(from) + 1]).toContain(start)
      expect(got).toEqual(got.map((_, i) => `head 0x${(start + i).toString(16)}`))
    }
  })
})

describe('eth_unsubscribe in process: nothing more once it is called', () => {
  it('drops what waited for the id, and stops a release and a block\'s logs at once', async () => {
    const p = await fresh()
    const addr = await deploy(p, Events)
    const f = follow(p, headOrLog)
    // A block announced while the id is on its way waits for it; unsubscribed before it could go, it never goes.
    const blocks: string[] = []
    p.on('block', (b) => blocks.push(b.number))
    const mined = rq(p, 'evm_mine')
    const heads = await f.subscribe(['newHeads'])
    await mined
    expect(blocks).toEqual(['0x2'])
    expect(f.early.get(heads)).toBeUndefined()
    expect(await rq(p, 'eth_unsubscribe', [heads])).toBe(true)
    await nextTurn()
    await rq(p, 'evm_mine')
    expect(f.early.get(heads)).toBeUndefined()
    // A listener that unsubscribes on the first log it is given gets no other, whether the logs waited for the id
    // (the three of block 0x4) or not (block 0x5).
    const emit = (): Promise<unknown> => rq(p, 'eth_sendTransaction', [{ from: COW, to: addr, gas: '0x4c4b40', data: events.encodeFunctionData('emitMany', [3]) }])
    for (const waited of [true, false]) {
      const sent = waited ? emit() : undefined
      const id = await f.subscribe(['logs', { address: addr }])
      let answered: Promise<unknown> | undefined
      p.on('message', (m: Message) => {
        if (m.data.subscription === id) answered ??= rq(p, 'eth_unsubscribe', [id])
      })
      if (!waited) await nextTurn() // the id has reached this code: notifications go out as they come
      await (sent ?? emit())
      await nextTurn()
      expect(await answered, `waited: ${waited}`).toBe(true)
      expect(f.early.get(id), `waited: ${waited}`).toEqual([waited ? 'log 0x4/0x0' : 'log 0x5/0x0'])
    }
    expect(f.beforeId).toEqual([])
  })
})

describe('a listener that throws while what waited for the ids is released', () => {
  it('rejects the request that released them (-32603) and loses no subscription: the rest go at the next turn', async () => {
    // The provider lets the event loop turn before a request once 10 ms have passed since it last did (`request`,
    // src/provider/index.ts): on a loaded machine that can fall before evm_mine, whose turn then releases the two
    // subscriptions while they hold nothing, and the block is announced to them directly, not released. Its clock
    // (performance.now) is held still, so no request turns the loop and the block waits, as this test means.
    vi.useFakeTimers({ toFake: ['performance'] })
    try {
      const p = await fresh()
      const got = throwsOnce(p, 'message', (m: Message) => `${m.data.subscription} ${m.data.result.number}`)
      // Two subscriptions made with no turn of the event loop: what they are told waits for the next request's answer.
      const a = await rq(p, 'eth_subscribe', ['newHeads'])
      const b = await rq(p, 'eth_subscribe', ['newHeads'])
      // The block was mined; the first listener call threw, before the answer: the request fails as an RpcError.
      await rejects(rq(p, 'evm_mine'), -32603)
      expect(got).toEqual([`${a} 0x1`])
      await nextTurn()
      expect(got).toEqual([`${a} 0x1`, `${b} 0x1`])
      await rq(p, 'evm_mine')
      expect(got).toEqual([`${a} 0x1`, `${b} 0x1`, `${a} 0x2`, `${b} 0x2`])
      await p.disconnect()
    } finally {
      vi.useRealTimers()
    }
  })
})

describe('a listener that throws while a block is announced to subscriptions that hold nothing', () => {
  it('rejects the request (-32603); the other subscription, a block filter and a waiting eth_sendRawTransactionSync still learn of the block', async () => {
    const p = await fresh({ mining: { auto: false } })
    const a = await rq(p, 'eth_subscribe', ['newHeads'])
    const b = await rq(p, 'eth_subscribe', ['newHeads'])
    await nextTurn() // both ids came back: their notifications go out as the block is announced
    const filter = await rq(p, 'eth_newBlockFilter')
    const raw = await new Wallet(COW_KEY).signTransaction({ type: 0, chainId: 33, nonce: 0, gasLimit: 21_000n, gasPrice: 0n, to: COW1, value: 1n })
    const waiting = rq(p, 'eth_sendRawTransactionSync', [raw, 5_000])
    await rq(p, 'txpool_status') // the transaction is in the pool and its watcher listens for blocks
    const got = throwsOnce(p, 'message', (m: Message) => `${m.data.subscription} ${m.data.result.number}`)
    await rejects(rq(p, 'evm_mine'), -32603)
    expect(got).toEqual([`${a} 0x1`, `${b} 0x1`])
    const block = await rq(p, 'eth_getBlockByNumber', ['0x1', false])
    expect(await rq(p, 'eth_getFilterChanges', [filter])).toEqual([block.hash])
    const receipt = await waiting
    expect(receipt).toMatchObject({ transactionHash: Transaction.from(raw).hash, blockNumber: '0x1', status: '0x1' })
    await rq(p, 'evm_mine')
    expect(got).toEqual([`${a} 0x1`, `${b} 0x1`, `${a} 0x2`, `${b} 0x2`])
    await p.disconnect()
  })
})

describe('web3.js v4 over the in-process provider (it files a subscription by id once eth_subscribe answered)', () => {
  it('gets every block announced after its subscription was made, the block a request sent just before mines included', async () => {
    let inWindow = 0
    for (let k = 0; ; k += STEP) {
      const p = await fresh()
      const settled = await rq(p, 'eth_subscribe', ['newHeads'])
      await yieldNow(p)
      const web3 = new Web3(p as never)
      const seen: string[] = []
      const emitted = new Map<string, string[]>()
      p.on('message', (m: Message) => {
        const { subscription, result } = m.data
        if (subscription === settled) seen.push('event ' + result.number)
        else emitted.set(subscription, [...(emitted.get(subscription) ?? []), result.number])
      })
      const raced = rq(p, 'evm_mine')
      await ticks(k)
      seen.push('request')
      const sub = await web3.eth.subscribe('newBlockHeaders')
      seen.push('id')
      const got: string[] = []
      sub.on('data', (h) => void got.push('0x' + BigInt(h.number!).toString(16)))
      await raced
      await rq(p, 'evm_mine')
      await nextTurn()
      // What the provider emitted for the id is what web3.js handed on: none lost on its way in.
      const id = String(sub.id)
      expect(got, `k=${k}`).toEqual(emitted.get(id) ?? [])
      expect(got.at(-1), `k=${k}`).toBe('0x2')
      const at = (mark: string): number => seen.indexOf(mark)
      if (at('event 0x1') > at('request') && at('event 0x1') < at('id') && got[0] === '0x1') inWindow++
      if (at('event 0x1') > at('id')) expect(got, `k=${k}`).toEqual(['0x1', '0x2'])
      await sub.unsubscribe()
      await rq(p, 'evm_mine')
      await nextTurn()
      expect(got.at(-1), `k=${k}: nothing after unsubscribe`).toBe('0x2')
      expect(emitted.get(id)!.at(-1), `k=${k}: nothing after unsubscribe`).toBe('0x2')
      await p.disconnect()
      if (at('event 0x1') < at('request')) break
      if (k > 3000) throw new Error('the race never announced anything before the subscription was requested')
    }
    expect(inWindow).toBeGreaterThan(0)
  })
})

describe('eth_subscribe in process: a request sent after the id came back is told before it answers', () => {
  // The common test runs on microtasks alone: await the id, await a request, then read what the listener got. That
  // request was sent after the id reached its caller, so its events are emitted before its answer (as a WebSocket
  // client reads a notification before the reply that follows it); no turn of the event loop is needed.
  it('newHeads and logs through provider.request, with no turn of the event loop', async () => {
    const p = await fresh()
    const addr = await deploy(p, Events)
    await yieldNow(p)
    const got: Message[] = []
    p.on('message', (m: Message) => void got.push(m))
    const heads: string = await rq(p, 'eth_subscribe', ['newHeads'])
    const logs: string = await rq(p, 'eth_subscribe', ['logs', { address: addr }])
    await rq(p, 'evm_mine')
    expect(got.map((m) => [m.data.subscription, m.data.result.number])).toEqual([[heads, '0x2']])
    const hash: string = await rq(p, 'eth_sendTransaction', [{ from: COW, to: addr, data: events.encodeFunctionData('emitMany', [2]) }])
    const byId = (id: string): any[] => got.filter((m) => m.data.subscription === id).map((m) => m.data.result)
    expect(byId(heads).map((h) => h.number)).toEqual(['0x2', '0x3'])
    expect(byId(logs).map((l) => [l.transactionHash, l.blockNumber])).toEqual([
      [hash, '0x3'],
      [hash, '0x3'],
    ])
  })

  it('web3.js v4: `data` of a block mined by the next awaited request, with no turn of the event loop', async () => {
    const p = await fresh()
    await yieldNow(p)
    const web3 = new Web3(p as never)
    const sub = await web3.eth.subscribe('newBlockHeaders')
    const got: string[] = []
    sub.on('data', (h) => void got.push('0x' + BigInt(h.number!).toString(16)))
    await rq(p, 'evm_mine')
    expect(got).toEqual(['0x1'])
    await rq(p, 'evm_mine')
    expect(got).toEqual(['0x1', '0x2'])
    await sub.unsubscribe()
  })
})

describe('eth_subscribe in process through the JSON-RPC body entry points', () => {
  /** `sendAsync` as a promise: the error handed to the callback, or its reply. */
  const sendAsync = (p: Provider, body: unknown): Promise<any> =>
    new Promise((resolve, reject) => p.sendAsync(body, (e, r) => (e === null ? resolve(r) : reject(e))))

  it('is served by request, send(method, params), sendAsync and send(payload, callback); handleJsonRpc (the servers\' and the Hardhat plugin\'s entry) answers -32601', async () => {
    const p = await fresh()
    const sub = { jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }
    const notFound = { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'method not found' } }
    expect(await p.handleJsonRpc(sub)).toEqual(notFound)
    expect(await p.handleJsonRpc([sub, { jsonrpc: '2.0', id: 2, method: 'eth_chainId' }])).toEqual([notFound, { jsonrpc: '2.0', id: 2, result: '0x21' }])
    expect(await p.send('eth_subscribe', ['newHeads'])).toMatch(/^0x[0-9a-f]{32}$/)
    expect((await sendAsync(p, sub)).result).toMatch(/^0x[0-9a-f]{32}$/)
    expect((await new Promise<any>((resolve) => p.send(sub, (_e, r) => resolve(r)))).result).toMatch(/^0x[0-9a-f]{32}$/)
    // Hosted mode: the service's HTTP endpoint has no eth_subscribe.
    const h = await fresh({ hosted: true })
    expect(await sendAsync(h, sub)).toEqual(notFound)
  })

  it('sendAsync (web3.js 1.x): the `data` event after the reply with the id, before the reply of a body sent later; eth_unsubscribe stops it', async () => {
    const p = await fresh()
    const order: string[] = []
    p.on('data', (m: any) => order.push(`data ${m.params.subscription} ${m.params.result.number}`))
    // A batch that subscribes and mines: the block is told after the batch's reply, which gives the id.
    const [subscribed, mined] = await sendAsync(p, [
      { jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] },
      { jsonrpc: '2.0', id: 2, method: 'evm_mine' },
    ]).then((reply) => {
      order.push('reply 1')
      return reply
    })
    const id: string = subscribed.result
    expect(mined).toEqual({ jsonrpc: '2.0', id: 2, result: null }) // RSKj's evm_mine is void
    await nextTurn()
    expect(order).toEqual(['reply 1', `data ${id} 0x1`])
    // A body sent after the id came back: its block is told before its reply.
    await sendAsync(p, { jsonrpc: '2.0', id: 3, method: 'evm_mine' }).then(() => order.push('reply 3'))
    expect(order.slice(2)).toEqual([`data ${id} 0x2`, 'reply 3'])
    expect((await sendAsync(p, { jsonrpc: '2.0', id: 4, method: 'eth_unsubscribe', params: [id] })).result).toBe(true)
    await sendAsync(p, { jsonrpc: '2.0', id: 5, method: 'evm_mine' })
    await nextTurn()
    expect(order).toHaveLength(4)
  })

  it('sendAsync: a `data` listener that throws while a body releases what waited is that body\'s error (-32603); nothing is lost', async () => {
    const p = await fresh()
    const got = throwsOnce(p, 'data', (m: any) => `${m.params.subscription} ${m.params.result.number}`)
    // Both made by one body: what they are told waits for the next body's reply (or the loop's turn).
    const [a, b]: string[] = (
      await sendAsync(p, [
        { jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] },
        { jsonrpc: '2.0', id: 2, method: 'eth_subscribe', params: ['newHeads'] },
      ])
    ).map((r: any) => r.result)
    await rejects(sendAsync(p, { jsonrpc: '2.0', id: 3, method: 'evm_mine' }), -32603)
    expect(got).toEqual([`${a} 0x1`])
    await nextTurn()
    expect(got).toEqual([`${a} 0x1`, `${b} 0x1`])
  })
})
