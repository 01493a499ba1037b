/**
 * Real clients watching through polling filters (spec "Events": clients poll): ethers v6 `contract.on`
 * (eth_newFilter + eth_getFilterChanges), viem `watchContractEvent`, `watchPendingTransactions` (filters) and
 * `watchBlocks` (block polling), each in process and over HTTP.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { BrowserProvider, type Contract, ContractFactory, Interface, JsonRpcProvider, Network } from 'ethers'
import { createPublicClient, custom, http, parseAbi, type Transport } from 'viem'
import { createProvider, startServer, type Provider, type RsksimServer } from '../src/index.js'
import { COW, COW1, deploy, NO_QUOTA } from './helpers.js'
import { Events } from './fixtures/index.js'

const POLL = 25
const servers: RsksimServer[] = []
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()))
})

interface Setup {
  /** The node's provider, for setup actions (the client under test talks over `transport`/`url`). */
  node: Provider
  url?: string
}

async function inProcess(): Promise<Setup> {
  return { node: await createProvider(NO_QUOTA) }
}

async function overHttp(): Promise<Setup> {
  const server = await startServer({ port: 0, ...NO_QUOTA })
  servers.push(server)
  return { node: server.provider, url: server.url }
}

/** Resolves once `check` holds (the test's own timeout bounds the wait). */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 10))
}

/** Whether the client has installed filter `id` (ids are sequential per node; reading does not consume it). */
const installed = (p: Provider, id: string) => () =>
  p.request({ method: 'eth_getFilterLogs', params: [id] }).then(
    () => true,
    () => false,
  )

const events = new Interface(Events.abi as never)
const sendTx = (p: Provider, tx: Record<string, unknown>) =>
  p.request({ method: 'eth_sendTransaction', params: [{ from: COW, gas: '0x4c4b40', ...tx }] }) as Promise<string>
const emit = (p: Provider, to: string, fn: 'emitOne' | 'emitMany', n: number) =>
  sendTx(p, { to, data: events.encodeFunctionData(fn, [n]) })

const modes = [
  ['in process', inProcess],
  ['over HTTP', overHttp],
] as const

describe.each(modes)('ethers v6 contract.on %s', (_name, setup) => {
  it('receives each Value event once, in order', { timeout: 20_000 }, async () => {
    const { node, url } = await setup()
    const provider =
      url === undefined
        ? new BrowserProvider(node, undefined, { pollingInterval: POLL })
        : new JsonRpcProvider(url, Network.from(33), { staticNetwork: true, pollingInterval: POLL })
    const signer = await provider.getSigner(COW)
    const contract = (await new ContractFactory(Events.abi as never, Events.bytecode, signer).deploy({ gasLimit: 3_000_000 })) as Contract
    await contract.waitForDeployment()
    const seen: [bigint, bigint, string][] = []
    await contract.on('Value', (a: bigint, b: bigint, ev: any) => {
      seen.push([a, b, ev.log.transactionHash])
    })
    await until(installed(node, '0x1'))
    const tx = await (contract as any).emitOne(5n, { gasLimit: 500_000 })
    await tx.wait()
    const many = await emit(node, await contract.getAddress(), 'emitMany', 2)
    await until(() => seen.length >= 3)
    expect(seen).toEqual([
      [5n, 10n, tx.hash],
      [0n, 2n, many],
      [1n, 2n, many],
    ])
    await contract.removeAllListeners()
    provider.destroy()
  })
})

const abi = parseAbi(['event Value(uint256 indexed a, uint256 b)'])

function transportFor({ node, url }: Setup): Transport {
  return url === undefined ? custom(node) : http(url)
}

describe.each(modes)('viem polling watchers %s', (_name, setup) => {
  it('watchContractEvent (poll: true) delivers the Value logs', { timeout: 20_000 }, async () => {
    const s = await setup()
    const address = (await deploy(s.node, Events)) as `0x${string}`
    const client = createPublicClient({ transport: transportFor(s), pollingInterval: POLL })
    const got: { a: bigint; b: bigint; removed: boolean }[] = []
    const unwatch = client.watchContractEvent({
      address,
      abi,
      eventName: 'Value',
      poll: true,
      pollingInterval: POLL,
      onLogs: (logs) => {
        for (const l of logs) got.push({ a: l.args.a!, b: l.args.b!, removed: l.removed })
      },
    })
    await until(installed(s.node, '0x1'))
    await emit(s.node, address, 'emitMany', 3)
    await emit(s.node, address, 'emitOne', 9)
    await until(() => got.length >= 4)
    unwatch()
    expect(got).toEqual([
      { a: 0n, b: 3n, removed: false },
      { a: 1n, b: 3n, removed: false },
      { a: 2n, b: 3n, removed: false },
      { a: 9n, b: 18n, removed: false },
    ])
  })

  it('watchPendingTransactions (poll: true) delivers the hashes of new pending transactions', { timeout: 20_000 }, async () => {
    const s = await setup()
    const client = createPublicClient({ transport: transportFor(s), pollingInterval: POLL })
    const hashes: string[] = []
    const unwatch = client.watchPendingTransactions({ poll: true, pollingInterval: POLL, onTransactions: (h) => hashes.push(...h) })
    await until(installed(s.node, '0x1'))
    const h1 = await sendTx(s.node, { to: COW1, value: '0x1' })
    const h2 = await sendTx(s.node, { to: COW1, value: '0x2' })
    await until(() => hashes.length >= 2)
    unwatch()
    expect(hashes).toEqual([h1, h2])
  })

  it('watchBlocks (poll: true) delivers new blocks with their hashes', { timeout: 20_000 }, async () => {
    const s = await setup()
    const client = createPublicClient({ transport: transportFor(s), pollingInterval: POLL })
    const blocks: { number: bigint; hash: string }[] = []
    const unwatch = client.watchBlocks({
      poll: true,
      pollingInterval: POLL,
      includeTransactions: false,
      onBlock: (b) => blocks.push({ number: b.number!, hash: b.hash! }),
    })
    await until(() => blocks.length >= 1) // the current head (block 0), emitted on start
    await s.node.request({ method: 'evm_mine' })
    await until(() => blocks.some((b) => b.number === 1n))
    unwatch()
    const head = (await s.node.request({ method: 'eth_getBlockByNumber', params: ['0x1', false] })) as { hash: string }
    expect(blocks.find((b) => b.number === 1n)!.hash).toBe(head.hash)
    expect(blocks[0]!.number).toBe(0n)
  })
})
