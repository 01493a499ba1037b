/** Shared helpers for tests: a fresh provider, the regtest cow accounts, and deploy/call shortcuts. */
import { afterAll, beforeAll } from 'vitest'
import { AbiCoder, Interface, JsonRpcProvider } from 'ethers'
import { createProvider, startServer, type Provider, type ProviderOptions, type RsksimServer, type ServerOptions } from '../src/index.js'
import type { Artifact } from './fixtures/index.js'

/** RSKj regtest account "cow" (reference §7.2). */
export const COW = '0xcd2a3d9f938e13cd947ec05abc7fe734df8dd826'
export const COW_KEY = '0xc85ef7d79691fe79573b1a7064c19c1a9819ebdbd1faaab1a8ec92344438aaf4'
export const COW1 = '0x7986b3df570230288501eea3d890bd66948c9b79'
export const MINER = '0xec4ddeb4380ad69b3e509baad9f158cdf4e4681d'

export async function fresh(options: ProviderOptions = {}): Promise<Provider> {
  return createProvider(options)
}

/** Sends a transaction from `from` and returns its receipt. */
export async function send(p: Provider, tx: Record<string, unknown>): Promise<Record<string, any>> {
  const hash = (await p.request({ method: 'eth_sendTransaction', params: [{ from: COW, gas: '0x4c4b40', ...tx }] })) as string
  return (await p.request({ method: 'eth_getTransactionReceipt', params: [hash] })) as Record<string, any>
}

/** Deploys an artifact (constructor args ABI-encoded) from cow and returns its address. */
export async function deploy(p: Provider, artifact: Artifact, args: unknown[] = []): Promise<string> {
  const iface = new Interface(artifact.abi as never)
  const ctor = iface.deploy.inputs
  const encoded = args.length === 0 ? '' : AbiCoder.defaultAbiCoder().encode(ctor, args).slice(2)
  const receipt = await send(p, { data: artifact.bytecode + encoded })
  if (receipt.status !== '0x1') throw new Error('deployment failed')
  return receipt.contractAddress as string
}

/** Expects `promise` to reject with an RpcError of `code` whose message matches `message`. */
export async function rejects(promise: Promise<unknown>, code: number, message?: string | RegExp): Promise<any> {
  try {
    await promise
  } catch (e: any) {
    if (e.code !== code) throw new Error(`expected code ${code}, got ${e.code}: ${e.message}`)
    if (message !== undefined) {
      const ok = typeof message === 'string' ? e.message === message : message.test(e.message)
      if (!ok) throw new Error(`expected message ${String(message)}, got: ${e.message}`)
    }
    return e
  }
  throw new Error(`expected a rejection with code ${code}`)
}

/**
 * A server on a free port for the enclosing `describe`, with an ethers JsonRpcProvider over it; both are closed
 * after the block. Read `http.server` / `http.rpc` inside tests.
 */
export function useHttpServer(options: ServerOptions = {}): { server: RsksimServer; rpc: JsonRpcProvider } {
  const http = {} as { server: RsksimServer; rpc: JsonRpcProvider }
  beforeAll(async () => {
    http.server = await startServer({ port: 0, ...options })
    http.rpc = new JsonRpcProvider(http.server.url, undefined, { staticNetwork: true })
  })
  afterAll(async () => {
    http.rpc?.destroy()
    await http.server?.close()
  })
  return http
}
