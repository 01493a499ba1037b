/** Bad input of every shape gets the documented JSON-RPC error; nothing crashes the provider. */
import { beforeAll, describe, expect, it } from 'vitest'
import type { Provider } from '../src/index.js'
import { COW, fresh, rejects } from './helpers.js'

let p: Provider
beforeAll(async () => {
  p = await fresh()
})

const call = (method: string, params?: unknown) => p.request({ method, params: params as unknown[] })

describe('method lookup', () => {
  it('unknown methods answer -32601 method not found', async () => {
    await rejects(call('eth_foo'), -32601, 'method not found')
    await rejects(call('shh_version'), -32601, 'method not found')
    await rejects(call('constructor'), -32601, 'method not found')
    await rejects(call('__proto__'), -32601, 'method not found')
  })

  it('unsupported methods answer -32601 with the reference text', async () => {
    await rejects(call('eth_compileSolidity', ['x']), -32601, 'the method eth_compileSolidity does not exist/is not available')
    await rejects(call('db_getString', ['a', 'b']), -32601, 'the method db_getString does not exist/is not available')
    await rejects(call('eth_getCompilers'), -32601, 'the method eth_getCompilers does not exist/is not available')
  })
})

describe('parameters', () => {
  it('wrong arity answers -32602 method parameters invalid', async () => {
    await rejects(call('eth_getBalance', []), -32602, 'method parameters invalid')
    await rejects(call('eth_blockNumber', [1]), -32602, 'method parameters invalid')
    await rejects(call('eth_getBalance', [COW, 'latest', 'extra']), -32602, 'method parameters invalid')
    await rejects(call('eth_getBalance', { address: COW }), -32602, 'method parameters invalid')
    expect(await call('eth_blockNumber', {})).toBe('0x0')
  })

  it('addresses: length and hex', async () => {
    await rejects(call('eth_getBalance', ['0x12']), -32602, 'Invalid address: null, empty or invalid hex value.')
    await rejects(call('eth_getBalance', [42]), -32602, 'Invalid address: null, empty or invalid hex value.')
    await rejects(call('eth_getBalance', ['0x' + 'zz'.repeat(20)]), -32602, 'Invalid address format: invalid hex value.')
    expect(await call('eth_getBalance', [COW.toUpperCase().replace('0X', '0x')])).toBe('0x' + (10n ** 30n).toString(16))
  })

  it('hashes: length and hex', async () => {
    await rejects(call('eth_getTransactionByHash', ['0x1234']), -32602, 'Invalid transaction hash: incorrect length.')
    await rejects(call('eth_getBlockByHash', ['0x' + 'g'.repeat(64), false]), -32602, 'Invalid block hash format: invalid hex value')
    expect(await call('eth_getTransactionByHash', ['0x' + '00'.repeat(32)])).toBeNull()
    expect(await call('eth_getBlockByHash', ['0x' + '00'.repeat(32), false])).toBeNull()
    expect(await call('eth_getTransactionReceipt', ['0x' + '00'.repeat(32)])).toBeNull()
  })

  it('quantities, indexes and booleans', async () => {
    await rejects(call('eth_getStorageAt', [COW, 'slot', 'latest']), -32602, 'Invalid param slot: value must be a valid hex or string number.')
    await rejects(call('eth_getTransactionByBlockNumberAndIndex', ['latest', '0xA']), -32602, 'Invalid argument "0xA": param should be a hex value string.')
    await rejects(call('eth_getBlockByNumber', ['latest', 'yes']), -32602, /param should be a boolean/)
    expect(await call('eth_getStorageAt', [COW, '0', 'latest'])).toBe('0x' + '00'.repeat(32))
  })

  it('block selectors: tags, numbers, hashes, maps and unknown blocks', async () => {
    const genesis: any = await call('eth_getBlockByNumber', ['0x0', false])
    const balance = '0x' + (10n ** 30n).toString(16)
    expect(await call('eth_getBalance', [COW, '0x0'])).toBe(balance)
    expect(await call('eth_getBalance', [COW, genesis.hash])).toBe(balance)
    expect(await call('eth_getBalance', [COW, { blockHash: genesis.hash }])).toBe(balance)
    expect(await call('eth_getBalance', [COW, { blockNumber: '0x0' }])).toBe(balance)
    expect(await call('eth_getBalance', [COW, 'earliest'])).toBe(balance)
    expect(await call('eth_getBalance', [COW, 'pending'])).toBe(balance)
    await rejects(call('eth_getBalance', [COW, '0x99']), -32600, 'Block 0x99 not found')
    await rejects(call('eth_getBalance', [COW, { blockHash: '0x' + '11'.repeat(32) }]), -32600, /Block with hash 0x1111.* not found/)
    await rejects(call('eth_getBalance', [COW, 'safe']), -32602, "Invalid block identifier 'safe'")
    await rejects(call('eth_getBalance', [COW, 'Latest']), -32602, "Invalid block identifier 'Latest'")
    await rejects(call('eth_getBlockByNumber', ['finalized', false]), -32602, 'invalid blocknumber finalized')
    expect(await call('eth_getBlockByNumber', ['0x99', false])).toBeNull()
    expect(await call('eth_getCode', [COW, '0x99'])).toBeNull()
  })

  it('pending is refused by the five methods the spec lists', async () => {
    for (const [method, params] of [
      ['eth_getBlockByNumber', ['pending', false]],
      ['eth_getCode', [COW, 'pending']],
      ['eth_getUncleCountByBlockNumber', ['pending']],
      ['eth_getTransactionByBlockNumberAndIndex', ['pending', '0x0']],
      ['eth_getUncleByBlockNumberAndIndex', ['pending', '0x0']],
    ] as const) {
      await rejects(call(method, params), -32201, /don't support 'pending'/)
    }
    expect(await call('eth_getBlockTransactionCountByNumber', ['pending'])).toBe('0x0')
  })

  it('omitted optional block selectors mean latest', async () => {
    expect(await call('eth_getBalance', [COW])).toBe(await call('eth_getBalance', [COW, 'latest']))
    expect(await call('eth_getTransactionCount', [COW])).toBe('0x0')
    expect(await call('eth_getCode', [COW])).toBe('0x')
    expect(await call('eth_call', [{ to: COW }])).toBe('0x')
  })
})

describe('envelopes (handleJsonRpc, as the HTTP server uses it)', () => {
  it('answers single requests with jsonrpc, id, result in that order', async () => {
    const res = await p.handleJsonRpc({ jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] })
    expect(JSON.stringify(res)).toBe('{"jsonrpc":"2.0","id":7,"result":"0x21"}')
  })

  it('answers batches in order and leaves notifications out', async () => {
    const res = await p.handleJsonRpc([
      { jsonrpc: '2.0', id: 1, method: 'eth_chainId' },
      { jsonrpc: '2.0', method: 'eth_blockNumber' },
      { jsonrpc: '2.0', id: 'x', method: 'nope' },
      42,
    ])
    expect(res).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0x21' },
      { jsonrpc: '2.0', id: 'x', error: { code: -32601, message: 'method not found' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } },
    ])
  })

  it('refuses malformed envelopes with -32600', async () => {
    expect(await p.handleJsonRpc('hello')).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } })
    expect(await p.handleJsonRpc([])).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } })
    expect(await p.handleJsonRpc({ jsonrpc: '2.0', id: { a: 1 }, method: 'eth_chainId' })).toMatchObject({ error: { code: -32600 } })
    expect(await p.handleJsonRpc({ jsonrpc: '1.0', id: 1, method: 'eth_chainId' })).toMatchObject({ id: 1, error: { code: -32600 } })
    expect(await p.handleJsonRpc({ jsonrpc: '2.0', id: 1 })).toMatchObject({ id: 1, error: { code: -32601 } })
  })

  it('refuses batches over the limit whole', async () => {
    const batch = Array.from({ length: 51 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId' }))
    expect(await p.handleJsonRpc(batch)).toEqual({
      error: { code: -32600, message: 'Cannot dispatch batch requests. 50 is the max number of supported batch requests' },
    })
  })
})

