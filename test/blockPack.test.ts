/**
 * Blocks kept packed (src/node/chain/blockPack.ts, store.ts): a packed block unpacks to the record it was, and every
 * read of a chain answers the same whether its blocks are records or packed. The reference is the chain's own
 * answers while every block is still a record (the code path that existed before packing), and for headers RSKj's
 * own encodings of real mainnet headers (their hashes).
 */
import { describe, expect, it } from 'vitest'
import { Interface } from 'ethers'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { Common, Mainnet } from '@ethereumjs/common'
import { COW, deploy, fresh, send, sendFailing, sendSigned, rq } from './helpers.js'
import { Reverter, Token } from './fixtures/index.js'
import { MAINNET } from './fixtures/mainnetHeaders.js'
import { packBlock, packBloom, packedBlockHash, unpackBlock, unpackBloom } from '../src/node/chain/blockPack.js'
import { decodeRskHeader, rskBlockHash, type RskHeader } from '../src/node/rsk/header/header.js'
import type { BlockRecord } from '../src/node/chain/types.js'
import type { RskNode } from '../src/node/node.js'
import type { Provider } from '../src/index.js'
import { encodeRskReceipt } from '../src/node/chain/tries.js'
import { BlockStore } from '../src/node/chain/store.js'
import { StoredTxRecord } from '../src/node/chain/txRecord.js'
import { rng } from './rng.js'

const nodeOf = (p: Provider) => (p as unknown as { node: RskNode }).node

/** The fields of a record that answers are made of, as plain data. */
function plain(b: BlockRecord, decodeTx = true) {
  return {
    header: b.header,
    hash: b.hash,
    hashHex: b.hashHex,
    number: b.number,
    hashForMergedMining: b.hashForMergedMining,
    totalDifficulty: b.totalDifficulty,
    size: b.size,
    transactions: b.transactions.map((t) => ({ hash: t.hash, hashHex: t.hashHex, raw: t.raw, from: t.from, fromHex: t.fromHex, system: t.system, ...(decodeTx ? { serialized: t.tx.serialize() } : {}) })),
    receipts: b.receipts.map((r) => ({
      status: r.status,
      gasUsed: r.gasUsed,
      cumulativeGasUsed: r.cumulativeGasUsed,
      logs: r.logs,
      logsBloom: r.logsBloom,
      contractAddress: r.contractAddress,
      revertData: r.revertData,
      error: r.error,
      encoded: encodeRskReceipt(r),
    })),
  }
}

describe('blooms as bit positions', () => {
  it('unpack to the same 256 bytes, sparse or dense', () => {
    const random = rng(7)
    for (let k = 0; k < 300; k++) {
      const bloom = new Uint8Array(256)
      const bits = k < 10 ? k : Math.floor(random() * 300)
      for (let i = 0; i < bits; i++) {
        const position = Math.floor(random() * 2048)
        bloom[position >> 3]! |= 1 << (position & 7)
      }
      const packed = packBloom(bloom)
      expect(unpackBloom(packed)).toEqual(bloom)
      expect(packed.length).toBeLessThanOrEqual(256)
    }
    expect(packBloom(new Uint8Array(256)).length).toBe(0)
    expect(() => packBloom(new Uint8Array(255))).toThrow(/256 bytes/)
  })
})

