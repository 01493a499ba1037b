/**
 * Fork routes of Otterscan's methods (an extension; docs/forking.md, docs/extensions.md#otterscan) for a transaction
 * the remote mined, or a block, at or below the forked block. RSKj has no ots_* methods, so each answer is built from
 * what an RSKj remote answers (the service's hosted methods: eth_getBlockByNumber, eth_getTransactionReceipt,
 * trace_transaction, debug_traceTransaction), with the formatters rsksim uses for its own (src/rpc/format/ots.ts):
 * on a remote rsksim the answer is the remote's own ots_* answer.
 */
import { hexToBytes } from '@ethereumjs/util'
import { framesInOrder, remoteCallTree, type RemoteFrame } from './codecs/parityTraces.js'
import { formatInternalOperations, formatTraceEntries, otsBlockTransactions, otsReceipt, pageStart } from './format/ots.js'
import { ask, isRemoteTooLarge, LOCAL, ofRemoteTx, remoteBlock, remoteTooLarge, type Route, type RouteContext } from './forkAsk.js'

/**
 * The remote's trace of transaction `hash` (`method` with `params`). One the remote refuses as over its response size
 * limit is answered -32011 as every route answers it (forkAsk.ts `remoteTooLarge`), naming the transaction too and
 * saying why there is nothing to fall back on: the default tracer is the only answer of an RSKj remote that holds the
 * transaction's output, and rsksim does not run the remote's transactions again itself (it reads the remote's state
 * at the forked block only, not before each transaction of the remote's blocks).
 */
async function askTrace(ctx: RouteContext, hash: string, params: unknown[], method: string): Promise<unknown> {
  try {
    return await ask(ctx, params, method)
  } catch (e) {
    if (!isRemoteTooLarge(e)) throw e
    const traced = method === 'debug_traceTransaction' && (params[1] as { tracer?: unknown } | undefined)?.tracer === undefined
    const why = traced
      ? 'that trace lists every opcode the transaction ran, and is the only answer of an RSKj remote that holds its output'
      : 'that trace lists every call frame of the transaction'
    throw remoteTooLarge(e, `${ctx.method} of ${hash}`, "is built from the remote's traces", `${why}, and rsksim does not run the remote's transactions again itself`)
  }
}

/**
 * The top frame's return (or revert) data, from the remote's default tracer (rskTracer): its `result` is the top
 * program's `getHReturn()` (RSKj `TransactionExecutor.extractTrace`, `DetailedProgramTrace.result`), hex without
 * `0x`. trace_transaction and the callTracer cannot give it: RSKj builds their top frame from an empty
 * `ProgramResult` (`TraceTransformer.addTrace`, `CallTraceTransformer`), so it is always empty there. The per-opcode
 * fields are turned off to keep the answer small. A transaction that ran no code (RSKj's `SummarizedProgramTrace`,
 * `result` null) returned nothing.
 */
async function topReturnData(ctx: RouteContext, hash: string): Promise<{ data: Uint8Array; reverted: boolean }> {
  const t = (await askTrace(ctx, hash, [hash, { disableMemory: true, disableStack: true, disableStorage: true }], 'debug_traceTransaction')) as { result?: unknown; reverted?: unknown } | null
  const result = t?.result
  const data = typeof result === 'string' && /^([0-9a-fA-F]{2})*$/.test(result) ? hexToBytes(`0x${result}`) : new Uint8Array()
  return { data, reverted: t?.reverted === true }
}

/**
 * The revert data of a frame below the top one from the remote's callTracer `output`, which RSKj writes with the
 * QUANTITY formatter (`CallTraceTransformer.buildForProgramResult`: `HexUtils.toQuantityJsonHex(byte[])`, the `0x`
 * hex of the bytes with `0x(0)+` replaced by `0x`, then `0x` alone as `0x0`): every leading zero digit is dropped,
 * and with them the data's length. What is put back (docs/forking.md):
 * - `0x0` is empty data (a bare `revert()`; data of zero bytes only prints the same);
 * - `exact`, the transaction's own revert data (read whole from the default tracer), when its digits without their
 *   leading zeros are these: the inner revert passed on unchanged, as Solidity's high-level calls pass it on;
 * - else, when the digits are 1 to 7 short of an ABI length (a 4-byte selector and 32-byte words: 8 + 64k digits), the
 *   zeros that make that length: a custom error whose selector begins with zero digits;
 * - else (no ABI shape: a raw `revert(p, n)`) the one zero an odd count lacks.
 * Not restorable: a selector of four zero bytes (its data looks ABI-shaped only by chance), and raw data that begins
 * with zero bytes (an ABI length 1 to 7 digits away gets the zeros that make it).
 */
function revertDataFromQuantity(v: unknown, exact?: Uint8Array): Uint8Array {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]+$/.test(v) || v === '0x0') return new Uint8Array()
  const digits = v.slice(2).toLowerCase()
  if (exact !== undefined && Buffer.from(exact).toString('hex').replace(/^0+/, '') === digits) return exact.slice()
  const short = (8 - (digits.length % 64) + 64) % 64
  const zeros = short >= 1 && short <= 7 ? short : digits.length % 2
  return hexToBytes(`0x${'0'.repeat(zeros)}${digits}`)
}

