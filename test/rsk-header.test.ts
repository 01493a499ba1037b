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
  type HeaderRules,
  type RskHeader,
} from '../src/node/rsk/header.js'
import { buildMergedMiningFields } from '../src/node/rsk/mergedMining.js'

const hex = (s: string): Uint8Array => hexToBytes(('0x' + s.replace(/^0x/, '')) as PrefixedHexString)
/** Mainnet at these heights: Orchid (RSKIP92) and Wasabi (RSKIP110) active, Iris (UMM) and RSKIP351 not yet. */
const MAINNET_2_3M: HeaderRules = { umm: false, version: 0, edges: false, baseEvent: false, rskip92: true }

/** [number, getFullEncoded() hex], newest first. */
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
  [
    2328244n,
    'f9043ba0d244d9a9f528afab713f0f13e9dbce6ecb5f4a7f9472a9c50c9817e70d4b31f6a094346675aafe78657efcd8f2f579d8801909' +
    'ab603761e95483606708a05d2c8d94512bfa2264b89b91406fff40f32f90f02d79d452a083b3c1abb208211dc29af787cc6f89ad6db011' +
    'f36147f25e2917d99172a71b26a0c612abab34b385ee7bb1e882a34d25b58f99825618616c33b9ab6ce37df1790fa08beeaad046d411a0' +
    '278c20e27e3d9aca3d4b38b77aebf742de229e009c689eafb90100000000000000800000000010000000000000400000000000000000a0' +
    '00000000000000000001000000000000000000004000000000000000000000000000000000000000000000010000010000004000000000' +
    '00000000000000020000000000000000000000000000000000000000000000000020002001000000000000000000000000000000000000' +
    '20000000000002800000004000000000000020000000000000000000100020000000000000000080000000000080001000000000000000' +
    '00000100008000000000000000000000002000010000040020000090000000000000000000000000200400000000000002000000000000' +
    '00000000000400008928bb01461252be138f832386b48367c28082d88c845eb0f91191d0018e5741534142492d34356261663463860306' +
    '6e95d400840375da9704b85000809c28ff02e3470a25493117d17149b1eed828d87aa3a8a0a7090000000000000000003256a209793e31' +
    '1748331a968a8a6bfa2c14fb267a6970f7beeabe1e020fa04235f9b05e397a11170ad9a11ab90180cb486a34c517de3717dd2332570d12' +
    '27ae3628dc624c98b23aa5abab08fd33d5e32017fc8c94de40afe359a17293ef4140c1eee4a2176e9589d88f42469df64bbdda021b35f8' +
    '4fba4157922610a11ca77af92e25f6e09120bb7d192f5d4b0049e8ee9a95ccd7b635f7b81f7fe967dd268392fecd91ba4ffc335ec986ef' +
    '14be2e1802d553f532d77bcc464438b5e26aabdc63657185bfd84a06c5cb23a7aeae94910dfa0dc199b2cf44160e5a46a97b38da3d6680' +
    '2cafe5b6ac25c7b64fe8a86c88c2d9dc6b95637a748a0dcbdf306153d5033d9e721d14d3b14ad18715980f9a352761883f317dd2d68707' +
    'bfdeec55d23a0d52203d349e9a753d73bf8df80c8ad4198cf0900d391ece3edd27d4458ee09a250a1f4ca849f311daba4402a7b98f7d61' +
    'af8835415ed50d539838cf6d9e4960a62514d46f28df1be4722e990f2665b77f67bb391f9085ddefc9d89e235c3b0222b68c91bc84fe1b' +
    '0c7150bb129c2135783e080ab561cabd0a15df7753a5e877206b3e00f79172e304f0d5938a2a8eb86e0000000000000100968d5e50c626' +
    '890aa488a312a7d0276581249d46236368e50c18649b7d33b07ad766e794fa1693201f414e2ba0ce00000000000000002b6a2952534b42' +
    '4c4f434b3a1a4745731da939892b863bb8bee8fcb0603870d8f24ed6995d899126002386b4ef5f6796',
  ],
]

/** RSKj `BlockFactoryTest.genesisRaw()`: a whole block RLP [header, txs, uncles] of an older regtest genesis. */
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
