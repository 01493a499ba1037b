/**
 * Malformed JSON-RPC input for the fuzz test (test/fuzz.test.ts): a seeded generator of parameter values and of
 * whole request bodies, so a failure is reproducible from its seed.
 */

/** Mulberry32: a small seeded PRNG (uniform in [0, 1)). */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!

const hex = (r: () => number, bytes: number): string => {
  let s = '0x'
  for (let i = 0; i < bytes; i++) s += Math.floor(r() * 256).toString(16).padStart(2, '0')
  return s
}

const nest = (depth: number, leaf: unknown): unknown => {
  let v = leaf
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? [v] : { a: v }
  return v
}

/** Scalars and small values that parameter decoders meet in practice, and the edges around them. */
function scalar(r: () => number): unknown {
  return pick(r, [
    () => null,
    () => true,
    () => 0,
    () => -1,
    () => 1.5,
    () => Number.MAX_SAFE_INTEGER + 2,
    () => 1e308,
    () => '',
    () => '0x',
    () => '0x0',
    () => '0xzz',
    () => 'latest',
    () => 'pending',
    () => 'earliest',
    () => 'safe',
    () => '-1',
    () => '9'.repeat(80),
    () => hex(r, 20),
    () => hex(r, 32),
    () => hex(r, Math.floor(r() * 70)),
    () => '0x' + 'f'.repeat(64),
    () => 'x'.repeat(Math.floor(r() * 300)),
    () => '\u0000\uffff',
    () => '__proto__',
  ])()
}

/** A parameter value: a scalar, an object with call/filter-like fields, an array, or something deep or large. */
export function value(r: () => number, depth = 0): unknown {
  const roll = r()
  if (roll < 0.45 || depth > 3) return scalar(r)
  if (roll < 0.7) {
    const o: Record<string, unknown> = {}
    const keys = ['from', 'to', 'gas', 'gasPrice', 'value', 'data', 'input', 'nonce', 'address', 'topics', 'fromBlock', 'toBlock', 'blockHash', 'tracer', 'count', 'after', 'timestamp', 'blocks', '__proto__', 'constructor']
    const n = Math.floor(r() * 4)
    // defineProperty, so `__proto__` becomes an own key as JSON.parse would make it, not a prototype.
    for (let i = 0; i < n; i++) Object.defineProperty(o, pick(r, keys), { value: value(r, depth + 1), enumerable: true, configurable: true, writable: true })
    return o
  }
  if (roll < 0.9) return Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth + 1))
  return pick(r, [() => nest(500 + Math.floor(r() * 1_000), 1), () => Array.from({ length: 2_000 }, () => hex(r, 20)), () => 'f'.repeat(100_000)])()
}

/** A `params` member: usually an array of values, sometimes absent, an object, or a scalar. */
export function params(r: () => number): unknown {
  const roll = r()
  if (roll < 0.8) return Array.from({ length: Math.floor(r() * 5) }, () => value(r))
  if (roll < 0.85) return undefined
  if (roll < 0.92) return { a: value(r) }
  return scalar(r)
}

/** A whole request body as text: well-formed envelopes with bad params, bad envelopes, and non-JSON. */
export function body(r: () => number, methods: readonly string[]): string {
  const roll = r()
  const one = () => ({ jsonrpc: pick(r, ['2.0', '2.0', '2.0', '1.0', 2]), id: pick(r, [1, 'a', null, {}, [], 1.5]), method: pick(r, methods), params: params(r) })
  if (roll < 0.6) return JSON.stringify(one())
  if (roll < 0.75) return JSON.stringify(Array.from({ length: Math.floor(r() * 8) }, one))
  if (roll < 0.85) return JSON.stringify(pick(r, [{}, [], 1, 'x', null, { method: 1 }, { jsonrpc: '2.0' }, [[]], [1, 2]]))
  const text = JSON.stringify(one())
  return pick(r, [text.slice(0, Math.floor(r() * text.length)), text + '}', '\u0000' + text, '{"a":' + '['.repeat(50_000), '"unterminated'])
}