/**
 * The revert data of the frames below the top one that reverted (trace_transaction gives them `result: null`,
 * `error: "Reverted"`), from the remote's callTracer: the same frames in the same order (both are built from RSKj's
 * `ProgramSubtrace` tree), each reverted one with its revert data as `output`.
 */
async function fillInnerReverts(ctx: RouteContext, hash: string, top: RemoteFrame): Promise<void> {
  const frames = framesInOrder(top)
  if (!frames.slice(1).some((f) => f.reverted)) return
  const tree = await askTrace(ctx, hash, [hash, { tracer: 'callTracer' }], 'debug_traceTransaction')
  // callTracer frames leave `calls` out when they have none (`NON_NULL`).
  const called: { output?: unknown }[] = []
  const visit = (f: unknown): void => {
    if (f === null || typeof f !== 'object') return
    called.push(f as { output?: unknown })
    const calls = (f as { calls?: unknown }).calls
    if (Array.isArray(calls)) calls.forEach(visit)
  }
  visit(tree)
  if (called.length !== frames.length) throw new Error(`the remote's callTracer gave ${called.length} frames for transaction ${hash}, its trace_transaction ${frames.length}`)
  frames.forEach((f, i) => {
    if (i > 0 && f.reverted) f.output = revertDataFromQuantity(called[i]!.output, top.reverted ? top.output : undefined)
  })
}

/** The remote's call tree of a transaction, from trace_transaction; undefined when the remote has no traces of it. */
async function remoteTree(ctx: RouteContext, hash: string): Promise<RemoteFrame | undefined> {
  return remoteCallTree(await askTrace(ctx, hash, [hash], 'trace_transaction'))
}

/** ots_getInternalOperations: the transfers, creations and self-destructs of the remote's trace_transaction. */
export const otsInternalOperations: Route = ofRemoteTx(async (ctx, hash) => {
  const top = await remoteTree(ctx, hash)
  return top === undefined ? null : formatInternalOperations(top)
})

/**
 * ots_traceTransaction: every frame of the remote's trace_transaction, with the outputs it leaves out filled from
 * the tracers that hold them: the top frame's from the rskTracer's `result` (topReturnData), a reverted inner
 * frame's from the callTracer (fillInnerReverts). A creation's deployed code is trace_transaction's `result.code`.
 */
export const otsTraceTransaction: Route = ofRemoteTx(async (ctx, hash) => {
  const top = await remoteTree(ctx, hash)
  if (top === undefined) return null
  if (top.type === 'call' || !top.outputKnown) top.output = (await topReturnData(ctx, hash)).data
  if (top.type === 'create' && top.created === undefined) {
    // A failed deployment: the address it would have had is the receipt's contractAddress (as rsksim's own tracer
    // takes it, src/node/exec/tracers/index.ts).
    const r = (await ask(ctx, [hash], 'eth_getTransactionReceipt')) as { contractAddress?: unknown } | null
    if (typeof r?.contractAddress === 'string') top.created = hexToBytes(r.contractAddress as `0x${string}`)
  }
  await fillInnerReverts(ctx, hash, top)
  return formatTraceEntries(top)
})

/**
 * ots_getTransactionError: `0x` when the remote's receipt says the transaction succeeded; else the top frame's revert
 * data from the rskTracer's `result` (the receipt and trace_transaction hold none), `0x` for a failure that was not a
 * revert (no data, as rsksim answers for its own).
 */
export const otsTransactionError: Route = ofRemoteTx(async (ctx, hash) => {
  const receipt = (await ask(ctx, [hash], 'eth_getTransactionReceipt')) as { status?: unknown } | null
  if (receipt === null) return null
  if (receipt.status === '0x1') return '0x'
  const top = await topReturnData(ctx, hash)
  return top.reverted ? '0x' + Buffer.from(top.data).toString('hex') : '0x'
})

/**
 * ots_getBlockTransactions of the forked block or one below it: the remote's eth_getBlockByNumber(n, true)
 * (`remoteBlock`), the page's transactions from it and their eth_getTransactionReceipt answers (only the page's, asked
 * together: one batch).
 */
export const otsBlockTransactionsRoute: Route = async (ctx, args) => {
  const [n, page, pageSize] = args as [number, number, number]
  const block = (await remoteBlock(ctx, { kind: 'number', number: BigInt(n) }, true)) as { transactions?: unknown; timestamp?: unknown } | null | typeof LOCAL
  if (block === LOCAL) return LOCAL
  if (block === null || typeof block !== 'object' || !Array.isArray(block.transactions)) return null
  const all = block.transactions as { hash: string; input: string }[]
  const start = pageStart(page, pageSize, all.length)
  const txs = all.slice(start, start + pageSize)
  const receipts = await Promise.all(txs.map((t) => ask(ctx, [t.hash], 'eth_getTransactionReceipt')))
  const timestamp = String(block.timestamp)
  return otsBlockTransactions(block, txs, all.length, receipts.map((r) => otsReceipt(r as object, timestamp)))
}