describe('EIP-1193 and legacy entry points', () => {
  it('request without params, and malformed request arguments', async () => {
    expect(await p.request({ method: 'eth_chainId' })).toBe('0x21')
    await rejects(p.request(null as never), -32600)
    await rejects(p.request({ method: 5 } as never), -32600)
  })

  it('send(payload, callback) and sendAsync answer envelopes, batches included', async () => {
    const single = await new Promise((resolve, reject) =>
      p.send({ jsonrpc: '2.0', id: 1, method: 'net_version', params: [] }, (e, r) => (e ? reject(e) : resolve(r))),
    )
    expect(single).toEqual({ jsonrpc: '2.0', id: 1, result: '33' })
    const batch = await new Promise((resolve, reject) =>
      p.sendAsync([{ jsonrpc: '2.0', id: 1, method: 'eth_chainId' }, { jsonrpc: '2.0', id: 2, method: 'net_version' }], (e, r) =>
        e ? reject(e) : resolve(r),
      ),
    )
    expect(batch).toEqual([
      { jsonrpc: '2.0', id: 1, result: '0x21' },
      { jsonrpc: '2.0', id: 2, result: '33' },
    ])
    expect(await p.send('eth_chainId', [])).toBe('0x21')
  })

  it('keeps answering after a flood of bad requests', async () => {
    const junk = [null, 1, 'x', [], {}, { method: 1 }, { method: 'eth_getBalance', params: 'x' }]
    for (const j of junk) await p.handleJsonRpc(j)
    expect(await p.request({ method: 'eth_chainId' })).toBe('0x21')
  })
})
