/**
 * Merged mining: Bitcoin serialization cross-checked with bitcoinjs-lib (an independent implementation), the
 * fields rsksim mines, the three submission shapes, RSKj's ProofOfWorkRule on real mainnet blocks (rsksmart/rsk-powhsm
 * `middleware/tests/simulator/integration/blocks.data`), and every refusal with RSKj's reason.
 */
import { describe, expect, it } from 'vitest'
import { MAINNET as ALL_MAINNET } from './fixtures/mainnetHeaders.js'
import { Block, Transaction } from 'bitcoinjs-lib'
import { sha256 } from '@noble/hashes/sha2.js'
import { hexToBytes, type PrefixedHexString } from '@ethereumjs/util'
import {
  bitcoinTxid,
  coinbaseMerkleBranch,
  dsha256,
  merkleRoot,
  parseBitcoinBlock,
  parseBitcoinHeader,
  parseBitcoinTransaction,
  reverseBytes,
  serializeBitcoinHeader,
  serializeBitcoinTransaction,
  sha256Midstate,
  sha256Resume,
} from '../src/node/rsk/mergedMining/bitcoin.js'
import { coinbaseBytes, minerCoinbase, minerCoinbaseBytes } from '../src/node/rsk/mergedMining/coinbase.js'
import { HeaderHasher } from '../src/node/rsk/mergedMining/sha256State.js'
import { decodeRskHeader, hashForMergedMining } from '../src/node/rsk/header/header.js'
import {
  buildMergedMiningFields,
  compressCoinbase,
  compressedCoinbaseTxid,
  difficultyToTarget,
  fieldsFromBitcoinBlock,
  fieldsFromBlockTransactions,
  fieldsFromPartialMerkle,
  validateMergedMining,
  type MergedMiningFields,
} from '../src/node/rsk/mergedMining/mergedMining.js'

const hex = (s: string): Uint8Array => hexToBytes(('0x' + s.replace(/^0x/, '')) as PrefixedHexString)
const bytes = (n: number, f: (i: number) => number) => Uint8Array.from({ length: n }, (_, i) => f(i) & 0xff)
const TAG = new TextEncoder().encode('RSKBLOCK:')
const HASH = bytes(32, (i) => i * 7 + 1)
const OTHER = bytes(32, (i) => 255 - i)

/** Two consecutive mainnet headers (getFullEncoded), blocks 2,328,246 and 2,328,245. */
const MAINNET = ALL_MAINNET.slice(0, 2)

/** A Bitcoin block built by bitcoinjs-lib: coinbase committing to `commit` (last tag), `others` more txs, one segwit. */
function bitcoinjsBlock(commit: Uint8Array, others = 4) {
  const coinbase = new Transaction()
  coinbase.version = 2
  coinbase.addInput(new Uint8Array(32), 0xffffffff, 0xffffffff, hex('03a0860104deadbeef'))
  coinbase.addOutput(hex('51'), 625_000_000n)
  // Two tags: the hash for merged mining is read after the last one.
  coinbase.addOutput(new Uint8Array([0x6a, ...TAG, ...OTHER, ...TAG, ...commit]), 0n)
  coinbase.setWitness(0, [new Uint8Array(32)])
  const txs = [coinbase]
  for (let i = 0; i < others; i++) {
    const tx = new Transaction()
    tx.addInput(sha256(Uint8Array.of(i)), i)
    tx.addOutput(hex('0014' + '11'.repeat(20)), BigInt(1000 + i))
    if (i % 2 === 0) tx.setWitness(0, [bytes(71, (j) => j + i), bytes(33, (j) => j * 3)])
    txs.push(tx)
  }
  const block = new Block()
  block.version = 0x20000000
  block.prevHash = bytes(32, () => 7)
  block.timestamp = 1_700_000_000
  block.bits = 0x207fffff
  block.transactions = txs
  block.merkleRoot = Block.calculateMerkleRoot(txs)
  // Solve against the regtest RSK target (difficulty ≤ 2 → 2^256 / 3).
  for (block.nonce = 0; BigInt('0x' + Buffer.from(block.getHash()).reverse().toString('hex')) > difficultyToTarget(1n); block.nonce++);
  return { block, txs }
}

