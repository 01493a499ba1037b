/**
 * Merged mining with a real Bitcoin block built by bitcoinjs-lib: its coinbase commits to hashForMergedMining, its
 * proof of work is solved against the RSK target, and it is submitted by each of the three mnr methods.
 */
import { describe, expect, it } from 'vitest'
import { Block, Transaction, crypto as btcCrypto } from 'bitcoinjs-lib'
import { JsonRpcProvider } from 'ethers'
import { startServer } from '../src/index.js'
import { validateMergedMining } from '../src/node/rsk/mergedMining/mergedMining.js'
import { COW, COW1, fresh, rejects, rq } from './helpers.js'

const hexBytes = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'))
const REGTEST_TARGET = (2n ** 256n / 3n).toString(16).padStart(64, '0')

/** A Bitcoin block with `others` extra transactions whose coinbase carries `RSKBLOCK:` + hash, PoW solved (or not). */
function bitcoinBlock(hashForMergedMining: string, others = 2, solve = true) {
  const coinbase = new Transaction()
  coinbase.version = 1
  coinbase.addInput(Buffer.alloc(32), 0xffffffff, 0xffffffff, Buffer.from('03a08601', 'hex'))
  coinbase.addOutput(Buffer.from('51', 'hex'), 5_000_000_000n)
  coinbase.addOutput(Buffer.concat([Buffer.from('RSKBLOCK:'), Buffer.from(hashForMergedMining.slice(2), 'hex')]), 0n)
  const txs = [coinbase]
  for (let i = 0; i < others; i++) {
    const tx = new Transaction()
    tx.addInput(btcCrypto.sha256(Buffer.from([i])), 0)
    tx.addOutput(Buffer.from('51', 'hex'), BigInt(1000 + i))
    txs.push(tx)
  }
  const block = new Block()
  block.version = 0x20000000
  block.prevHash = Buffer.alloc(32, 7)
  block.timestamp = Math.floor(Date.now() / 1000)
  block.bits = 0x207fffff
  block.transactions = txs
  block.merkleRoot = Block.calculateMerkleRoot(txs)
  const target = BigInt('0x' + REGTEST_TARGET)
  for (block.nonce = 0; ; block.nonce++) {
    const pow = BigInt('0x' + Buffer.from(block.getHash()).reverse().toString('hex'))
    if ((pow <= target) === solve) break
  }
  return { block, coinbase, txs }
}

/** Sibling hashes from the coinbase up (internal byte order), as a Bitcoin partial Merkle branch. */
function branch(txs: Transaction[]): Buffer[] {
  let level: Buffer[] = txs.map((t) => Buffer.from(t.getHash()))
  const out: Buffer[] = []
  while (level.length > 1) {
    out.push(level[1] ?? level[0]!)
    const next: Buffer[] = []
    for (let i = 0; i < level.length; i += 2) next.push(Buffer.from(btcCrypto.hash256(Buffer.concat([level[i]!, level[i + 1] ?? level[i]!]))))
    level = next
  }
  return out
}

describe('mnr_getWork', () => {
  it('answers RSKj MinerWork with the regtest target, notify once per new work', async () => {
    const p = await fresh()
    const work = await rq(p, 'mnr_getWork')
    expect(Object.keys(work)).toEqual(['blockHashForMergedMining', 'target', 'feesPaidToMiner', 'notify', 'parentBlockHash'])
    expect(work.target).toBe('0x' + REGTEST_TARGET)
    expect(work.target).toBe('0x' + '55'.repeat(32))
    expect(work.feesPaidToMiner).toBe('0')
    expect(work.notify).toBe(true)
    expect(work.parentBlockHash).toBe((await rq(p, 'eth_getBlockByNumber', ['latest', false])).hash)
    // The same work until the chain or the pool changes, also once the clock has passed to the next second.
    await new Promise((r) => setTimeout(r, 1100))
    const again = await rq(p, 'mnr_getWork')
    expect(again.blockHashForMergedMining).toBe(work.blockHashForMergedMining)
    expect(again.notify).toBe(false)
    await rq(p, 'evm_mine')
    expect((await rq(p, 'mnr_getWork')).notify).toBe(true)
  })
})

