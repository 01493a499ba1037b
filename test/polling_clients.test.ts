/**
 * Real clients watching through polling filters (spec "Events": clients poll): ethers v6 `contract.on`
 * (eth_newFilter + eth_getFilterChanges), viem `watchContractEvent`, `watchPendingTransactions` (filters) and
 * `watchBlocks` (block polling), each in process and over HTTP; and, over HTTP, ethers and viem when two blocks are
 * mined between two polls of their filter.
 */
import { createServer } from 'node:http'
import { afterAll, describe, expect, it } from 'vitest'
import { BrowserProvider, Contract, ContractFactory, Interface, JsonRpcProvider, Network } from 'ethers'
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

/**
 * An HTTP proxy to `target` that holds every eth_getFilterChanges request while `hold` is set, until `release()`, so
 * that a test decides what is mined between two polls of a client's filter; `polls` and `blockNumbers` count the
 * eth_getFilterChanges and eth_blockNumber requests answered.
 */
async function pollGate(target: string) {
  const waiting: (() => void)[] = []
  const gate = {
    url: '',
    hold: false,
    polls: 0,
    blockNumbers: 0,
    get held(): number {
      return waiting.length
    },
    release(): void {
      gate.hold = false
      for (const resume of waiting.splice(0)) resume()
    },
    close: async (): Promise<void> => {},
  }
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString()
      const poll = body.includes('"eth_getFilterChanges"')
      const forward = () =>
        fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
          .then(async (r) => {
            const text = await r.text()
            if (poll) gate.polls++
            if (body.includes('"eth_blockNumber"')) gate.blockNumbers++
            res.writeHead(r.status, { 'content-type': 'application/json' }).end(text)
          })
          .catch(() => res.writeHead(502).end())
      if (poll && gate.hold) waiting.push(() => void forward())
      else void forward()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  gate.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`
  gate.close = () => new Promise((resolve) => server.close(() => resolve()))
  return gate
}

/**
 * ethers' `contract.on` and viem's `watchContractEvent` make their filter from `latest` (no bounds). RSKj reports the
 * best block's logs at the first poll and keeps only the last block's between polls (LogFilter.java L248-250,
 * L112-115): such a client would get the event mined before it started watching and lose the first of two blocks
 * mined between two polls. rsksim reports every block mined since the previous poll (docs/modules/filters-txpool.md).
 */
describe('two blocks mined between two polls, over HTTP', () => {
  async function setup() {
    const server = await startServer({ port: 0, ...NO_QUOTA })
    servers.push(server)
    const gate = await pollGate(server.url)
    const node = server.provider
    const address = await deploy(node, Events)
    await emit(node, address, 'emitOne', 1) // the best block when the client starts watching holds Value(1)
    return { node, gate, address }
  }

  /**
   * After the client's first poll, holds its next one, mines two blocks with Value(5) and Value(6), and lets the poll
   * go. `blockPoller`: the client polls its filter when its own eth_blockNumber poller sees a new block (ethers), so
   * that poller is let learn the head first (its first answer is where it starts from, and reports no block).
   */
  async function twoBlocksInOnePoll(node: Provider, gate: Awaited<ReturnType<typeof pollGate>>, address: string, blockPoller = false) {
    await until(() => gate.polls >= 1)
    if (blockPoller) {
      const answered = gate.blockNumbers
      await until(() => gate.blockNumbers >= answered + 2)
    }
    gate.hold = true
    await emit(node, address, 'emitOne', 5)
    await emit(node, address, 'emitOne', 6)
    await until(() => gate.held >= 1)
    gate.release()
  }

  it('ethers v6 contract.on gets each event once, none from before it started', { timeout: 20_000 }, async () => {
    const { node, gate, address } = await setup()
    const provider = new JsonRpcProvider(gate.url, Network.from(33), { staticNetwork: true, pollingInterval: POLL })
    const contract = new Contract(address, Events.abi as never, provider)
    const seen: bigint[] = []
    await contract.on('Value', (a: bigint) => {
      seen.push(a)
    })
    await twoBlocksInOnePoll(node, gate, address, true)
    await until(() => seen.length >= 2)
    await emit(node, address, 'emitOne', 7)
    await until(() => seen.length >= 3)
    expect(seen).toEqual([5n, 6n, 7n])
    await contract.removeAllListeners()
    provider.destroy()
    await gate.close()
  })

  it('viem watchContractEvent gets each event once, none from before it started', { timeout: 20_000 }, async () => {
    const { node, gate, address } = await setup()
    const client = createPublicClient({ transport: http(gate.url), pollingInterval: POLL })
    const seen: bigint[] = []
    const unwatch = client.watchContractEvent({
      address: address as `0x${string}`,
      abi,
      eventName: 'Value',
      poll: true,
      pollingInterval: POLL,
      onLogs: (logs) => {
        for (const l of logs) seen.push(l.args.a!)
      },
    })
    await twoBlocksInOnePoll(node, gate, address)
    await until(() => seen.length >= 2)
    await emit(node, address, 'emitOne', 7)
    await until(() => seen.length >= 3)
    unwatch()
    expect(seen).toEqual([5n, 6n, 7n])
    await gate.close()
  })
})
