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

  it('reads a JSON integer amount past 2^53 exactly, as written in the body (a bigint past a double)', async () => {
    const OTHER = '0x00000000000000000000000000000000000add01'
    const post = async (method: string, params: string): Promise<any> =>
      (await fetch(http.server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"jsonrpc":"2.0","id":1,"method":"${method}","params":${params}}` })).json()
    // Expected balances worked out by hand: 10^21 = 0x3635c9adc5dea00000, plus 2^64 + 1 = 0x10000000000000001.
    expect(await post('anvil_setBalance', `["${OTHER}", 1000000000000000000000]`)).toEqual({ jsonrpc: '2.0', id: 1, result: null })
    expect(await http.rpc.send('eth_getBalance', [OTHER, 'latest'])).toBe('0x3635c9adc5dea00000')
    expect(await post('anvil_addBalance', `["${OTHER}", 18446744073709551617]`)).toEqual({ jsonrpc: '2.0', id: 1, result: null })
    expect(await http.rpc.send('eth_getBalance', [OTHER, 'latest'])).toBe('0x3735c9adc5dea00001')
    // Not an unsigned integer: refused with the codec's text.
    expect((await post('anvil_setBalance', `["${OTHER}", -1]`)).error).toEqual({ code: -32602, message: 'Invalid param -1: value must be a valid hex or string number.' })
    expect((await post('anvil_setBalance', `["${OTHER}", 1.5]`)).error).toEqual({ code: -32602, message: 'Invalid param 1.5: value must be a valid hex or string number.' })
    // A literal with an exponent whose double is not its value (10^65 needs 151 bits): refused, not rounded.
    expect((await post('anvil_setBalance', `["${OTHER}", 1e65]`)).error).toEqual({ code: -32602, message: 'Invalid param 1e+65: value must be a valid hex or string number.' })
    expect(await http.rpc.send('eth_getBalance', [OTHER, 'latest'])).toBe('0x3735c9adc5dea00001')
  })
})
