/**
 * A mined block as one byte string, for the blocks the store keeps packed (src/node/chain/store.ts): a block record
 * with its header, transactions and receipts as objects costs about 5 KB of heap (a token transfer per block:
 * docs/performance.md), its packed form about 1.1 KB outside the heap.
 *
 * The layout is RLP (src/node/rlp.ts), every field of the record written as it is, so that unpacking gives a record
 * equal to the one packed (test/blockPack.test.ts): [hash, header bloom, hashForMergedMining, totalDifficulty, size,
 * header, transactions, receipts]. The hash and the header's bloom come first, to be read without decoding the rest
 * (`packedBlockHash`, `packedBlockBloom`: index lookups, log queries over old blocks). Blooms are written as the
 * positions of their set bits (a transfer's receipt sets 9 of 2,048 bits). An optional field is `[]` when absent
 * and `[value]` when present, and so are the two header fields that are usually derived (`[]`: derived, checked when
 * packing): the parent hash (the previous block's hash) and the uncles hash (of no uncles). A transaction is [raw,
 * sender] (its sender is never recovered again: impersonated transactions carry a stand-in signature) or `[]` for the
 * REMASC transaction, which is a function of the block number.
 */
import type { Common } from '@ethereumjs/common'
import { equalsBytes, KECCAK256_RLP_ARRAY } from '@ethereumjs/util'
import { bytesToWord, rlpDecode, rlpEncode, unpaddedBytes, type RlpInput, type RlpItem } from '../rlp.js'
import { flatHex } from './flatHex.js'
import { StoredTxRecord } from './txRecord.js'
import type { BlockRecord, LogRecord, ReceiptRecord, TxRecord } from './types.js'
import type { RskHeader } from '../rsk/header/header.js'
import { edgesFromBytes, edgesToBytes } from '../rsk/header/headerFields.js'
import { remascReceiptFromParts, remascReceiptParts } from '../rsk/remasc/remascReceipt.js'
import { remascTransaction, remascTxHashHex } from '../rsk/remasc/remascTx.js'
import { keccak256 } from '../crypto.js'

const BLOOM_BYTES = 256
const NONE: RlpInput[] = []
const some = (b: Uint8Array): RlpInput[] => [b]
const optional = (b: Uint8Array | undefined): RlpInput[] => (b === undefined ? NONE : some(b))
const big = unpaddedBytes
const num = (n: number): Uint8Array => unpaddedBytes(BigInt(n))

/** Scratch for `packBloom`: room for every bit's position. */
const positions = new Uint8Array(2 * 8 * BLOOM_BYTES)
/** The last bloom packed and its packing: consecutive blocks share bloom objects (REMASC's, an empty block's). */
let lastBloom: Uint8Array | undefined
let lastPacked: Uint8Array = new Uint8Array()

/**
 * A bloom as the big-endian 16-bit positions of its set bits, or as itself when that is not shorter (then it is 256
 * bytes long, which no list of positions is).
 */
export function packBloom(bloom: Uint8Array): Uint8Array {
  if (bloom.length !== BLOOM_BYTES) throw new Error(`a bloom is ${BLOOM_BYTES} bytes, not ${bloom.length}`)
  if (bloom === lastBloom) return lastPacked
  let o = 0
  for (let i = 0; i < BLOOM_BYTES; i++) {
    const byte = bloom[i]!
    if (byte === 0) continue
    for (let bit = 0; bit < 8; bit++) {
      if ((byte & (1 << bit)) === 0) continue
      const position = i * 8 + bit
      positions[o++] = position >> 8
      positions[o++] = position & 0xff
    }
  }
  lastBloom = bloom
  lastPacked = o >= BLOOM_BYTES ? bloom : positions.slice(0, o)
  return lastPacked
}

/** `into`: where to write it (zeroed first), else a new array. */
export function unpackBloom(packed: Uint8Array, into?: Uint8Array): Uint8Array {
  if (packed.length === BLOOM_BYTES && into === undefined) return packed
  const bloom = into?.fill(0) ?? new Uint8Array(BLOOM_BYTES)
  if (packed.length === BLOOM_BYTES) {
    bloom.set(packed)
    return bloom
  }
  for (let o = 0; o < packed.length; o += 2) {
    const position = (packed[o]! << 8) | packed[o + 1]!
    bloom[position >> 3]! |= 1 << (position & 7)
  }
  return bloom
}

