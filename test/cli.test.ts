import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli, type CliIo, type CliResult } from '../src/server/cliMain.js'
import type { RsksimServer } from '../src/server/index.js'
import { bundleChild } from './fixtures/bundleChild.js'
import { openWs } from './wsClient.js'

const VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version

/** The ten regtest `cow` accounts of RSKj (reference §7.2). */
const COW_ADDRESSES = [
  '0xcd2a3d9f938e13cd947ec05abc7fe734df8dd826',
  '0x7986b3df570230288501eea3d890bd66948c9b79',
  '0x0a3aa774752ec2042c46548456c094a76c7f3a79',
  '0xcf7cdbbb5f7ba79d3ffe74a0bba13fc0295f6036',
  '0x39b12c05e8503356e3a7df0b7b33efa4c054c409',
  '0xc354d97642faa06781b76ffb6786f72cd7746c97',
  '0xdebe71e1de41fc77c44df4b6db940026e31b0e71',
  '0x7857288e171c6159c5576d1bd9ac40c0c48a771c',
  '0xa4dea4d5c954f5fd9e87f0e9752911e83a3d18b3',
  '0x09a1eda29f664ac8f68106f6567276df0c65d859',
]
const COW_KEY = '0xc85ef7d79691fe79573b1a7064c19c1a9819ebdbd1faaab1a8ec92344438aaf4'

function capture(): CliIo & { out: () => string; err: () => string } {
  let out = ''
  let err = ''
  return {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    out: () => out,
    err: () => err,
  }
}

const running: RsksimServer[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()))
})

function serving(result: CliResult): RsksimServer {
  if (result.kind !== 'serving') throw new Error(`expected a server, got exit code ${result.exitCode}`)
  running.push(result.server)
  return result.server
}

async function chainId(url: string): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
  })
  return res.json()
}

