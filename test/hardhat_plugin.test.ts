/**
 * rsksim/hardhat hooks, driven the way Hardhat 3 drives a plugin's hooks (examples/hardhat3 runs them inside Hardhat
 * itself, from the packed package, in `npm test`). The connection objects carry the members Hardhat's
 * `NetworkConnection` gives a hook: `networkName` and the resolved `networkConfig`.
 */
import { describe, expect, it } from 'vitest'
import plugin, { rsksimNetwork } from '../src/integrations/hardhat/index.js'
import { Storage } from './fixtures/index.js'
import { COW } from './helpers.js'

type Handler = (...args: unknown[]) => Promise<unknown>
async function hooks(kind: 'network' | 'config'): Promise<Record<string, Handler>> {
  const factory = (await plugin.hookHandlers[kind]()).default as () => Promise<Record<string, Handler>>
  return factory()
}

const notCalled = async (): Promise<never> => {
  throw new Error('next() must not be called for an rsksim network')
}

describe('rsksim/hardhat network hooks', () => {
  it('answers an rsksim network in process and fills gas with eth_estimateGas', async () => {
    const network = await hooks('network')
    const connection = { networkName: 'rsksim', networkConfig: rsksimNetwork({ network: 'testnet' }) }
    const ask = (method: string, params: unknown[] = []) =>
      network.onRequest!({}, connection, { jsonrpc: '2.0', id: 7, method, params }, notCalled) as Promise<Record<string, any>>
    expect(await ask('eth_chainId')).toEqual({ jsonrpc: '2.0', id: 7, result: '0x1f' })
    // hardhat-network-helpers run only where the version starts with hardhat, anvil or zksync (network-helpers.ts).
    expect((await ask('web3_clientVersion')).result).toMatch(/^HardhatNetwork\/rsksim\/\d+\.\d+\.\d+/)

    const tx = { from: COW, data: Storage.bytecode }
    const estimate = (await ask('eth_estimateGas', [tx])).result as string
    expect(BigInt(estimate)).toBeGreaterThan(90_000n) // more than the service's default: the fill is needed
    const hash = (await ask('eth_sendTransaction', [tx])).result as string
    expect((await ask('eth_getTransactionByHash', [hash])).result.gas).toBe(estimate)
    expect((await ask('eth_getTransactionReceipt', [hash])).result.status).toBe('0x1')
    await network.closeConnection!({}, connection, async () => undefined)
  })

  it('answers a failed estimate as a JSON-RPC error, not a throw', async () => {
    const network = await hooks('network')
    const connection = { networkName: 'rsksim', networkConfig: rsksimNetwork() }
    const poor = '0x00000000000000000000000000000000000000aa'
    const reply = (await network.onRequest!({}, connection, { jsonrpc: '2.0', id: 1, method: 'eth_sendTransaction', params: [{ from: poor, to: COW, value: '0x1' }] }, notCalled)) as Record<string, any>
    expect(reply.id).toBe(1)
    expect(reply.error.code).toBe(-32000)
    await network.closeConnection!({}, connection, async () => undefined)
  })

  it('passes requests of other networks to the next handler', async () => {
    const network = await hooks('network')
    const connection = { networkName: 'hardhat', networkConfig: { type: 'edr-simulated' } }
    const request = { jsonrpc: '2.0', id: 1, method: 'eth_chainId' }
    const reply = await network.onRequest!({}, connection, request, async (_c: unknown, _n: unknown, r: unknown) => ({ passed: r }))
    expect(reply).toEqual({ passed: request })
  })
})

describe('rsksim/hardhat config hook', () => {
  it('keeps the rsksim options that Hardhat drops from a resolved http network', async () => {
    const config = await hooks('config')
    const user = { networks: { rsksim: rsksimNetwork({ network: 'mainnet' }), other: { type: 'http', url: 'http://x' } } }
    // Hardhat's own resolution copies the fields it knows; `rsksim` is not one of them.
    const hardhatResolve = async () => ({ networks: { rsksim: { type: 'http', url: 'resolved' }, other: { type: 'http', url: 'resolved' } } })
    const resolved = (await config.resolveUserConfig!(user, undefined, hardhatResolve)) as { networks: Record<string, Record<string, unknown>> }
    expect(resolved.networks.rsksim).toEqual({ type: 'http', url: 'resolved', rsksim: { network: 'mainnet' } })
    expect(resolved.networks.other).toEqual({ type: 'http', url: 'resolved' })
  })
})
