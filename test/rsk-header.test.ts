/**
 * RSK header codec against real RSKj data:
 * - three consecutive mainnet headers (blocks 2,328,244–2,328,246, full encoding with the three merged-mining
 *   fields) from rsksmart/rsk-powhsm `middleware/tests/simulator/integration/blocks.data`: they must round-trip
 *   byte for byte, each one's hash must be the next one's parentHash, and the hash for merged mining must be
 *   exactly what the Bitcoin miner committed to after `RSKBLOCK:` in the coinbase;
 * - the genesis block of RSKj's `co/rsk/core/BlockFactoryTest.decodeGenesisBlock`, hash `cabb7fbe…`;
 * - regtest version-0 and version-2 headers, checked field by field against RSKj's layout.
 */
import { describe, expect, it } from 'vitest'
import { MAINNET } from './fixtures/mainnetHeaders.js'
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, hexToBytes, type PrefixedHexString } from '@ethereumjs/util'
import { keccak256 } from '../src/node/crypto.js'
import {
  decodeRskHeader,
  encodeRskHeader,
  encodeRskHeaderFull,
  encodeRskHeaderWith,
  encodeRskHeaderWithMergedMining,
  hashForMergedMining,
  regtestHeaderShape,
  rskBlockHash,
  sealHeader,
  type HeaderRules,
  type RskHeader,
} from '../src/node/rsk/header/header.js'
import { buildMergedMiningFields } from '../src/node/rsk/mergedMining/mergedMining.js'

const hex = (s: string): Uint8Array => hexToBytes(('0x' + s.replace(/^0x/, '')) as PrefixedHexString)
/** Mainnet at these heights: Orchid (RSKIP92) and Wasabi (RSKIP110) active, Iris (UMM) and RSKIP351 not yet. */
const MAINNET_2_3M: HeaderRules = { umm: false, version: 0, edges: false, baseEvent: false, rskip92: true }

/**
 * RSKj `BlockFactoryTest.genesisRaw()`: a whole block RLP [header, txs, uncles] of the RSK testnet genesis (hash
 * `cabb7fbe…`, which `genesisRawHash()` asserts).
 */
const GENESIS_BLOCK =
  'f901dbf901d6a00000000000000000000000000000000000000000000000000000000000000000a01dcc4de8dec75d7aab85b567b6ccd4' +
  '1ad312451b948a7413f0a142fd40d49347943333333333333333333333333333333333333333a045bce5168430c42b3d568331753f900a' +
  '32457b4f3748697cbd8375ff4da72641a056e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421a056e81f171b' +
  'cc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421b9010000000000000000000000000000000000000000000000000000' +
  '00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000' +
  '00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000' +
  '00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000' +
  '00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000' +
  '000000000000000000000085000010000080834c4b40808085434d272841800080000000c0c0'
const GENESIS_HASH = 'cabb7fbe88cd6d922042a32ffc08ce8b1fbb37d650b9d4e7dbfe2a7469adfa42'

const RSK_TAG = new TextEncoder().encode('RSKBLOCK:')
const contains = (hay: Uint8Array, needle: Uint8Array) => Buffer.from(hay).includes(Buffer.from(needle))