describe('Bitcoin primitives against bitcoinjs-lib', () => {
  const { block, txs } = bitcoinjsBlock(HASH)
  const raw = block.toBuffer()

  it('parses a block: header, segwit and legacy transactions, txids, merkle root and branch', () => {
    const parsed = parseBitcoinBlock(raw)
    expect(parsed.header).toEqual(Uint8Array.from(block.toBuffer(true)))
    expect(parsed.transactions.length).toBe(txs.length)
    parsed.transactions.forEach((tx, i) => {
      const ref = txs[i]!
      expect(serializeBitcoinTransaction(tx)).toEqual(Uint8Array.from(ref.toBuffer())) // with witness when it has one
      expect(reverseBytes(bitcoinTxid(tx))).toEqual(hex(ref.getId()))
      expect(parseBitcoinTransaction(serializeBitcoinTransaction(tx, false))).toEqual({ ...tx, inputs: tx.inputs.map((x) => ({ ...x, witness: [] })) })
    })
    const ids = parsed.transactions.map(bitcoinTxid)
    expect(merkleRoot(ids)).toEqual(Uint8Array.from(block.merkleRoot!))
    // Folding the branch from the coinbase gives the root.
    const root = coinbaseMerkleBranch(ids).reduce((node, sibling) => dsha256(new Uint8Array([...node, ...sibling])), ids[0]!)
    expect(root).toEqual(Uint8Array.from(block.merkleRoot!))
    expect(coinbaseMerkleBranch(ids).length).toBe(3)
  })

  it('serializes and parses the 80-byte header; its double SHA-256 is the block hash', () => {
    const header = parseBitcoinHeader(raw)
    expect(header).toMatchObject({ version: 0x20000000, time: 1_700_000_000, bits: 0x207fffff, nonce: block.nonce })
    expect(serializeBitcoinHeader(header)).toEqual(Uint8Array.from(block.toBuffer(true)))
    expect(dsha256(serializeBitcoinHeader(header))).toEqual(Uint8Array.from(block.getHash()))
  })

  it('the miner coinbase is a transaction bitcoinjs-lib reads the same way', () => {
    const rawCoinbase = coinbaseBytes(minerCoinbase(HASH, bytes(300, (i) => i)))
    const ref = Transaction.fromBuffer(rawCoinbase)
    expect(ref.isCoinbase()).toBe(true)
    expect(ref.outs[0]!.value).toBe(5_000_000_000n)
    expect(ref.outs[1]!.script).toEqual(new Uint8Array([...bytes(300, (i) => i), ...TAG, ...HASH]))
    expect(reverseBytes(dsha256(rawCoinbase))).toEqual(hex(ref.getId()))
  })

  it('SHA-256 resumed from a midstate equals the one-shot digest', () => {
    for (const n of [0, 1, 55, 56, 63, 64, 65, 119, 128, 300]) {
      const data = bytes(n + 128, (i) => i * 13)
      expect(sha256Resume(sha256Midstate(data, 2), 128n, data.subarray(128))).toEqual(sha256(data))
    }
  })

  it('a compressed coinbase keeps its txid: midstate of the 64-byte blocks before the tag + tail', () => {
    const rawCoinbase = coinbaseBytes(minerCoinbase(HASH, bytes(300, (i) => i)))
    const compressed = compressCoinbase(rawCoinbase)
    const tagAt = Buffer.from(rawCoinbase).lastIndexOf(Buffer.from(TAG))
    const cut = Math.floor(tagAt / 64) * 64
    expect(compressed.length).toBe(40 + rawCoinbase.length - cut)
    expect(new DataView(compressed.buffer).getBigUint64(0)).toBe(BigInt(cut))
    expect(compressed.subarray(40)).toEqual(rawCoinbase.subarray(cut))
    expect(compressedCoinbaseTxid(compressed)).toEqual(dsha256(rawCoinbase))
  })
})

