/**
 * State files with Anvil's semantics (--state, --load-state, --dump-state, --state-interval; issue "a chain that
 * survives restarts", part 3): a chain with contracts and storage written on close and loaded into a new server
 * gives the same balances, code, storage and nonces; bad files are refused with errors naming them, untouched.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServer, type Provider } from '../src/index.js'
import { parseCli } from '../src/server/cliArgs.js'
import { COW, COW1, deploy, NO_QUOTA, send } from './helpers.js'
import { Storage } from './fixtures/index.js'
import { Interface } from 'ethers'

const dir = mkdtempSync(join(tmpdir(), 'rsksim-state-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const si = new Interface(Storage.abi as never)
const reads = (storage: string): [string, unknown[]][] => [
  ['eth_getBalance', [COW, 'latest']],
  ['eth_getBalance', [COW1, 'latest']],
  ['eth_getTransactionCount', [COW, 'latest']],
  ['eth_getCode', [storage, 'latest']],
  ['eth_getStorageAt', [storage, '0x5', 'latest']],
]
const readAll = (p: Provider, storage: string) => Promise.all(reads(storage).map(([method, params]) => p.request({ method, params })))

describe('state files', () => {
  it('--state: written on close, loaded at the next start', async () => {
    const file = join(dir, 'chain.json')
    const a = await startServer({ port: 0, ...NO_QUOTA, state: { path: file } })
    const storage = await deploy(a.provider, Storage)
    await send(a.provider, { to: storage, data: si.encodeFunctionData('set', [5, 42]) })
    await send(a.provider, { to: COW1, value: '0x1234' })
    const before = await readAll(a.provider, storage)
    const head = (await a.provider.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as { timestamp: string }
    await a.close()
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ format: 'rsksim-state', version: 1, chainId: '0x21' })

    const b = await startServer({ port: 0, ...NO_QUOTA, state: { path: file } })
    try {
      expect(await readAll(b.provider, storage)).toEqual(before)
      const get = await b.provider.request({ method: 'eth_call', params: [{ to: storage, data: si.encodeFunctionData('get', [5]) }, 'latest'] })
      expect(get).toBe('0x' + (42).toString(16).padStart(64, '0'))
      // The clock never goes back before the saved head.
      await b.provider.request({ method: 'evm_mine' })
      const mined = (await b.provider.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as { timestamp: string }
      expect(BigInt(mined.timestamp)).toBeGreaterThanOrEqual(BigInt(head.timestamp))
    } finally {
      await b.close()
    }
  })

  it('--state with a file that does not exist starts fresh; --load-state requires it', async () => {
    const missing = join(dir, 'none.json')
    const a = await startServer({ port: 0, state: { path: missing } })
    await a.close()
    expect(existsSync(missing)).toBe(true)
    await expect(startServer({ port: 0, state: { load: join(dir, 'absent.json') } })).rejects.toThrow(/cannot read the state file .*absent\.json/)
  })

  it('refuses a truncated file, a hand-edited one and one of another network, leaving each untouched', async () => {
    const good = join(dir, 'good.json')
    const a = await startServer({ port: 0, state: { dump: good } })
    await a.close()
    const text = readFileSync(good, 'utf8')

    const truncated = join(dir, 'truncated.json')
    writeFileSync(truncated, text.slice(0, text.length / 2))
    await expect(startServer({ port: 0, state: { path: truncated } })).rejects.toThrow(/truncated\.json is not valid JSON/)
    expect(readFileSync(truncated, 'utf8')).toBe(text.slice(0, text.length / 2))

    const edited = join(dir, 'edited.json')
    const e = JSON.parse(text)
    e.accounts[COW].balance = 'a lot'
    writeFileSync(edited, JSON.stringify(e))
    await expect(startServer({ port: 0, state: { path: edited } })).rejects.toThrow(/cannot load the state file .*edited\.json: .*balance: expected 0x hex/)

    await expect(startServer({ port: 0, network: 'testnet', state: { path: good } })).rejects.toThrow(/made on chain id 33, this node is chain id 31/)
    expect(readFileSync(good, 'utf8')).toBe(text)
  })

  it('the CLI flags map to these options', () => {
    expect(parseCli(['--state', 's.json', '--state-interval', '5'])).toMatchObject({ options: { state: { path: 's.json', interval: 5 } } })
    expect(parseCli(['--load-state', 'a.json', '--dump-state', 'b.json'])).toMatchObject({ options: { state: { load: 'a.json', dump: 'b.json' } } })
    expect(() => parseCli(['--state-interval', '5'])).toThrow(/needs --state or --dump-state/)
    expect(() => parseCli(['--state', 'a', '--load-state', 'b'])).toThrow(/cannot be combined/)
  })
})
