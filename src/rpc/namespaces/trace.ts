/**
 * trace_transaction, trace_block, trace_filter: Parity-style traces (spec "Supported modules": trace; RSKj
 * `co/rsk/rpc/modules/trace/TraceModuleImpl.java`, reference §3.7).
 */
import { bytesToHex } from '@ethereumjs/util'
import { invalidParams } from '../../errors.js'
import { removeHexPrefix, show, type Codec } from '../codecs/primitives.js'
import { blockHashText, hashText, javaHexLong } from '../codecs/rskjText.js'
import { method, type HandlerContext, type MethodTable } from '../method.js'
import { formatParityTraces, type ParityTrace } from '../format/trace.js'
import type { BlockRecord } from '../../node/chain/types.js'
import type { RskNode } from '../../node/node.js'
import type { BlockSelector } from '../codecs/block.js'
import { blockOrPending } from '../resolve.js'
import { traceCalls } from '../../node/exec/tracers/index.js'

/** RSKj `rpc.trace.maxTracesPerRequest` (reference.conf): default and maximum of trace_filter's `count`. */
export const MAX_TRACES_PER_REQUEST = 10_000

/** A tag (any case) or a `0x` number (`javaHexLong`); anything else is RSKj's `invalid blocknumber <x>`. */
function parseBlockId(v: string): BlockSelector {
  const tag = v.toLowerCase()
  if (tag === 'earliest' || tag === 'latest' || tag === 'pending') return { kind: 'tag', tag }
  const number = javaHexLong(v)
  if (number !== undefined) return { kind: 'number', number }
  throw invalidParams(`invalid blocknumber ${show(v)}`)
}

/** trace_block's argument (RSKj `getByJsonArgument`): shorter than 20 characters = tag/number, else a block hash. */
const blockArg: Codec<BlockSelector> = (v) => {
  if (typeof v !== 'string') throw invalidParams(`invalid blocknumber ${show(v)}`)
  if (v.length < 20) return parseBlockId(v)
  return { kind: 'hash', hash: blockHashText(v), requireCanonical: false, fromMap: false }
}

/**
 * RSKj `TraceModuleImpl.getByJsonBlockId` / `getBlockByTagOrNumber`: `pending` is the pending block
 * `ExecutionBlockRetriever` builds (src/node/miner/pendingSeal.ts), the other tags, numbers and hashes the chain's
 * blocks: resolve.ts `blockOrPending` (`parseBlockId` refuses the tags it refuses).
 */
const traceBlock = (node: RskNode, sel: BlockSelector): BlockRecord | undefined | Promise<BlockRecord> => blockOrPending(node, sel, 'trace_block')

/**
 * Traces of a block's transactions (all, or those `only` selects), flattened in block order. For the pending block
 * (the one block above the head: `traceBlock` of `pending`), RSKj's `buildBlockTraces` finds no receipt of its
 * transactions and uses an empty `TransactionInfo` with the pending block's hash: `TraceTransformer` takes each
 * transaction's top-level `gasUsed` from that receipt, so it is `0x0` there (inner calls keep their own).
 */
export async function blockTraces(node: RskNode, block: BlockRecord, only?: (i: number) => boolean): Promise<ParityTrace[]> {
  const traces = await traceCalls(node.chain, block, only)
  if (block.number > node.chain.store.headNumber) for (const t of traces) t.top.gasUsed = 0n
  return traces.flatMap(formatParityTraces)
}

/**
 * A negative `count`, refused where RSKj's walk would fail on it: RSKj does not check it (validateTraceFilterRequest
 * 303-321), and `subList` throws (-32603) at the first block whose traces reach past `after` (162-164), after the
 * bounds, the range check and the addresses; rsksim answers -32602 there, also where RSKj's early stop (170) answers
 * `[]` first (docs/modules/tracing.md).
 */
export function refuseNegativeCount(f: TraceFilter): void {
  if (f.count < 0) throw invalidParams('Count value cannot be negative.')
}

export interface TraceFilter {
  fromBlock: BlockSelector
  toBlock: BlockSelector
  fromAddress?: Set<string>
  toAddress?: Set<string>
  /**
   * The refusal of a malformed address, given after the range check: RSKj reads the addresses only while it walks
   * (buildBlockTraces 254-262), after `fromBlock cannot be greater than toBlock` (validateBlockRange, 145).
   */
  addressError?: unknown
  after: number
  count: number
}