describe('RSKj mainnet headers packed', () => {
  it('unpack to headers that hash as RSKj hashed them (each one the next one’s parent)', () => {
    const rules = () => ({ umm: false, version: 0 as const, edges: false, baseEvent: false, rskip92: true })
    const common = new Common({ chain: Mainnet })
    const headers = MAINNET.map(([, raw]) => decodeRskHeader(hexToBytes(`0x${raw}`), rules))
    for (let i = 0; i < headers.length; i++) {
      const h = headers[i]!
      const block: BlockRecord = { header: h, hash: rskBlockHash(h), hashHex: bytesToHex(rskBlockHash(h)), number: h.number, hashForMergedMining: new Uint8Array(32), transactions: [], receipts: [], totalDifficulty: 1n, size: 1 }
      const back = unpackBlock(packBlock(block), common)
      expect(back.header).toEqual(h)
      if (i + 1 < headers.length) expect(bytesToHex(back.header.parentHash)).toBe(bytesToHex(rskBlockHash(headers[i + 1]!)))
      expect(rskBlockHash(back.header)).toEqual(block.hash)
    }
  })

  it('keep every optional header field as it was, present or absent', () => {
    const common = new Common({ chain: Mainnet })
    const [, raw] = MAINNET[0]!
    const base = decodeRskHeader(hexToBytes(`0x${raw}`), () => ({ umm: false, version: 0, edges: false, baseEvent: false, rskip92: true }))
    const variants: RskHeader[] = [
      base,
      { ...base, ummRoot: new Uint8Array(), version: 2, txExecutionSublistsEdges: [], baseEvent: new Uint8Array() },
      { ...base, ummRoot: new Uint8Array(20).fill(3), version: 1, txExecutionSublistsEdges: [1, 256, -1], baseEvent: Uint8Array.of(1, 2) },
      { ...base, forkDetectionData: new Uint8Array(12).fill(9), useRskip92Encoding: false, difficultyBytes: Uint8Array.of(0, 0, 1), gasLimitBytes: Uint8Array.of(0, 1) },
      { ...base, useRskip92Encoding: true, extensionData: Uint8Array.of(0xc2, 1, 2), logsBloom: new Uint8Array(256).fill(0xff), coinbase: new Uint8Array(20), uncleCount: 3 },
    ]
    for (const h of variants) {
      const block: BlockRecord = { header: h, hash: new Uint8Array(32).fill(1), hashHex: '0x' + '01'.repeat(32), number: h.number, hashForMergedMining: new Uint8Array(32).fill(2), transactions: [], receipts: [], totalDifficulty: 12345678901234567890n, size: 70000 }
      const packed = packBlock(block)
      expect(packedBlockHash(packed)).toEqual(block.hash)
      expect(plain(unpackBlock(packed, common))).toEqual(plain(block))
    }
  })
})

/** A block on top of `parent` with `txs` transactions of random bytes (their hash is keccak of the bytes). */
function syntheticBlock(parent: BlockRecord | undefined, number: bigint, txs: number, random: () => number, common: Common): BlockRecord {
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(random() * 256))
  const [, raw] = MAINNET[0]!
  const header = {
    ...decodeRskHeader(hexToBytes(`0x${raw}`), () => ({ umm: false, version: 0, edges: false, baseEvent: false, rskip92: true })),
    number,
    parentHash: parent?.hash ?? new Uint8Array(32),
    logsBloom: new Uint8Array(256),
  }
  const hash = bytes(32)
  const transactions = Array.from({ length: txs }, () => new StoredTxRecord(bytes(40 + Math.floor(random() * 200)), bytes(20), common))
  const receipts = transactions.map((_, i) => ({ status: 1 as const, gasUsed: 21000n, cumulativeGasUsed: 21000n * BigInt(i + 1), logs: [], logsBloom: new Uint8Array(256), contractAddress: null }))
  return { header, hash, hashHex: bytesToHex(hash), number, hashForMergedMining: bytes(32), transactions, receipts, totalDifficulty: number, size: 100 }
}

describe('the block store', () => {
  it('answers as a plain list of records through random appends, truncations and packing', () => {
    const common = new Common({ chain: Mainnet })
    const random = rng(11)
    for (let round = 0; round < 8; round++) {
      const store = new BlockStore(common, 1 + Math.floor(random() * 6))
      const model: BlockRecord[] = []
      const base = round % 2 === 0 ? 0n : 1000n
      const add = () => {
        const b = syntheticBlock(model.at(-1), base + BigInt(model.length), model.length === 0 ? 0 : Math.floor(random() * 3), random, common)
        model.push(b)
        store.append(b)
      }
      add()
      for (let step = 0; step < 40; step++) {
        const r = random()
        if (r < 0.7) add()
        else if (r < 0.9) {
          const n = Math.floor(random() * model.length)
          const dropped = store.truncate(base + BigInt(n))
          expect(dropped.map((b) => b.hashHex)).toEqual(model.slice(Math.max(1, n + 1)).map((b) => b.hashHex))
          model.length = Math.max(1, n + 1)
        } else store.keepRecent(1 + Math.floor(random() * 4))
        expect(store.headNumber).toBe(base + BigInt(model.length - 1))
        expect(store.head.hashHex).toBe(model.at(-1)!.hashHex)
        expect(store.first.hashHex).toBe(model[0]!.hashHex)
        expect(store.range(base - 1n, base + BigInt(model.length)).map((b) => b.hashHex)).toEqual(model.map((b) => b.hashHex))
        for (const [i, b] of model.entries()) {
          if (random() < 0.1) expect(plain(store.byNumber(base + BigInt(i))!, false)).toEqual(plain(b, false))
          expect(store.getByHash(b.hashHex)?.number).toBe(b.number)
          expect(store.back(model.length - 1 - i)?.hashHex).toBe(b.hashHex)
          b.transactions.forEach((t, index) => expect(store.getTx(t.hashHex)).toMatchObject({ block: { hashHex: b.hashHex }, index }))
        }
        expect(store.byNumber(base + BigInt(model.length))).toBeUndefined()
        expect(store.getByHash('0x' + '00'.repeat(32))).toBeUndefined()
      }
    }
  })
})

