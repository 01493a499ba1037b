/**
 * eth_getAccount (geth's and Anvil's) and eth_getAccountInfo (Anvil's): an account's fields in one request. Expected
 * values come from the single-field reads, ethers' keccak256 of the code, the empty trie's root, a storage proof
 * verified by @ethereumjs/mpt against the answered storageRoot, and Anvil 1.7.1's answers for the shape.
 */
import { describe, expect, it } from 'vitest'
import { verifyMerkleProof } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { bytesToBigInt, hexToBytes, KECCAK256_NULL_S, KECCAK256_RLP_S, setLengthLeft } from '@ethereumjs/util'
import { Interface, keccak256 } from 'ethers'
import { COW, deploy, fresh, rejects, send, useHttpServer } from './helpers.js'
import { Storage } from './fixtures/index.js'
import { useAnvil } from './anvil.js'

const ABSENT = '0x00000000000000000000000000000000000fe11a'
const storage = new Interface(Storage.abi as never)

describe('eth_getAccount and eth_getAccountInfo', async () => {
  const p = await fresh()
  const addr = await deploy(p, Storage)
  await send(p, { to: addr, data: storage.encodeFunctionData('inc') })
  const before = (await p.request({ method: 'eth_blockNumber' })) as string
  await send(p, { to: addr, data: storage.encodeFunctionData('inc') })
  const rpc = (method: string, params: unknown[]) => p.request({ method, params })

  it("answers a contract's nonce, balance, code hash and a storage root its slots prove against", async () => {
    const code = (await rpc('eth_getCode', [addr, 'latest'])) as string
    const account = (await rpc('eth_getAccount', [addr, 'latest'])) as Record<string, string>
    expect(Object.keys(account)).toEqual(['nonce', 'balance', 'storageRoot', 'codeHash'])
    expect(account.nonce).toBe(await rpc('eth_getTransactionCount', [addr, 'latest']))
    expect(account.balance).toBe(await rpc('eth_getBalance', [addr, 'latest']))
    expect(account.codeHash).toBe(keccak256(code))
    expect(account.storageRoot).not.toBe(KECCAK256_RLP_S)
    // Slot 1 (the counter `inc` raised twice) proves against the answered storage root.
    const proof = (await rpc('eth_getProof', [addr, ['0x1'], 'latest'])) as { storageProof: { proof: string[] }[] }
    const value = await verifyMerkleProof(setLengthLeft(hexToBytes('0x01'), 32), proof.storageProof[0]!.proof.map((n) => hexToBytes(n as `0x${string}`)), {
      root: hexToBytes(account.storageRoot as `0x${string}`),
      useKeyHashing: true,
    })
    expect(bytesToBigInt(RLP.decode(value!) as Uint8Array)).toBe(2n)
    // At an earlier block: that block's account (one increment).
    const earlier = (await rpc('eth_getAccount', [addr, before])) as Record<string, string>
    expect(earlier.storageRoot).not.toBe(account.storageRoot)
    expect(earlier.codeHash).toBe(account.codeHash)
  })

  it("answers an account's balance, nonce and code as eth_getBalance, eth_getTransactionCount and eth_getCode do", async () => {
    for (const [who, block] of [[COW, 'latest'], [addr, 'latest'], [COW, before], [ABSENT, 'latest']] as const) {
      const info = (await rpc('eth_getAccountInfo', [who, block])) as Record<string, string>
      expect(Object.keys(info)).toEqual(['balance', 'nonce', 'code'])
      expect(info).toEqual({
        balance: await rpc('eth_getBalance', [who, block]),
        nonce: await rpc('eth_getTransactionCount', [who, block]),
        code: await rpc('eth_getCode', [who, block]),
      })
    }
  })

  it('answers an absent account as empty, the block defaulting to latest', async () => {
    expect(await rpc('eth_getAccount', [ABSENT])).toEqual({ nonce: '0x0', balance: '0x0', storageRoot: KECCAK256_RLP_S, codeHash: KECCAK256_NULL_S })
    expect(await rpc('eth_getAccountInfo', [ABSENT])).toEqual({ balance: '0x0', nonce: '0x0', code: '0x' })
  })

  it('reads the pending block and the state a dev-chain edit left', async () => {
    const q = await fresh()
    await q.request({ method: 'anvil_setBalance', params: [ABSENT, '0x64'] })
    expect(await q.request({ method: 'eth_getAccount', params: [ABSENT, 'latest'] })).toMatchObject({ balance: '0x64' })
    await q.request({ method: 'evm_setAutomine', params: [false] })
    await q.request({ method: 'eth_sendTransaction', params: [{ from: COW, to: ABSENT, value: '0x1', gas: '0x5208' }] })
    expect(await q.request({ method: 'eth_getAccountInfo', params: [ABSENT, 'pending'] })).toMatchObject({ balance: '0x65' })
    expect(await q.request({ method: 'eth_getAccount', params: [ABSENT, 'pending'] })).toMatchObject({ balance: '0x65' })
    expect(await q.request({ method: 'eth_getAccountInfo', params: [ABSENT, 'latest'] })).toMatchObject({ balance: '0x64' })
  })

  it('answers coded errors for bad input, and -32601 in hosted mode', async () => {
    await rejects(rpc('eth_getAccount', ['0x12', 'latest']), -32602)
    await rejects(rpc('eth_getAccountInfo', [COW, '0x999']), -32600, 'Block 0x999 not found')
    const hosted = await fresh({ hosted: true })
    for (const m of ['eth_getAccount', 'eth_getAccountInfo']) await rejects(hosted.request({ method: m, params: [COW, 'latest'] }), -32601)
  })
})

describe('eth_getAccount and eth_getAccountInfo over HTTP, beside Anvil', () => {
  const http = useHttpServer()
  const anvil = useAnvil()

  it("answers an absent account as Anvil 1.7.1 does, in Anvil's field order", async () => {
    for (const m of ['eth_getAccount', 'eth_getAccountInfo']) {
      const ours = await http.rpc.send(m, [ABSENT, 'latest'])
      const theirs = await anvil.eth.send(m, [ABSENT, 'latest'])
      expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs))
    }
  })
})