describe('buildMergedMiningFields', () => {
  it('mines a Bitcoin header under the target whose coinbase commits to the hash; RSKj’s rule accepts it', () => {
    for (const difficulty of [1n, 2n, 3n, 1000n, 100_000n]) {
      const mm = buildMergedMiningFields(HASH, difficulty, 1_700_000_123n)
      expect(mm.bitcoinMergedMiningHeader.length).toBe(80)
      expect(mm.bitcoinMergedMiningMerkleProof.length).toBe(0)
      expect(parseBitcoinHeader(mm.bitcoinMergedMiningHeader)).toMatchObject({ version: 70012, time: 1_700_000_123, bits: 0x207fffff })
      expect(parseBitcoinHeader(mm.bitcoinMergedMiningHeader).merkleRoot).toEqual(compressedCoinbaseTxid(mm.bitcoinMergedMiningCoinbaseTransaction))
      expect(validateMergedMining(HASH, difficulty, mm)).toBeNull()
    }
  })

  it('the shortcuts of the nonce search give the bytes the plain pieces give (template coinbase, remembered midstate, header hasher)', () => {
    // The reference: the coinbase serialized field by field, the header hashed by @noble/hashes, compressCoinbase's
    // midstate computed anew; what buildMergedMiningFields did before the shortcuts (issue 13).
    const reference = (hash: Uint8Array, difficulty: bigint, time: number) => {
      const prefix = new Uint8Array(4)
      new DataView(prefix.buffer).setUint32(0, time, true)
      const raw = coinbaseBytes(minerCoinbase(hash, prefix))
      const header = serializeBitcoinHeader({ version: 70012, prevBlock: new Uint8Array(32), merkleRoot: sha256(sha256(raw)), time, bits: 0x207fffff, nonce: 0 })
      const target = difficultyToTarget(difficulty)
      for (let nonce = 0; ; nonce++) {
        new DataView(header.buffer).setUint32(76, nonce, true)
        if (BigInt('0x' + Buffer.from(sha256(sha256(header))).reverse().toString('hex')) <= target) break
      }
      const tagAt = Buffer.from(raw).lastIndexOf(Buffer.from(TAG))
      const cut = Math.floor(tagAt / 64) * 64
      const state = new Uint8Array(40)
      new DataView(state.buffer).setBigUint64(0, BigInt(cut))
      sha256Midstate(raw, cut / 64).forEach((w, i) => new DataView(state.buffer).setUint32(8 + 4 * i, w))
      return { header, compressed: new Uint8Array([...state, ...raw.subarray(cut)]) }
    }
    for (let i = 0; i < 60; i++) {
      const hash = bytes(32, (j) => j * 31 + i * 17)
      const difficulty = [1n, 3n, 50n, 1000n][i % 4]!
      const time = 1_700_000_000 + i * 977
      const mm = buildMergedMiningFields(hash, difficulty, BigInt(time))
      const ref = reference(hash, difficulty, time)
      expect(mm.bitcoinMergedMiningHeader).toEqual(ref.header)
      expect(mm.bitcoinMergedMiningCoinbaseTransaction).toEqual(ref.compressed)
    }
    // The coinbase template, across prefix lengths (a new template each time the length changes), and a compressed
    // coinbase after one whose first block differed (the remembered midstate must not answer for it).
    for (const n of [4, 0, 300, 4, 61, 4]) {
      const prefix = bytes(n, (j) => j * 5 + n)
      expect(minerCoinbaseBytes(HASH, prefix)).toEqual(coinbaseBytes(minerCoinbase(HASH, prefix)))
      const raw = minerCoinbaseBytes(OTHER, prefix)
      expect(compressedCoinbaseTxid(compressCoinbase(raw))).toEqual(dsha256(raw))
    }
    // The header hasher: headers sharing their first 64 bytes, against @noble/hashes.
    const header = bytes(80, (j) => j * 3)
    const hasher = new HeaderHasher(header)
    for (let k = 0; k < 50; k++) {
      for (let j = 64; j < 80; j++) header[j] = (j * k + 11) & 0xff
      expect(hasher.digest(header)).toEqual(sha256(sha256(header)))
    }
  })

  it('difficultyToTarget: 2^256 / difficulty, with 3 for difficulty 2 or less', () => {
    expect(difficultyToTarget(1n)).toBe(2n ** 256n / 3n)
    expect(difficultyToTarget(2n)).toBe(2n ** 256n / 3n)
    expect(difficultyToTarget(0n)).toBe(2n ** 256n / 3n)
    expect(difficultyToTarget(3n)).toBe(2n ** 256n / 3n)
    expect(difficultyToTarget(1000n)).toBe(2n ** 256n / 1000n)
    expect(difficultyToTarget(1n).toString(16)).toBe('5'.repeat(64))
  })
})