/** `value` as an optional field, or `[]` when it equals what unpacking would derive. */
const unlessDerived = (value: Uint8Array, derived: Uint8Array | undefined): RlpInput[] =>
  derived !== undefined && equalsBytes(value, derived) ? NONE : some(value)

/** The header's fields but the bloom (written at the front of the block). */
function packHeader(h: RskHeader, parentHash: Uint8Array | undefined): RlpInput[] {
  return [
    unlessDerived(h.parentHash, parentHash),
    unlessDerived(h.unclesHash, KECCAK256_RLP_ARRAY),
    h.coinbase,
    h.stateRoot,
    h.txTrieRoot,
    h.receiptTrieRoot,
    big(h.difficulty),
    big(h.number),
    big(h.gasLimit),
    big(h.gasUsed),
    big(h.timestamp),
    h.extraData,
    big(h.paidFees),
    big(h.minimumGasPrice),
    num(h.uncleCount),
    num(h.version),
    optional(h.ummRoot),
    optional(h.txExecutionSublistsEdges === undefined ? undefined : edgesToBytes(h.txExecutionSublistsEdges)),
    optional(h.baseEvent),
    h.bitcoinMergedMiningHeader,
    h.bitcoinMergedMiningMerkleProof,
    h.bitcoinMergedMiningCoinbaseTransaction,
    optional(h.forkDetectionData),
    optional(h.useRskip92Encoding === undefined ? undefined : num(h.useRskip92Encoding ? 1 : 0)),
    optional(h.difficultyBytes),
    optional(h.gasLimitBytes),
    optional(h.extensionData),
  ]
}

function unpackHeader(f: RlpItem[], logsBloom: Uint8Array, parentHash: () => Uint8Array): RskHeader {
  const h: RskHeader = {
    parentHash: present(f[0]) ?? parentHash(),
    unclesHash: present(f[1]) ?? KECCAK256_RLP_ARRAY.slice(),
    coinbase: bytes(f[2]),
    stateRoot: bytes(f[3]),
    txTrieRoot: bytes(f[4]),
    receiptTrieRoot: bytes(f[5]),
    logsBloom,
    difficulty: bigOf(f[6]),
    number: bigOf(f[7]),
    gasLimit: bigOf(f[8]),
    gasUsed: bigOf(f[9]),
    timestamp: bigOf(f[10]),
    extraData: bytes(f[11]),
    paidFees: bigOf(f[12]),
    minimumGasPrice: bigOf(f[13]),
    uncleCount: numOf(f[14]),
    version: numOf(f[15]),
    bitcoinMergedMiningHeader: bytes(f[19]),
    bitcoinMergedMiningMerkleProof: bytes(f[20]),
    bitcoinMergedMiningCoinbaseTransaction: bytes(f[21]),
  }
  const ummRoot = present(f[16])
  if (ummRoot !== undefined) h.ummRoot = ummRoot
  const edges = present(f[17])
  if (edges !== undefined) h.txExecutionSublistsEdges = edgesFromBytes(edges)
  const baseEvent = present(f[18])
  if (baseEvent !== undefined) h.baseEvent = baseEvent
  const forkDetectionData = present(f[22])
  if (forkDetectionData !== undefined) h.forkDetectionData = forkDetectionData
  const rskip92 = present(f[23])
  if (rskip92 !== undefined) h.useRskip92Encoding = rskip92.length > 0
  const difficultyBytes = present(f[24])
  if (difficultyBytes !== undefined) h.difficultyBytes = difficultyBytes
  const gasLimitBytes = present(f[25])
  if (gasLimitBytes !== undefined) h.gasLimitBytes = gasLimitBytes
  const extensionData = present(f[26])
  if (extensionData !== undefined) h.extensionData = extensionData
  return h
}

