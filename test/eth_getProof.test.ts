/**
 * eth_getProof (spec "Account proof object"): every proof is checked with an independent Merkle-Patricia
 * verifier (@ethereumjs/mpt `verifyMerkleProof`) against the `stateRoot` that eth_getBlockByNumber reports and,
 * for slots, against the returned `storageHash`.
 */
import { describe, expect, it } from 'vitest'
import { verifyMerkleProof } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { bytesToBigInt, bytesToHex, hexToBytes, KECCAK256_NULL_S, KECCAK256_RLP_S, setLengthLeft } from '@ethereumjs/util'
import { keccak256, AbiCoder, Interface, JsonRpcProvider } from 'ethers'
import type { Provider } from '../src/index.js'
import { COW, COW1, deploy, fresh, rejects, send, useHttpServer } from './helpers.js'
import { Storage } from './fixtures/index.js'

interface ProofJson {
  address: string
  balance: string
  codeHash: string
  nonce: string
  storageHash: string
  accountProof: string[]
  storageProof: { key: string; value: string; proof: string[] }[]
}

const storage = new Interface(Storage.abi as never)
/** Slot of `slots[k]` (mapping at slot 0): keccak(pad(k) ++ pad(0)). */
const mappingSlot = (k: number): string => keccak256(AbiCoder.defaultAbiCoder().encode(['uint256', 'uint256'], [k, 0]))
const ABSENT = '0x00000000000000000000000000000000deadbeef'

async function stateRoot(p: Provider, block: string): Promise<Uint8Array> {
  const b = (await p.request({ method: 'eth_getBlockByNumber', params: [block, false] })) as { stateRoot: string }
  return hexToBytes(b.stateRoot as `0x${string}`)
}

const getProof = (p: Provider, addr: string, keys: string[], block = 'latest') =>
  p.request({ method: 'eth_getProof', params: [addr, keys, block] }) as Promise<ProofJson>

/** Verifies the account proof against `root`; returns the decoded account, or null for a proven absence. */
async function verifyAccount(proof: ProofJson, root: Uint8Array): Promise<bigint[] | null> {
  const nodes = proof.accountProof.map((n) => hexToBytes(n as `0x${string}`))
  const value = await verifyMerkleProof(hexToBytes(proof.address as `0x${string}`), nodes, { root, useKeyHashing: true })
  if (value === null) return null
  const [nonce, balance, storageRoot, codeHash] = RLP.decode(value) as Uint8Array[]
  expect(bytesToHex(storageRoot!)).toBe(proof.storageHash)
  expect(bytesToHex(codeHash!)).toBe(proof.codeHash)
  return [bytesToBigInt(nonce!), bytesToBigInt(balance!)]
}

/** Verifies one storage proof against the account's storageHash; returns the proven value (0 when absent). */
async function verifySlot(proof: ProofJson, i: number): Promise<bigint> {
  const s = proof.storageProof[i]!
  const key = setLengthLeft(hexToBytes(s.key as `0x${string}`), 32)
  const nodes = s.proof.map((n) => hexToBytes(n as `0x${string}`))
  const value = await verifyMerkleProof(key, nodes, { root: hexToBytes(proof.storageHash as `0x${string}`), useKeyHashing: true })
  return value === null ? 0n : bytesToBigInt(RLP.decode(value) as Uint8Array)
}

