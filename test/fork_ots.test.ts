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
import { Stale, StaleCaller } from './fixtures/index.js'
import { countingProxy } from './forkProxy.js'

const si = new Interface(Stale.abi as never)
const ci = new Interface(StaleCaller.abi as never)

describe('ots_* of a remote transaction whose inner frame reverts with data that begins with zero bytes', () => {
  let remote: RsksimServer
  let proxy: Awaited<ReturnType<typeof countingProxy>>
  const tx: Record<string, string> = {}
  let forkNumber: number

  beforeAll(async () => {
    remote = await startServer({ port: 0, accountTxRateLimit: false })
    const r = remote.provider
    const stale = await deploy(r, Stale)
    const caller = await deploy(r, StaleCaller)
    await rpc(r, 'evm_setAutomine', [false])
    const sent = async (name: string, data: string) => {
      tx[name] = await rpc(r, 'eth_sendTransaction', [{ from: COW, to: caller, gas: '0x4c4b40', data }])
    }
    await sent('catchOne', ci.encodeFunctionData('catchOne', [stale, 5]))
    await sent('catchTwo', ci.encodeFunctionData('catchTwo', [stale, 0]))
    await sent('passTwo', ci.encodeFunctionData('passTwo', [stale, 7]))
    await sent('catchRaw', ci.encodeFunctionData('catchRaw', [stale]))
    await sent('passRaw', ci.encodeFunctionData('passRaw', [stale]))
    await rpc(r, 'evm_mine')
    await rpc(r, 'evm_setAutomine', [true])
    forkNumber = Number(await rpc(r, 'eth_blockNumber'))
    proxy = await countingProxy(remote.url)
    proxy.rskjTraces = true
  })

  afterAll(async () => {
    await proxy?.close()
    await remote?.close()
  })

  it("ots_traceTransaction gives the inner revert data whole, as the remote's own (local) answer does", async () => {
    const f = await fresh({ fork: { url: proxy.url, blockNumber: forkNumber, cache: false } } as never)
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
      expect([name, await rpc(f, 'ots_traceTransaction', [hash])]).toEqual([name, await rpc(remote.provider, 'ots_traceTransaction', [hash])])
      expect([name, await rpc(f, 'ots_getTransactionError', [hash])]).toEqual([name, await rpc(remote.provider, 'ots_getTransactionError', [hash])])
    }
    // The equalities above compare these: a caught revert (the transaction succeeds), and one passed on.
    expect((await rpc(f, 'ots_traceTransaction', [tx.catchOne]))[1]).toMatchObject({ depth: 1, output: one })
    expect((await rpc(f, 'ots_traceTransaction', [tx.catchTwo]))[1]).toMatchObject({ depth: 1, output: two0 })
    expect((await rpc(f, 'ots_traceTransaction', [tx.passTwo])).map((e: any) => e.output)).toEqual([two7, two7])
    expect(await rpc(f, 'ots_getTransactionError', [tx.passTwo])).toBe(two7)
    // Raw revert data (not ABI-shaped) passed on is the transaction's own, read whole; caught, its leading zero byte
    // cannot be known, and 7 digits are taken for a 4-byte selector that lost a zero digit (the documented loss).
    expect((await rpc(f, 'ots_traceTransaction', [tx.passRaw])).map((e: any) => e.output)).toEqual(['0x0001020304', '0x0001020304'])
    expect((await rpc(remote.provider, 'ots_traceTransaction', [tx.catchRaw]))[1].output).toBe('0x0001020304')
    expect((await rpc(f, 'ots_traceTransaction', [tx.catchRaw]))[1].output).toBe('0x01020304')
    await f.disconnect()
  })
})
