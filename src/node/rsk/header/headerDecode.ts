/**
 * Decoding of RSK header RLP, following RSKj `org/ethereum/core/BlockFactory.decodeHeader`: which optional items
 * follow the uncle count depends on the consensus rules active at the header's height, so the caller says which
 * network's rules apply (regtest by default).
 */
import { equalsBytes } from '@ethereumjs/util'
import { RLP } from '@ethereumjs/rlp'
import {
  edgesFromBytes,
  gasLimitBytesFor,
  javaSignedBytes,
  regtestHeaderRules,
  toBigInt,
  type HeaderActivation,
  type RskHeader,
} from './headerFields.js'

/** `HashUtil.EMPTY_TRIE_HASH`: RSKj reads an empty root as the empty trie's hash. */
const EMPTY_TRIE_HASH = Uint8Array.from([
  0x56, 0xe8, 0x1f, 0x17, 0x1b, 0xcc, 0x55, 0xa6, 0xff, 0x83, 0x45, 0xe6, 0x92, 0xc0, 0xf8, 0x6e, 0x5b, 0x48, 0xe0, 0x1b, 0x99, 0x6c, 0xad,
  0xc0, 0x01, 0x62, 0x2f, 0xb5, 0xe3, 0x63, 0xb4, 0x21,
])
/** `MAX_RLP_HEADER_SIZE_WITH_MINING - MAX_RLP_HEADER_SIZE_WITHOUT_MINING` in `BlockFactory`. */
const MINING_FIELD_COUNT = 3

/**
 * Decodes a header from any of RSKj's encodings (`getEncoded`, `getFullEncoded` or the compressed hash form), the
 * inverse of `encodeRskHeaderFull` / `encodeRskHeaderWithMergedMining` / `encodeRskHeader`. From the compressed
 * form of a version-1/2 header the bloom, edges and base event cannot be recovered: `logsBloom` is empty and
 * `extensionData` keeps the bytes, so the header re-encodes and hashes the same. Non-canonical difficulty or
 * gas-limit bytes (the genesis JSON's `0x0000000001`) are kept in `difficultyBytes` / `gasLimitBytes`.
 *
 * @example
 * const h = decodeRskHeader(hexToBytes(await provider.request({ method: 'rsk_getRawBlockHeaderByNumber', params: ['latest'] })))
 * // mainnet headers before Iris: decodeRskHeader(raw, () => ({ umm: false, version: 0, edges: false, baseEvent: false, rskip92: true }))
 */
export function decodeRskHeader(bytes: Uint8Array, rulesAt: HeaderActivation = regtestHeaderRules): RskHeader {
  const decoded = RLP.decode(bytes)
  if (!Array.isArray(decoded) || decoded.length < 16) throw new Error('Invalid block header: expected an RLP list of at least 16 items')
  const items = decoded.map((item, i) => {
    if (!(item instanceof Uint8Array)) throw new Error(`Invalid block header: item ${i} is a list`)
    return item
  })
  const at = (i: number): Uint8Array => {
    const item = items[i]
    if (item === undefined) throw new Error(`Invalid block header size: ${items.length}`)
    return item
  }
  const root = (b: Uint8Array): Uint8Array => (b.length === 0 ? EMPTY_TRIE_HASH.slice() : b)

  const number = toBigInt(at(8))
  const rules = rulesAt(number)
  const bloomSlot = at(6)
  const compressed = rules.version > 0 && bloomSlot.length !== 256
  const difficultyRaw = at(7)
  const gasLimitRaw = at(9)
  const coinbase = at(2)
  const h: RskHeader = {
    parentHash: at(0),
    unclesHash: at(1),
    // RLP.parseRskAddress: the empty string is the null address.
    coinbase: coinbase.length === 0 ? new Uint8Array(20) : coinbase,
    stateRoot: root(at(3)),
    txTrieRoot: root(at(4)),
    receiptTrieRoot: root(at(5)),
    logsBloom: compressed ? new Uint8Array() : bloomSlot,
    difficulty: toBigInt(difficultyRaw),
    number,
    gasLimit: toBigInt(gasLimitRaw),
    gasUsed: toBigInt(at(10)),
    timestamp: toBigInt(at(11)),
    extraData: at(12),
    paidFees: toBigInt(at(13)),
    minimumGasPrice: toBigInt(at(14)),
    uncleCount: Number(toBigInt(at(15))),
    version: 0,
    bitcoinMergedMiningHeader: new Uint8Array(),
    bitcoinMergedMiningMerkleProof: new Uint8Array(),
    bitcoinMergedMiningCoinbaseTransaction: new Uint8Array(),
  }
  if (!equalsBytes(difficultyRaw, javaSignedBytes(h.difficulty))) h.difficultyBytes = difficultyRaw
  if (!equalsBytes(gasLimitRaw, gasLimitBytesFor(number, h.gasLimit))) h.gasLimitBytes = gasLimitRaw
  if (!rules.rskip92) h.useRskip92Encoding = false

  let r = 16
  if (rules.umm) h.ummRoot = at(r++)
  if (rules.version > 0) {
    if (compressed) {
      h.extensionData = bloomSlot
      const ext = RLP.decode(bloomSlot)
      const version = Array.isArray(ext) ? ext[0] : undefined
      if (!(version instanceof Uint8Array)) throw new Error('Invalid block header: malformed extension data')
      h.version = version[0] ?? 0
    } else {
      h.version = at(r++)[0] ?? 0
    }
  }
  if ((rules.version === 0 || !compressed) && items.length > r && rules.edges) h.txExecutionSublistsEdges = edgesFromBytes(at(r++))
  if (rules.baseEvent && !compressed) {
    // BlockFactory: with nothing left, or only the three merged-mining fields, the base event was not encoded.
    const remaining = items.length - r
    h.baseEvent = remaining === 0 || remaining === MINING_FIELD_COUNT ? new Uint8Array() : at(r++)
  }
  const remaining = items.length - r
  if (remaining === 1 || remaining === MINING_FIELD_COUNT) {
    h.bitcoinMergedMiningHeader = at(r++)
    if (remaining === MINING_FIELD_COUNT) {
      h.bitcoinMergedMiningMerkleProof = at(r++)
      h.bitcoinMergedMiningCoinbaseTransaction = at(r++)
    }
  } else if (remaining !== 0) {
    throw new Error(`Invalid block header size: ${items.length}`)
  }
  return h
}
