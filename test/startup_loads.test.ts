/**
 * What a process loads when it imports rsksim and creates a provider, and what it loads later: the HTTP stack and the
 * database's built-ins only when something needs them, and one secp256k1 implementation, the native binding where it
 * loads, WebAssembly only without it (docs/performance.md, twenty-second round). Runs the library bundled as
 * tsup.config.ts bundles dist (ES modules, code split, the same externals) in a child process that records the ES
 * modules it resolves (a `module.register` resolve hook), the built-ins it loads (`process.moduleLoadList`), the
 * native add-ons (`process.report`'s shared objects) and the CommonJS modules it requires, after the first answer
 * and again after a first signed transaction.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { build } from 'esbuild'

/** The children's start: registers the hook; `report()` says what was loaded since. */
const PRELUDE = `
import { createRequire, register } from 'node:module'
import { readFileSync, writeFileSync } from 'node:fs'
const [lib, log] = process.argv.slice(2)
writeFileSync(log, '')
const hook = 'import { appendFileSync } from "node:fs"; export async function resolve(s, c, next) { appendFileSync(' + JSON.stringify(log) + ', s + "\\\\n"); return next(s, c) }'
register('data:text/javascript,' + encodeURIComponent(hook))
const before = new Set(process.moduleLoadList)
const require = createRequire(import.meta.url)
const report = () => ({
  builtins: process.moduleLoadList.filter((m) => !before.has(m) && m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length)),
  addons: process.report.getReport().sharedObjects.filter((s) => s.endsWith('.node')),
  resolved: readFileSync(log, 'utf8').split('\\n').filter(Boolean),
  required: Object.keys(require.cache),
})
`

/** The child: imports the library, answers, sends one transaction from cow, reports both times. */
const WRAPPER = PRELUDE + `
const { createProvider } = await import(lib)
const p = await createProvider()
await p.request({ method: 'eth_blockNumber' })
const atStart = report()
const [from] = await p.request({ method: 'eth_accounts' })
await p.request({ method: 'eth_sendTransaction', params: [{ from, to: '0x' + '11'.repeat(20), value: '0x1' }] })
console.log(JSON.stringify({ atStart, afterSend: report() }))
`

/**
 * The other child: a server answers one HTTP request, then one WebSocket upgrade (by hand, node:http: Node 20 has no
 * WebSocket client), reporting after each.
 */
const SERVER_WRAPPER = PRELUDE + `
const { startServer } = await import(lib)
const http = await import('node:http')
const server = await startServer({ port: 0, host: '127.0.0.1' })
const answer = await new Promise((resolve, reject) => {
  const req = http.request(server.url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
    let body = ''
    res.on('data', (d) => (body += d))
    res.on('end', () => resolve(JSON.parse(body)))
  })
  req.on('error', reject)
  req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }))
})
const afterHttp = report()
const headers = { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==' }
const upgraded = await new Promise((resolve, reject) => {
  const req = http.request(server.url, { headers })
  req.on('upgrade', (res, socket) => {
    socket.destroy()
    resolve({ status: res.statusCode, accept: res.headers['sec-websocket-accept'] })
  })
  req.on('response', (res) => resolve({ status: res.statusCode }))
  req.on('error', reject)
  req.end()
})
console.log(JSON.stringify({ answer, afterHttp, upgraded, afterUpgrade: report() }))
await server.close()
`

interface Report {
  builtins: string[]
  addons: string[]
  resolved: string[]
  required: string[]
}

let dir = ''
let lib = ''
let wrapper = ''
let serverWrapper = ''