describe('eth_getProof', async () => {
  const p = await fresh()
  const addr = await deploy(p, Storage)
  await send(p, { to: addr, data: storage.encodeFunctionData('set', [1, 42]) })
  await send(p, { to: addr, data: storage.encodeFunctionData('inc') })
  const before = (await p.request({ method: 'eth_blockNumber' })) as string
  await send(p, { to: addr, data: storage.encodeFunctionData('set', [1, 43]) })

  it('proves a contract account and its slots against the latest stateRoot', async () => {
    const proof = await getProof(p, addr, [mappingSlot(1), '0x1', mappingSlot(9)])
    expect(Object.keys(proof)).toEqual(['address', 'balance', 'codeHash', 'nonce', 'storageHash', 'accountProof', 'storageProof'])
    expect(proof.address).toBe(addr.toLowerCase())
    const code = (await p.request({ method: 'eth_getCode', params: [addr, 'latest'] })) as string
    expect(proof.codeHash).toBe(keccak256(code))
    const account = await verifyAccount(proof, await stateRoot(p, 'latest'))
    expect(account).toEqual([BigInt(proof.nonce), BigInt(proof.balance)])
    expect(proof.storageProof.map((s) => s.value)).toEqual(['0x2b', '0x1', '0x0'])
    expect(BigInt(proof.storageProof[0]!.key)).toBe(BigInt(mappingSlot(1)))
    expect(proof.storageProof[1]!.key).toBe('0x1')
    expect(await verifySlot(proof, 0)).toBe(43n)
    expect(await verifySlot(proof, 1)).toBe(1n)
    expect(await verifySlot(proof, 2)).toBe(0n) // absent slot: a valid proof of absence
  })

  it('proves an externally owned account (balance, nonce, empty code and storage)', async () => {
    const proof = await getProof(p, COW, ['0x0'])
    const balance = (await p.request({ method: 'eth_getBalance', params: [COW, 'latest'] })) as string
    expect(proof.balance).toBe(balance)
    expect(proof.nonce).toBe(await p.request({ method: 'eth_getTransactionCount', params: [COW, 'latest'] }))
    expect(proof.codeHash).toBe(KECCAK256_NULL_S)
    expect(proof.storageHash).toBe(KECCAK256_RLP_S)
    expect(await verifyAccount(proof, await stateRoot(p, 'latest'))).toEqual([BigInt(proof.nonce), BigInt(balance)])
    expect(proof.storageProof).toEqual([{ key: '0x0', value: '0x0', proof: expect.any(Array) }])
  })

  it('proves an absent account absent', async () => {
    const proof = await getProof(p, ABSENT, ['0x5'])
    expect(proof).toMatchObject({ balance: '0x0', nonce: '0x0', codeHash: KECCAK256_NULL_S, storageHash: KECCAK256_RLP_S })
    expect(proof.accountProof.length).toBeGreaterThan(0)
    expect(await verifyAccount(proof, await stateRoot(p, 'latest'))).toBeNull()
    expect(proof.storageProof).toEqual([{ key: '0x5', value: '0x0', proof: [] }])
  })

  it('proves historical state against the historical stateRoot', async () => {
    const old = await getProof(p, addr, [mappingSlot(1)], before)
    expect(old.storageProof[0]!.value).toBe('0x2a')
    await verifyAccount(old, await stateRoot(p, before))
    expect(await verifySlot(old, 0)).toBe(42n)
    // The old proof does not verify against the newer root: the verifier is not a rubber stamp.
    await expect(verifyAccount(old, await stateRoot(p, 'latest'))).rejects.toThrow()
    const genesis = await getProof(p, COW, [], 'earliest')
    expect(genesis.nonce).toBe('0x0')
    expect(await verifyAccount(genesis, await stateRoot(p, '0x0'))).toEqual([0n, BigInt(genesis.balance)])
    // The contract did not exist at genesis.
    expect(await verifyAccount(await getProof(p, addr, [], '0x0'), await stateRoot(p, '0x0'))).toBeNull()
  })

  it('rejects a tampered proof', async () => {
    const proof = await getProof(p, COW1, [])
    const last = proof.accountProof.length - 1
    const bad = { ...proof, accountProof: [...proof.accountProof] }
    bad.accountProof[last] = bad.accountProof[last]!.slice(0, -2) + (bad.accountProof[last]!.endsWith('00') ? '01' : '00')
    await expect(verifyAccount(bad, await stateRoot(p, 'latest'))).rejects.toThrow()
  })

  it('defaults the keys to none and the block to latest; accepts a hash and an EIP-1898 map', async () => {
    const head = (await p.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as { hash: string }
    const plain = await p.request({ method: 'eth_getProof', params: [addr] })
    expect(await p.request({ method: 'eth_getProof', params: [addr, []] })).toEqual(plain)
    expect(await p.request({ method: 'eth_getProof', params: [addr, [], head.hash] })).toEqual(plain)
    expect(await p.request({ method: 'eth_getProof', params: [addr, [], { blockHash: head.hash }] })).toEqual(plain)
    expect((plain as ProofJson).storageProof).toEqual([])
  })

  it('proves the pending state: the pool\'s transactions applied, against the root the next block gets', async () => {
    const q = await fresh()
    const to = '0x' + '7a'.repeat(20)
    await q.request({ method: 'evm_setAutomine', params: [false] })
    await q.request({ method: 'eth_sendTransaction', params: [{ from: COW, to, value: '0x2a', gas: '0x5208' }] })
    const pending = await getProof(q, to, [], 'pending')
    expect(pending.balance).toBe('0x2a')
    expect(await getProof(q, to, [], 'latest')).toMatchObject({ balance: '0x0' })
    // A valid proof against its own root (the first node's hash), which the block mined next has as its stateRoot.
    const root = hexToBytes(keccak256(pending.accountProof[0]!) as `0x${string}`)
    expect(await verifyAccount(pending, root)).toEqual([0n, 42n])
    // Reading it changed nothing: the head's state is as before, and mining gives the proven root.
    expect(await getProof(q, to, [], 'latest')).toMatchObject({ balance: '0x0' })
    await q.request({ method: 'evm_mine' })
    expect(bytesToHex(await stateRoot(q, 'latest'))).toBe(bytesToHex(root))
    expect(await getProof(q, to, [], 'latest')).toEqual(pending)
  })

  it('proves the state a dev-chain edit left at latest, as eth_getBalance and eth_getStorageAt read it', async () => {
    const q = await fresh()
    const to = '0x' + '7b'.repeat(20)
    const headRoot = bytesToHex(await stateRoot(q, 'latest'))
    await q.request({ method: 'anvil_setBalance', params: [to, '0x1234'] })
    await q.request({ method: 'anvil_setStorageAt', params: [to, '0x0', '0x' + '11'.padStart(64, '0')] })
    expect(await q.request({ method: 'eth_getBalance', params: [to, 'latest'] })).toBe('0x1234')
    const proof = await getProof(q, to, ['0x0'])
    expect(proof.balance).toBe('0x1234')
    expect(proof.storageProof[0]!.value).toBe('0x11')
    // Against the live state's root (the first node's hash), not the head block's stateRoot, which the edit left behind.
    const root = keccak256(proof.accountProof[0]!)
    expect(root).not.toBe(headRoot)
    expect(await verifyAccount(proof, hexToBytes(root as `0x${string}`))).toEqual([0n, 0x1234n])
    expect(await verifySlot(proof, 0)).toBe(0x11n)
    // Anvil 1.7.1, given the same two edits by hand, answered this storageHash (one slot 0 holding 0x11).
    expect(proof.storageHash).toBe('0x3d060ab22dfb38810db7dd1bd799f455752baea6f1417b9468cd6eb1aec9cb1f')
    // The head block by number or hash is the same state; mining keeps the edit in the next block's state.
    const head = (await q.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as { number: string; hash: string }
    expect(await getProof(q, to, ['0x0'], head.number)).toEqual(proof)
    expect(await getProof(q, to, ['0x0'], head.hash)).toEqual(proof)
    await q.request({ method: 'evm_mine' })
    const mined = await getProof(q, to, ['0x0'])
    expect(await verifyAccount(mined, await stateRoot(q, 'latest'))).toEqual([0n, 0x1234n])
    expect(await verifySlot(mined, 0)).toBe(0x11n)
  })

  it('answers coded errors for bad input', async () => {
    await rejects(getProof(p, '0x1234', []), -32602, 'Invalid address: null, empty or invalid hex value.')
    await rejects(p.request({ method: 'eth_getProof', params: [COW, '0x0', 'latest'] }), -32602, /Invalid storage keys "?0x0"?: expected an array\./)
    await rejects(getProof(p, COW, ['0x' + '1'.repeat(65)]), -32602, /Invalid storage key 0x1{65}: expected 0x-prefixed hex of at most 32 bytes\./)
    await rejects(getProof(p, COW, ['zz']), -32602, /Invalid storage key zz/)
    await rejects(getProof(p, COW, [], '0x999'), -32600, 'Block 0x999 not found')
    await rejects(getProof(p, COW, [], 'safe'), -32602, "Invalid block identifier 'safe'")
    await rejects(p.request({ method: 'eth_getProof', params: [] }), -32602, 'method parameters invalid')
  })
})

describe('eth_getProof over HTTP (ethers JsonRpcProvider)', () => {
  const http = useHttpServer()

  it('answers a proof that verifies against the block stateRoot', async () => {
    const { rpc: client } = http
    const proof = (await client.send('eth_getProof', [COW, [], 'latest'])) as ProofJson
    const block = await client.send('eth_getBlockByNumber', ['latest', false])
    expect(await verifyAccount(proof, hexToBytes(block.stateRoot))).toEqual([0n, BigInt(proof.balance)])
    client.destroy()
  })

  it('answers a proof of the pending state', async () => {
    const client = new JsonRpcProvider(http.server.url, undefined, { staticNetwork: true })
    const to = '0x' + '7e'.repeat(20)
    await client.send('evm_setAutomine', [false])
    await client.send('eth_sendTransaction', [{ from: COW, to, value: '0x3', gas: '0x5208' }])
    const proof = (await client.send('eth_getProof', [to, [], 'pending'])) as ProofJson
    expect(proof.balance).toBe('0x3')
    expect(await verifyAccount(proof, hexToBytes(keccak256(proof.accountProof[0]!) as `0x${string}`))).toEqual([0n, 3n])
    await client.send('evm_setAutomine', [true])
    client.destroy()
  })
})