const packTx = (t: TxRecord): RlpInput => (t.system === 'remasc' ? NONE : [t.raw, t.from])

/** Flags of a receipt: status, then which optional fields follow. */
const SUCCESS = 1
const HAS_CONTRACT = 2
const HAS_REVERT_DATA = 4
const HAS_ERROR = 8

const packLog = (l: LogRecord): RlpInput => [l.address, l.topics, l.data]
const textEncoder = new TextEncoder()
const textDecoder = new TextDecoder()

function packReceipt(r: ReceiptRecord, t: TxRecord): RlpInput {
  if (t.system === 'remasc') {
    const parts = remascReceiptParts(r)
    if (parts !== undefined) {
      // [cumulativeGasUsed, paid block?, payments, bloom]: the REMASC receipt's own compact fields (remascReceipt.ts).
      return [[big(parts.cumulativeGasUsed), optional(parts.paidBlock), parts.payments, packBloom(parts.logsBloom)]]
    }
  }
  const flags = r.status | (r.contractAddress !== null ? HAS_CONTRACT : 0) | (r.revertData !== undefined ? HAS_REVERT_DATA : 0) | (r.error !== undefined ? HAS_ERROR : 0)
  return [
    num(flags),
    big(r.gasUsed),
    big(r.cumulativeGasUsed),
    r.logs.map(packLog),
    packBloom(r.logsBloom),
    r.contractAddress ?? new Uint8Array(),
    r.revertData ?? new Uint8Array(),
    r.error === undefined ? new Uint8Array() : textEncoder.encode(r.error),
  ]
}

function unpackReceipt(f: RlpItem[], bloomInto: Uint8Array): ReceiptRecord {
  if (f.length === 1) {
    const [cumulativeGasUsed, paidBlock, payments, bloom] = list(f[0])
    const paid = present(paidBlock)
    return remascReceiptFromParts(
      { cumulativeGasUsed: bigOf(cumulativeGasUsed), ...(paid !== undefined ? { paidBlock: paid } : {}), payments: bytes(payments), logsBloom: unpackBloom(bytes(bloom), bloomInto) },
      undefined,
    )
  }
  const flags = numOf(f[0])
  const r: ReceiptRecord = {
    status: (flags & SUCCESS) as 0 | 1,
    gasUsed: bigOf(f[1]),
    cumulativeGasUsed: bigOf(f[2]),
    logs: list(f[3]).map((l) => {
      const [address, topics, data] = list(l)
      return { address: bytes(address), topics: list(topics).map(bytes), data: bytes(data) }
    }),
    logsBloom: unpackBloom(bytes(f[4]), bloomInto),
    contractAddress: (flags & HAS_CONTRACT) !== 0 ? bytes(f[5]) : null,
  }
  if ((flags & HAS_REVERT_DATA) !== 0) r.revertData = bytes(f[6])
  if ((flags & HAS_ERROR) !== 0) r.error = textDecoder.decode(bytes(f[7]))
  return r
}

/** The packed form of a mined block. `parentHash`: the previous block's hash, when the store has it. */
export function packBlock(b: BlockRecord, parentHash?: Uint8Array): Uint8Array {
  return rlpEncode([
    b.hash,
    packBloom(b.header.logsBloom),
    b.hashForMergedMining,
    big(b.totalDifficulty),
    num(b.size),
    packHeader(b.header, parentHash),
    b.transactions.map(packTx),
    b.receipts.map((r, i) => packReceipt(r, b.transactions[i]!)),
  ])
}

/**
 * The block `packBlock` packed, as a new record (its arrays are views of `packed`, which must not change). `common`:
 * the chain's, for the transactions; `parentHash`: the previous block's hash (asked for only if it was left out).
 */