beforeAll(async () => {
  // Inside node_modules, so that the external packages resolve from the bundle (as test/thread_priority.test.ts).
  mkdirSync(path.resolve('node_modules/.cache'), { recursive: true })
  dir = mkdtempSync(path.resolve('node_modules/.cache/rsksim-loads-'))
  // As tsup.config.ts builds dist: split, so that what is imported dynamically (the server) stays out of the entry.
  await build({
    entryPoints: { index: path.resolve('src/index.ts') },
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    outdir: dir,
    logLevel: 'silent',
    define: { __RSKSIM_ENGINE_VERSIONS__: '{}' },
    external: ['tiny-secp256k1', 'classic-level', 'secp256k1-native', 'ws'],
    banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
  })
  lib = path.join(dir, 'index.js')
  wrapper = path.join(dir, 'wrapper.mjs')
  writeFileSync(wrapper, WRAPPER)
  serverWrapper = path.join(dir, 'server-wrapper.mjs')
  writeFileSync(serverWrapper, SERVER_WRAPPER)
}, 60_000)

afterAll(() => rmSync(dir, { recursive: true, force: true }))

function run(env: Record<string, string> = {}): { atStart: Report; afterSend: Report } {
  const out = spawnSync(process.execPath, [wrapper, lib, path.join(dir, `resolved-${Object.keys(env).length}.log`)], {
    encoding: 'utf8',
    env: { ...process.env, RSKSIM_NATIVE_SECP256K1: '', ...env },
  })
  if (out.status !== 0) throw new Error(`child exited ${out.status}: ${out.stderr.slice(-800)}`)
  return JSON.parse(out.stdout.trim().split('\n').pop()!) as { atStart: Report; afterSend: Report }
}

const mentions = (list: string[], name: string): boolean => list.some((s) => s.includes(name))

describe('an in-process provider loads what it uses, when it uses it', () => {
  it('no HTTP stack and no zlib at the first answer; the native secp256k1 binding, never the WebAssembly one', () => {
    const { atStart, afterSend } = run()
    for (const builtin of ['http', 'https', 'tls', 'zlib']) expect([builtin, atStart.builtins.includes(builtin)]).toEqual([builtin, false])
    // The funded accounts' addresses need their public keys: the native binding (this platform has a prebuilt one:
    // test/crypto.test.ts) is loaded by the first answer; tiny-secp256k1 is neither imported nor required, even after
    // a signature.
    expect(mentions(atStart.addons, 'secp256k1-native')).toBe(true)
    for (const r of [atStart, afterSend]) expect(mentions(r.resolved, 'tiny-secp256k1') || mentions(r.required, 'tiny-secp256k1')).toBe(false)
    expect(mentions(atStart.resolved, 'secp256k1-native')).toBe(false)
  })

  it('with the native binding switched off, WebAssembly instead, required when the first keys are derived', () => {
    const { atStart, afterSend } = run({ RSKSIM_NATIVE_SECP256K1: 'off' })
    expect(mentions(atStart.required, 'tiny-secp256k1')).toBe(true)
    expect(mentions(afterSend.resolved, 'tiny-secp256k1')).toBe(false)
    expect(mentions(afterSend.addons, 'secp256k1-native')).toBe(false)
  })
})

describe('a server loads the WebSocket library at its first upgrade', () => {
  it('answers HTTP without importing ws, then upgrades (RFC 6455 §1.3 accept value) with it', () => {
    const out = spawnSync(process.execPath, [serverWrapper, lib, path.join(dir, 'resolved-server.log')], { encoding: 'utf8' })
    if (out.status !== 0) throw new Error(`child exited ${out.status}: ${out.stderr.slice(-800)}`)
    const r = JSON.parse(out.stdout.trim().split('\n').pop()!) as { answer: { result: string }; afterHttp: Report; upgraded: { status: number; accept?: string }; afterUpgrade: Report }
    expect(r.answer.result).toBe('0x0')
    expect(r.afterHttp.resolved).not.toContain('ws')
    // The key and its accept value are RFC 6455's own example.
    expect(r.upgraded).toEqual({ status: 101, accept: 's3pPLMBiTxaQ9kYGzzhZRbK+xOo=' })
    expect(r.afterUpgrade.resolved).toContain('ws')
  })
})