describe('RSKj mainnet headers (rsk-powhsm blocks.data)', () => {
  const headers = MAINNET.map(([n, raw]) => ({ n, raw, h: decodeRskHeader(hex(raw), () => MAINNET_2_3M) }))

  it('decode and re-encode byte for byte (getFullEncoded)', () => {
    for (const { n, raw, h } of headers) {
      expect(h.number).toBe(n)
      expect(h.bitcoinMergedMiningHeader.length).toBe(80)
      expect(h.bitcoinMergedMiningMerkleProof.length).toBe(12 * 32)
      expect(bytesToHex(encodeRskHeaderWithMergedMining(h)).slice(2)).toBe(raw)
    }
  })

  it('hash each header as RSKj does: it is the next block’s parentHash', () => {
    for (let i = 0; i + 1 < headers.length; i++) {
      expect(bytesToHex(rskBlockHash(headers[i + 1]!.h))).toBe(bytesToHex(headers[i]!.h.parentHash))
    }
    // RSKIP92: the hash covers the Bitcoin header but not the proof and coinbase; v0: compressed == uncompressed.
    const h = headers[0]!.h
    expect(encodeRskHeader(h)).toEqual(encodeRskHeaderFull(h))
    expect(rskBlockHash(h)).toEqual(keccak256(encodeRskHeaderWith(h, { withMerkleProofAndCoinbase: false })))
    expect(rskBlockHash(h)).not.toEqual(keccak256(encodeRskHeaderWithMergedMining(h)))
  })

  it('hashForMergedMining is what the Bitcoin miner committed to (RSKIP110 data read back from the coinbase)', () => {
    for (const { h } of headers) {
      const forMM = hashForMergedMining(h)
      expect(contains(h.bitcoinMergedMiningCoinbaseTransaction, new Uint8Array([...RSK_TAG, ...forMM]))).toBe(true)
      // The first 20 bytes are the header keccak without merged-mining fields; the last 12 are fork detection data
      // whose last 4 bytes are the height being mined.
      const base = keccak256(encodeRskHeaderWith(h, { withMergedMiningFields: false, compressed: true }))
      expect(forMM.subarray(0, 20)).toEqual(base.subarray(0, 20))
      expect(new DataView(forMM.buffer, forMM.byteOffset).getUint32(28)).toBe(Number(h.number))
      // Given explicitly (as a miner building the header would), the same data gives the same hash.
      expect(hashForMergedMining({ ...h }, forMM.slice(20))).toEqual(forMM)
    }
  })
})

describe('RSKj BlockFactoryTest genesis (only RSKIP92 active, non-minimal difficulty)', () => {
  const block = RLP.decode(hex(GENESIS_BLOCK)) as Uint8Array[][]
  const raw = RLP.encode(block[0]!)
  // decodeGenesisBlock enables RSKIP92 only: the proof and coinbase (0x00 each) are decoded but not hashed.
  const rules: HeaderRules = { umm: false, version: 0, edges: false, baseEvent: false, rskip92: true }
  const h = decodeRskHeader(raw, () => rules)

  it('hashes to cabb7fbe… and re-encodes byte for byte', () => {
    expect(bytesToHex(rskBlockHash(h)).slice(2)).toBe(GENESIS_HASH)
    expect(encodeRskHeaderWithMergedMining(h)).toEqual(raw)
    expect(rskBlockHash(decodeRskHeader(raw, () => ({ ...rules, rskip92: false })))).not.toEqual(rskBlockHash(h))
    // GenesisHeader keeps the JSON's difficulty bytes; the value is still the number.
    expect(h.difficultyBytes).toEqual(hex('0000100000'))
    expect(h.difficulty).toBe(0x100000n)
    expect([...h.bitcoinMergedMiningHeader, ...h.bitcoinMergedMiningMerkleProof, ...h.bitcoinMergedMiningCoinbaseTransaction]).toEqual([0, 0, 0])
  })
})

/** A regtest header at `number` with every field distinct, shaped as RSKj's builder shapes it. */
function regtestHeader(number: bigint): RskHeader {
  const fill = (n: number, b: number) => new Uint8Array(n).fill(b)
  return {
    parentHash: fill(32, 1),
    unclesHash: fill(32, 2),
    coinbase: fill(20, 3),
    stateRoot: fill(32, 4),
    txTrieRoot: fill(32, 5),
    receiptTrieRoot: fill(32, 6),
    logsBloom: fill(256, 7),
    difficulty: 1n,
    number,
    gasLimit: 10_000_000n,
    gasUsed: 21_000n,
    timestamp: 1_700_000_000n,
    extraData: new TextEncoder().encode('rsksim'),
    paidFees: 0n,
    minimumGasPrice: 0n,
    uncleCount: 0,
    ...regtestHeaderShape(number),
    bitcoinMergedMiningHeader: new Uint8Array(),
    bitcoinMergedMiningMerkleProof: new Uint8Array(),
    bitcoinMergedMiningCoinbaseTransaction: new Uint8Array(),
  }
}

function mined(number: bigint): RskHeader {
  const h = regtestHeader(number)
  return { ...h, ...buildMergedMiningFields(hashForMergedMining(h), h.difficulty, h.timestamp) }
}