export function unpackBlock(packed: Uint8Array, common: Common, parentHash: () => Uint8Array = noParent): BlockRecord {
  const [hash, bloom, forMergedMining, totalDifficulty, size, header, transactions, receipts] = list(rlpDecode(packed))
  const receiptItems = list(receipts)
  // Every bloom of the block in one buffer: a typed array over 64 bytes has its own off-heap store, and a log query
  // over many packed blocks unpacks one block after another (one store per block instead of one per bloom).
  const blooms = new Uint8Array(BLOOM_BYTES * (1 + receiptItems.length))
  const bloomAt = (i: number) => blooms.subarray(BLOOM_BYTES * i, BLOOM_BYTES * (i + 1))
  const h = unpackHeader(list(header), unpackBloom(bytes(bloom), bloomAt(0)), parentHash)
  const blockHash = bytes(hash)
  return {
    header: h,
    hash: blockHash,
    hashHex: flatHex(blockHash),
    number: h.number,
    hashForMergedMining: bytes(forMergedMining),
    transactions: list(transactions).map((t) => {
      const fields = list(t)
      return fields.length === 0 ? remascTransaction(h.number, common) : new StoredTxRecord(bytes(fields[0]), bytes(fields[1]), common)
    }),
    receipts: receiptItems.map((r, i) => unpackReceipt(list(r), bloomAt(i + 1))),
    totalDifficulty: bigOf(totalDifficulty),
    size: numOf(size),
  }
}

function noParent(): never {
  throw new Error('packed block: its parent hash was left out and no parent was given')
}

/** Offset of a packed block's first item (after its list prefix), checking that it is the 32-byte hash. */
function hashAt(packed: Uint8Array): number {
  const first = packed[0]!
  // An RLP list's prefix: one byte below 0xf8, else 0xf7 + the number of length bytes that follow it.
  const at = first < 0xf8 ? 1 : 1 + first - 0xf7
  if (first < 0xc0 || packed[at] !== 0xa0) throw new Error('packed block: expected a list starting with a 32-byte hash')
  return at
}

/** The block hash of a packed block (its first item), read without decoding the rest. */
export function packedBlockHash(packed: Uint8Array): Uint8Array {
  const at = hashAt(packed)
  return packed.subarray(at + 1, at + 33)
}

/**
 * What the store indexes a packed block by, read without building its record (a database opening with old blocks
 * keeps them packed): its hash, its number and its transactions' hashes.
 */
export function packedBlockKeys(packed: Uint8Array): { hashHex: string; number: bigint; txHashHexes: string[] } {
  const items = list(rlpDecode(packed))
  const number = bigOf(list(items[5])[7])
  const txHashHexes = list(items[6]).map((t) => {
    const fields = list(t)
    return fields.length === 0 ? remascTxHashHex(number) : flatHex(keccak256(bytes(fields[0])))
  })
  return { hashHex: flatHex(bytes(items[0])), number, txHashHexes }
}

/** The header bloom of a packed block (its second item), read without decoding the rest; `into` as for unpackBloom. */
export function packedBlockBloom(packed: Uint8Array, into?: Uint8Array): Uint8Array {
  const at = hashAt(packed) + 33
  const prefix = packed[at]!
  // A byte string: empty (0x80), short (0x80 + length) or long (0xb7 + length bytes); a 256-byte bloom is long.
  if (prefix < 0x80 || prefix > 0xb9) throw new Error('packed block: expected its bloom after its hash')
  if (prefix <= 0xb7) return unpackBloom(packed.subarray(at + 1, at + 1 + prefix - 0x80), into)
  const k = prefix - 0xb7
  let length = 0
  for (let i = 1; i <= k; i++) length = length * 256 + packed[at + i]!
  return unpackBloom(packed.subarray(at + 1 + k, at + 1 + k + length), into)
}

function bytes(item: RlpItem | undefined): Uint8Array {
  if (!(item instanceof Uint8Array)) throw new Error('packed block: expected a byte string')
  return item
}

function list(item: RlpItem | undefined): RlpItem[] {
  if (!Array.isArray(item)) throw new Error('packed block: expected a list')
  return item
}

const bigOf = (item: RlpItem | undefined): bigint => bytesToWord(bytes(item))
const numOf = (item: RlpItem | undefined): number => Number(bigOf(item))

/** The value of an optional field (`[]` or `[value]`). */
function present(item: RlpItem | undefined): Uint8Array | undefined {
  const l = list(item)
  return l.length === 0 ? undefined : bytes(l[0])
}