describe('runCli', () => {
  it('starts a regtest server and prints version, network, the ten cow accounts, keys, gas and URL', async () => {
    const io = capture()
    const server = serving(await runCli(['--port', '0'], io))
    const out = io.out()
    expect(out.startsWith(`rsksim v${VERSION}\n`)).toBe(true)
    expect(out).toContain('regtest (chain id 33, network id 33)')
    expect(out).toContain('Available Accounts')
    COW_ADDRESSES.forEach((address, i) => expect(out).toContain(`(${i}) ${address} (1000000000000 RBTC)`))
    expect(out).not.toContain('(10) 0x')
    expect(out).toContain('Private Keys')
    expect(out).toContain(`(0) ${COW_KEY}`)
    expect(out).toMatch(/Block Gas Limit\n=+\n10000000\n/)
    expect(out).toMatch(/Minimum Gas Price\n=+\n0 wei\n/)
    expect(out).toContain(`Listening on http://127.0.0.1:${server.port}\n`)
    expect(io.err()).toBe('')
    expect(await chainId(server.url)).toEqual({ jsonrpc: '2.0', id: 1, result: '0x21' })
  })

  it('prints the database: a new chain, then the head it resumed at', async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'rsksim-cli-db-')), 'chain')
    try {
      const first = capture()
      const a = serving(await runCli(['--port', '0', '--db', dir], first))
      expect(first.out()).toContain(`\nDatabase\n==================\n${dir}: a new chain\n`)
      const rpc = (url: string, method: string, params: unknown[] = []) =>
        fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) }).then(async (r) => ((await r.json()) as { result: any }).result)
      await rpc(a.url, 'evm_mine')
      const head = await rpc(a.url, 'eth_getBlockByNumber', ['latest', false])
      await running.splice(0).pop()!.close()
      const second = capture()
      serving(await runCli(['--port', '0', '--db', dir], second))
      expect(second.out()).toContain(`\nDatabase\n==================\n${dir}: resumed at block 1 (${head.hash})\n`)
    } finally {
      await Promise.all(running.splice(0).map((s) => s.close()))
      rmSync(path.dirname(dir), { recursive: true, force: true })
    }
  })

  it('applies network, account count, balance, gas flags and API keys', async () => {
    const io = capture()
    const argv = ['-p', '0', '-n', 'testnet', '-a', '2', '--balance', '1.5', '-l', '6800000', '-g', '60000000', '-k', 'k1', '-k', 'k2']
    const server = serving(await runCli(argv, io))
    const out = io.out()
    expect(out).toContain('testnet (chain id 31, network id 31)')
    expect(out).toContain(`(1) ${COW_ADDRESSES[1]} (1.5 RBTC)`)
    expect(out).not.toContain('(2) 0x')
    expect(out).toMatch(/Block Gas Limit\n=+\n6800000\n/)
    expect(out).toMatch(/Minimum Gas Price\n=+\n60000000 wei\n/)
    expect(out).toContain(`Listening on ${server.baseUrl}/k1\nListening on ${server.baseUrl}/k2\n`)
    expect(await chainId(`${server.baseUrl}/k2`)).toMatchObject({ result: '0x1f' })
    expect(await chainId(`${server.baseUrl}/nope`)).toMatchObject({ error: { message: 'invalid or missing API key' } })
  })

  it('replaces the default accounts with --account key,wei', async () => {
    const io = capture()
    serving(await runCli(['--port', '0', '--account', `${COW_KEY},5000000000000000000`], io))
    expect(io.out()).toMatch(new RegExp(`Available Accounts\\n=+\\n\\(0\\) ${COW_ADDRESSES[0]} \\(5 RBTC\\)\\n\\nPrivate Keys`))
  })

  it('sets interval mining with --block-time and manual mining with --no-mining', async () => {
    const interval = capture()
    const a = serving(await runCli(['--port', '0', '--block-time', '2'], interval))
    expect(a.provider.options.mining).toEqual({ auto: false, interval: 2000 })
    expect(interval.out()).toMatch(/Mining\n=+\na block every 2 s\n/)
    const manual = capture()
    const b = serving(await runCli(['--port', '0', '--no-mining'], manual))
    expect(b.provider.options.mining).toEqual({ auto: false, interval: 0 })
  })

  it('mines blocks without the REMASC transaction with --no-remasc', async () => {
    const server = serving(await runCli(['--port', '0', '--no-remasc'], capture()))
    expect(server.provider.options.remasc).toBe(false)
    await server.provider.request({ method: 'evm_mine' })
    expect(await server.provider.request({ method: 'eth_getBlockTransactionCountByNumber', params: ['latest'] })).toBe('0x0')
    const withRemasc = serving(await runCli(['--port', '0'], capture()))
    await withRemasc.provider.request({ method: 'evm_mine' })
    expect(await withRemasc.provider.request({ method: 'eth_getBlockTransactionCountByNumber', params: ['latest'] })).toBe('0x1')
  })

  it('sets the budget of unsent reply bytes with --max-pending-reply-bytes (0 = off)', async () => {
    expect(serving(await runCli(['--port', '0'], capture())).replyBudget?.limit).toBe(256 * 1024 * 1024)
    expect(serving(await runCli(['--port', '0', '--max-pending-reply-bytes', '1048576'], capture())).replyBudget?.limit).toBe(1048576)
    expect(serving(await runCli(['--port', '0', '--max-pending-reply-bytes', '0'], capture())).replyBudget).toBeUndefined()
  })

  it('prints only the URL with --quiet', async () => {
    const io = capture()
    const server = serving(await runCli(['-q', '-p', '0'], io))
    expect(io.out()).toBe(`Listening on ${server.url}\n`)
  })

  it('prints help and the version with exit code 0', async () => {
    const help = capture()
    expect(await runCli(['--help'], help)).toEqual({ kind: 'exit', exitCode: 0 })
    expect(help.out()).toContain('Usage: rsksim [options]')
    const version = capture()
    expect(await runCli(['--version'], version)).toEqual({ kind: 'exit', exitCode: 0 })
    expect(version.out()).toBe(`${VERSION}\n`)
  })

  it.each([
    [['--bogus']],
    [['--port', 'abc']],
    [['--port', '70000']],
    [['--network', 'ethereum']],
    [['--accounts', '0']],
    [['--account', '0x1234,1']],
    [['--balance=-1']],
    [['--balance', '1.2.3']],
    [['--block-time', '1', '--no-mining']],
    [['--max-pending-reply-bytes', '-1']],
    [['--port']],
    [['stray']],
  ])('exits with code 2 and a message on bad flags: %j', async (argv) => {
    const io = capture()
    expect(await runCli(argv, io)).toEqual({ kind: 'exit', exitCode: 2 })
    expect(io.err()).toMatch(/^rsksim: [\s\S]+\nRun "rsksim --help" for the list of options\.\n$/)
    expect(io.out()).toBe('')
  })

  it('exits with code 1 when the port is in use', async () => {
    const first = serving(await runCli(['-q', '-p', '0'], capture()))
    const io = capture()
    expect(await runCli(['-p', String(first.port)], io)).toEqual({ kind: 'exit', exitCode: 1 })
    expect(io.err()).toMatch(/already in use/)
  })

  it('exits with code 1 and the remote\'s error when a fork\'s remote cannot be reached, after its retries', async () => {
    // In a process of its own, as `npx rsksim` runs: the remote's backoff timers keep no process alive, so this checks
    // that the start does (it ended with Node's exit code 13 and nothing printed).
    mkdirSync(path.resolve('node_modules/.cache'), { recursive: true })
    const dir = mkdtempSync(path.resolve('node_modules/.cache/rsksim-cli-'))
    try {
      const cli = await bundleChild('src/cli.ts', dir)
      const closed = createServer()
      const port = await new Promise<number>((resolve) => closed.listen(0, '127.0.0.1', () => resolve((closed.address() as { port: number }).port)))
      await new Promise((resolve) => closed.close(resolve))
      const child = spawn(process.execPath, [cli, '--fork-url', `http://127.0.0.1:${port}`, '--fork-retries', '1', '--no-fork-cache', '-p', '0'], { stdio: ['ignore', 'pipe', 'pipe'] })
      let err = ''
      child.stderr.on('data', (d: Buffer) => (err += d.toString()))
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
      expect({ code, err }).toEqual({ code: 1, err: expect.stringMatching(new RegExp(`^rsksim: fork remote http://127\\.0\\.0\\.1:${port}/?: eth_chainId\\(\\[\\]\\) failed: .*\\(gave up after 2 attempts\\)\\n$`)) })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)

  it.each(['SIGTERM', 'SIGINT'] as const)('closes WebSocket clients with 1001 "going away" on %s, then exits 0', async (signal) => {
    // In a process of its own, as `npx rsksim` runs: src/cli.ts closes the server on the signal, then exits.
    mkdirSync(path.resolve('node_modules/.cache'), { recursive: true })
    const dir = mkdtempSync(path.resolve('node_modules/.cache/rsksim-cli-'))
    try {
      const cli = await bundleChild('src/cli.ts', dir)
      const child = spawn(process.execPath, [cli, '-q', '-p', '0'], { stdio: ['ignore', 'pipe', 'pipe'] })
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
      let out = ''
      const url = await new Promise<string>((resolve) =>
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString()
          const m = /Listening on (http:\/\/\S+)/.exec(out)
          if (m?.[1] !== undefined) resolve(m[1])
        }),
      )
      const c = await openWs(url.replace('http://', 'ws://'))
      expect(await c.call('eth_chainId')).toEqual({ jsonrpc: '2.0', id: 1, result: '0x21' })
      child.kill(signal)
      expect(await c.closed).toEqual({ code: 1001, reason: 'server shutting down' })
      expect(await exited).toBe(0)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
