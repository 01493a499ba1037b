/**
 * Reverts of eth_call as real clients see them (spec "Errors"; reference §5.1): ethers v6, viem and web3.js v4,
 * each in process (EIP-1193 provider) and over HTTP (`startServer`). The error is -32015 with the raw revert
 * bytes in `data`; every client must get the reason (or the data to decode a custom error) from one request.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { BrowserProvider, Contract, JsonRpcProvider } from 'ethers'
import { type BaseError, createPublicClient, custom, decodeErrorResult, encodeFunctionData, http, type Abi, type Address } from 'viem'
import { Web3 } from 'web3'
import { startServer, type Provider, type RsksimServer } from '../src/index.js'
import { deploy } from './helpers.js'
import { Reverter } from './fixtures/index.js'

const abi = Reverter.abi as Abi
const servers: RsksimServer[] = []
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()))
})

async function setup(): Promise<{ p: Provider; url: string; reverter: Address }> {
  const server = await startServer({ port: 0 })
  servers.push(server)
  const reverter = (await deploy(server.provider, Reverter)) as Address
  return { p: server.provider, url: server.url, reverter }
}

describe('ethers v6', async () => {
  const { p, url, reverter } = await setup()
  const clients = {
    'BrowserProvider in process': new BrowserProvider(p),
    'JsonRpcProvider over HTTP': new JsonRpcProvider(url, undefined, { staticNetwork: true }),
  }
  afterAll(() => clients['JsonRpcProvider over HTTP'].destroy())

  for (const [name, client] of Object.entries(clients)) {
    it(`${name}: every revert shape is a CALL_EXCEPTION carrying the decoded revert`, async () => {
      const c = new Contract(reverter, Reverter.abi as never, client) as any
      const err = async (fn: string): Promise<any> => c[fn].staticCall().then(() => expect.fail(`${fn} did not revert`), (e: any) => e)
      const reason = await err('revertWithReason')
      expect(reason).toMatchObject({ code: 'CALL_EXCEPTION', reason: 'nope', revert: { name: 'Error', args: ['nope'] } })
      const custom = await err('revertCustom')
      expect(custom.code).toBe('CALL_EXCEPTION')
      expect(custom.revert.name).toBe('Bad')
      expect(custom.revert.args[0]).toBe(42n)
      const panic = await err('revertPanic')
      expect(panic.revert).toMatchObject({ name: 'Panic', args: [0x12] })
      const assertion = await err('assertFail')
      expect(assertion.revert).toMatchObject({ name: 'Panic', args: [0x01] })
      const empty = await err('revertEmpty')
      expect(empty).toMatchObject({ code: 'CALL_EXCEPTION', data: '0x', revert: null })
      expect(await c.ok()).toBe(1n)
    })
  }
})

describe('viem', async () => {
  const { p, url, reverter } = await setup()
  let calls = 0
  /** The provider with a count of eth_call requests. */
  const counted = { request: (a: Parameters<Provider['request']>[0]) => ((calls += a.method === 'eth_call' ? 1 : 0), p.request(a)) }
  const transports = {
    // viem files -32015 as an unknown RPC error and retries those; retryCount: 0 is its documented switch
    // (docs/modules/proofs-calls.md, "viem and -32015").
    'custom transport (retryCount: 0) in process': custom(counted, { retryCount: 0 }),
    // Over HTTP viem keeps the JSON-RPC code (RpcRequestError) and does not retry it: no setting is needed.
    'http transport': http(url, {
      onFetchRequest: async (req) => {
        const body = (await req.clone().json()) as { method: string }
        if (body.method === 'eth_call') calls++
      },
    }),
  }

  for (const [name, transport] of Object.entries(transports)) {
    it(`${name}: readContract, call and simulateContract fail at once with the reason and the revert data`, async () => {
      const client = createPublicClient({ transport })
      const failures: BaseError[] = []
      const attempt = async (run: () => Promise<unknown>) => {
        calls = 0
        await run().then(() => expect.fail('no revert'), (e: BaseError) => failures.push(e))
        expect(calls).toBe(1) // no retries
      }
      await attempt(() => client.readContract({ address: reverter, abi, functionName: 'revertWithReason' }))
      await attempt(() => client.call({ to: reverter, data: encodeFunctionData({ abi, functionName: 'revertWithReason' }) }))
      await attempt(() => client.simulateContract({ address: reverter, abi, functionName: 'revertWithReason' }))
      await attempt(() => client.readContract({ address: reverter, abi, functionName: 'revertCustom' }))
      for (const e of failures.slice(0, 3)) expect(e.details).toBe('VM Exception while processing transaction: revert nope')
      const custom = failures[3]!
      expect(custom.details).toBe('VM Exception while processing transaction: transaction reverted')
      // The raw revert bytes stay reachable on the error chain, so custom errors decode with the ABI.
      const data = (custom.walk((x) => typeof (x as { data?: unknown }).data === 'string') as unknown as { data: `0x${string}` }).data
      expect(decodeErrorResult({ abi, data })).toMatchObject({ errorName: 'Bad', args: [42n] })
      expect(await client.readContract({ address: reverter, abi, functionName: 'ok' })).toBe(1n)
    })
  }

  it('without retryCount: 0 the custom transport retries -32015 (why the setting is documented)', async () => {
    const client = createPublicClient({ transport: custom(counted, { retryDelay: 1 }) })
    calls = 0
    await expect(client.readContract({ address: reverter, abi, functionName: 'revertWithReason' })).rejects.toThrow(/revert nope/)
    expect(calls).toBe(4)
  })
})

