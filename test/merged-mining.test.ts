/**
 * Merged mining: Bitcoin serialization cross-checked with bitcoinjs-lib (an independent implementation), the
 * fields rsksim mines, the three submission shapes, RSKj's ProofOfWorkRule on real mainnet blocks (rsksmart/rsk-powhsm
 * `middleware/tests/simulator/integration/blocks.data`), and every refusal with RSKj's reason.
 */
import { describe, expect, it } from 'vitest'
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
} from '../src/node/rsk/bitcoin.js'
import { coinbaseBytes, minerCoinbase } from '../src/node/rsk/coinbase.js'
import { decodeRskHeader, hashForMergedMining } from '../src/node/rsk/header.js'
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
} from '../src/node/rsk/mergedMining.js'

const hex = (s: string): Uint8Array => hexToBytes(('0x' + s.replace(/^0x/, '')) as PrefixedHexString)
const bytes = (n: number, f: (i: number) => number) => Uint8Array.from({ length: n }, (_, i) => f(i) & 0xff)
const TAG = new TextEncoder().encode('RSKBLOCK:')
const HASH = bytes(32, (i) => i * 7 + 1)
const OTHER = bytes(32, (i) => 255 - i)

/** Two consecutive mainnet headers (getFullEncoded), blocks 2,328,246 and 2,328,245. */
const MAINNET: [bigint, string][] = [
  [
    2328246n,
    'f90467a00feae49cf0a9d54033e36c2d872aea19c5e0632d88a228ad52b0e05c0d61d78aa04c00286d03e9d2afd41cda41a488a75850d2' +
    'a12a8b52aaa182794aaace7054809407c5446adb392be116f4859a722589f3fa8223e4a0f3dd7a60e801486d03bbaf5c65459bab72ba96' +
    'ba7c170d6e01acd1f3800932f2a0250cd0960abbf3e965b75fed8b274e26082cdc8af8a5d16a326c4d3eda901f88a08ac6ec8e125366e5' +
    '1f94f6bc2cfdea209809ef74dd0baa04f0fd84a206aee224b9010000000000000080000400001000000000400040000000000000000020' +
    '00000000001000000001000000000000000000000000000000000000000000000000000000000000000000010000010000000000000000' +
    '00000000000000020000000000080000000000000000000000008000000000000020002000000000000000000000010000000000000000' +
    '00000080000002000000000000000000000020400000000000000000100020000000000000000080000000000080001000000000000000' +
    '00000100000000000000000000000000002000010000040020002090000000000000000000080000200400000000000002080100000000' +
    '00000000000000008927ea77021c325e1d69832386b68367c28082d88c845eb0f96991d0018e5741534142492d62613831393433860306' +
    '6e95d400840375c3e901b85000000020ff02e3470a25493117d17149b1eed828d87aa3a8a0a709000000000000000000e519e1c6dc0189' +
    'ea28f8798b1b7165d9122864f3c8e915dedb16ddcad910e0b36af9b05e397a111702d5cbadb90180cb486a34c517de3717dd2332570d12' +
    '27ae3628dc624c98b23aa5abab08fd33d5e32017fc8c94de40afe359a17293ef4140c1eee4a2176e9589d88f42469df64bbdda021b35f8' +
    '4fba4157922610a11ca77af92e25f6e09120bb7d192f5d4b0049e8ee9a95ccd7b635f7b81f7fe967dd268392fecd91ba4ffc335ec986ef' +
    '14be2e679fcd2f363380a27a375850ceedad979f283f6d57cd265bb4f23ffca95f63b01cd33bcbe912649828a3f51d10b44b4e7ce67a0c' +
    '81b8402a16308d29cc979b8e3537f193b08a005c6dca3d18e0a6da609ffcb27cc2c3be63f824a664debd1b27411d99c4286d33daae1c51' +
    '5ffedf663adca3ab2c05c9f9f896b66e3c6a8e57e7533d8b6aaec04816e8021ca81e7e901ee5aeb5ad26b07c31b3da1896552838ce4bb5' +
    '84893cf1ee45f6b981c7ffdae04e04097a3eac5760d77845841675616354ef817e746f65e3448f58dbfa5df9cd96d688567c41e883fcbd' +
    'b20dadedde850c1b9569060458825a784a67edae576302f06674954d2a7fe754e6de3f26849a6cb89a00000000000000c023d867f67c97' +
    '9d5f36a579ace29e8b5f12087cd92025227e75441827b3811515726a5ea2490fb838efb20400000000000000002b6a2952534b424c4f43' +
    '4b3a110b98506796a4c3ceb021ba8d98f32c14662490f24ed6995d89912b002386b60000000000000000266a24b9e11b6d8c6b52ddcaf0' +
    'f06105abddcfa03e513ff691fdda5372d41491f5326812566eb600000000',
  ],
  [
    2328245n,
    'f9043ca07949785f01d218a6155e9868dfc0efdb25ff8d10539d192a9523b722090ac032a04c0bb4182d5017a7557366cd5b36b8b1f485' +
    '49c0aa2e8aada72436431a4beefd94512bfa2264b89b91406fff40f32f90f02d79d452a01d3902b3835dd5f6e54c3a2d6e88fd5ae24d7d' +
    '295500b54f527034a50fce0139a0268ff57aae857dd263811449f76630cf8d54c906870647d9f47443604b3345c4a0c0eb15ed8c9885be' +
    '9855f20835db1f719b2e04a23a45610e88fbe8a3fc4d5960b9010000000000000000000000001000000000000000000000000000000020' +
    '00000000000000000001000000000000000000004000000000200000000000000000000000000000000000000000100000004000000000' +
    '00000000000000020040000000000000000000000048000000000000000000800000002000000000000000000000000020000000000008' +
    '200000000000008000000000000000000000200000000000000000001000a00000000000000000800000000000a2001008000000000000' +
    '00000100008000000000000000000000002000010000040020000090000000000000000000000000200400000014000002000000000000' +
    '00000000400400008927ea77021c325e1d69832386b58367c2808302b67d845eb0f94d91d0018e5741534142492d34356261663463860a' +
    '334c3e724884036cfece01b8500000ff3fff02e3470a25493117d17149b1eed828d87aa3a8a0a709000000000000000000fe3fccaea940' +
    'dcce7c91b843e3814d23d07a87ed5f2261acb9840a7b9b64e6bd6af9b05e397a1117ab89c237b90180cb486a34c517de3717dd2332570d' +
    '1227ae3628dc624c98b23aa5abab08fd33d5e32017fc8c94de40afe359a17293ef4140c1eee4a2176e9589d88f42469df64bbdda021b35' +
    'f84fba4157922610a11ca77af92e25f6e09120bb7d192f5d4b0049e8ee9a95ccd7b635f7b81f7fe967dd268392fecd91ba4ffc335ec986' +
    'ef14be2e1802d553f532d77bcc464438b5e26aabdc63657185bfd84a06c5cb23a7aeae94910dfa0dc199b2cf44160e5a46a97b38da3d66' +
    '802cafe5b6ac25c7b64fe8a86c0856162954553c8c7a0661fb397040f22e45f727a4715c12e5c665ccd4e8cc43479427d8093fcec49aa0' +
    'fb668d22afe34c7d6476d4fdbb35193676ae0bf1352ff8a8910598036c7d0b85abe8753ea8c04bc989eb6e1d4bb0fe838648ba60349c78' +
    '63487cf11045e0f6edcfc4ae4566a25100a3c7eb67ee08cb278c42d65478f28c220584164ca7d50aea47a87fa9975349f1cca4f3e6d8d4' +
    '59f6fb822829a76bc6cd45d8881cc9c53856f1c23dd30e50f4c861ea6bca11ef08f32c088f70d0eab86e0000000000000100718ca82199' +
    '61d9b4d40eb57d8aa265148b5fffcdc9bfde0cc6bd69ece259b479fb32a07a7c4757af12d5d3fde48100000000000000002b6a2952534b' +
    '424c4f434b3a2111669e028e5e5fac78b2b3ee7f910faaca2377f24ed6995d89912a002386b525140947',
  ],
]

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
