/**
 * Otterscan's methods (`ots_*`, and `erigon_getHeaderByNumber`, which Otterscan also calls), as Anvil 1.7.1 answers
 * them, so the Otterscan block explorer can browse rsksim. RSKj has none of them: they are extensions, answered
 * outside hosted mode only (src/rpc/methods.ts EXTENSION_TABLES). Shapes: otterscan/otterscan
 * `docs/custom-jsonrpc.md`; decisions and differences from Anvil: docs/extensions.md#otterscan.
 *
 * Call trees come from the call-tree tracer (`traceCalls`, as trace_transaction's), blocks, transactions and receipts
 * from eth_*'s formatters. On a fork, the remote's history is the remote's (src/rpc/forkRoute.ts); the scans here walk
 * rsksim's own blocks only (above the forked block), as Anvil's do.
 */
import { bytesToHex } from '@ethereumjs/util'
import { invalidParams } from '../../errors.js'
import { address, blockHash, optional, show, txHash, type Codec } from '../codecs/primitives.js'
import { blockRef, hexBlockId, LATEST, type BlockSelector } from '../codecs/block.js'
import { method, noParams, type MethodTable } from '../method.js'
import { data } from '../format/hex.js'
import { formatBlock } from '../format/block.js'
import { formatBlockDetails, formatBlockTransactions, pageStart, formatInternalOperations, formatSearchPage, formatTraceEntries } from '../format/ots.js'
import { blockOrPending, readBlock } from '../resolve.js'
import type { RskNode } from '../../node/node.js'
import type { TxLocation } from '../../node/chain/types.js'
import { traceCalls } from '../../node/exec/tracers/index.js'
import { findCreator, MAX_SCANNED_BLOCKS, searchBlocks } from '../../node/ots/search.js'

/** Otterscan 2 asks for API level 8 and refuses a node below it; Anvil answers 8. */
export const OTS_API_LEVEL = 8

/** Most transactions a search page asks for (Otterscan asks 25). Each is a transaction and a receipt in the reply. */
export const MAX_SEARCH_PAGE_SIZE = 1_000

/**
 * A non-negative integer: a JSON number, as Otterscan sends it (Anvil takes only that), or a `0x` hex or decimal
 * string, as other RSK methods take numbers. At most 2^53 − 1.
 */
