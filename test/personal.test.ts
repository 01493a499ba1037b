/** personal_* (reference §3.5) through provider.request, ethers' JsonRpcSigner and HTTP. */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { BrowserProvider, Wallet, keccak256, parseEther, toUtf8Bytes, verifyMessage, hexlify } from 'ethers'
import { COW, COW1, MINER, fresh, rejects, useHttpServer } from './helpers.js'
import type { Provider } from '../src/index.js'

const call = (p: Provider, method: string, params: unknown[] = []): Promise<any> => p.request({ method, params })
const INTERNAL = [-32603, 'Internal server error'] as const

describe('personal_* accounts and listing', () => {
  let p: Provider
  beforeAll(async () => {
    p = await fresh()
  })

  it('personal_listAccounts equals eth_accounts: the ten cow accounts, then the miner coinbase', async () => {
    const list = await call(p, 'personal_listAccounts')
    expect(list).toHaveLength(11)
    expect(list[0]).toBe(COW)
    expect(list[1]).toBe(COW1)
    expect(list[10]).toBe(MINER)
    expect(await call(p, 'eth_accounts')).toEqual(list)
  })

  it('personal_newAccountWithSeed: key = keccak256(seed), unlocked, listed with the seeded accounts before the coinbase', async () => {
    const addr = await call(p, 'personal_newAccountWithSeed', ['alice'])
    const expected = new Wallet(keccak256(toUtf8Bytes('alice')))
    expect(addr).toBe(expected.address.toLowerCase())
    expect(await call(p, 'personal_dumpRawKey', [addr])).toBe(expected.privateKey)
    const list = await call(p, 'personal_listAccounts')
    expect(list.indexOf(addr)).toBe(10)
    expect(list[11]).toBe(MINER)
    // Seed accounts are not in the key store: unlock says false, and they are still listed once locked.
    expect(await call(p, 'personal_unlockAccount', [addr, 'x', null])).toBe(false)
    expect(await call(p, 'personal_lockAccount', [addr])).toBe(true)
    expect(await call(p, 'personal_lockAccount', [addr])).toBe(false)
    expect(await call(p, 'eth_accounts')).toContain(addr)
    await rejects(call(p, 'personal_dumpRawKey', [addr]), ...INTERNAL)
    await rejects(call(p, 'eth_sign', [addr, '0x01']), -32602, 'Account not found')
  })

  it('personal_newAccount: a stored key, unlocked for 30 minutes, listed last; passphrase checked on unlock', async () => {
    const addr = await call(p, 'personal_newAccount', ['correct horse'])
    expect(addr).toMatch(/^0x[0-9a-f]{40}$/)
    expect((await call(p, 'eth_accounts')).at(-1)).toBe(addr)
    const key = await call(p, 'personal_dumpRawKey', [addr])
    expect(new Wallet(key).address.toLowerCase()).toBe(addr)

    expect(await call(p, 'personal_lockAccount', [addr])).toBe(true)
    await rejects(call(p, 'personal_dumpRawKey', [addr]), ...INTERNAL)
    await rejects(call(p, 'eth_sendTransaction', [{ from: addr, to: COW }]), -32602, `Could not find account for address: ${addr}`)
    expect(await call(p, 'eth_accounts')).toContain(addr) // still in the key store
    await rejects(call(p, 'personal_unlockAccount', [addr, 'wrong', '0x3e8']), ...INTERNAL)
    expect(await call(p, 'personal_unlockAccount', [addr, 'correct horse', '0x3e8'])).toBe(true)
    const sig = await call(p, 'eth_sign', [addr, hexlify(toUtf8Bytes('hi'))])
    expect(verifyMessage('hi', sig).toLowerCase()).toBe(addr)
  })

  it('personal_unlockAccount: false for accounts outside the key store', async () => {
    expect(await call(p, 'personal_unlockAccount', [COW, 'x', ''])).toBe(false)
    expect(await call(p, 'personal_unlockAccount', ['0x' + '12'.repeat(20), 'x', null])).toBe(false)
  })

  it('personal_unlockAccount: duration is 0x-hex milliseconds, three parameters exactly', async () => {
    const addr = await call(p, 'personal_newAccount', ['pw'])
    await rejects(call(p, 'personal_unlockAccount', [addr, 'pw']), -32602, 'method parameters invalid')
    await rejects(call(p, 'personal_unlockAccount', [addr, 'pw', '0X10']), -32602, 'Invalid argument "0X10": param should be a hex value string.')
    await rejects(call(p, 'personal_unlockAccount', [addr, 'pw', '0xAB']), -32602, 'Invalid argument "0xAB": param should be a hex value string.')
    await rejects(call(p, 'personal_unlockAccount', [addr, 'pw', 300]), -32602, 'Invalid argument "300": param should be a hex value string.')
    await rejects(call(p, 'personal_unlockAccount', [addr, 'pw', '0x']), -32602, 'Invalid duration param: value must be a valid hex number.')
    await rejects(call(p, 'personal_unlockAccount', [addr, 'pw', '0x' + 'f'.repeat(17)]), -32602, 'Invalid duration param: value must be a valid hex number.')
    // HexStringParam quotes a text past 66 characters with co/rsk/util/StringUtils.trim: its first 66 characters and '...'.
    await rejects(call(p, 'personal_unlockAccount', [addr, 'pw', '0x' + '0'.repeat(65)]), -32602, `Invalid argument: 0x${'0'.repeat(64)}...`)
    await rejects(call(p, 'personal_unlockAccount', ['0x12', 'pw', null]), -32602, 'Invalid address: null, empty or invalid hex value.')
    await rejects(call(p, 'personal_unlockAccount', [addr, 7, null]), -32602)
  })

  it('personal_importRawKey: any case, 0x optional; bad keys refused with RSKj codes', async () => {
    const w = Wallet.createRandom()
    const addr = await call(p, 'personal_importRawKey', [w.privateKey.slice(2).toUpperCase(), 'pw'])
    expect(addr).toBe(w.address.toLowerCase())
    expect(await call(p, 'personal_dumpRawKey', [addr])).toBe(w.privateKey) // unlocked at once
    expect(await call(p, 'personal_importRawKey', [w.privateKey, 'other'])).toBe(addr) // replaces the stored key
    await rejects(call(p, 'personal_unlockAccount', [addr, 'pw', null]), ...INTERNAL)
    expect(await call(p, 'personal_unlockAccount', [addr, 'other', null])).toBe(true)
    await rejects(call(p, 'personal_importRawKey', ['zz', 'pw']), -32602, 'Invalid param zz: value must be a valid hex.')
    await rejects(call(p, 'personal_importRawKey', [null, 'pw']), -32602, 'Key cannot be null.')
    await rejects(call(p, 'personal_importRawKey', ['0x00', 'pw']), ...INTERNAL)
    await rejects(call(p, 'personal_importRawKey', ['0x123', 'pw']), ...INTERNAL)
    await rejects(call(p, 'personal_importRawKey', ['0x' + 'ff'.repeat(32), 'pw']), ...INTERNAL)
    await rejects(call(p, 'personal_importRawKey', [w.privateKey]), -32602, 'method parameters invalid')
  })

  it('personal_dumpRawKey / personal_lockAccount validate the address', async () => {
    await rejects(call(p, 'personal_dumpRawKey', ['0x' + '00'.repeat(20)]), ...INTERNAL)
    await rejects(call(p, 'personal_lockAccount', ['nope']), -32602, 'Invalid address: null, empty or invalid hex value.')
    expect(await call(p, 'personal_lockAccount', ['0x' + '00'.repeat(20)])).toBe(false)
  })
})