describe('submission shapes (reference §3.4)', () => {
  const { block, txs } = bitcoinjsBlock(HASH)
  const header = Uint8Array.from(block.toBuffer(true))
  const coinbase = Uint8Array.from(txs[0]!.toBuffer()) // with its witness, as miners send it
  const internal = txs.map((t) => Uint8Array.from(t.getHash()))

  it('a whole block, header+coinbase+txids (display order) and header+coinbase+merkle hashes (internal order) agree', () => {
    const a = fieldsFromBitcoinBlock(Uint8Array.from(block.toBuffer()))
    const b = fieldsFromBlockTransactions(header, coinbase, txs.map((t) => hex(t.getId())))
    const c = fieldsFromPartialMerkle(header, coinbase, [internal[0]!, ...coinbaseMerkleBranch(internal)], txs.length)
    expect(a).toEqual(b)
    expect(a).toEqual(c)
    expect(a.hashForMergedMining).toEqual(HASH) // after the last tag
    expect(a.bitcoinMergedMiningHeader).toEqual(header)
    // RSKIP92 proof: siblings bottom-up in bitcoinj's Sha256Hash byte order (display), concatenated.
    expect(a.bitcoinMergedMiningMerkleProof).toEqual(
      new Uint8Array(coinbaseMerkleBranch(internal).flatMap((s) => [...reverseBytes(s)])),
    )
    expect(compressedCoinbaseTxid(a.bitcoinMergedMiningCoinbaseTransaction)).toEqual(internal[0])
    expect(validateMergedMining(a.hashForMergedMining, 1n, a)).toBeNull()
  })

  it('refuses bad input with RSKj’s text where RSKj has one', () => {
    expect(() => fieldsFromPartialMerkle(header, coinbase, [], 1)).toThrow("The list of merkle hashes can't be empty")
    expect(() => fieldsFromPartialMerkle(header.subarray(0, 79), coinbase, internal, 5)).toThrow(/80 bytes/)
    expect(() => fieldsFromBlockTransactions(header, coinbase, [])).toThrow(/at least the coinbase/)
    expect(() => fieldsFromBlockTransactions(header, coinbase, [new Uint8Array(31)])).toThrow(/32 bytes/)
    expect(() => fieldsFromBlockTransactions(header, coinbase.subarray(0, 20), internal)).toThrow(/Invalid bitcoin coinbase transaction/)
    expect(() => fieldsFromBitcoinBlock(header)).toThrow(/Invalid bitcoin block/)
  })
})

