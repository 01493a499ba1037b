/**
 * debug_storageRangeAt(blockHash, txIndex, contractAddress, keyStart, maxResult): geth's (`eth/api_debug.go`
 * `StorageRangeAt`), which Ganache answers and the Remix and Truffle debuggers call. An extension: RSKj has no such
 * method, so hosted mode answers -32601 (methods.ts). docs/modules/tracing.md describes the answer.
 */
import { bytesToHex, setLengthLeft, setLengthRight } from '@ethereumjs/util'
import { invalidParams } from '../../errors.js'
import { address, blockHash, show, type Codec } from '../codecs/primitives.js'
import { method, type MethodTable } from '../method.js'
import { data } from '../format/hex.js'
import { storageRangeAt } from '../../node/exec/storageRangeAt.js'

/**
 * The most slots one answer lists. geth sets no bound; a larger `maxResult` is answered with this many and the
 * `nextKey` to go on from, so a client that pages (Remix does) loses nothing, while one reply stays near 230 KB (a
 * slot is about 223 bytes of JSON: 228,444 bytes measured for 1,024 slots with their preimages) and one request cannot hold the node's queue over a token's whole storage.
 */
const MAX_STORAGE_RANGE = 1024

/** A non-negative integer: a JSON number (geth's `int`) or a QUANTITY string (Ganache takes both). */
function count(name: string): Codec<number> {
  return (v) => {
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v
    if (typeof v === 'string' && /^0x[0-9a-fA-F]{1,13}$/.test(v)) return Number(BigInt(v))
    throw invalidParams(`Invalid ${name} ${show(v)}: expected a non-negative integer (a JSON number or 0x hex)`)
  }
}

/**
 * `keyStart`: a trie key (keccak256 of a slot) or a prefix of one, `0x` and an even number of hex digits, at most 32
 * bytes (geth's `hexutil.Bytes`); `0x` or `0x00` starts at the beginning. Compared as geth's iterator compares it:
 * byte-wise, so a prefix stands for the prefix followed by zeros.
 */
const keyStart: Codec<Uint8Array> = (v) => {
  if (typeof v !== 'string' || !/^0x([0-9a-fA-F]{2}){0,32}$/.test(v)) {
    throw invalidParams(`Invalid keyStart ${show(v)}: expected 0x and an even number of hex digits, at most 32 bytes (a storage trie key, as nextKey answers it)`)
  }
  return setLengthRight(new Uint8Array(Buffer.from(v.slice(2), 'hex')), 32)
}

const word = (b: Uint8Array): string => data(setLengthLeft(b, 32))

export const debugStorageMethods: MethodTable = {
  debug_storageRangeAt: method([blockHash, count('txIndex'), address, keyStart, count('maxResult')], async ({ node }, hash, txIndex, contract, start, maxResult) => {
    const store = node.chain.store
    const hashHex = bytesToHex(hash)
    // geth's texts for an unknown block, genesis and an index past the block's transactions.
    const block = store.getByHash(hashHex)
    if (block === undefined) throw invalidParams(`block ${hashHex} not found`)
    if (block.number === 0n) throw invalidParams('no transaction in genesis')
    const parent = store.byNumber(block.number - 1n)
    if (parent === undefined) {
      throw invalidParams(`block ${hashHex} is the forked block: its transactions ran on the remote, and rsksim replays only blocks mined here`)
    }
    const txs = block.transactions.length
    if (txIndex >= txs && !(txIndex === 0 && txs === 0)) throw invalidParams(`transaction index ${txIndex} out of range for block ${hashHex}`)
    const page = await storageRangeAt(node.chain, block, parent, txIndex, contract, start, Math.min(maxResult, MAX_STORAGE_RANGE))
    if (page === 'remote') {
      throw invalidParams(`the storage of ${bytesToHex(contract)} is the forked remote's: rsksim holds only the slots written here, so it cannot list it (read slots with eth_getStorageAt)`)
    }
    // An account missing then has no storage (as geth answers it now; Ganache 7 and older geth answered an error).
    if (page === undefined) return { storage: {}, nextKey: null }
    const storage: Record<string, { key: string | null; value: string }> = {}
    for (const e of page.entries) storage[data(e.hashed)] = { key: e.key === undefined ? null : word(e.key), value: word(e.value) }
    return { storage, nextKey: page.next === undefined ? null : data(page.next) }
  }),
}