describe('personal_unlockAccount expiry', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('an unlock ends after its duration; the key stays listed', async () => {
    const p = await fresh()
    const addr = await call(p, 'personal_newAccount', ['pw'])
    vi.useFakeTimers({ toFake: ['Date'] })
    expect(await call(p, 'personal_unlockAccount', [addr, 'pw', '0x3e8'])).toBe(true)
    expect(await call(p, 'personal_dumpRawKey', [addr])).toMatch(/^0x[0-9a-f]{64}$/)
    vi.setSystemTime(Date.now() + 1_001)
    await rejects(call(p, 'personal_dumpRawKey', [addr]), ...INTERNAL)
    expect(await call(p, 'eth_accounts')).toContain(addr)
  })

  it('a duration whose end passes a Java long (Wallet.unlockAccount: currentTimeMillis() + duration wraps) answers true and unlocks nothing', async () => {
    const p = await fresh()
    const addr = await call(p, 'personal_newAccount', ['pw'])
    expect(await call(p, 'personal_unlockAccount', [addr, 'pw', '0x7fffffffffffffff'])).toBe(true)
    await rejects(call(p, 'eth_sign', [addr, '0x00']), -32602, 'Account not found')
    // 0x7fff000000000000 ms from now (2^63 − 2^48) still fits: unlocked for some 292 million years.
    expect(await call(p, 'personal_unlockAccount', [addr, 'pw', '0x7fff000000000000'])).toBe(true)
    expect(await call(p, 'eth_sign', [addr, '0x00'])).toMatch(/^0x[0-9a-f]{130}$/)
  })
})