describe('web3.js v4', async () => {
  const { p, url, reverter } = await setup()
  const clients = { 'EIP-1193 provider in process': new Web3(p as never), 'HTTP provider': new Web3(url) }

  for (const [name, web3] of Object.entries(clients)) {
    it(`${name}: ContractExecutionError with code -32015, the message, the data and the decoded error`, async () => {
      const c = new web3.eth.Contract(Reverter.abi as never, reverter) as any
      const err = async (fn: string): Promise<any> => c.methods[fn]().call().then(() => expect.fail(`${fn} did not revert`), (e: any) => e)
      const reason = await err('revertWithReason')
      expect(reason.name).toBe('ContractExecutionError')
      expect(reason.cause).toMatchObject({
        code: -32015,
        message: 'VM Exception while processing transaction: revert nope',
        errorName: 'Error',
        errorSignature: 'Error(string)',
      })
      expect(reason.cause.errorArgs.message).toBe('nope')
      const custom = await err('revertCustom')
      expect(custom.cause).toMatchObject({ code: -32015, errorName: 'Bad', errorSignature: 'Bad(uint256)', data: '0xa2f43130' + (42).toString(16).padStart(64, '0') })
      expect(custom.cause.errorArgs.code).toBe(42n)
      const panic = await err('revertPanic')
      expect(panic.cause).toMatchObject({ code: -32015, message: 'VM Exception while processing transaction: transaction reverted' })
      expect(BigInt(await c.methods.ok().call())).toBe(1n)
    })
  }
})

describe('a gas limit below what the node takes before anything runs, and initcode past 49,152 bytes, through clients', async () => {
  // Expected from RSKj's TransactionExecutor (docs/modules/proofs-calls.md): 21,000 is taken from the limit of a call
  // to an account without code before anything runs; rsksim refuses a lower limit with -32602 saying so.
  const { p, url } = await setup()
  const EMPTY = '0x00000000000000000000000000000000000c0ffe' as Address
  const message = 'Invalid gas: 20999 is less than this call\'s intrinsic gas (21000), which RSKj takes from the gas limit before anything runs'
  // Initcode returning the byte 0x01 (PUSH1 1, PUSH1 0, MSTORE, PUSH1 1, PUSH1 31, RETURN), padded to 49,153 bytes.
  const big = ('0x60016000526001601ff3' + '00'.repeat(49_153 - 10)) as `0x${string}`

  it('ethers over HTTP: the call fails with the -32602 and its text; the large initcode answers its return', async () => {
    const client = new JsonRpcProvider(url, undefined, { staticNetwork: true })
    try {
      const e: any = await client.call({ to: EMPTY, gasLimit: 20_999n }).then(() => expect.fail('the call did not fail'), (x: unknown) => x)
      // ethers makes any failed eth_call a CALL_EXCEPTION; the node's error is kept on `info`.
      expect(e.code).toBe('CALL_EXCEPTION')
      expect(e.info.error).toEqual({ code: -32602, message })
      expect(await client.call({ to: EMPTY, gasLimit: 21_000n })).toBe('0x')
      expect(await client.call({ data: big })).toBe('0x01')
    } finally {
      client.destroy()
    }
  })

  it('viem in process: one request (-32602 is not retried), the error its details; the large initcode answers its return', async () => {
    let calls = 0
    const counted = { request: (a: Parameters<Provider['request']>[0]) => ((calls += a.method === 'eth_call' ? 1 : 0), p.request(a)) }
    const client = createPublicClient({ transport: custom(counted, { retryDelay: 1 }) })
    const e = (await client.call({ to: EMPTY, gas: 20_999n }).then(() => expect.fail('the call did not fail'), (x: unknown) => x)) as BaseError
    expect(calls).toBe(1)
    expect(e.walk((x) => (x as { code?: number }).code === -32602)).toMatchObject({ code: -32602, details: message })
    expect((await client.call({ data: big })).data).toBe('0x01')
  })
})
