/**
 * Otterscan's ots_* of a remote's transactions on a fork (src/rpc/forkOts.ts, docs/forking.md#history), where what an
 * RSKj remote answers loses or refuses something: revert data whose leading zero bytes its callTracer drops, and traces
 * over its response size limit. The remote is a second rsksim behind a proxy that shapes traces as RSKj does; its own
 * ots_* answers (computed locally, without a fork) are the expected ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Interface } from 'ethers'
import { startServer, type RsksimServer } from '../src/index.js'
import { COW, deploy, fresh, rq as rpc } from './helpers.js'
import { Compute, Stale, StaleCaller } from './fixtures/index.js'
import { countingProxy } from './forkProxy.js'

const si = new Interface(Stale.abi as never)
const ci = new Interface(StaleCaller.abi as never)

/** A remote rsksim served behind a proxy that shapes traces as RSKj does, the block a fork of it starts at; `close` stops both. */
interface Shaped {
  remote: RsksimServer
  proxy: Awaited<ReturnType<typeof countingProxy>>
  forkNumber: number
  close(): Promise<void>
}

/**
 * Starts a remote with `options`, deploys with `deployAll` (automine on), lets `sendAll` send its transactions with
 * automine off, mines them in one block, and puts the RSKj-shaping proxy in front of it. `close` stops both.
 */
async function shapedRemote<T>(
  options: Record<string, unknown>,
  deployAll: (r: RsksimServer['provider']) => Promise<T>,
  sendAll: (r: RsksimServer['provider'], deployed: T) => Promise<void>,
): Promise<Shaped> {
  const remote = await startServer({ port: 0, accountTxRateLimit: false, ...options })
  const r = remote.provider
  const deployed = await deployAll(r)
  await rpc(r, 'evm_setAutomine', [false])
  await sendAll(r, deployed)
  await rpc(r, 'evm_mine')
  await rpc(r, 'evm_setAutomine', [true])
  const forkNumber = Number(await rpc(r, 'eth_blockNumber'))
  const proxy = await countingProxy(remote.url)
  proxy.rskjTraces = true
  return { remote, proxy, forkNumber, close: async () => (await proxy.close(), await remote.close()) }
}

describe('ots_* of a remote transaction whose inner frame reverts with data that begins with zero bytes', () => {
  let shaped: Shaped
  const tx: Record<string, string> = {}

  beforeAll(async () => {
    shaped = await shapedRemote(
      {},
      async (r) => ({ stale: await deploy(r, Stale), caller: await deploy(r, StaleCaller) }),
      async (r, { stale, caller }) => {
        const sent = async (name: string, data: string) => {
          tx[name] = await rpc(r, 'eth_sendTransaction', [{ from: COW, to: caller, gas: '0x4c4b40', data }])
        }
        await sent('catchOne', ci.encodeFunctionData('catchOne', [stale, 5]))
        await sent('catchTwo', ci.encodeFunctionData('catchTwo', [stale, 0]))
        await sent('passTwo', ci.encodeFunctionData('passTwo', [stale, 7]))
        await sent('catchRaw', ci.encodeFunctionData('catchRaw', [stale]))
        await sent('passRaw', ci.encodeFunctionData('passRaw', [stale]))
      },
    )
  })

  afterAll(async () => shaped?.close())

  it("ots_traceTransaction gives the inner revert data whole, as the remote's own (local) answer does", async () => {
    const f = await fresh({ fork: { url: shaped.proxy.url, blockNumber: shaped.forkNumber, cache: false } } as never)
    const one = si.encodeErrorResult('Stale45', [5])
    const two0 = si.encodeErrorResult('Stale109585', [0])
    const two7 = si.encodeErrorResult('Stale109585', [7])
    expect([one.slice(0, 10), two0.slice(0, 10)]).toEqual(['0x00207f5a', '0x0000ca84'])
    // What the remote's callTracer gives for the inner frame: the data without its leading zero digits.
    const inner = async (h: string) => (await rpc(f, 'debug_traceTransaction', [h, { tracer: 'callTracer' }])).calls[0].output
    expect(await inner(tx.catchOne!)).toBe('0x' + one.slice(4))
    expect(await inner(tx.catchTwo!)).toBe('0x' + two0.slice(6))
    for (const name of ['catchOne', 'catchTwo', 'passTwo', 'passRaw']) {
      const hash = tx[name]
      expect([name, await rpc(f, 'ots_traceTransaction', [hash])]).toEqual([name, await rpc(shaped.remote.provider, 'ots_traceTransaction', [hash])])
      expect([name, await rpc(f, 'ots_getTransactionError', [hash])]).toEqual([name, await rpc(shaped.remote.provider, 'ots_getTransactionError', [hash])])
    }
    // The equalities above compare these: a caught revert (the transaction succeeds), and one passed on.
    expect((await rpc(f, 'ots_traceTransaction', [tx.catchOne]))[1]).toMatchObject({ depth: 1, output: one })
    expect((await rpc(f, 'ots_traceTransaction', [tx.catchTwo]))[1]).toMatchObject({ depth: 1, output: two0 })
    expect((await rpc(f, 'ots_traceTransaction', [tx.passTwo])).map((e: any) => e.output)).toEqual([two7, two7])
    expect(await rpc(f, 'ots_getTransactionError', [tx.passTwo])).toBe(two7)
    // Raw revert data (not ABI-shaped) passed on is the transaction's own, read whole; caught, its leading zero byte
    // cannot be known, and 7 digits are taken for a 4-byte selector that lost a zero digit (the documented loss).
    expect((await rpc(f, 'ots_traceTransaction', [tx.passRaw])).map((e: any) => e.output)).toEqual(['0x0001020304', '0x0001020304'])
    expect((await rpc(shaped.remote.provider, 'ots_traceTransaction', [tx.catchRaw]))[1].output).toBe('0x0001020304')
    expect((await rpc(f, 'ots_traceTransaction', [tx.catchRaw]))[1].output).toBe('0x01020304')
    await f.disconnect()
  })
})