function integer(name: string): Codec<number> {
  return (v) => {
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v
    if (typeof v === 'string' && v.length <= 20 && (/^0x[0-9a-fA-F]+$/.test(v) || /^[0-9]+$/.test(v))) {
      const n = BigInt(v)
      if (n <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(n)
    }
    throw invalidParams(`Invalid ${name} ${show(v)}: expected a non-negative integer (a JSON number or a 0x hex string).`)
  }
}

/** ots_getBlockDetails' block: a JSON number, as Otterscan sends it, or eth_getBlockByNumber's forms. */
const blockNumberArg: Codec<BlockSelector> = (v) => (typeof v === 'number' ? { kind: 'number', number: BigInt(integer('block number')(v)) } : hexBlockId(v))

/** ots_hasCode's block: eth_getCode's forms, or a JSON number. */
const stateBlockArg: Codec<BlockSelector> = (v) => (typeof v === 'number' ? { kind: 'number', number: BigInt(integer('block number')(v)) } : blockRef(v))

const searchPageSize: Codec<number> = (v) => {
  const n = integer('page size')(v)
  if (n < 1 || n > MAX_SEARCH_PAGE_SIZE) throw invalidParams(`Invalid page size ${n}: a search page holds 1 to ${MAX_SEARCH_PAGE_SIZE} transactions.`)
  return n
}

/** The lowest block the scans walk: 1, or on a fork the block after the forked one (the remote's are not traced here). */
const lowestOwnBlock = (node: RskNode): bigint => node.chain.store.first.number + 1n

/** The call tree of a mined transaction, or undefined for one this chain does not have. */
async function txTree(node: RskNode, hash: Uint8Array) {
  const loc = node.chain.store.getTx(bytesToHex(hash))
  if (loc === undefined) return undefined
  const [trace] = await traceCalls(node.chain, loc.block, (i) => i === loc.index)
  return trace!.top
}

/**
 * The search methods' refusal when MAX_SCANNED_BLOCKS blocks held nothing: an empty page would end Otterscan's
 * navigation (it pages from the last transaction found), so the answer says where to go on from.
 */
function scanBound(name: string, from: bigint, next: bigint): never {
  throw invalidParams(
    `${name} walks at most ${MAX_SCANNED_BLOCKS} blocks a request and found no transaction in blocks ${from} to ${next - (next > from ? 1n : -1n)}; ask again from block ${next > from ? next - 1n : next + 1n}`,
  )
}

export const otsMethods: MethodTable = {
  ots_getApiLevel: noParams(() => OTS_API_LEVEL),

  /**
   * Unknown block → null, as eth_getBlockByNumber (Anvil 1.7.1 answers -32001 `Resource not found`). `pending` is the
   * pending block as trace_block answers it, with its number and hash, as Erigon answers its miner's pending block.
   */
  erigon_getHeaderByNumber: method([blockNumberArg], async ({ node, method: name }, sel) => {
    const block = await blockOrPending(node, sel, name)
    return block === undefined ? null : formatBlock(block, false)
  }),

  /**
   * eth_getCode's block forms; `pending` reads the pending block's state, as eth_getBalance and eth_getAccountInfo
   * do. An unknown block is eth_getCode's -32600.
   */
  ots_hasCode: method([address, optional(stateBlockArg)], async ({ node }, addr, sel) => {
    const code = await node.chain.codeAt(addr, await readBlock(node, sel ?? LATEST))
    return code.length > 0
  }),

  /** Unknown transaction → null, as trace_transaction (Anvil 1.7.1: -32603 `Required data unavailable`). */
  ots_getInternalOperations: method([txHash], async ({ node }, hash) => {
    const top = await txTree(node, hash)
    return top === undefined ? null : formatInternalOperations(top)
  }),

  /** Unknown transaction → null, as trace_transaction (Anvil 1.7.1 answers `[]`). */
  ots_traceTransaction: method([txHash], async ({ node }, hash) => {
    const top = await txTree(node, hash)
    return top === undefined ? null : formatTraceEntries(top)
  }),

  /**
   * The revert data a failed transaction's top frame returned (what eth_getTransactionReceipt's -32015 carries),
   * `0x` for a successful one or a failure without data (out of gas); unknown transaction → null (Anvil: `0x`).
   */
  ots_getTransactionError: method([txHash], ({ node }, hash) => {
    const loc = node.chain.store.getTx(bytesToHex(hash))
    if (loc === undefined) return null
    const r = loc.block.receipts[loc.index]!
    return r.status === 1 ? '0x' : data(r.revertData ?? new Uint8Array())
  }),

  /** Unknown block → null (Anvil 1.7.1: -32001 `Resource not found`); `pending` as erigon_getHeaderByNumber. */
  ots_getBlockDetails: method([blockNumberArg], async ({ node, method: name }, sel) => {
    const block = await blockOrPending(node, sel, name)
    return block === undefined ? null : formatBlockDetails(block)
  }),

  ots_getBlockDetailsByHash: method([blockHash], ({ node }, hash) => {
    const block = node.chain.store.getByHash(bytesToHex(hash))
    return block === undefined ? null : formatBlockDetails(block)
  }),

  /** Page `page` (from 0) of `pageSize` transactions in block order; unknown block → null. */
  ots_getBlockTransactions: method([integer('block number'), integer('page'), integer('page size')], ({ node }, n, page, pageSize) => {
    const block = node.chain.store.byNumber(BigInt(n))
    if (block === undefined) return null
    return formatBlockTransactions(block, pageStart(page, pageSize, block.transactions.length), pageSize)
  }),

  /**
   * Transactions mentioning `address` in blocks before `blockNumber` (0: from the head), newest first. `firstPage`:
   * the search started at the head; `lastPage`: it reached the lowest block.
   */
  ots_searchTransactionsBefore: method([address, integer('block number'), searchPageSize], async ({ node, method: name }, addr, n, pageSize) => {
    const head = node.chain.store.headNumber
    const from = n === 0 || BigInt(n) > head ? head : BigInt(n) - 1n
    const page = await searchBlocks(node.chain, bytesToHex(addr), from, -1n, lowestOwnBlock(node), pageSize)
    if (page.bounded !== undefined && page.found.length === 0) scanBound(name, from, page.bounded.next)
    return formatSearchPage(page.found, page.reachedHead, page.reachedBottom)
  }),

  /**
   * Transactions mentioning `address` in blocks after `blockNumber` (0: from the lowest), newest first as Otterscan
   * asks. `firstPage`: the search reached the head; `lastPage`: it started at the lowest block.
   */
  ots_searchTransactionsAfter: method([address, integer('block number'), searchPageSize], async ({ node, method: name }, addr, n, pageSize) => {
    const lowest = lowestOwnBlock(node)
    const from = n === 0 || BigInt(n) < lowest ? lowest : BigInt(n) + 1n
    const page = await searchBlocks(node.chain, bytesToHex(addr), from, 1n, lowest, pageSize)
    if (page.bounded !== undefined && page.found.length === 0) scanBound(name, from, page.bounded.next)
    // Found oldest block first; each block's matches newest first: the page is newest first when the blocks are.
    const byBlock = new Map<bigint, TxLocation[]>()
    for (const loc of page.found) byBlock.set(loc.block.number, [...(byBlock.get(loc.block.number) ?? []), loc])
    const found = [...byBlock.values()].reverse().flat()
    return formatSearchPage(found, page.reachedHead, page.reachedBottom)
  }),

  /**
   * The hash of `sender`'s transaction with `nonce`, or null. Sender and nonce are read from each block's
   * transactions (no replay: 7-10 µs a block, measured over 20,000 blocks), newest block first, as Anvil does; the
   * request's deadline (`rpcTimeout`) ends a walk over a very long chain.
   */
  ots_getTransactionBySenderAndNonce: method([address, integer('nonce')], async ({ node }, sender, nonce) => {
    const chain = node.chain
    const from = bytesToHex(sender)
    const wanted = BigInt(nonce)
    for (let n = chain.store.headNumber; n >= lowestOwnBlock(node); n--) {
      chain.guard.check()
      const t = chain.store.byNumber(n)!.transactions.find((t) => t.fromHex === from && t.tx.nonce === wanted)
      if (t !== undefined) return t.hashHex
    }
    return null
  }),

  /**
   * `{ hash, creator }` of the newest creation of the contract at `address` (the creator is the direct one: a
   * factory contract for an internal CREATE), or null: for an address without code at the head (as Erigon), or whose
   * creation is not among rsksim's blocks (a fork's remote history).
   */
  ots_getContractCreator: method([address], async ({ node, method: name }, addr) => {
    if ((await node.chain.codeAt(addr, node.chain.store.head)).length === 0) return null
    const found = await findCreator(node.chain, bytesToHex(addr), lowestOwnBlock(node))
    if (found === undefined) return null
    if ('bounded' in found) scanBound(name, node.chain.store.headNumber, found.bounded)
    return { hash: found.block.transactions[found.index]!.hashHex, creator: found.creator }
  }),
}