describe('regtest headers', () => {
  it('version 2 from block 1: getEncoded carries ummRoot, version, edges, base event, Bitcoin header', () => {
    const h = mined(1n)
    const items = RLP.decode(encodeRskHeaderFull(h)) as Uint8Array[]
    expect(items.length).toBe(21)
    expect(items[6]).toEqual(h.logsBloom)
    expect(items[9]).toEqual(hex('00989680')) // BlockToMineBuilder: gasLimit.toByteArray() keeps the sign byte
    expect(items[14]).toEqual(Uint8Array.of(0)) // encodeSignedCoinNonNullZero(0) is the byte 0x00
    expect(items.slice(16, 20)).toEqual([new Uint8Array(), Uint8Array.of(2), new Uint8Array(), new Uint8Array()])
    expect(items[20]).toEqual(h.bitcoinMergedMiningHeader)
  })

  it('version 2 hash: the bloom slot holds RLP[2, keccak(RLP[keccak(bloom), baseEvent, edges])], nothing after ummRoot', () => {
    const h = mined(5n)
    const items = RLP.decode(encodeRskHeader(h)) as Uint8Array[]
    expect(items.length).toBe(18)
    const extension = keccak256(RLP.encode([keccak256(h.logsBloom), new Uint8Array(), new Uint8Array()]))
    expect(items[6]).toEqual(RLP.encode([Uint8Array.of(2), extension]))
    expect(items[16]).toEqual(new Uint8Array())
    expect(items[17]).toEqual(h.bitcoinMergedMiningHeader)
    expect(rskBlockHash(h)).toEqual(keccak256(encodeRskHeader(h)))
    // keccak(getEncoded()) is not the hash of a version-2 header: the two encodings differ.
    expect(encodeRskHeaderFull(h)).not.toEqual(encodeRskHeader(h))
    // Bloom, edges and base event all enter the hash through the extension.
    expect(rskBlockHash({ ...h, txExecutionSublistsEdges: [3] })).not.toEqual(rskBlockHash(h))
    expect(rskBlockHash({ ...h, baseEvent: Uint8Array.of(9) })).not.toEqual(rskBlockHash(h))
    expect(rskBlockHash({ ...h, logsBloom: new Uint8Array(256) })).not.toEqual(rskBlockHash(h))
  })

  it('the hash follows the bloom through a run of headers that repeat, change and reuse blooms', () => {
    // Each expected hash from the extension's definition (RLP.encode and keccak of the bloom itself), in an order
    // that reuses a bloom's contents in a new array, changes one bit, and returns to an earlier bloom.
    const h = mined(5n)
    const blooms = [new Uint8Array(256).fill(7), new Uint8Array(256).fill(7), new Uint8Array(256), new Uint8Array(256).fill(7)]
    blooms[2]![100] = 1
    blooms.push(Uint8Array.from(blooms[2]!), new Uint8Array(256).fill(9))
    for (const [i, logsBloom] of blooms.entries()) {
      const header = { ...h, logsBloom }
      const extension = keccak256(RLP.encode([keccak256(logsBloom), new Uint8Array(), new Uint8Array()]))
      const items = RLP.decode(encodeRskHeader(header)) as Uint8Array[]
      expect(items[6], `bloom ${i}`).toEqual(RLP.encode([Uint8Array.of(2), extension]))
      expect(rskBlockHash(header), `bloom ${i}`).toEqual(keccak256(encodeRskHeader(header)))
    }
  })

  it('each number of the header reaches its encoding, header after header', () => {
    const base = mined(5n)
    const changed: Array<Partial<RskHeader>> = [
      { difficulty: 3n },
      { number: 6n },
      { gasLimit: 9_000_000n },
      { gasUsed: 42_000n },
      { timestamp: 1_700_000_001n },
      { paidFees: 7n },
      { minimumGasPrice: 60_000_000n },
      { uncleCount: 1 },
      { extraData: Uint8Array.of(1, 2) },
    ]
    for (const change of changed) {
      // The base header first, then one that differs from it in a single field.
      decodeRskHeader(encodeRskHeaderFull(base))
      const h = { ...base, ...change }
      const back = decodeRskHeader(encodeRskHeaderFull(h))
      for (const [k, v] of Object.entries(change)) expect(back[k as keyof RskHeader], k).toEqual(v)
    }
  })

  it('round-trips getEncoded, getFullEncoded and the hash encoding', () => {
    for (const h of [mined(1n), { ...mined(7n), txExecutionSublistsEdges: [2, 300], baseEvent: Uint8Array.of(1, 2, 3) }]) {
      const full = decodeRskHeader(encodeRskHeaderFull(h))
      expect(full).toEqual({ ...h, bitcoinMergedMiningMerkleProof: new Uint8Array(), bitcoinMergedMiningCoinbaseTransaction: new Uint8Array() })
      expect(decodeRskHeader(encodeRskHeaderWithMergedMining(h))).toEqual(h)
      const fromHash = decodeRskHeader(encodeRskHeader(h))
      expect(fromHash.logsBloom.length).toBe(0)
      expect(encodeRskHeader(fromHash)).toEqual(encodeRskHeader(h))
      expect(rskBlockHash(fromHash)).toEqual(rskBlockHash(h))
      expect(() => encodeRskHeaderFull(fromHash)).toThrow(/compressed form/)
    }
  })

  it('genesis: version 0, merged-mining fields 0x00 of which only the header is encoded (RSKIP92)', () => {
    const g: RskHeader = {
      ...regtestHeader(0n),
      coinbase: new Uint8Array(20), // the null address is encoded as the empty string
      logsBloom: new Uint8Array(256),
      gasUsed: 0n,
      bitcoinMergedMiningHeader: Uint8Array.of(0),
      bitcoinMergedMiningMerkleProof: Uint8Array.of(0),
      bitcoinMergedMiningCoinbaseTransaction: Uint8Array.of(0),
    }
    const items = RLP.decode(encodeRskHeader(g)) as Uint8Array[]
    expect(items.length).toBe(17)
    expect(items[2]).toEqual(new Uint8Array())
    expect(items[9]).toEqual(hex('989680')) // GenesisHeader strips leading zeroes
    expect(items[16]).toEqual(Uint8Array.of(0))
    expect(encodeRskHeader(g)).toEqual(encodeRskHeaderFull(g))
    expect(decodeRskHeader(encodeRskHeaderWithMergedMining(g))).toEqual(g)
    expect(hashForMergedMining(g)).toEqual(keccak256(encodeRskHeaderWith(g, { withMergedMiningFields: false, compressed: true })))
  })

  it('hashForMergedMining: keccak without merged-mining fields, fork detection data in the last 12 bytes, UMM folding', () => {
    const h = regtestHeader(500n)
    const base = keccak256(encodeRskHeaderWith(h, { withMergedMiningFields: false, compressed: true }))
    expect(hashForMergedMining(h)).toEqual(base)
    expect(hashForMergedMining({ ...h, forkDetectionData: new Uint8Array() })).toEqual(base)
    const fdd = Uint8Array.from({ length: 12 }, (_, i) => i + 1)
    expect(hashForMergedMining(h, fdd)).toEqual(new Uint8Array([...base.subarray(0, 20), ...fdd]))
    expect(hashForMergedMining({ ...h, forkDetectionData: fdd })).toEqual(hashForMergedMining(h, fdd))
    // Merged-mining fields do not enter the hash for merged mining.
    expect(hashForMergedMining(mined(5n))).toEqual(hashForMergedMining(regtestHeader(5n)))
    const umm = new Uint8Array(20).fill(0xaa)
    expect(hashForMergedMining({ ...h, ummRoot: umm })).toEqual(
      keccak256(new Uint8Array([...keccak256(encodeRskHeaderWith({ ...h, ummRoot: umm }, { withMergedMiningFields: false, compressed: true })).subarray(0, 20), ...umm])),
    )
    expect(() => hashForMergedMining({ ...h, ummRoot: new Uint8Array(5) })).toThrow('UMM Root length must be either 0 or 20. Found: 5')
    // A sealed header at height ≥ 449 without stored data reads it from its coinbase, as RSKj's decoded blocks do.
    const sealed = { ...h, ...buildMergedMiningFields(hashForMergedMining(h, fdd), 1n, h.timestamp) }
    expect(hashForMergedMining(sealed)).toEqual(hashForMergedMining(h, fdd))
    expect(() => hashForMergedMining({ ...sealed, bitcoinMergedMiningCoinbaseTransaction: Uint8Array.of(1) })).toThrow(
      /^Mining fork detection data could not be found/,
    )
  })
})

