/**
 * A fork's forwarded requests (src/rpc/forkRoute.ts, docs/forking.md#when-the-remote-fails) that the remote refuses as
 * over its response size limit. RSKj answers a reply over `rpc.maxResponseSize` with -32011 `Response size limit of N
 * bytes exceeded` (`JsonResponseSizeLimiter` → `JsonRpcResponseLimitError`, `JsonRpcError.RPC_LIMIT_ERROR`); a fork
 * passes it on with that code, naming the method asked and the remote's refusal, in the request's own envelope, as the
 * ots_* routes do (test/fork_ots.test.ts). The remote is a second rsksim with a small `maxResponseSize`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Interface, JsonRpcProvider } from 'ethers'
import { startServer, type RsksimServer } from '../src/index.js'
import { COW, deploy, fresh, rq as rpc } from './helpers.js'
import { Compute } from './fixtures/index.js'

const LIMIT = 20_000
const hex = (n: number) => '0x' + n.toString(16)

describe("forwarded requests the remote refuses as over its response size limit", () => {
  let remote: RsksimServer
  let forkNumber: number
  const tx: Record<string, string> = {}

  beforeAll(async () => {
    remote = await startServer({ port: 0, accountTxRateLimit: false, maxResponseSize: LIMIT })
    const r = remote.provider
    const compute = await deploy(r, Compute)
    await rpc(r, 'evm_setAutomine', [false])
    // A loop whose default-tracer trace lists hundreds of opcodes, and a transaction whose input alone is 24,000 hex digits.
    const loop = new Interface(Compute.abi as never).encodeFunctionData('arithLoop', [300])
    tx.long = await rpc(r, 'eth_sendTransaction', [{ from: COW, to: compute, gas: '0x4c4b40', data: loop }])
    tx.big = await rpc(r, 'eth_sendTransaction', [{ from: COW, to: '0x00000000000000000000000000000000000a11ce', gas: '0x4c4b40', data: '0x' + 'ab'.repeat(12_000) }])
    await rpc(r, 'evm_mine')
    await rpc(r, 'evm_setAutomine', [true])
    forkNumber = Number(await rpc(r, 'eth_blockNumber'))
  })

  afterAll(async () => remote?.close())

  /** What the remote itself answers over HTTP: RSKj's bare -32011 (no jsonrpc, no id). */
  const remoteReply = async (method: string, params: unknown[]) =>
    (await fetch(remote.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })).json()

  const refusal = (asked: string, refused = asked) => [
    `${asked} on a fork is answered from the remote: the remote refuses its ${refused} as over the remote's response size limit`,
    `(Response size limit of ${LIMIT} bytes exceeded)`,
  ]

  it('eth_, debug_ and trace_ routes answer -32011 naming the method and the remote refusal, not the bare text', async () => {
    const cases: [string, unknown[], string?][] = [
      ['eth_getBlockByNumber', [hex(forkNumber), true]],
      ['eth_getTransactionByHash', [tx.big]],
      // The routes' own lookup of the transaction (is it the remote's?) is what the remote refuses.
      ['eth_getRawTransactionByHash', [tx.big], 'eth_getTransactionByHash'],
      ['debug_traceTransaction', [tx.long]],
      ['debug_traceBlockByNumber', [hex(forkNumber)]],
      // The block's traces hold the large transaction's input.
      ['trace_block', [hex(forkNumber)]],
      ['trace_transaction', [tx.big], 'eth_getTransactionByHash'],
    ]
    const f = await fresh({ fork: { url: remote.url, blockNumber: forkNumber, cache: false } } as never)
    try {
      for (const [method, params, refused] of cases) {
        // The remote itself refuses the call the fork needs (RSKj's JsonRpcResponseLimitError, bare).
        expect([method, await remoteReply(refused ?? method, params)]).toEqual([method, { error: { code: -32011, message: `Response size limit of ${LIMIT} bytes exceeded` } }])
        const e: any = await f.request({ method, params }).catch((err: unknown) => err)
        expect([method, e.code]).toEqual([method, -32011])
        for (const part of refusal(method, refused)) expect(e.message).toContain(part)
      }
      // What is under the limit is answered as the remote answers it.
      expect(await rpc(f, 'trace_transaction', [tx.long])).toEqual(await rpc(remote.provider, 'trace_transaction', [tx.long]))
      expect(await rpc(f, 'eth_getBlockByNumber', [hex(forkNumber), false])).toEqual(await rpc(remote.provider, 'eth_getBlockByNumber', [hex(forkNumber), false]))
    } finally {
      await f.disconnect()
    }
  })

  it('over HTTP, in the envelope of the request with its id; ethers sees the code', async () => {
    const server = await startServer({ port: 0, accountTxRateLimit: false, fork: { url: remote.url, blockNumber: forkNumber, cache: false } } as never)
    try {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'trace_transaction', params: [tx.long] })
      // The loop's trace_transaction is small: answered. Its debug_traceTransaction is not.
      const ok: any = await (await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json()
      expect(ok).toEqual({ jsonrpc: '2.0', id: 7, result: await rpc(remote.provider, 'trace_transaction', [tx.long]) })
      const res: any = await (
        await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'debug_traceTransaction', params: [tx.long] }) })
      ).json()
      expect(res).toMatchObject({ jsonrpc: '2.0', id: 8, error: { code: -32011 } })
      for (const part of refusal('debug_traceTransaction')) expect(res.error.message).toContain(part)
      const ethers = new JsonRpcProvider(server.url, undefined, { staticNetwork: true })
      const e: any = await ethers.send('eth_getTransactionByHash', [tx.big]).catch((err: unknown) => err)
      expect(e.error).toMatchObject({ code: -32011 })
      for (const part of refusal('eth_getTransactionByHash')) expect(e.error.message).toContain(part)
      ethers.destroy()
    } finally {
      await server.close()
    }
  })
})