describe('mnr_submitBitcoinBlock*', () => {
  it('accepts a solved Bitcoin block by each of the three methods and stores its merged-mining fields', async () => {
    const p = await fresh({ mining: { auto: false } })
    const submitters = [
      (b: ReturnType<typeof bitcoinBlock>) => rq(p, 'mnr_submitBitcoinBlock', [b.block.toHex()]),
      (b: ReturnType<typeof bitcoinBlock>) =>
        rq(p, 'mnr_submitBitcoinBlockTransactions', [
          b.block.getId(),
          b.block.toHex(true),
          b.coinbase.toHex(),
          b.txs.map((t) => t.getId()).join(' '),
        ]),
      (b: ReturnType<typeof bitcoinBlock>) =>
        rq(p, 'mnr_submitBitcoinBlockPartialMerkle', [
          b.block.getId(),
          b.block.toHex(true),
          b.coinbase.toHex(),
          [Buffer.from(b.coinbase.getHash()), ...branch(b.txs)].map((h) => h.toString('hex')).join(' '),
          b.txs.length.toString(16),
        ]),
    ]
    for (const [i, submitTo] of submitters.entries()) {
      const hash = await rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x1' }])
      const work = await rq(p, 'mnr_getWork')
      const b = bitcoinBlock(work.blockHashForMergedMining, i + 1)
      const info = await submitTo(b)
      expect(Object.keys(info)).toEqual(['blockImportedResult', 'blockHash', 'blockIncludedHeight'])
      expect(Buffer.from(info.blockImportedResult.slice(2), 'hex').toString()).toBe('IMPORTED_BEST')
      expect(info.blockIncludedHeight).toBe('0x' + (i + 1).toString(16))
      const block = await rq(p, 'eth_getBlockByNumber', ['latest', false])
      expect(block.hash).toBe(info.blockHash)
      expect(block.transactions[0]).toBe(hash)
      expect(block.hashForMergedMining).toBe(work.blockHashForMergedMining)
      expect(block.bitcoinMergedMiningHeader).toBe('0x' + b.block.toHex(true))
      // RSKj stores the proof's sibling hashes byte-reversed (display order), as real mainnet blocks show.
      expect(block.bitcoinMergedMiningMerkleProof).toBe('0x' + branch(b.txs).map((h) => Buffer.from(h).reverse().toString('hex')).join(''))
      // The coinbase is stored compressed: a 40-byte SHA-256 midstate, then the tail that holds the tag.
      expect(block.bitcoinMergedMiningCoinbaseTransaction.endsWith(b.coinbase.toHex().slice(-100))).toBe(true)
      expect((await rq(p, 'eth_getTransactionReceipt', [hash])).blockHash).toBe(block.hash)
    }
  })

  it('refuses unknown work, unsolved proof of work and bad input with RSKj errors', async () => {
    const p = await fresh()
    await rejects(rq(p, 'mnr_submitBitcoinBlock', [bitcoinBlock('0x' + '12'.repeat(32)).block.toHex()]), -33000,
      'Cannot publish block, could not find hash 0x' + '12'.repeat(32) + ' in the cache')
    const work = await rq(p, 'mnr_getWork')
    await rejects(rq(p, 'mnr_submitBitcoinBlock', [bitcoinBlock(work.blockHashForMergedMining, 1, false).block.toHex()]), -33000,
      /^Invalid block supplied by miner: [0-9a-f]{64} [0-9a-f]{64} at height 1$/)
    await rejects(rq(p, 'mnr_submitBitcoinBlockPartialMerkle', ['0', '00'.repeat(80), '00', '', '1']), -33000, "The list of merkle hashes can't be empty")
    await rejects(rq(p, 'mnr_submitBitcoinBlock', ['0x00']), -32602)
    await rejects(rq(p, 'mnr_submitBitcoinBlock', ['abcd']), -32602, /Invalid bitcoin data/)
    expect(await rq(p, 'eth_blockNumber')).toBe('0x0')
  })

  it("reads the arguments as MnrModuleImpl's Strings: JSON numbers as their text, the first ignored, the count by Integer.parseInt(x, 16)", async () => {
    const p = await fresh({ mining: { auto: false } })
    // submitBitcoinBlockPartialMerkle tests merkleHashesHex.isEmpty() before it decodes the header or the coinbase.
    await rejects(rq(p, 'mnr_submitBitcoinBlockPartialMerkle', ['0', 'zz', 'zz', '', '1']), -33000, "The list of merkle hashes can't be empty")
    const args = (b: ReturnType<typeof bitcoinBlock>) => [
      b.block.toHex(true),
      b.coinbase.toHex(),
      [Buffer.from(b.coinbase.getHash()), ...branch(b.txs)].map((h) => h.toString('hex')).join(' '),
    ]
    let work = await rq(p, 'mnr_getWork')
    let b = bitcoinBlock(work.blockHashForMergedMining, 2)
    // Integer.parseInt takes a sign, and nothing past a Java int.
    await rejects(rq(p, 'mnr_submitBitcoinBlockPartialMerkle', [null, ...args(b), '80000000']), -32602, /Invalid transaction count 80000000/)
    // The block hash argument is only logged (null is fine); the count 3, a JSON number, is Jackson's text "3".
    expect((await rq(p, 'mnr_submitBitcoinBlockPartialMerkle', [null, ...args(b), 3])).blockIncludedHeight).toBe('0x1')
    work = await rq(p, 'mnr_getWork')
    b = bitcoinBlock(work.blockHashForMergedMining, 2)
    expect((await rq(p, 'mnr_submitBitcoinBlockPartialMerkle', [12, ...args(b), '-1'])).blockIncludedHeight).toBe('0x2')
  })

  it('a template goes stale when the chain moves on', async () => {
    const p = await fresh()
    const work = await rq(p, 'mnr_getWork')
    await rq(p, 'evm_mine')
    await rejects(rq(p, 'mnr_submitBitcoinBlock', [bitcoinBlock(work.blockHashForMergedMining).block.toHex()]), -33000, /could not find hash/)
  })

  it('works over HTTP', async () => {
    const server = await startServer({ port: 0 })
    try {
      const client = new JsonRpcProvider(server.url, undefined, { staticNetwork: true })
      const work = await client.send('mnr_getWork', [])
      const info = await client.send('mnr_submitBitcoinBlock', [bitcoinBlock(work.blockHashForMergedMining).block.toHex()])
      expect(info.blockIncludedHeight).toBe('0x1')
    } finally {
      await server.close()
    }
  })
})

