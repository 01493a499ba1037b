/**
 * docs/methods.md is generated from the method table and the spec's support table (src/rpc/support.ts), so code
 * and docs cannot drift. Regenerate with `npm run docs`.
 */
import { describe, expect, it } from 'vitest'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { EXTENSIONS, METHODS, RSKJ_REGTEST, UNSUPPORTED } from '../src/rpc/methods.js'
import { SPEC_STATUS } from '../src/rpc/support.js'
import { VERSION } from '../src/version.js'

const MODULE_ORDER = ['web3', 'net', 'eth', 'evm', 'txpool', 'debug', 'trace', 'mnr', 'personal', 'chain', 'rsk', 'rpc', 'sco', 'anvil', 'hardhat', 'ganache', 'miner', 'db', 'ext', 'shh']

function generate(): string {
  const names = [...new Set([...Object.keys(SPEC_STATUS), ...Object.keys(METHODS), ...Object.keys(UNSUPPORTED)])]
  const mod = (n: string) => n.slice(0, n.indexOf('_'))
  names.sort((a, b) => MODULE_ORDER.indexOf(mod(a)) - MODULE_ORDER.indexOf(mod(b)) || a.localeCompare(b))
  const rows = names.map((n) => {
    const spec = SPEC_STATUS[n] ?? 'extra'
    let status: string
    if (Object.hasOwn(METHODS, n)) status = spec === 'PARTIALLY' ? 'supported, `pending` refused (-32201)' : 'supported'
    else if (UNSUPPORTED[n] === 'not available') status = 'unsupported: -32601 `the method … does not exist/is not available`'
    else if (UNSUPPORTED[n] === 'not found') status = 'unsupported: -32601 `method not found`'
    else status = '**missing**'
    const alias = n.startsWith('rsk_') && Object.hasOwn(METHODS, n) ? ` (alias of \`chain_${n.slice(4)}\`)` : ''
    const modes = !Object.hasOwn(METHODS, n) ? '—' : RSKJ_REGTEST.has(n) ? 'default only (RSKj regtest method)' : EXTENSIONS.has(n) ? 'default only (extension)' : 'default and hosted'
    return `| \`${n}\` | ${mod(n)} | ${spec} | ${status}${alias} | ${modes} |`
  })
  return [
    '# Methods',
    '',
    `Every JSON-RPC method of the service's spec and every method rsksim ${VERSION} answers, with its status.`,
    'Generated from the method table (`src/rpc/methods.ts`) and the spec\'s support table (`src/rpc/support.ts`) by',
    '`npm run docs`; `test/docs.test.ts` fails when this file is out of date. Spec column: YES = supported,',
    'PARTIALLY = supported except `pending`, described = described without a status, - = unsupported, extra = not in the',
    'spec. Modes: extensions (the test author\'s toolkit: dev-chain methods under Anvil\'s, Hardhat\'s and Ganache\'s',
    'names, and signing) are answered in the default mode only; with `hosted: true` they answer -32601 `method not',
    'found` as an unknown name does. So do the methods a default RSKj regtest node answers that the service does not',
    'list (`eth_getBlocksByNumber`, `rpc_modules`, `trace_get`, `debug_accountTransactionQuota`;',
    'src/rpc/namespaces/rskjRegtest.ts). RSKj regtest\'s disabled methods (`rsk_shutdown`, `rsk_flush`,',
    '`rsk_getStorageBytesAt`, `ext_*`) answer as RSKj answers them.',
    '`eth_subscribe` and `eth_unsubscribe` are not in the table: the provider and the WebSocket server answer them in',
    'the default mode; over HTTP and in hosted mode they answer -32601 `method not found` (README, "Live updates").',
    'Behaviour details and differences from the reference node are in',
    '[compatibility.md](compatibility.md); the extensions in [extensions.md](extensions.md).',
    '',
    '| Method | Module | Spec | rsksim | Modes |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n')
}

describe('docs/methods.md', () => {
  it('lists every method with the status the method table gives', () => {
    const text = generate()
    if (process.env.UPDATE_DOCS === '1') writeFileSync(new URL('../docs/methods.md', import.meta.url), text)
    expect(readFileSync(new URL('../docs/methods.md', import.meta.url), 'utf8')).toBe(text)
  })

  it('every method the spec marks supported or described is answered', () => {
    const missing = Object.entries(SPEC_STATUS)
      .filter(([n, s]) => s !== '-' && !Object.hasOwn(METHODS, n))
      .map(([n]) => n)
    expect(missing).toEqual([])
  })
})

describe('docs/architecture.md', () => {
  it('names only files that exist, and only names those files define', () => {
    const text = readFileSync(new URL('../docs/architecture.md', import.meta.url), 'utf8')
    const root = new URL('../', import.meta.url)
    const paths = [...text.matchAll(/`(src\/[^`]*)`/g)].map((m) => m[1]!)
    expect(paths.length).toBeGreaterThan(50)
    for (const p of paths) expect(existsSync(new URL(p, root)), p).toBe(true)
    // "`src/x.ts`, `name`" and "`src/x.ts` (`name`": the name is defined in that file (a method's last part).
    const named = [...text.matchAll(/`(src\/[^`]+\.ts)`(?:,| \()\s*`([\w.]+)`/g)]
    expect(named.length).toBeGreaterThan(10)
    for (const [, p, name] of named) {
      const last = name!.split('.').pop()!
      expect(readFileSync(new URL(p!, root), 'utf8'), `${p} defines ${last}`).toMatch(new RegExp(`(function|class|const|async|^\\s+(private |static )?(async )?)\\s*${last}\\b|\\b${last}[(:=<]`, 'm'))
    }
  })
})