describe('ProofOfWorkRule on real mainnet blocks', () => {
  it('accepts RSKj mainnet headers 2,328,245–2,328,246 (12-hash proofs, real Bitcoin PoW at mainnet difficulty)', () => {
    const rules = () => ({ umm: false, version: 0 as const, edges: false, baseEvent: false, rskip92: true })
    for (const [, raw] of MAINNET) {
      const h = decodeRskHeader(hex(raw), rules)
      expect(validateMergedMining(hashForMergedMining(h), h.difficulty, h)).toBeNull()
      // Internal-order proofs would not fold to the root: RSKj stores display order.
      const flipped = new Uint8Array(h.bitcoinMergedMiningMerkleProof)
      for (let i = 0; i < flipped.length; i += 32) flipped.set(reverseBytes(flipped.subarray(i, i + 32)), i)
      expect(validateMergedMining(hashForMergedMining(h), h.difficulty, { ...h, bitcoinMergedMiningMerkleProof: flipped })).toBe(
        "bitcoin merkle branch doesn't match coinbase and state root",
      )
    }
  })
})

describe('validateMergedMining refusals (ProofOfWorkRule reasons)', () => {
  const good = buildMergedMiningFields(HASH, 1n, 1_700_000_000n)
  const check = (f: Partial<MergedMiningFields>, hash = HASH, difficulty = 1n) => validateMergedMining(hash, difficulty, { ...good, ...f })
  /** Compressed coinbase whose tail is `tail` (no midstate blocks). */
  const tailOnly = (tail: Uint8Array) => new Uint8Array([...compressCoinbase(new Uint8Array()), ...tail])
  const javaBytes = (b: Uint8Array) => `[${Array.from(b, (x) => (x << 24) >> 24).join(', ')}]`

  it('merkle proof format and size (RSKIP180)', () => {
    expect(check({ bitcoinMergedMiningMerkleProof: new Uint8Array(33) })).toBe(
      "Merkle proof can't be validated: Partial merkle tree does not have the expected format",
    )
    expect(check({ bitcoinMergedMiningMerkleProof: new Uint8Array(992) })).toBe(
      "Merkle proof can't be validated: Partial merkle tree's size is greater than 960",
    )
  })

  it('coinbase and header presence and size', () => {
    expect(check({ bitcoinMergedMiningCoinbaseTransaction: new Uint8Array() })).toBe('Compressed coinbase transaction does not exist')
    expect(check({ bitcoinMergedMiningHeader: new Uint8Array() })).toBe('Bitcoin merged mining header does not exist')
    expect(check({ bitcoinMergedMiningHeader: good.bitcoinMergedMiningHeader.subarray(0, 79) })).toBe(
      'Bitcoin merged mining header must be 80 bytes but was 79',
    )
    expect(check({ bitcoinMergedMiningCoinbaseTransaction: new Uint8Array(10) })).toMatch(/^Failed to validate PoW: /)
  })

  it('proof of work above the target', () => {
    const difficulty = 1n << 200n
    const pow = BigInt('0x' + Buffer.from(dsha256(good.bitcoinMergedMiningHeader)).reverse().toString('hex'))
    expect(check({}, HASH, difficulty)).toBe(`Hash ${pow.toString(16)} is higher than target ${(2n ** 256n / difficulty).toString(16)}`)
  })

  it('tag and hash in the coinbase tail', () => {
    const tail = good.bitcoinMergedMiningCoinbaseTransaction.subarray(40)
    expect(check({}, OTHER)).toBe(
      'bitcoin coinbase transaction tail message does not contain expected RSKBLOCK:RskBlockHeaderHash. ' +
        `Expected: ${javaBytes(new Uint8Array([...TAG, ...OTHER]))} . Actual: ${javaBytes(tail)} .`,
    )
    const far = tailOnly(new Uint8Array([...new Uint8Array(70), ...TAG, ...HASH]))
    expect(check({ bitcoinMergedMiningCoinbaseTransaction: far })).toBe('bitcoin coinbase transaction tag position is bigger than expected 64. Actual: 70.')
    const twoTags = new Uint8Array([...new Uint8Array(30), ...TAG, ...HASH, ...TAG, ...OTHER])
    expect(check({ bitcoinMergedMiningCoinbaseTransaction: tailOnly(twoTags) })).toBe(`The valid RSK tag is not the last RSK tag. Tail: ${javaBytes(twoTags)}.`)
    const long = tailOnly(new Uint8Array([...new Uint8Array(30), ...TAG, ...HASH, ...new Uint8Array(129)]))
    expect(check({ bitcoinMergedMiningCoinbaseTransaction: long })).toBe('More than 128 bytes after RSK tag')
    expect(check({ bitcoinMergedMiningCoinbaseTransaction: tailOnly(new Uint8Array([...new Uint8Array(10), ...TAG, ...HASH])) })).toBe(
      'Coinbase transaction must always be greater than 64-bytes long. But it was: 51',
    )
  })

  it('merkle branch: wrong sibling, and a node pair that forms a 64-byte transaction', () => {
    expect(check({ bitcoinMergedMiningMerkleProof: new Uint8Array(32).fill(9) })).toBe("bitcoin merkle branch doesn't match coinbase and state root")
    // Grind a coinbase whose txid (display order) has byte 4 = 1 (one input), then a sibling completing a 64-byte tx.
    let compressed: Uint8Array = new Uint8Array()
    for (let n = 0; ; n++) {
      compressed = compressCoinbase(coinbaseBytes(minerCoinbase(HASH, Uint8Array.of(n & 0xff, n >> 8))))
      if (reverseBytes(compressedCoinbaseTxid(compressed))[4] === 1) break
    }
    const sibling = new Uint8Array(32)
    sibling.set([0xff, 0xff, 0xff, 0xff], 5) // output 0 index = coinbase marker
    sibling[9] = 4 // input script length
    sibling[18] = 1 // one output
    sibling[19] = 1 // value = 1 satoshi
    sibling[27] = 0 // output script length: 4 + 0 = 4
    expect(check({ bitcoinMergedMiningCoinbaseTransaction: compressed, bitcoinMergedMiningMerkleProof: sibling })).toBe(
      'Supplied nodes form a valid btc transaction',
    )
  })
})