const FILTER_FIELDS = ['fromBlock', 'toBlock', 'fromAddress', 'toAddress', 'after', 'count']

/**
 * Java `Integer` as Jackson 2.15 reads it (RSKj's plain `ObjectMapper`, co/rsk/rpc/netty/JsonRpcWeb3ServerHandler.java
 * 53): a JSON integer, or a decimal string; a JSON number with a fraction is truncated toward zero
 * (`DeserializationFeature.ACCEPT_FLOAT_AS_INT`, on by default), so `count: 2.9` is 2. Other values are refused.
 */
function integer(name: string, v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v) + 0
  if (typeof v === 'string' && /^-?[0-9]{1,10}$/.test(v)) return Number(v)
  throw invalidParams(`Invalid ${name} value: ${show(v)}. It must be an integer.`)
}

/** RSKj's text for an address of another length (`RskErrorResolver` reads argument 0, the filter object: "" ). */
const ADDRESS_LENGTH = 'invalid argument 0: hex string has length 0, want 40 for RSK address'

/**
 * One `fromAddress`/`toAddress` entry as `new RskAddress(String)` reads it (co/rsk/core/RskAddress.java 63-76,
 * `HexUtils.stringHexToByteArray`, HexUtils.java 83-91): a lower-case `0x` is removed, an odd number of digits is
 * left-padded with one 0, so 40 digits without `0x` and 39 digits are accepted; any other length is
 * `InvalidRskAddressException`, which `RskErrorResolver` answers -32602 with the length of argument 0's text: the
 * filter object's, so always 0. Non-hex digits (RSKj: `Hex.decode` throws, -32603) and a null entry (a
 * NullPointerException, -32603) are -32602 here. Jackson hands a JSON number over as its decimal text.
 */
function filterAddress(v: unknown): string {
  const text = typeof v === 'number' ? String(v) : v
  if (typeof text !== 'string') throw invalidParams(`Invalid address ${show(v)}: an address is a hex string.`)
  const digits = removeHexPrefix(text)
  if (!/^[0-9a-fA-F]*$/.test(digits)) throw invalidParams(`Invalid address ${show(text)}: not hex digits.`)
  if (Math.ceil(digits.length / 2) !== 20) throw invalidParams(ADDRESS_LENGTH)
  return '0x' + digits.padStart(40, '0').toLowerCase()
}

function addresses(name: string, v: unknown): Set<string> | undefined {
  if (v === undefined || v === null) return undefined
  if (!Array.isArray(v)) throw invalidParams(`Invalid ${name}: expected an array of addresses.`)
  return v.length === 0 ? undefined : new Set(v.map(filterAddress))
}

/** RSKj `TraceFilterRequest` plus `TraceModuleImpl.validateTraceFilterRequest`, with RSKj's texts. */
const traceFilter: Codec<TraceFilter> = (v) => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalidParams('Invalid trace_filter parameters.')
  const o = v as Record<string, unknown>
  for (const key of Object.keys(o)) {
    if (!FILTER_FIELDS.includes(key)) {
      throw invalidParams(`Unrecognized field "${key}" (${FILTER_FIELDS.length} known properties: [${FILTER_FIELDS.map((f) => `"${f}"`).join(', ')}])`)
    }
  }
  const block = (value: unknown, fallback: string): BlockSelector => {
    if (value === undefined) return parseBlockId(fallback)
    // An explicit null replaces RSKj's default (`TraceFilterRequest.setFromBlock(null)`), and
    // `getBlockByTagOrNumber` calls `strBlock.equalsIgnoreCase` on it (TraceModuleImpl.java 291): a
    // NullPointerException, -32603 in RSKj; rsksim answers -32602.
    if (value === null) throw invalidParams('invalid blocknumber null')
    if (typeof value !== 'string') throw invalidParams(`invalid blocknumber ${show(value)}`)
    return parseBlockId(value)
  }
  const count = integer('count', o.count) ?? MAX_TRACES_PER_REQUEST
  if (count > MAX_TRACES_PER_REQUEST) throw invalidParams(`Count value too big. Maximum ${MAX_TRACES_PER_REQUEST} traces allowed.`)
  const after = integer('after', o.after) ?? 0
  if (after < 0) throw invalidParams('After value cannot be negative.')
  if (after > MAX_TRACES_PER_REQUEST) throw invalidParams(`After value too big. Maximum ${MAX_TRACES_PER_REQUEST} traces allowed.`)
  // RSKj's order: the counts (validateTraceFilterRequest), then fromBlock and toBlock (traceFilter 142-143), then the
  // addresses (read while walking, buildBlockTraces 254-262).
  const fromBlock = block(o.fromBlock, 'earliest')
  const toBlock = block(o.toBlock, 'latest')
  let fromAddress: Set<string> | undefined
  let toAddress: Set<string> | undefined
  let addressError: unknown
  try {
    fromAddress = addresses('fromAddress', o.fromAddress)
    toAddress = addresses('toAddress', o.toAddress)
  } catch (e) {
    addressError = e
  }
  return {
    fromBlock,
    toBlock,
    ...(fromAddress ? { fromAddress } : {}),
    ...(toAddress ? { toAddress } : {}),
    ...(addressError === undefined ? {} : { addressError }),
    after,
    count,
  }
}