describe('personal_sendTransaction', () => {
  it('signs with the passphrase (locked or not) and sends with eth_sendTransaction defaults', async () => {
    const p = await fresh()
    const addr = await call(p, 'personal_newAccount', ['s3cret'])
    await call(p, 'eth_sendTransaction', [{ from: COW, to: addr, value: '0xde0b6b3a7640000' }])
    expect(await call(p, 'personal_lockAccount', [addr])).toBe(true)
    const hash = await call(p, 'personal_sendTransaction', [{ from: addr, to: COW1, value: '0x64' }, 's3cret'])
    const receipt = await call(p, 'eth_getTransactionReceipt', [hash])
    expect(receipt.status).toBe('0x1')
    expect(receipt.from).toBe(addr)
    const tx = await call(p, 'eth_getTransactionByHash', [hash])
    expect([tx.gas, tx.gasPrice, tx.value, tx.nonce]).toEqual(['0x15f90', '0x0', '0x64', '0x0'])
    expect(await call(p, 'eth_getBalance', [addr, 'latest'])).toBe('0xde0b6b3a763ff9c')

    await rejects(call(p, 'personal_sendTransaction', [{ from: addr, to: COW1 }, 'wrong']), ...INTERNAL)
    await rejects(call(p, 'personal_sendTransaction', [{ from: COW, to: COW1 }, '']), ...INTERNAL) // seed account: no stored key
    await rejects(call(p, 'personal_sendTransaction', [{ to: COW1 }, 's3cret']), ...INTERNAL)
    await rejects(call(p, 'personal_sendTransaction', [{ from: addr, to: COW1, nonce: '0x0' }, 's3cret']), -32010, 'transaction nonce too low')
    await rejects(call(p, 'personal_sendTransaction', [{ from: addr, to: COW1, chainId: '0x1e' }, 's3cret']), -32602, 'Invalid chainId: 30')
    await rejects(call(p, 'personal_sendTransaction', [{ from: addr, to: COW1 }]), -32602, 'method parameters invalid')
  })

  it('an account from personal_newAccount signs through ethers JsonRpcSigner once unlocked', async () => {
    const p = await fresh()
    const ethers = new BrowserProvider(p)
    const addr = await call(p, 'personal_newAccount', ['pw'])
    const cow = await ethers.getSigner(COW)
    await (await cow.sendTransaction({ to: addr, value: parseEther('2') })).wait()
    await call(p, 'personal_lockAccount', [addr])
    const signer = await ethers.getSigner(addr)
    await expect(signer.sendTransaction({ to: COW1, value: 1n })).rejects.toThrow(/Could not find account/)
    expect(await call(p, 'personal_unlockAccount', [addr, 'pw', null])).toBe(true)
    const receipt = await (await signer.sendTransaction({ to: COW1, value: parseEther('1') })).wait()
    expect(receipt?.status).toBe(1)
    expect(receipt?.from.toLowerCase()).toBe(addr)
    expect(await ethers.getBalance(addr)).toBe(parseEther('1'))
  })
})

describe('personal_* with hosted: true', () => {
  it('every personal_* answers -32604 and eth_accounts is []', async () => {
    const p = await fresh({ hosted: true })
    const calls: [string, unknown[]][] = [
      ['personal_newAccount', ['pw']],
      ['personal_newAccountWithSeed', ['cow']],
      ['personal_importRawKey', ['0x' + '11'.repeat(32), 'pw']],
      ['personal_listAccounts', []],
      ['personal_unlockAccount', [COW, 'pw', null]],
      ['personal_lockAccount', [COW]],
      ['personal_dumpRawKey', [COW]],
      ['personal_sendTransaction', [{ from: COW, to: COW1 }, 'pw']],
    ]
    for (const [m, params] of calls) await rejects(call(p, m, params), -32604, 'The local wallet feature is disabled')
    expect(await call(p, 'eth_accounts')).toEqual([])
  })
})

describe('personal_* over HTTP', () => {
  const http = useHttpServer()

  it('creates, lists, unlocks and sends; errors keep their codes and HTTP statuses', async () => {
    const addr: string = await http.rpc.send('personal_newAccount', ['pw'])
    expect(await http.rpc.send('personal_listAccounts', [])).toContain(addr)
    await http.rpc.send('eth_sendTransaction', [{ from: COW, to: addr, value: '0x3e8' }])
    const hash: string = await http.rpc.send('personal_sendTransaction', [{ from: addr, to: COW1, value: '0x1' }, 'pw'])
    expect((await http.rpc.send('eth_getTransactionReceipt', [hash])).status).toBe('0x1')

    const post = async (method: string, params: unknown[]) => {
      const res = await fetch(http.server.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }) })
      return { status: res.status, body: (await res.json()) as any }
    }
    expect(await post('personal_unlockAccount', [addr, 'bad', null])).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'Internal server error' } } })
    const bad = await post('personal_unlockAccount', [addr, 'pw', 'ten'])
    expect(bad.status).toBe(400)
    expect(bad.body.error).toEqual({ code: -32602, message: 'Invalid argument "ten": param should be a hex value string.' })
  })
})