describe("ots_* of a remote transaction whose trace is over the remote's response size limit", () => {
  // RSKj refuses a reply over `rpc.maxResponseSize` (10 MiB) with -32011; the default tracer, which alone holds the
  // top frame's output, lists every opcode a transaction ran. A remote with a small limit shows it on a short loop.
  const LIMIT = 20_000
  let shaped: Shaped
  const tx: Record<string, string> = {}

  beforeAll(async () => {
    shaped = await shapedRemote(
      { maxResponseSize: LIMIT },
      (r) => deploy(r, Compute),
      async (r, compute) => {
        const loop = new Interface(Compute.abi as never).encodeFunctionData('arithLoop', [300])
        tx.long = await rpc(r, 'eth_sendTransaction', [{ from: COW, to: compute, gas: '0x4c4b40', data: loop }])
        // The same loop out of gas: a failed transaction, whose ots_getTransactionError needs the same tracer.
        tx.outOfGas = await rpc(r, 'eth_sendTransaction', [{ from: COW, to: compute, gas: '0xc350', data: loop }])
        tx.short = await rpc(r, 'eth_sendTransaction', [{ from: COW, to: compute, gas: '0x4c4b40', data: new Interface(Compute.abi as never).encodeFunctionData('arithLoop', [1]) }])
      },
    )
  })

  afterAll(async () => shaped?.close())

  it('answers -32011 saying the remote refuses that trace as over its limit; what needs no such trace is answered', async () => {
    const f = await fresh({ fork: { url: shaped.proxy.url, blockNumber: shaped.forkNumber, cache: false } } as never)
    expect((await rpc(f, 'eth_getTransactionReceipt', [tx.outOfGas])).status).toBe('0x0')
    // The remote itself refuses the trace the fork needs.
    const refused = await shaped.remote.provider.request({ method: 'debug_traceTransaction', params: [tx.long, { disableMemory: true, disableStack: true, disableStorage: true }] }).catch((e) => e)
    expect(refused).toMatchObject({ code: -32011, message: `Response size limit of ${LIMIT} bytes exceeded` })
    for (const [m, hash] of [['ots_traceTransaction', tx.long], ['ots_traceTransaction', tx.outOfGas], ['ots_getTransactionError', tx.outOfGas]] as const) {
      const e: any = await f.request({ method: m, params: [hash] }).catch((err: unknown) => err)
      expect(e.code, m).toBe(-32011)
      expect(e.message).toContain(`${m} of ${hash}`)
      expect(e.message).toContain("the remote refuses its debug_traceTransaction as over the remote's response size limit")
      expect(e.message).toContain(`Response size limit of ${LIMIT} bytes exceeded`)
    }
    // trace_transaction is small: the internal operations are answered, as the remote's own; a success has no error.
    expect(await rpc(f, 'ots_getInternalOperations', [tx.long])).toEqual(await rpc(shaped.remote.provider, 'ots_getInternalOperations', [tx.long]))
    expect(await rpc(f, 'ots_getTransactionError', [tx.long])).toBe('0x')
    await f.disconnect()
  })

  it("a trace over the limit asked together with others (one batch, which RSKj refuses whole) fails alone", async () => {
    const f = await fresh({ fork: { url: shaped.proxy.url, blockNumber: shaped.forkNumber, cache: false } } as never)
    shaped.proxy.batches.length = 0
    // Both routes ask the same remote calls in the same turns, so their default-tracer calls go out as one batch.
    const [long, short] = await Promise.all(
      [tx.long, tx.short].map((h) => f.request({ method: 'ots_traceTransaction', params: [h] }).then((v) => ({ v }), (e) => ({ e }))),
    )
    expect(shaped.proxy.batches.filter((b) => b.every((m) => m === 'debug_traceTransaction'))).toEqual([['debug_traceTransaction', 'debug_traceTransaction']])
    expect((long as { e: { code: number } }).e.code).toBe(-32011)
    expect(short).toEqual({ v: await rpc(shaped.remote.provider, 'ots_traceTransaction', [tx.short]) })
    await f.disconnect()
  })

  it('the same error over HTTP, in the envelope of the request, with its id', async () => {
    // Over HTTP, the fork served as a node: the same error in the reply's envelope, with its id.
    const server = await startServer({ port: 0, accountTxRateLimit: false, fork: { url: shaped.proxy.url, blockNumber: shaped.forkNumber, cache: false } } as never)
    try {
      const res = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ots_traceTransaction', params: [tx.long] }) })
      const body: any = await res.json()
      expect(body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32011 } })
      expect(body.error.message).toContain(`ots_traceTransaction of ${tx.long}`)
    } finally {
      await server.close()
    }
  })
})
