/**
 * JSON shapes of the Otterscan methods (ots_*), as otterscan/otterscan `docs/custom-jsonrpc.md` defines them and
 * Anvil 1.7.1 answers them. Pure: built from the call trees of `traceCalls` and rsksim's own block, transaction and
 * receipt formatters, so the parts they share with eth_* are the same JSON.
 */
import type { BlockRecord, TxLocation } from '../../node/chain/types.js'
import type { CallFrame } from '../../node/exec/tracers/index.js'
import { formatBlock } from './block.js'
import { data, quantity } from './hex.js'
import { formatReceipt } from './receipt.js'
import { formatTransaction, type TransactionJson } from './transaction.js'

/** Otterscan's operation types: transfer 0, self-destruct 1, create 2, create2 3. */
export interface InternalOperation {
  type: 0 | 1 | 2 | 3
  from: string
  to: string
  value: string
}

const ZERO_ADDRESS = '0x' + '00'.repeat(20)
const created = (f: CallFrame): string => (f.created === undefined ? ZERO_ADDRESS : data(f.created))

/**
 * The value transfers (CALLs with value), creations and self-destructs inside a transaction, in the order they began.
 * Only frames below the top one: the transaction's own transfer or creation is the transaction, not an internal
 * operation (Otterscan's definition, as Erigon answers; Anvil 1.7.1 also lists the top frame: docs/extensions.md).
 */
export function formatInternalOperations(top: CallFrame): InternalOperation[] {
  const out: InternalOperation[] = []
  const visit = (f: CallFrame): void => {
    if (f.type === 'suicide') out.push({ type: 1, from: data(f.from), to: data(f.to!), value: quantity(f.value) })
    else if (f.type === 'create') out.push({ type: f.creationMethod === 'create2' ? 3 : 2, from: data(f.from), to: created(f), value: quantity(f.value) })
    else if (f.callType === 'CALL' && f.value > 0n) out.push({ type: 0, from: data(f.from), to: data(f.to!), value: quantity(f.value) })
    f.calls.forEach(visit)
  }
  top.calls.forEach(visit)
  return out
}

export interface TraceEntry {
  type: string
  depth: number
  from: string
  to: string
  value: string
  input: string
  output: string
}

/**
 * A transaction's call tree as Otterscan's flat list: every frame in the order it began, with its depth (0 = the
 * transaction). Call frames are as Anvil 1.7.1 gives them (`output`: the return data, or the revert data of a reverted
 * frame); creations (`to`: the new address, `input`: the init code, `output`: the deployed code) and self-destructs
 * (`from`: the contract, `to`: the beneficiary) are listed as Otterscan's spec asks, where Anvil leaves them out.
 */
export function formatTraceEntries(top: CallFrame): TraceEntry[] {
  const out: TraceEntry[] = []
  const visit = (f: CallFrame, depth: number): void => {
    if (f.type === 'suicide') {
      out.push({ type: 'SELFDESTRUCT', depth, from: data(f.from), to: data(f.to!), value: quantity(f.value), input: '0x', output: '0x' })
    } else if (f.type === 'create') {
      const type = f.creationMethod === 'create2' ? 'CREATE2' : 'CREATE'
      out.push({ type, depth, from: data(f.from), to: created(f), value: quantity(f.value), input: data(f.input), output: data(f.output) })
    } else {
      out.push({ type: f.callType!, depth, from: data(f.from), to: data(f.to!), value: quantity(f.value), input: data(f.input), output: data(f.output) })
    }
    for (const c of f.calls) visit(c, depth + 1)
  }
  visit(top, 0)
  return out
}

/**
 * ots_getBlockDetails: the block as eth_getBlockByNumber formats it, without its transaction list and with their
 * count (REMASC's included), then `issuance` and `totalFees`. On RSK no coin is issued in a block: miners are paid
 * from fees, through REMASC, blocks later, so the three issuance fields are 0. `totalFees` is what the block's
 * senders paid (gas used × gas price), which is the block's `paidFees`.
 */
export function formatBlockDetails(block: BlockRecord): Record<string, unknown> {
  // The header's paidFees: the sum of gasUsed × gasPrice over the block's transactions, as the miner adds it up.
  return otsBlockDetailsJson(formatBlock(block, false), block.transactions.length, quantity(block.header.paidFees))
}

/** ots_getBlockDetails' answer from a block's JSON (eth_getBlockByNumber's): rsksim's own, or a fork's remote's. */
export function otsBlockDetailsJson(blockJson: Record<string, unknown>, transactionCount: number, totalFees: string): Record<string, unknown> {
  const { transactions: _, ...rest } = blockJson
  return { block: { ...rest, transactionCount }, issuance: { blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' }, totalFees }
}

/** A receipt as ots_* give it: eth_getTransactionReceipt's, with `logs` and `logsBloom` null and the block's `timestamp`. */
export function formatOtsReceipt(loc: TxLocation): Record<string, unknown> {
  return otsReceipt(formatReceipt(loc), quantity(loc.block.header.timestamp))
}

/** An eth_getTransactionReceipt answer (rsksim's own or a fork's remote's) as ots_* give it: see formatOtsReceipt. */
export const otsReceipt = (receipt: object, timestamp: string): Record<string, unknown> => ({ ...receipt, logs: null, logsBloom: null, timestamp })

/**
 * An ots_getBlockTransactions answer from eth_getBlockByNumber's JSON (rsksim's own or a fork's remote's): the block
 * without its list, the page's transactions (as eth_getBlockByNumber(n, true) gives them) with `input` cut to the
 * 4-byte selector, the whole block's `transactionCount`, and the page's receipts as ots_* give them.
 */
export function otsBlockTransactions(block: object, page: { input: string }[], transactionCount: number, receipts: Record<string, unknown>[]): Record<string, unknown> {
  const { transactions: _, ...rest } = block as { transactions?: unknown }
  return {
    fullblock: { ...rest, transactions: page.map((t) => ({ ...t, input: t.input.slice(0, 10) })), transactionCount },
    receipts,
  }
}

/**
 * ots_getBlockTransactions: `pageSize` transactions from index `start` (a page times the page size) of the block's transactions, in block order, each with
 * its `input` cut to the 4-byte selector, and their receipts. `transactionCount` is the whole block's, from which
 * Otterscan counts the pages (Anvil 1.7.1 answers the page's).
 */
export function formatBlockTransactions(block: BlockRecord, start: number, pageSize: number): Record<string, unknown> {
  const indexes: number[] = []
  for (let i = start; i < block.transactions.length && i < start + pageSize; i++) indexes.push(i)
  const txs = indexes.map((i): TransactionJson => formatTransaction(block.transactions[i]!, block, i))
  const receipts = indexes.map((index) => formatOtsReceipt({ block, index }))
  return otsBlockTransactions(formatBlock(block, false), txs, block.transactions.length, receipts)
}

/** A search page: the transactions in full and their receipts (as ots_getBlockTransactions gives them), newest first. */
export function formatSearchPage(found: TxLocation[], firstPage: boolean, lastPage: boolean): Record<string, unknown> {
  return {
    txs: found.map(({ block, index }) => formatTransaction(block.transactions[index]!, block, index)),
    receipts: found.map(formatOtsReceipt),
    firstPage,
    lastPage,
  }
}

/** Where page `page` of `pageSize` transactions starts in a block of `count`: in bigint, as page × pageSize may pass 2^53; past the block's end, its end (an empty page). */
export function pageStart(page: number, pageSize: number, count: number): number {
  const start = BigInt(page) * BigInt(pageSize)
  return start > BigInt(count) ? count : Number(start)
}
