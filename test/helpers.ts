/** Shared helpers for tests: a fresh provider, the regtest cow accounts, and deploy/call shortcuts. */
import { afterAll, afterEach, beforeAll } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { AbiCoder, Interface, JsonRpcProvider, Transaction, Wallet } from 'ethers'
import { createProvider, startServer, type Provider, type ProviderOptions, type RsksimServer, type ServerOptions } from '../src/index.js'
import type { Artifact } from './fixtures/index.js'

/** RSKj regtest account "cow" (reference §7.2). */
export const COW = '0xcd2a3d9f938e13cd947ec05abc7fe734df8dd826'
export const COW_KEY = '0xc85ef7d79691fe79573b1a7064c19c1a9819ebdbd1faaab1a8ec92344438aaf4'
export const COW1 = '0x7986b3df570230288501eea3d890bd66948c9b79'
export const MINER = '0xec4ddeb4380ad69b3e509baad9f158cdf4e4681d'

/**
 * Tests of other features send many large transactions from one account faster than RSKj's per-account quota
 * allows (it is on by default, as in RSKj): helpers turn it off unless a test sets it. test/tx_quota.test.ts
 * covers the quota itself.
 */
export const NO_QUOTA = { accountTxRateLimit: false } as const

/** A request through the provider's EIP-1193 `request`, its answer untyped (the tests check its fields). */
export const rq = (p: Provider, method: string, params: unknown[] = []): Promise<any> => p.request({ method, params }) as Promise<any>

export async function fresh(options: ProviderOptions = {}): Promise<Provider> {
  return createProvider({ ...NO_QUOTA, ...options })
}

/** Sends a transaction from `from` and returns its receipt. */
export async function send(p: Provider, tx: Record<string, unknown>): Promise<Record<string, any>> {
  const hash = (await p.request({ method: 'eth_sendTransaction', params: [{ from: COW, gas: '0x4c4b40', ...tx }] })) as string
  return (await p.request({ method: 'eth_getTransactionReceipt', params: [hash] })) as Record<string, any>
}

/**
 * Signs `tx` (JSON-RPC fields: to, data, gas, gasPrice, value) as cow with ethers, for chain 33, and sends it raw.
 * Answers the hash ethers computed (not one read back from the node) and the error the send answered, if any: under
 * automine a failed transaction is mined yet answers -32015, so tests of failed transactions assert both.
 */
export async function sendSigned(p: Provider, tx: Record<string, unknown>): Promise<{ hash: string; error?: any }> {
  const nonce = Number(await p.request({ method: 'eth_getTransactionCount', params: [COW, 'pending'] }))
  const raw = await new Wallet(COW_KEY).signTransaction({
    type: 0,
    chainId: 33,
    nonce,
    gasLimit: BigInt((tx.gas as string | undefined) ?? '0x4c4b40'),
    gasPrice: BigInt((tx.gasPrice as string | undefined) ?? '0x0'),
    value: BigInt((tx.value as string | undefined) ?? '0x0'),
    ...(tx.to !== undefined ? { to: tx.to as string } : {}),
    data: (tx.data as string | undefined) ?? '0x',
  })
  const hash = Transaction.from(raw).hash!
  try {
    const answered = await p.request({ method: 'eth_sendRawTransaction', params: [raw] })
    if (answered !== hash) throw new Error(`eth_sendRawTransaction answered ${String(answered)}, ethers computed ${hash}`)
    return { hash }
  } catch (error) {
    return { hash, error }
  }
}

/** Sends `tx` as cow (see sendSigned), expects the -32015 of a failed mined transaction, and answers its hash. */
export async function sendFailing(p: Provider, tx: Record<string, unknown>): Promise<string> {
  const { hash, error } = await sendSigned(p, tx)
  if (error?.code !== -32015) throw new Error(`expected -32015, got ${error === undefined ? 'success' : `${error.code}: ${error.message}`}`)
  return hash
}

/**
 * Signs and sends `tx` as sendSigned does, expecting no error, and answers its receipt. For transactions straight to a
 * precompile that fails: RSKj keeps the precompile's failure without an execution error (src/node/rsk/evm/evmProfile.ts
 * `failureKeptByRskj`), so the send answers the hash and the receipt's status is 0x1.
 */
export async function sendKeptFailure(p: Provider, tx: Record<string, unknown>): Promise<Record<string, any>> {
  const { hash, error } = await sendSigned(p, tx)
  if (error !== undefined) throw new Error(`expected no error, got ${error.code}: ${error.message}`)
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

/**
 * Mines `n` blocks from the next one on, each holding one log of one contract (the first: its creation), whose
 * topic is the block's number, and answers the contract's address. The runtime is NUMBER, PUSH1 0 ×2, LOG1, STOP; the
 * initcode logs the same way, then returns it: PUSH2 len, DUP1, PUSH1 18 (the initcode's length), PUSH1 0, CODECOPY;
 * PUSH1 0, RETURN.
 */
export async function logInEachBlock(p: Provider, n: number): Promise<string> {
  const runtime = '4360006000a100'
  const created = await send(p, { data: '0x4360006000a1' + '610007' + '80' + '6012' + '6000' + '39' + '6000' + 'f3' + runtime })
  if (created.status !== '0x1') throw new Error('deployment failed')
  const address = created.contractAddress as string
  for (let i = 1; i < n; i++) await send(p, { to: address })
  return address
}

/** Initcode that returns `runtime`: PUSH2 len, DUP1, PUSH1 12, PUSH1 0, CODECOPY, PUSH1 0, RETURN (12 bytes). */
export const initcodeFor = (runtime: string): string => '0x61' + (runtime.length / 2).toString(16).padStart(4, '0') + '80600c6000396000f3' + runtime

/** Deploys hand-written runtime code (hex, no 0x) from cow, optionally with value, and returns its address. */
export async function deployCode(p: Provider, runtime: string, value = '0x0'): Promise<string> {
  const r = await send(p, { data: initcodeFor(runtime), value })
  if (r.status !== '0x1') throw new Error('deployment failed')
  return r.contractAddress as string
}

/**
 * Runtime code relaying its calldata to `address` (0x and 40 hex digits) with all its gas, returning the callee's
 * return data followed by the CALL's result word: CALLDATASIZE, PUSH1 0 ×2, CALLDATACOPY; PUSH1 0 ×2, CALLDATASIZE,
 * PUSH1 0 ×2, PUSH20 address, GAS, CALL; RETURNDATASIZE, PUSH1 0 ×2, RETURNDATACOPY; RETURNDATASIZE, MSTORE;
 * RETURNDATASIZE, PUSH1 32, ADD, PUSH1 0, RETURN.
 */
export const relayTo = (address: string): string => '36600060003760006000366000600073' + address.slice(2).toLowerCase() + '5af13d600060003e3d523d6020016000f3'

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
    http.server = await startServer({ port: 0, ...NO_QUOTA, ...options })
    http.rpc = new JsonRpcProvider(http.server.url, undefined, { staticNetwork: true })
  })
  afterAll(async () => {
    http.rpc?.destroy()
    await http.server?.close()
  })
  return http
}

/** Makes temporary directories named `prefix…`, each removed after the test that made it. */
export function tempDirs(prefix: string): () => string {
  const made: string[] = []
  afterEach(() => {
    for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true })
  })
  return () => {
    const d = mkdtempSync(path.join(tmpdir(), prefix))
    made.push(d)
    return d
  }
}
