/**
 * debug_storageRangeAt (geth's; Ganache's): a contract's storage just before transaction txIndex of a block ran, in
 * the order of keccak256(slot), paged by keyStart/maxResult/nextKey. Expected slots are computed here with ethers
 * (keccak256 of the slot, Solidity's mapping layout) from what the transactions wrote, and checked against
 * eth_getStorageAt at the blocks around the one replayed.
 */
import { describe, expect, it } from 'vitest'
import { AbiCoder, Interface, keccak256, toBeHex, zeroPadValue } from 'ethers'
import { MemoryLevel } from 'memory-level'
import { createProvider, type Provider } from '../src/index.js'
import { Storage } from './fixtures/index.js'
import { COW, NO_QUOTA, deploy, fresh, rejects, send, useHttpServer, rq as rpc } from './helpers.js'

const iface = new Interface(Storage.abi as never)
const word = (n: bigint | number): string => zeroPadValue(toBeHex(n), 32)
/** Storage.sol: `slots` is a mapping at slot 0 (entry k at keccak256(k . 0)); `counter` is slot 1. */
const mapSlot = (k: number): string => keccak256(AbiCoder.defaultAbiCoder().encode(['uint256', 'uint256'], [k, 0]))
const COUNTER = word(1)

/** The answer expected for these slots (slot → value), ordered by keccak256(slot) as a trie walk orders them. */
function expected(slots: Record<string, bigint>, keys = true): Record<string, { key: string | null; value: string }> {
  const entries = Object.entries(slots).map(([slot, v]) => [keccak256(slot), { key: keys ? slot : null, value: word(v) }] as const)
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : 1)))
}

/**
 * Deploys Storage, then mines one block with four transactions from cow: set(1, 11), set(2, 22), inc(), clear(1).
 * Answers the contract and the block.
 */
async function fourInOneBlock(p: Provider): Promise<{ contract: string; block: any }> {
  const contract = await deploy(p, Storage)
  await rpc(p, 'evm_setAutomine', [false])
  const calls = [iface.encodeFunctionData('set', [1, 11]), iface.encodeFunctionData('set', [2, 22]), iface.encodeFunctionData('inc'), iface.encodeFunctionData('clear', [1])]
  for (const data of calls) await rpc(p, 'eth_sendTransaction', [{ from: COW, to: contract, data, gas: '0x30d40' }])
  await rpc(p, 'evm_mine')
  const block = await rpc(p, 'eth_getBlockByNumber', ['latest', false])
  expect(block.transactions).toHaveLength(5) // four, and REMASC's
  return { contract, block }
}