describe('RSKIP110 fork detection data of mined blocks', () => {
  it("from block 449 on, the hash for merged mining ends with RSKj's ForkDetectionDataCalculator bytes (ancestor hashes by bitcoinjs-lib)", async () => {
    const { fresh } = await import('./helpers.js')
    const p = await fresh()
    const rq = (method: string, params: unknown[] = []) => p.request({ method, params }) as Promise<any>
    for (let i = 0; i < 452; i++) await rq('evm_mine')
    const blocks: any[] = []
    for (let n = 0; n <= 452; n++) blocks.push(await rq('eth_getBlockByNumber', ['0x' + n.toString(16), false]))
    for (const n of [447, 448, 449, 450, 452]) {
      const tail = blocks[n].hashForMergedMining.slice(2 + 40)
      if (n < 449) {
        // Too short a chain: the plain keccak, whose last 12 bytes are no counter.
        expect(tail.slice(16)).not.toBe(n.toString(16).padStart(8, '0'))
        continue
      }
      const best = n - 1
      const cpvStart = Math.floor(best / 64) * 64
      const expected = new Uint8Array(12)
      for (let i = 0; i < 7; i++) {
        // The Bitcoin block hash in display order; the calculator takes its last byte.
        const hash = Block.fromHex(blocks[cpvStart - i * 64].bitcoinMergedMiningHeader.slice(2)).getId()
        expected[i] = parseInt(hash.slice(-2), 16)
      }
      expected[7] = 0 // uncles in the last 32 blocks
      new DataView(expected.buffer).setUint32(8, n)
      expect(tail).toBe(Buffer.from(expected).toString('hex'))
    }
  }, 60_000)
})
