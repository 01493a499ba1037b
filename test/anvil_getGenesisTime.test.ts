/** anvil_getGenesisTime (Anvil's): block 0's timestamp in seconds, a JSON number as Anvil 1.7.1 answers. */
import { describe, expect, it } from 'vitest'
import { fresh, rejects, useHttpServer } from './helpers.js'
import { useAnvil } from './anvil.js'

describe('anvil_getGenesisTime', () => {
  it("answers block 0's timestamp as a number, unchanged by mining; -32601 in hosted mode", async () => {
    const p = await fresh()
    const genesis = (await p.request({ method: 'eth_getBlockByNumber', params: ['0x0', false] })) as { timestamp: string }
    const time = await p.request({ method: 'anvil_getGenesisTime' })
    expect(time).toBe(Number(genesis.timestamp))
    await p.request({ method: 'evm_increaseTime', params: ['0x3e8'] })
    await p.request({ method: 'evm_mine' })
    expect(await p.request({ method: 'anvil_getGenesisTime' })).toBe(time)
    await rejects((await fresh({ hosted: true })).request({ method: 'anvil_getGenesisTime' }), -32601)
  })
})

describe('anvil_getGenesisTime over HTTP, beside Anvil', () => {
  const http = useHttpServer()
  const anvil = useAnvil()

  it("answers a JSON number equal to block 0's timestamp, as Anvil 1.7.1 does", async () => {
    for (const node of [http.rpc, anvil.eth]) {
      const time = await node.send('anvil_getGenesisTime', [])
      expect(typeof time).toBe('number')
      expect(time).toBe(Number((await node.send('eth_getBlockByNumber', ['0x0', false])).timestamp))
    }
  })
})