describe('debug_storageRangeAt', () => {
  it('answers the storage before each transaction of a block, in keccak order, with the slots as keys', async () => {
    const p = await fresh()
    const { contract, block } = await fourInOneBlock(p)
    const before = [
      {},
      { [mapSlot(1)]: 11n },
      { [mapSlot(1)]: 11n, [mapSlot(2)]: 22n },
      { [mapSlot(1)]: 11n, [mapSlot(2)]: 22n, [COUNTER]: 1n },
      { [mapSlot(2)]: 22n, [COUNTER]: 1n }, // before REMASC's: after the four
    ]
    for (let i = 0; i < before.length; i++) {
      const r = await rpc(p, 'debug_storageRangeAt', [block.hash, i, contract, '0x00', 100])
      expect({ i, ...r }).toEqual({ i, storage: expected(before[i]!), nextKey: null })
      // Object order is trie order: the keys ascend.
      expect(Object.keys(r.storage)).toEqual([...Object.keys(r.storage)].sort())
    }
    // The first and last agree with eth_getStorageAt at the parent and at the block (REMASC leaves the contract alone).
    const parent = '0x' + (BigInt(block.number) - 1n).toString(16)
    for (const [slot, v] of Object.entries(before[4]!)) expect(BigInt(await rpc(p, 'eth_getStorageAt', [contract, slot, block.number]))).toBe(v)
    for (const slot of [mapSlot(1), mapSlot(2), COUNTER]) expect(await rpc(p, 'eth_getStorageAt', [contract, slot, parent])).toBe(word(0))
  })

  it('pages with maxResult and nextKey, and starts at a keyStart prefix as geth compares it', async () => {
    const p = await fresh()
    const { contract, block } = await fourInOneBlock(p)
    const all = expected({ [mapSlot(1)]: 11n, [mapSlot(2)]: 22n, [COUNTER]: 1n })
    const hashes = Object.keys(all)
    // One at a time, each nextKey the next hash.
    let start = '0x'
    const seen: string[] = []
    for (let n = 0; n < 3; n++) {
      const r = await rpc(p, 'debug_storageRangeAt', [block.hash, 3, contract, start, 1])
      expect(Object.keys(r.storage)).toEqual([hashes[n]])
      expect(r.nextKey).toBe(hashes[n + 1] ?? null)
      seen.push(...Object.keys(r.storage))
      start = r.nextKey
    }
    expect(seen).toEqual(hashes)
    // maxResult 0: nothing, and where to start.
    expect(await rpc(p, 'debug_storageRangeAt', [block.hash, 3, contract, '0x', 0])).toEqual({ storage: {}, nextKey: hashes[0] })
    // A two-byte prefix just past the first hash's: the first is skipped, a prefix just below keeps it.
    const firstTwo = parseInt(hashes[0]!.slice(2, 6), 16)
    const past = '0x' + (firstTwo + 1).toString(16).padStart(4, '0')
    const r = await rpc(p, 'debug_storageRangeAt', [block.hash, 3, contract, past, 10])
    expect(Object.keys(r.storage)).toEqual(hashes.filter((h) => h.slice(2, 6) > past.slice(2)))
    const below = '0x' + (firstTwo - 1).toString(16).padStart(4, '0')
    if (firstTwo > 0) expect(Object.keys((await rpc(p, 'debug_storageRangeAt', [block.hash, 3, contract, below, 10])).storage)).toEqual(hashes)
    // The hash itself as keyStart includes it (geth: the iterator starts at the key).
    expect(Object.keys((await rpc(p, 'debug_storageRangeAt', [block.hash, 3, contract, hashes[1], 10])).storage)).toEqual(hashes.slice(1))
  })

  it('lays the slots a replay deleted over the trie, page after page', async () => {
    const p = await fresh()
    const contract = await deploy(p, Storage)
    const accounts: string[] = await rpc(p, 'eth_accounts')
    const sendFrom = async (i: number, data: string) => rpc(p, 'eth_sendTransaction', [{ from: accounts[i % accounts.length], to: contract, data, gas: '0x30d40' }])
    const n = 40
    for (let k = 0; k < n; k++) await send(p, { to: contract, data: iface.encodeFunctionData('set', [k, k + 1]) })
    // One block clearing 0, 3, 6, … from several senders: before its transaction 7, the clears the miner put first.
    await rpc(p, 'evm_setAutomine', [false])
    for (let k = 0, i = 0; k < n; k += 3, i++) await sendFrom(i, iface.encodeFunctionData('clear', [k]))
    await rpc(p, 'evm_mine')
    const block = await rpc(p, 'eth_getBlockByNumber', ['latest', true])
    expect(block.transactions.length).toBe(Math.ceil(n / 3) + 1)
    const clearedFirst = block.transactions.slice(0, 7).map((t: any) => Number(iface.decodeFunctionData('clear', t.input)[0]))
    expect(clearedFirst).toHaveLength(7)
    const slots: Record<string, bigint> = {}
    for (let k = 0; k < n; k++) if (!clearedFirst.includes(k)) slots[mapSlot(k)] = BigInt(k + 1)
    const want = expected(slots)
    const got: Record<string, unknown> = {}
    let start: string | null = '0x'
    let pages = 0
    while (start !== null) {
      const r = await rpc(p, 'debug_storageRangeAt', [block.hash, 7, contract, start, 4])
      expect(Object.keys(r.storage).length).toBeLessThanOrEqual(4)
      Object.assign(got, r.storage)
      start = r.nextKey
      pages++
    }
    expect(got).toEqual(want)
    expect(Object.keys(got)).toEqual(Object.keys(want))
    expect(pages).toBe(Math.ceil(Object.keys(want).length / 4))
  })

  it('answers at most 1,024 slots, with the nextKey to go on from', async () => {
    const p = await fresh()
    const contract = await deploy(p, Storage)
    const slots: Record<string, bigint> = {}
    for (let k = 1; k <= 1100; k++) {
      slots[word(k + 100)] = BigInt(k)
      await rpc(p, 'anvil_setStorageAt', [contract, word(k + 100), word(k)])
    }
    // The edits are in the live state: the next block's state is built on them, so they are its transactions' prestate.
    await rpc(p, 'evm_mine')
    const r0 = await send(p, { to: contract, data: iface.encodeFunctionData('inc') })
    const hashes = Object.keys(expected(slots))
    const r = await rpc(p, 'debug_storageRangeAt', [r0.blockHash, 0, contract, '0x', 5000])
    expect(Object.keys(r.storage)).toEqual(hashes.slice(0, 1024))
    expect(r.nextKey).toBe(hashes[1024])
    const rest = await rpc(p, 'debug_storageRangeAt', [r0.blockHash, 0, contract, r.nextKey, 5000])
    expect(Object.keys(rest.storage)).toEqual(hashes.slice(1024))
    expect(rest.nextKey).toBeNull()
  })

  /** A node over `level` deploys Storage, sets slots[7] = 70 and closes; answers the contract's address. */
  async function setSevenThenClose(level: MemoryLevel): Promise<string> {
    const a = await createProvider({ ...NO_QUOTA, database: { level } })
    const contract = await deploy(a, Storage)
    await send(a, { to: contract, data: iface.encodeFunctionData('set', [7, 70]) })
    await a.disconnect()
    return contract
  }

  it('keeps the slots it wrote across a restart from its database (their keys are given)', async () => {
    const level = new MemoryLevel()
    const contract = await setSevenThenClose(level)
    const b = await createProvider({ ...NO_QUOTA, database: { level } })
    try {
      const r = await send(b, { to: contract, data: iface.encodeFunctionData('inc') })
      // slots[7] was written by the first process; the database kept which slots were written.
      expect(await rpc(b, 'debug_storageRangeAt', [r.blockHash, 0, contract, '0x', 10])).toEqual({ storage: expected({ [mapSlot(7)]: 70n }), nextKey: null })
    } finally {
      await b.disconnect()
      await level.close()
    }
  })

  it('answers key null for slots whose preimage it does not know (a database written before the written slots were kept)', async () => {
    const level = new MemoryLevel()
    const contract = await setSevenThenClose(level)
    // The records of written addresses and slots (key prefix `w`, docs/persistence.md) removed, as in an older database.
    await level.open()
    await level.clear({ gte: Uint8Array.of(0x77), lt: Uint8Array.of(0x78), keyEncoding: 'view' })
    const b = await createProvider({ ...NO_QUOTA, database: { level } })
    try {
      const r = await send(b, { to: contract, data: iface.encodeFunctionData('inc') })
      // Before inc: slots[7] was written by the first process only, so its preimage is unknown here.
      expect(await rpc(b, 'debug_storageRangeAt', [r.blockHash, 0, contract, '0x', 10])).toEqual({ storage: expected({ [mapSlot(7)]: 70n }, false), nextKey: null })
      // Before REMASC's: the counter, written in this process, has its slot.
      const after = await rpc(b, 'debug_storageRangeAt', [r.blockHash, 1, contract, '0x', 10])
      expect(after.storage[keccak256(COUNTER)]).toEqual({ key: COUNTER, value: word(1) })
      expect(after.storage[keccak256(mapSlot(7))]).toEqual({ key: null, value: word(70) })
    } finally {
      await b.disconnect()
      await level.close()
    }
  })

  it('answers an empty storage for an account missing then (before its deployment)', async () => {
    const p = await fresh()
    const r = await send(p, { data: Storage.bytecode })
    expect(await rpc(p, 'debug_storageRangeAt', [r.blockHash, 0, r.contractAddress, '0x', 10])).toEqual({ storage: {}, nextKey: null })
  })

  it('refuses bad input with -32602 saying what is wrong', async () => {
    const p = await fresh()
    const { contract, block } = await fourInOneBlock(p)
    const genesis = (await rpc(p, 'eth_getBlockByNumber', ['0x0', false])).hash
    const unknown = '0x' + '11'.repeat(32)
    await rejects(rpc(p, 'debug_storageRangeAt', [unknown, 0, contract, '0x', 1]), -32602, `block ${unknown} not found`)
    await rejects(rpc(p, 'debug_storageRangeAt', [genesis, 0, contract, '0x', 1]), -32602, 'no transaction in genesis')
    await rejects(rpc(p, 'debug_storageRangeAt', [block.hash, 5, contract, '0x', 1]), -32602, `transaction index 5 out of range for block ${block.hash}`)
    await rejects(rpc(p, 'debug_storageRangeAt', [block.hash, -1, contract, '0x', 1]), -32602, /^Invalid txIndex -1: expected a non-negative integer/)
    await rejects(rpc(p, 'debug_storageRangeAt', [block.hash, 0, contract, '0x123', 1]), -32602, /^Invalid keyStart 0x123: expected 0x and an even number of hex digits/)
    await rejects(rpc(p, 'debug_storageRangeAt', [block.hash, 0, contract, '0x' + '00'.repeat(33), 1]), -32602, /^Invalid keyStart/)
    await rejects(rpc(p, 'debug_storageRangeAt', [block.hash, 0, contract, '0x', 'ten']), -32602, /^Invalid maxResult "?ten"?: expected a non-negative integer/)
    await rejects(rpc(p, 'debug_storageRangeAt', [block.hash, 0, '0x12', '0x', 1]), -32602)
    // Hex counts are taken, as Ganache takes them.
    expect((await rpc(p, 'debug_storageRangeAt', [block.hash, '0x3', contract, '0x', '0x1'])).nextKey).not.toBeNull()
  })

  it('is -32601 in hosted mode, as an unknown method', async () => {
    const p = await fresh({ hosted: true })
    await rejects(rpc(p, 'debug_storageRangeAt', ['0x' + '11'.repeat(32), 0, COW, '0x', 1]), -32601)
  })

  describe('over HTTP with ethers', () => {
    const http = useHttpServer()
    it('answers the same page through a JsonRpcProvider', async () => {
      const { contract, block } = await fourInOneBlock(http.server.provider)
      const r = await http.rpc.send('debug_storageRangeAt', [block.hash, 2, contract, '0x', 10])
      expect(r).toEqual({ storage: expected({ [mapSlot(1)]: 11n, [mapSlot(2)]: 22n }), nextKey: null })
    })
  })
})
