/**
 * Fuzzing every method of the table with malformed input (issue "No single request takes the node down"), in
 * process and over HTTP, while a well-behaved client keeps asking `eth_blockNumber` beside it. Each request must
 * get a JSON-RPC answer with a numeric code — never a thrown non-RPC error, never a JavaScript TypeError or
 * RangeError dressed as -32603 (a bug in a decoder), never a non-JSON HTTP reply — and the node must answer
 * afterwards.
 *
 * CI runs a small campaign; `npm run fuzz` runs a long one (FUZZ_REQUESTS, FUZZ_BODIES, FUZZ_SEED) and prints the
 * figures recorded in docs/robustness.md.
 */
import { describe, expect, it } from 'vitest'
import { METHODS } from '../src/rpc/methods.js'
import { RpcError, startServer } from '../src/index.js'
import { fresh } from './helpers.js'
import { body, params, prng } from './fuzz/shapes.js'

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 15_000)
const BODIES = Number(process.env.FUZZ_BODIES ?? 3_000)
const SEED = Number(process.env.FUZZ_SEED ?? 20261124)
const LONG = process.env.FUZZ_REQUESTS !== undefined

const NAMES = [...Object.keys(METHODS), 'eth_noSuchMethod', 'eth_compileSolidity', 'shh_post', '', '__proto__', 'constructor']
/** Errors of JavaScript itself: a decoder or handler that let one escape has a bug. */
const JS_ERRORS = [TypeError, RangeError, ReferenceError, SyntaxError]

/** Asks eth_blockNumber in a loop until stopped; reports the slowest answer in ms. */
function probe(ask: () => Promise<unknown>): { stop: () => Promise<{ count: number; maxMs: number }> } {
  let running = true
  let count = 0
  let maxMs = 0
  const loop = (async () => {
    while (running) {
      const t = performance.now()
      await ask()
      maxMs = Math.max(maxMs, performance.now() - t)
      count++
      await new Promise((r) => setTimeout(r, 5))
    }
  })()
  return {
    stop: async () => {
      running = false
      await loop
      return { count, maxMs }
    },
  }
}

describe('fuzz', () => {
  it(`in process: ${REQUESTS} malformed requests answer coded errors and the node keeps working`, async () => {
    const r = prng(SEED)
    const p = await fresh({ mining: { auto: r() < 0.5 } })
    const bugs: string[] = []
    const p2 = probe(() => p.request({ method: 'eth_blockNumber' }))
    const start = performance.now()
    for (let i = 0; i < REQUESTS; i++) {
      const method = NAMES[Math.floor(r() * NAMES.length)]!
      const ps = params(r)
      try {
        await p.request({ method, params: ps } as { method: string; params?: unknown[] })
      } catch (e) {
        if (!(e instanceof RpcError) || !Number.isInteger(e.code)) bugs.push(`${method}: threw ${String(e)}`)
        else if (e.code === -32603 && JS_ERRORS.some((E) => e.cause instanceof E)) bugs.push(`${method}: ${String(e.cause)}`)
      }
    }
    const elapsed = performance.now() - start
    const { count, maxMs } = await p2.stop()
    if (LONG) console.log(`fuzz in process: ${REQUESTS} requests in ${(elapsed / 1000).toFixed(1)} s, ${bugs.length} failures, probe ${count} answers, slowest ${maxMs.toFixed(0)} ms`)
    expect(bugs.slice(0, 20)).toEqual([])
    expect(await p.request({ method: 'eth_chainId' })).toBe('0x21')
    await p.disconnect()
  })

  it(`over HTTP: ${BODIES} malformed bodies get JSON replies with RSKj's status codes`, async () => {
    const r = prng(SEED + 1)
    const server = await startServer({ port: 0 })
    const bugs: string[] = []
    const ask = () =>
      fetch(server.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' }).then((res) => res.json())
    const p2 = probe(ask)
    const start = performance.now()
    let stopped = false
    try {
      for (let i = 0; i < BODIES; i++) {
        const text = body(r, NAMES)
        const res = await fetch(server.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: text })
        const reply = await res.text()
        if (![200, 400, 413].includes(res.status)) bugs.push(`status ${res.status} for ${text.slice(0, 80)}`)
        if (reply === '') continue // a notification, or a batch of notifications
        let parsed: unknown
        try {
          parsed = JSON.parse(reply)
        } catch {
          bugs.push(`non-JSON reply ${reply.slice(0, 80)} for ${text.slice(0, 80)}`)
          continue
        }
        for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
          const error = (item as { error?: { code?: unknown; message?: unknown } }).error
          if (error !== undefined && (!Number.isInteger(error.code) || typeof error.message !== 'string')) bugs.push(`bad error ${reply.slice(0, 80)}`)
          if (error?.code === -32603 && /TypeError|RangeError|ReferenceError/.test(String(error.message))) bugs.push(reply.slice(0, 120))
        }
      }
      const elapsed = performance.now() - start
      const { count, maxMs } = await p2.stop()
      stopped = true
      if (LONG) console.log(`fuzz over HTTP: ${BODIES} bodies in ${(elapsed / 1000).toFixed(1)} s, ${bugs.length} failures, probe ${count} answers, slowest ${maxMs.toFixed(0)} ms`)
      expect(bugs.slice(0, 20)).toEqual([])
      expect(await ask()).toMatchObject({ result: expect.stringMatching(/^0x/) })
    } finally {
      if (!stopped) await p2.stop()
      await server.close()
    }
  })
})
