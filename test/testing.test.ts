/** rsksim/testing: the fixture started by vitest's own hooks, state reverted between tests, HTTP on a free port. */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { JsonRpcProvider } from 'ethers'
import { startRsksim, useRsksim } from '../src/testing/index.js'
import { COW, COW1, NO_QUOTA, send } from './helpers.js'

describe('useRsksim', () => {
  const rsksim = useRsksim({ beforeAll, beforeEach, afterEach, afterAll }, { server: true })
  let balanceAtStart: string

  it('test 1 changes the chain', async () => {
    const { provider } = rsksim()
    balanceAtStart = (await provider.request({ method: 'eth_getBalance', params: [COW1, 'latest'] })) as string
    await send(provider, { to: COW1, value: '0x5' })
    expect(await provider.request({ method: 'eth_blockNumber' })).toBe('0x1')
  })

  it('test 2 starts from the same chain, also over HTTP', async () => {
    const http = new JsonRpcProvider(rsksim().url, undefined, { staticNetwork: true })
    try {
      expect(await http.getBlockNumber()).toBe(0)
      expect('0x' + (await http.getBalance(COW1)).toString(16)).toBe(balanceAtStart)
    } finally {
      http.destroy()
    }
  })
})

describe('useRsksim in hosted mode', () => {
  // The service has evm_snapshot and evm_revert (spec: the evm module is supported), so hosted mode isolates too.
  const rsksim = useRsksim({ beforeAll, beforeEach, afterEach, afterAll }, { hosted: true })

  it('test 1 mines a block', async () => {
    await rsksim().provider.request({ method: 'evm_mine' })
    expect(await rsksim().provider.request({ method: 'eth_blockNumber' })).toBe('0x1')
  })

  it('test 2 starts from the same chain', async () => {
    expect(await rsksim().provider.request({ method: 'eth_blockNumber' })).toBe('0x0')
  })
})

describe('startRsksim', () => {
  it('two fixtures serve on different free ports and independent chains', async () => {
    const [a, b] = await Promise.all([startRsksim({ server: true }), startRsksim({ server: true })])
    try {
      expect(a.server!.port).not.toBe(b.server!.port)
      await send(a.provider, { to: COW1, value: '0x1' })
      expect(await a.provider.request({ method: 'eth_blockNumber' })).toBe('0x1')
      expect(await b.provider.request({ method: 'eth_blockNumber' })).toBe('0x0')
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })

  it('snapshot/revert nest, and revert without a snapshot says so', async () => {
    const f = await startRsksim(NO_QUOTA)
    try {
      await f.snapshot()
      await send(f.provider, { to: COW1, value: '0x1' })
      await f.snapshot()
      await send(f.provider, { to: COW, value: '0x1' })
      await f.revert()
      expect(await f.provider.request({ method: 'eth_blockNumber' })).toBe('0x1')
      await f.revert()
      expect(await f.provider.request({ method: 'eth_blockNumber' })).toBe('0x0')
      await expect(f.revert()).rejects.toThrow('revert() without a snapshot()')
    } finally {
      await f.close()
    }
  })

  it('useRsksim wants before-all and after-all hooks', () => {
    const noop = (): void => undefined
    expect(() => useRsksim({ beforeEach: noop, afterEach: noop })).toThrow(/beforeAll\/afterAll/)
  })
})