/** Every answer about the chain's blocks and transactions that tests read. */
async function answers(p: Provider, txHashes: string[], addresses: string[] = []) {
  const head = Number(await rq(p, 'eth_blockNumber'))
  const out: unknown[] = []
  for (let n = 0; n <= head; n++) {
    const block = await rq(p, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, true])
    out.push(block, await rq(p, 'eth_getBlockByHash', [block.hash, false]), await rq(p, 'rsk_getRawBlockHeaderByNumber', [`0x${n.toString(16)}`]))
    out.push(await rq(p, 'eth_getBlockTransactionCountByHash', [block.hash]))
  }
  for (const h of txHashes) {
    out.push(await rq(p, 'eth_getTransactionByHash', [h]), await rq(p, 'eth_getTransactionReceipt', [h]), await rq(p, 'rsk_getRawTransactionReceiptByHash', [h]).catch((e) => e.message))
  }
  out.push(await rq(p, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]))
  for (const address of ['0x0000000000000000000000000000000001000008', ...addresses]) {
    out.push(await rq(p, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address }]))
    const filter = await rq(p, 'eth_newFilter', [{ fromBlock: '0x0', address }])
    out.push(await rq(p, 'eth_getFilterLogs', [filter]))
  }
  return out
}

describe('a chain whose blocks are packed', () => {
  it('answers every block, transaction, receipt and log read as it did with records', async () => {
    const p = await fresh()
    const node = nodeOf(p)
    const hashes: string[] = []
    const token = await deploy(p, Token, [10n ** 24n])
    const reverter = await deploy(p, Reverter)
    const erc20 = new Interface(Token.abi as never)
    const rev = new Interface(Reverter.abi as never)
    const gasPrice = await rq(p, 'eth_gasPrice')
    // Transfers with logs and fees (REMASC pays them after maturity), a plain value transfer, failed executions.
    for (let i = 0; i < 6; i++) {
      const r = await send(p, { to: token, gasPrice, data: erc20.encodeFunctionData('transfer', [`0x${(i + 1).toString(16).padStart(40, '0')}`, 5n]) })
      hashes.push(r.transactionHash)
    }
    hashes.push((await send(p, { to: '0x' + '77'.repeat(20), value: '0x10', gasPrice })).transactionHash)
    hashes.push(await sendFailing(p, { to: reverter, data: rev.encodeFunctionData('revertCustom') }))
    hashes.push(await sendFailing(p, { to: reverter, data: rev.encodeFunctionData('revertWithReason'), gas: '0x5300' }))
    hashes.push(await sendFailing(p, { data: '0xfe' }))
    // An impersonated sender (stand-in signature) and a block of several transactions.
    const stranger = '0x' + '5a'.repeat(20)
    await rq(p, 'hardhat_setBalance', [stranger, '0x1000000000000000000'])
    await rq(p, 'hardhat_impersonateAccount', [stranger])
    hashes.push(await rq(p, 'eth_sendTransaction', [{ from: stranger, to: COW, value: '0x1' }]))
    await rq(p, 'evm_setAutomine', [false])
    for (let i = 0; i < 3; i++) hashes.push((await sendSigned(p, { to: token, gasPrice, data: erc20.encodeFunctionData('transfer', [COW, 1n]) })).hash)
    await rq(p, 'evm_mine')
    await rq(p, 'evm_setAutomine', [true])
    // Past 449 blocks: headers carry fork detection data; REMASC has paid blocks.
    await rq(p, 'hardhat_mine', ['0x1d0'])
    hashes.push((await send(p, { to: token, gasPrice, data: erc20.encodeFunctionData('transfer', [COW, 2n]) })).transactionHash)
    const head = node.chain.store.headNumber
    for (let n = 1n; n <= head; n++) hashes.push(node.chain.store.byNumber(n)!.transactions.at(-1)!.hashHex)

    const records = Array.from({ length: Number(head) + 1 }, (_, n) => plain(node.chain.store.byNumber(BigInt(n))!))
    const before = await answers(p, hashes, [token, reverter])
    node.chain.store.keepRecent(1)
    // Every block but the first and the head is packed now: unpacking gives the record back.
    for (let n = 0n; n <= head; n++) expect(plain(node.chain.store.byNumber(n)!)).toEqual(records[Number(n)])
    expect(await answers(p, hashes, [token, reverter])).toEqual(before)
    // Lookups of unknown hashes still answer null.
    expect(await rq(p, 'eth_getBlockByHash', ['0x' + 'ab'.repeat(32), false])).toBeNull()
    expect(await rq(p, 'eth_getTransactionByHash', ['0x' + 'ab'.repeat(32)])).toBeNull()
    await p.disconnect()
  })

  it('applies the log limits over packed blocks as over records (-32012 once past the results limit)', async () => {
    const p = await fresh({ logsMaxBlockRange: 5, logsMaxResults: 3 })
    const token = await deploy(p, Token, [10n ** 24n])
    const erc20 = new Interface(Token.abi as never)
    for (let i = 0; i < 12; i++) await send(p, { to: token, data: erc20.encodeFunctionData('transfer', [COW, 1n]) })
    const query = async (filter: object) => rq(p, 'eth_getLogs', [{ address: token, ...filter }]).catch((e) => `${e.code} ${e.message}`)
    const filters = [{ fromBlock: '0x0' }, { fromBlock: '0x3', toBlock: '0x7' }, { fromBlock: '0x2', toBlock: '0x5' }, { fromBlock: '0x9' }]
    const before = await Promise.all(filters.map(query))
    expect(before[0]).toBe('-32012 Filter returned more than 3 logs.')
    expect((before[1] as unknown[]).length).toBe(5)
    nodeOf(p).chain.store.keepRecent(1)
    expect(await Promise.all(filters.map(query))).toEqual(before)
    await p.disconnect()
  })

  it('reverts into packed blocks and mines on from there', async () => {
    const p = await fresh()
    const node = nodeOf(p)
    const token = await deploy(p, Token, [10n ** 24n])
    const erc20 = new Interface(Token.abi as never)
    const snapshot = await rq(p, 'evm_snapshot')
    const dropped: string[] = []
    for (let i = 0; i < 5; i++) dropped.push((await send(p, { to: token, data: erc20.encodeFunctionData('transfer', [COW, 1n]) })).transactionHash)
    const droppedBlocks = await Promise.all(dropped.map(async (h) => (await rq(p, 'eth_getTransactionReceipt', [h])).blockHash))
    node.chain.store.keepRecent(1)
    expect(await rq(p, 'evm_revert', [snapshot])).toBe(true)
    for (const h of dropped) expect(await rq(p, 'eth_getTransactionByHash', [h])).toBeNull()
    for (const h of droppedBlocks) expect(await rq(p, 'eth_getBlockByHash', [h, false])).toBeNull()
    // The same transactions mined again (their blocks differ: new timestamps) are found in their new blocks.
    const again: string[] = []
    for (let i = 0; i < 5; i++) again.push((await send(p, { to: token, data: erc20.encodeFunctionData('transfer', [COW, 1n]) })).transactionHash)
    expect(again).toEqual(dropped)
    const head = Number(await rq(p, 'eth_blockNumber'))
    for (let n = 0; n <= head; n++) {
      const b = await rq(p, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false])
      expect((await rq(p, 'eth_getBlockByHash', [b.hash, false])).number).toBe(b.number)
      if (n > 0) expect(b.parentHash).toBe((await rq(p, 'eth_getBlockByNumber', [`0x${(n - 1).toString(16)}`, false])).hash)
    }
    for (const h of again) expect((await rq(p, 'eth_getTransactionReceipt', [h])).status).toBe('0x1')
    expect(Number(await rq(p, 'eth_call', [{ to: token, data: erc20.encodeFunctionData('balanceOf', [COW]) }, 'latest']))).toBeGreaterThan(0)
    await p.disconnect()
  })
})
