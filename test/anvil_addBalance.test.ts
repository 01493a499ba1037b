/** anvil_addBalance (Anvil's): the balance plus an amount, `null` as Anvil answers; compared with Anvil 1.7.1. */
import { describe, expect, it } from 'vitest'
import { COW, fresh, rejects, useHttpServer } from './helpers.js'
import { useAnvil } from './anvil.js'

const WHO = '0x00000000000000000000000000000000000add00'
const MAX = '0x' + 'f'.repeat(64)

describe('anvil_addBalance', () => {
  it('adds to a balance (an absent account starts at 0) and answers null', async () => {
    const p = await fresh()
    const balance = () => p.request({ method: 'eth_getBalance', params: [WHO, 'latest'] })
    expect(await p.request({ method: 'anvil_addBalance', params: [WHO, '0x10'] })).toBeNull()
    expect(await balance()).toBe('0x10')
    await p.request({ method: 'anvil_addBalance', params: [WHO, '0x5'] })
    expect(await balance()).toBe('0x15')
    const cow = BigInt((await p.request({ method: 'eth_getBalance', params: [COW, 'latest'] })) as string)
    await p.request({ method: 'anvil_addBalance', params: [COW, '0x1'] })
    expect(BigInt((await p.request({ method: 'eth_getBalance', params: [COW, 'latest'] })) as string)).toBe(cow + 1n)
  })

  it('refuses a sum past 2^256 - 1 and changes nothing; -32601 in hosted mode', async () => {
    const p = await fresh()
    await p.request({ method: 'anvil_setBalance', params: [WHO, MAX] })
    await rejects(p.request({ method: 'anvil_addBalance', params: [WHO, '0x1'] }), -32602, /^Invalid amount: the balance .* plus 1 is past 2\^256 - 1; the balance is unchanged\.$/)
    expect(await p.request({ method: 'eth_getBalance', params: [WHO, 'latest'] })).toBe(MAX)
    await rejects(p.request({ method: 'anvil_addBalance', params: ['0x12', '0x1'] }), -32602)
    await rejects((await fresh({ hosted: true })).request({ method: 'anvil_addBalance', params: [WHO, '0x1'] }), -32601)
  })
})

describe('anvil_addBalance over HTTP, beside Anvil', () => {
  const http = useHttpServer()
  const anvil = useAnvil()

  it('answers and adds as Anvil 1.7.1 does', async () => {
    for (const node of [http.rpc, anvil.eth]) {
      expect(await node.send('anvil_addBalance', [WHO, '0x2a'])).toBeNull()
      expect(await node.send('anvil_addBalance', [WHO, '0x2a'])).toBeNull()
      expect(await node.send('eth_getBalance', [WHO, 'latest'])).toBe('0x54')
    }
  })
})