/**
 * RSKj `TraceModuleImpl.traceFilter`: walks blocks from `fromBlock` to `toBlock` (an unknown `toBlock` means the
 * head, an unknown `fromBlock` gives `[]`), keeps the transactions whose sender is in `fromAddress` and whose
 * recipient is in `toAddress`, then skips `after` traces and returns at most `count`. The walk starts at the
 * `fromBlock` block itself and goes on with the chain's blocks by number: a `pending` fromBlock traces the pending
 * block (and stops there: the chain has no block after the head), while a `pending` toBlock only sets the bound
 * (head + 1), so the walk ends at the head without tracing the pending block.
 */
export async function filterTraces({ node }: Pick<HandlerContext, 'node'>, f: TraceFilter): Promise<ParityTrace[]> {
  const from = await traceBlock(node, f.fromBlock)
  // `pending` as the upper bound is only its number (RSKj builds the block for it and reads its number).
  const toPending = f.toBlock.kind === 'tag' && f.toBlock.tag === 'pending'
  const toNumber = toPending ? node.chain.store.headNumber + 1n : ((await traceBlock(node, f.toBlock)) ?? node.chain.head).number
  if (from !== undefined && from.number > toNumber) throw invalidParams('fromBlock cannot be greater than toBlock')
  if (f.addressError !== undefined) throw f.addressError
  refuseNegativeCount(f)
  const out: ParityTrace[] = []
  if (from === undefined || f.count === 0) return out
  let seen = 0
  for (let block: BlockRecord | undefined = from; block !== undefined && block.number <= toNumber && seen < f.after + f.count; block = node.chain.store.byNumber(block.number + 1n)) {
    // A long range is bounded by the request deadline (rpcTimeout), not only by the trace count.
    node.chain.guard.check()
    const txs = block.transactions
    const selected = (i: number): boolean => {
      const t = txs[i]!
      // The REMASC transaction never matches a fromAddress: its sender is `RemascTransaction.REMASC_ADDRESS`
      // (`BlockTxSignatureCache.getSender`), an anonymous subclass of RskAddress, and `RskAddress.equals` compares
      // classes first (RskAddress.java 106), so `addresses.contains(sender)` (TraceModuleImpl.java 256) is false
      // even for 0x0…0. As a recipient REMASC is a plain RskAddress and matches (line 261).
      if (f.fromAddress && (t.system === 'remasc' || !f.fromAddress.has(t.fromHex))) return false
      if (f.toAddress && (t.tx.to === undefined || !f.toAddress.has(t.tx.to.toString()))) return false
      return true
    }
    if (block.number === 0n || !txs.some((_, i) => selected(i))) continue
    const traces = await blockTraces(node, block, selected)
    const start = Math.max(0, f.after - seen)
    const end = Math.min(traces.length, f.after + f.count - seen)
    if (start < end) out.push(...traces.slice(start, end))
    seen += traces.length
  }
  return out
}

export const traceMethods: MethodTable = {
  /** Unknown transaction → null (RSKj). */
  trace_transaction: method([hashText], async ({ node }, hash) => {
    const loc = node.chain.store.getTx(bytesToHex(hash))
    if (loc === undefined) return null
    return blockTraces(node, loc.block, (i) => i === loc.index)
  }),
  /** Unknown block → null; genesis → [] (RSKj `buildBlockTraces` skips block 0); `pending` traces the pending block. */
  trace_block: method([blockArg], async ({ node }, sel) => {
    const block = await traceBlock(node, sel)
    if (block === undefined) return null
    return block.number === 0n ? [] : blockTraces(node, block)
  }),
  trace_filter: method([traceFilter], filterTraces),
}