describe('sealHeader: the three encodings a block being sealed needs, from one list of items', () => {
  it('re-seals RSKj mainnet headers: each hash is its child’s parentHash, the merged-mining hash is the one the miner committed to, the length is the full encoding’s', () => {
    const headers = MAINNET.map(([, raw]) => ({ raw, h: decodeRskHeader(hex(raw), () => MAINNET_2_3M) }))
    for (let i = 0; i < headers.length; i++) {
      const { raw, h } = headers[i]!
      const coinbase = h.bitcoinMergedMiningCoinbaseTransaction
      // What the miner committed to: the 32 bytes after the coinbase's RSKBLOCK: tag; its last 12 are RSKIP110 data.
      const tagAt = Buffer.from(coinbase).lastIndexOf(Buffer.from(RSK_TAG))
      const committed = coinbase.slice(tagAt + RSK_TAG.length, tagAt + RSK_TAG.length + 32)
      const unsealed: RskHeader = {
        ...h,
        forkDetectionData: committed.slice(20),
        bitcoinMergedMiningHeader: new Uint8Array(),
        bitcoinMergedMiningMerkleProof: new Uint8Array(),
        bitcoinMergedMiningCoinbaseTransaction: new Uint8Array(),
      }
      let seen: Uint8Array | undefined
      const sealed = sealHeader(unsealed, (forMergedMining) => {
        seen = forMergedMining.slice()
        Object.assign(unsealed, {
          bitcoinMergedMiningHeader: h.bitcoinMergedMiningHeader,
          bitcoinMergedMiningMerkleProof: h.bitcoinMergedMiningMerkleProof,
          bitcoinMergedMiningCoinbaseTransaction: coinbase,
        })
      })
      expect(bytesToHex(seen!)).toBe(bytesToHex(committed))
      expect(bytesToHex(sealed.forMergedMining)).toBe(bytesToHex(committed))
      expect(sealed.encodedLength).toBe(raw.length / 2)
      // The fixture lists the blocks newest first: each one's parent comes after it.
      if (i > 0) expect(bytesToHex(sealed.hash)).toBe(bytesToHex(headers[i - 1]!.h.parentHash))
    }
  })

  it('equals hashForMergedMining, rskBlockHash and encodedRskHeaderWithMergedMiningLength on regtest shapes', () => {
    const fdd = Uint8Array.from({ length: 12 }, (_, i) => i + 1)
    const shapes: Array<[string, RskHeader]> = [
      ['version 0 (genesis shape)', regtestHeader(0n)],
      ['version 2', regtestHeader(7n)],
      ['version 2 with fork detection data', { ...regtestHeader(500n), forkDetectionData: fdd }],
      ['version 2 with a UMM root', { ...regtestHeader(9n), ummRoot: new Uint8Array(20).fill(0xaa) }],
      ['version 2 with edges and a base event', { ...regtestHeader(11n), txExecutionSublistsEdges: [1, 256], baseEvent: Uint8Array.of(5, 6) }],
      ['version 1', { ...regtestHeader(13n), version: 1, txExecutionSublistsEdges: [3] }],
      ['before RSKIP92 (proof and coinbase hashed)', { ...regtestHeader(15n), useRskip92Encoding: false }],
    ]
    for (const [name, h] of shapes) {
      const expectedForMM = hashForMergedMining(h)
      const separate = { ...h, ...buildMergedMiningFields(expectedForMM, h.difficulty, h.timestamp) }
      const copy = { ...h }
      const sealed = sealHeader(copy, (forMergedMining) => Object.assign(copy, buildMergedMiningFields(forMergedMining, copy.difficulty, copy.timestamp)))
      expect(bytesToHex(sealed.forMergedMining), name).toBe(bytesToHex(expectedForMM))
      expect(bytesToHex(sealed.hash), name).toBe(bytesToHex(rskBlockHash(separate)))
      expect(sealed.encodedLength, name).toBe(encodeRskHeaderWithMergedMining(separate).length)
    }
  })
})