describe('automined blocks', () => {
  it('carry merged-mining data that passes the same validation', async () => {
    const p = await fresh()
    for (let i = 0; i < 3; i++) await rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x1' }])
    for (let n = 1; n <= 3; n++) {
      const b = await rq(p, 'eth_getBlockByNumber', ['0x' + n.toString(16), false])
      const fields = {
        bitcoinMergedMiningHeader: hexBytes(b.bitcoinMergedMiningHeader),
        bitcoinMergedMiningCoinbaseTransaction: hexBytes(b.bitcoinMergedMiningCoinbaseTransaction),
        bitcoinMergedMiningMerkleProof: hexBytes(b.bitcoinMergedMiningMerkleProof),
      }
      expect(validateMergedMining(hexBytes(b.hashForMergedMining), 1n, fields)).toBeNull()
      // bitcoinjs reads the header and its proof of work meets the regtest target.
      const header = Block.fromHex(b.bitcoinMergedMiningHeader.slice(2))
      expect(BigInt('0x' + Buffer.from(header.getHash()).reverse().toString('hex')) <= 2n ** 256n / 3n).toBe(true)
    }
  })
})

describe('eth_getWork / eth_submitWork / eth_submitHashrate', () => {
  it('serves work, mines it on submission, and sums reported hash rates', async () => {
    const p = await fresh({ mining: { auto: false } })
    await rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x1' }])
    const [powHash, seed, target] = await rq(p, 'eth_getWork')
    expect(powHash).toBe((await rq(p, 'mnr_getWork')).blockHashForMergedMining)
    expect(seed).toBe('0x' + '00'.repeat(32))
    expect(target).toBe('0x' + '55'.repeat(32))
    expect(await rq(p, 'eth_submitWork', ['0x0000000000000001', '0x' + '11'.repeat(32), '0x' + '00'.repeat(32)])).toBe(false)
    expect(await rq(p, 'eth_submitWork', ['0x0000000000000001', powHash, '0x' + '00'.repeat(32)])).toBe(true)
    expect((await rq(p, 'eth_getBlockByNumber', ['latest', false])).hashForMergedMining).toBe(powHash)
    expect(await rq(p, 'eth_submitWork', ['0x0000000000000001', powHash, '0x' + '00'.repeat(32)])).toBe(false)
    await rejects(rq(p, 'eth_submitWork', ['0x01', powHash, '0x' + '00'.repeat(32)]), -32602, 'Invalid nonce: expected 8 bytes')
    expect(await rq(p, 'eth_submitHashrate', ['0x' + (500).toString(16).padStart(64, '0'), '0x' + 'ab'.repeat(32)])).toBe(true)
    expect(await rq(p, 'eth_submitHashrate', ['0x' + (250).toString(16).padStart(64, '0'), '0x' + 'cd'.repeat(32)])).toBe(true)
    expect(await rq(p, 'eth_hashrate')).toBe('0x2ee')
    expect(await rq(p, 'eth_netHashrate')).toBe(750)
  })
})
