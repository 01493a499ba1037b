/**
 * RSK's EVM rules of src/node/enginePatches/accountRules.ts and src/node/rsk/evm/*Precompile*.ts as real clients see
 * them, in process (EIP-1193) and over HTTP: ethers v6 deploys a factory from cow and finds its first child at
 * `getCreateAddress({ from: factory, nonce: 0 })` (RSKj `TransactionExecutor.create` leaves a deployed contract at
 * nonce 0) and sees a transaction straight to a failing precompile mined with status 1 (`TransactionExecutor.call`); viem reads the secp256k1 addition precompile (RSKj's vector 2·(1, V1Y)) and Environment's call depth.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { BrowserProvider, JsonRpcProvider, Wallet, getCreateAddress, id, type Provider as EthersProvider } from 'ethers'
import { createPublicClient, custom, http, type Hex } from 'viem'
import { startServer, type RsksimServer } from '../src/index.js'
import { COW_KEY, NO_QUOTA, initcodeFor } from './helpers.js'

const servers: RsksimServer[] = []
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()))
})
const w = (n: bigint | string) => BigInt(n).toString(16).padStart(64, '0')
const V1 = w(1n) + w('29896722852569046015560700294576055776214335159245303116488692907525646231534')
const V1BY2 = w('90462569716653277674664832038037428010367175520031690655826237506178777087235') + w('30122570767565969031174451675354718271714177419582540229636601003470726681395')

describe('RSK EVM rules through clients', async () => {
  const server = await startServer({ port: 0, ...NO_QUOTA })
  servers.push(server)
  const ethersClients: Record<string, EthersProvider> = {
    'ethers BrowserProvider in process': new BrowserProvider(server.provider, undefined, { cacheTimeout: -1 }),
    'ethers JsonRpcProvider over HTTP': new JsonRpcProvider(server.url, undefined, { staticNetwork: true, cacheTimeout: -1 }),
  }
  afterAll(() => (ethersClients['ethers JsonRpcProvider over HTTP'] as JsonRpcProvider).destroy())

  for (const [name, client] of Object.entries(ethersClients)) {
    it(`${name}: a factory deployed by a transaction creates its first child at nonce 0`, async () => {
      const wallet = new Wallet(COW_KEY, client)
      // Runtime: CREATE of empty initcode (PUSH1 0 ×3, CREATE), STOP.
      const deployed = await (await wallet.sendTransaction({ type: 0, data: initcodeFor('600060006000f000'), gasLimit: 200_000n })).wait()
      const factory = deployed!.contractAddress!
      expect(await client.getTransactionCount(factory)).toBe(0)
      await (await wallet.sendTransaction({ type: 0, to: factory, gasLimit: 200_000n })).wait()
      expect(await client.getTransactionCount(factory)).toBe(1)
      expect(await client.getTransactionCount(getCreateAddress({ from: factory, nonce: 0 }))).toBe(1)
      expect(await client.getTransactionCount(getCreateAddress({ from: factory, nonce: 1 }))).toBe(0)
    })

    it(`${name}: a transaction straight to a failing precompile is mined with status 1, its value kept`, async () => {
      const wallet = new Wallet(COW_KEY, client)
      const ADD = '0x0000000000000000000000000000000000000006'
      const before = await client.getBalance(ADD)
      // (1, 3) twice: not on alt_bn128. RSKj's TransactionExecutor.call keeps the failure without an execution error.
      const notOnCurve = `0x${w(1n)}${w(3n)}${w(1n)}${w(3n)}`
      const receipt = await (await wallet.sendTransaction({ type: 0, to: ADD, data: notOnCurve, value: 1000n, gasLimit: 100_000n })).wait()
      // 21,000, four words of 31 zero bytes (4 each) and one non-zero byte (16), the price 150.
      expect([receipt!.status, receipt!.gasUsed]).toEqual([1, 21_000n + 4n * (31n * 4n + 16n) + 150n])
      expect(await client.getBalance(ADD)).toBe(before)
    })
  }

  const viemClients = {
    'viem custom transport in process': createPublicClient({ transport: custom(server.provider, { retryCount: 0 }) }),
    'viem http over HTTP': createPublicClient({ transport: http(server.url, { retryCount: 0 }) }),
  }
  for (const [name, client] of Object.entries(viemClients)) {
    it(`${name}: secp256k1 addition and Environment.getCallStackDepth`, async () => {
      const sum = await client.call({ to: '0x0000000000000000000000000000000001000016', data: `0x${V1}${V1}` })
      expect(sum.data).toBe(`0x${V1BY2}`)
      const depth = await client.call({ to: '0x0000000000000000000000000000000001000011', data: id('getCallStackDepth()').slice(0, 10) as Hex })
      expect(depth.data).toBe(`0x${w(1n)}`)
    })
  }
})
