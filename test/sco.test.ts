/** sco_* peer scoring and net_peer* (reference §3.2, §3.9), in process and over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type RsksimServer } from '../src/server/index.js'
import { fresh, rejects } from './helpers.js'
import type { Provider } from '../src/index.js'

const call = (p: Provider, method: string, params: unknown[] = []): Promise<any> => p.request({ method, params })

const ZERO_SUMMARY = {
  count: 0,
  successfulHandshakes: 0,
  failedHandshakes: 0,
  invalidHeader: 0,
  validBlocks: 0,
  invalidBlocks: 0,
  validTransactions: 0,
  invalidTransactions: 0,
  invalidNetworks: 0,
  invalidMessages: 0,
  repeatedMessages: 0,
  timeoutMessages: 0,
  unexpectedMessages: 0,
  peersTotalScore: 0,
  punishments: 0,
  goodReputationCount: 0,
  badReputationCount: 0,
}

describe('sco_* in process', () => {
  let p: Provider
  beforeAll(async () => {
    p = await fresh()
  })

  it('a simulated node has no peers: sco_peerList, net_peerList empty, net_peerCount 0x0', async () => {
    expect(await call(p, 'sco_peerList')).toEqual([])
    expect(await call(p, 'net_peerList')).toEqual([])
    expect(await call(p, 'net_peerCount')).toBe('0x0')
    expect(await call(p, 'sco_clearPeerScoring', ['10.0.0.1'])).toEqual([])
    expect(await call(p, 'sco_clearPeerScoring', ['0xabcdef01'])).toEqual([])
    await rejects(call(p, 'sco_clearPeerScoring', ['not a node']), -32602, 'invalid node id not a node')
  })

  it('sco_reputationSummary sums zero peers, keys in RSKj field order', async () => {
    const summary = await call(p, 'sco_reputationSummary')
    expect(summary).toEqual(ZERO_SUMMARY)
    expect(Object.keys(summary)).toEqual(Object.keys(ZERO_SUMMARY))
  })

  it('bans and unbans addresses and CIDR blocks; lists addresses first, in Java text form', async () => {
    expect(await call(p, 'sco_bannedAddresses')).toEqual([])
    expect(await call(p, 'sco_banAddress', ['192.168.51.1/16'])).toBeNull()
    expect(await call(p, 'sco_banAddress', ['10.0.0.7'])).toBeNull()
    expect(await call(p, 'sco_banAddress', ['2001:db8::1'])).toBeNull()
    expect(await call(p, 'sco_banAddress', [' 10.0.0.7 '])).toBeNull() // trimmed, same entry
    expect(await call(p, 'sco_banAddress', ['::ffff:10.1.2.3'])).toBeNull() // IPv4-mapped → IPv4
    expect(await call(p, 'sco_banAddress', ['[2001:db8::2]/64'])).toBeNull()
    expect(await call(p, 'sco_bannedAddresses')).toEqual([
      '10.0.0.7',
      '2001:db8:0:0:0:0:0:1',
      '10.1.2.3',
      '192.168.51.1/16',
      '2001:db8:0:0:0:0:0:2/64',
    ])
    expect(await call(p, 'sco_unbanAddress', ['10.0.0.7'])).toBeNull()
    expect(await call(p, 'sco_unbanAddress', ['192.168.51.1/16'])).toBeNull()
    expect(await call(p, 'sco_unbanAddress', ['172.16.0.1'])).toBeNull() // not banned: no error
    expect(await call(p, 'sco_bannedAddresses')).toEqual(['2001:db8:0:0:0:0:0:1', '10.1.2.3', '2001:db8:0:0:0:0:0:2/64'])
  })

  it.each([
    'not-an-ip',
    '',
    '   ',
    '300.1.1.1',
    '127.0.0.1',
    '::1',
    '0.0.0.0',
    '10.0.0.1/0',
    '10.0.0.1/33',
    '2001:db8::1/129',
    '10.0.0.1/x',
    '10.0.0.1/8/9',
    'localhost',
    'fe80::1%eth0',
  ])('sco_banAddress refuses %j with -32602', async (bad) => {
    await rejects(call(p, 'sco_banAddress', [bad]), -32602, `invalid banned address ${bad}`)
    await rejects(call(p, 'sco_unbanAddress', [bad]), -32602, `invalid banned address ${bad}`)
  })

  it('sco_banAddress: null or a number is an invalid address; arity is exact', async () => {
    await rejects(call(p, 'sco_banAddress', [null]), -32602, 'invalid banned address null')
    await rejects(call(p, 'sco_banAddress', [17]), -32602, 'invalid banned address 17')
    await rejects(call(p, 'sco_banAddress', []), -32602, 'method parameters invalid')
    await rejects(call(p, 'sco_bannedAddresses', [1]), -32602, 'method parameters invalid')
  })
})

describe('sco_* over HTTP', () => {
  let server: RsksimServer
  beforeAll(async () => {
    server = await startServer({ port: 0 })
  })
  afterAll(() => server.close())

  const post = async (method: string, params: unknown[]) => {
    const res = await fetch(server.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
    return { status: res.status, body: (await res.json()) as any }
  }

  it('answers the same shapes; a bad address is HTTP 400 with -32602', async () => {
    expect(await post('sco_banAddress', ['8.8.8.8'])).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 1, result: null } })
    expect((await post('sco_bannedAddresses', [])).body.result).toEqual(['8.8.8.8'])
    expect((await post('sco_reputationSummary', [])).body.result).toEqual(ZERO_SUMMARY)
    expect((await post('net_peerCount', [])).body.result).toBe('0x0')
    expect(await post('sco_banAddress', ['8.8.8'])).toEqual({
      status: 400,
      body: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'invalid banned address 8.8.8' } },
    })
  })
})
