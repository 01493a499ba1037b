/**
 * On a fork, requests about the remote's history go to the remote (docs/forking.md): blocks at or below the forked
 * block, their transactions, receipts, traces and logs, and state or calls at blocks below it. The request is sent
 * as the user wrote it, with a block tag replaced by the number it meant here (the remote's `latest` has moved on),
 * and answered with the remote's result; what is above the forked block (or not the remote's) is left to rsksim's
 * own handlers. The remote is asked outside the node's queue: waiting for it never holds up local requests.
 *
 * Decided here: a block hash or transaction the remote mined after the forked block is not part of this chain, so
 * it is looked up first (one cached call) and answered as unknown. `eth_getLogs` over a range that spans the forked
 * block joins the remote's logs and rsksim's, under the service's limits for the whole range.
 *
 * This file routes the service's block, state and transaction methods and holds the table; forkLogs.ts the log and
 * trace queries, forkExtensions.ts the extensions RSKj lacks, forkAsk.ts what they all use.
 */
import { RpcError, ErrorCode } from '../errors.js'
import { RemoteFailed } from '../node/errors.js'
import type { RskNode } from '../node/node.js'
import type { ForkPoint } from '../node/fork/fork.js'
import { hexNumber } from '../node/fork/fork.js'
import type { BlockSelector } from './codecs/block.js'
import { callBlockId } from './codecs/rskjBlock.js'
import { retrieverBlockId } from './codecs/rskjText.js'
import { ask, blockNumberOf, hashParam, inTime, isRemoteBlock, isRemoteTooLarge, LOCAL, ofRemoteTx, remoteBlock, remoteBlockParam, remoteTooLarge, withParam, type Answer, type Route } from './forkAsk.js'
import { filterChangesRoute, filterLogs, logs, newFilter, traceFilterRoute } from './forkLogs.js'
import { accountInfo, blockReceipts, erigonHeader, otsBlockDetails, otsHasCode, rawByTx, rawTransactionFrom } from './forkExtensions.js'
import { otsBlockTransactionsRoute, otsInternalOperations, otsTraceTransaction, otsTransactionError } from './forkOts.js'

export { LOCAL } from './forkAsk.js'

/**
 * Block methods by number (the selector is the first param): the forked block and below are the remote's; `pending`,
 * the block after the head, is rsksim's own (`numberOf`), answered or refused as without a fork. A block hash (which
 * these methods take, as RSKj's `Web3InformationRetriever.getBlock` and `TraceModuleImpl.getByJsonBlockId` do) is the
 * remote's as for `byHash`, and asked as a hash.
 */
const byNumber =
  (answer: Answer = ask): Route =>
  async (ctx, args, raw) => {
    const block = await remoteBlockParam(ctx, args[0] as BlockSelector)
    return block === LOCAL ? LOCAL : answer(ctx, withParam(raw, 0, block))
  }

/**
 * Block methods by hash (the first param): a hash rsksim did not mine is the remote's, if the remote has it at or
 * below the fork. The decoded hash where the codec gives bytes (debug_traceBlockByHash reads 63 digits as RSKj does),
 * asked as `0x` hex.
 */
const byHash =
  (answer: Answer = ask): Route =>
  async (ctx, args, raw) => {
    const given = args[0]
    // A JSON null hash (eth_getBlockByHash, eth_getTransactionByBlockHashAndIndex) is the method's to refuse.
    if (given === null) return LOCAL
    const hash = hashParam(given, raw)
    return (await isRemoteBlock(ctx, hash)) ? answer(ctx, given instanceof Uint8Array ? withParam(raw, 0, hash) : raw) : LOCAL
  }

/**
 * State reads and calls at a block (`i`: the selector's position): below the forked block they are the remote's.
 * At the forked block and above they run here, over the remote's state read lazily (ForkState).
 */
const atState =
  (i: number, proof = false, answer: Answer = ask): Route =>
  async (ctx, args, raw) => {
    const n = await blockNumberOf(ctx, args[i] as BlockSelector | undefined)
    // A negative number (`0xffffffffffffffff`, read as RSKj's long -1: rskjText.ts `javaHexLong`) names no block.
    if (n === undefined || n < 0n) return LOCAL
    if (n < ctx.fork.number || (proof && n === ctx.fork.number)) return answer(ctx, withParam(raw, i, hexNumber(n)))
    if (proof) {
      throw new RpcError(
        ErrorCode.Internal,
        `${ctx.method} on a fork answers for blocks up to the forked block ${ctx.fork.number} (from the remote): the trie of rsksim's own blocks holds only their local changes, not the whole state`,
      )
    }
    return LOCAL
  }

/** The …ByNumber methods whose block text the handler reads (`numberBlockIdText`): as `byNumber`, the text read first. */
const byNumberText: Route = (ctx, args, raw) => byNumber()(ctx, [retrieverBlockId(args[0] as string), ...args.slice(1)], raw)

/**
 * eth_call: as `atState(1)`, its block read first (`callBlockId`). A block text that cannot be read is the handler's to
 * refuse: it reads the overrides' numbers first (`Web3Impl.eth_call`), so a bad override wins over it, as on RSKj.
 */
const callAtState: Route = async (ctx, args, raw) => {
  const ref = args[1] as Parameters<typeof callBlockId>[0] | undefined
  let sel: BlockSelector | undefined
  try {
    sel = ref === undefined ? undefined : callBlockId(ref)
  } catch {
    return LOCAL
  }
  return atState(1)(ctx, [args[0], sel, ...args.slice(2)], raw)
}

/** Transaction methods by hash: a transaction rsksim does not know is the remote's, if mined at or below the fork. */
const byTx: Route = ofRemoteTx((ctx, _hash, _tx, raw) => ask(ctx, raw))

/**
 * debug_getRawHeader/Block/Receipts (a number, tag, hash or EIP-1898 map): a block at or below the forked block is
 * the remote's, asked by its number or hash as `byNumberMethod`/`byHashMethod` (default: the method itself; RSKj has
 * chain_getRawBlockHeaderBy*, none of debug_getRaw*, so its -32601 is then the answer, as for trace_replay*); rsksim's
 * node holds the forked block without its transactions and receipts, and none below it. `pending` is rsksim's own.
 */
const rawOfBlock =
  (byNumberMethod?: string, byHashMethod?: string): Route =>
  async (ctx, args) => {
    const sel = args[0] as BlockSelector
    const block = await remoteBlockParam(ctx, sel)
    return block === LOCAL ? LOCAL : ask(ctx, [block], sel.kind === 'hash' ? byHashMethod : byNumberMethod)
  }

/**
 * eth_getBlocksByNumber below the forked block: the remote's block at that height (`remoteBlock`: its
 * eth_getBlockByNumber, which every kind of remote answers), as the one main-chain entry rsksim answers for its own
 * heights. The forked block is answered from rsksim's record of it (the remote's hash and total difficulty).
 */
const blocksByNumber: Route = async (ctx, args) => {
  const n = args[0] as bigint
  if (n >= ctx.fork.number) return LOCAL
  const b = (await remoteBlock(ctx, { kind: 'number', number: n })) as { hash?: unknown; totalDifficulty?: unknown } | null | typeof LOCAL
  if (b === LOCAL) return LOCAL
  if (b === null || typeof b.hash !== 'string') return []
  return [{ hash: b.hash, totalDifficulty: b.totalDifficulty, inMainChain: true }]
}

const ROUTES: Record<string, Route> = {
  eth_getBlockByNumber: byNumberText,
  eth_getBlockTransactionCountByNumber: byNumber(),
  eth_getUncleCountByBlockNumber: byNumber(),
  eth_getTransactionByBlockNumberAndIndex: byNumberText,
  eth_getUncleByBlockNumberAndIndex: byNumberText,
  debug_traceBlockByNumber: byNumber(),
  trace_block: byNumber(),
  // Replays of the remote's blocks are the remote's (an RSKj remote has none: its -32601 is the answer).
  trace_replayBlockTransactions: byNumber(),
  chain_getRawBlockHeaderByNumber: byNumber(),
  debug_getRawHeader: rawOfBlock('chain_getRawBlockHeaderByNumber', 'chain_getRawBlockHeaderByHash'),
  debug_getRawBlock: rawOfBlock(),
  debug_getRawReceipts: rawOfBlock(),
  rsk_getRawBlockHeaderByNumber: byNumber(),
  eth_getBlockByHash: byHash(),
  eth_getBlockTransactionCountByHash: byHash(),
  eth_getUncleCountByBlockHash: byHash(),
  eth_getTransactionByBlockHashAndIndex: byHash(),
  eth_getUncleByBlockHashAndIndex: byHash(),
  debug_traceBlockByHash: byHash(),
  chain_getRawBlockHeaderByHash: byHash(),
  rsk_getRawBlockHeaderByHash: byHash(),
  chain_getTransactionReceiptNodesByHash: byHash(),
  rsk_getTransactionReceiptNodesByHash: byHash(),
  eth_getBalance: atState(1),
  eth_getTransactionCount: atState(1),
  eth_getCode: atState(1),
  eth_getStorageAt: atState(2),
  eth_call: callAtState,
  eth_estimateGas: atState(1),
  // A call traced below the forked block runs on the remote, as eth_call there (an RSKj remote has no such method:
  // its own -32601 is the answer).
  debug_traceCall: atState(1),
  // The same for the extensions run as eth_call runs (RSKj has neither: an RSKj remote answers -32601).
  eth_createAccessList: atState(1),
  eth_simulateV1: atState(1),
  eth_getProof: atState(2, true),
  // geth's eth_getAccount is a proof's account leaf: the remote's at or below the forked block, as eth_getProof.
  eth_getAccount: atState(1, true),
  eth_getAccountInfo: atState(1, false, accountInfo),
  eth_getRawTransactionByHash: rawByTx,
  debug_getRawTransaction: rawByTx,
  eth_getRawTransactionByBlockNumberAndIndex: byNumber(rawTransactionFrom('eth_getTransactionByBlockNumberAndIndex')),
  eth_getRawTransactionByBlockHashAndIndex: byHash(rawTransactionFrom('eth_getTransactionByBlockHashAndIndex')),
  eth_getTransactionByHash: byTx,
  eth_getTransactionReceipt: byTx,
  debug_traceTransaction: byTx,
  trace_transaction: byTx,
  trace_replayTransaction: byTx,
  trace_get: byTx,
  chain_getRawTransactionReceiptByHash: byTx,
  rsk_getRawTransactionReceiptByHash: byTx,
  eth_getBlockReceipts: blockReceipts,
  eth_getLogs: logs,
  trace_filter: traceFilterRoute,
  eth_getBlocksByNumber: blocksByNumber,
  eth_getFilterLogs: filterLogs,
  eth_newFilter: newFilter,
  eth_getFilterChanges: filterChangesRoute,
  ots_getInternalOperations: otsInternalOperations,
  ots_traceTransaction: otsTraceTransaction,
  ots_getTransactionError: otsTransactionError,
  ots_getBlockDetails: otsBlockDetails(false),
  ots_getBlockDetailsByHash: otsBlockDetails(true),
  ots_getBlockTransactions: otsBlockTransactionsRoute,
  ots_hasCode: atState(1, false, otsHasCode),
  erigon_getHeaderByNumber: erigonHeader,
  // The Bridge's state has no block parameter: the forked network's, as it is now; so not cached.
  eth_bridgeState: (ctx, _args, raw) => inTime(ctx, ctx.fork.remote.request(ctx.method, raw)),
}

/**
 * The remote's answer to a request about its history, or LOCAL. `args`: the decoded params (selectors parsed),
 * `raw`: the params as sent; `deadline`: when the request's time is up (`RouteContext.deadline`).
 */
export async function routeToFork(node: RskNode, fork: ForkPoint, method: string, args: unknown[], raw: unknown, deadline: number | undefined): Promise<unknown> {
  const route = Object.hasOwn(ROUTES, method) ? ROUTES[method] : undefined
  if (route === undefined) return LOCAL
  try {
    return await route({ node, fork, method, ...(deadline !== undefined ? { deadline } : {}) }, args, Array.isArray(raw) ? raw : [])
  } catch (e) {
    // A call the remote refuses as over its response size limit: -32011 saying so (forkAsk.ts `remoteTooLarge`).
    if (isRemoteTooLarge(e)) throw remoteTooLarge(e, method, 'is answered from the remote')
    // The remote's own JSON-RPC error is the answer, as the remote gave it (a block it refuses, a revert).
    if (e instanceof RemoteFailed && e.code !== undefined && e.remoteMessage !== undefined) {
      throw new RpcError(e.code, e.remoteMessage, typeof e.data === 'string' ? { data: e.data, cause: e } : { cause: e })
    }
    throw e
  }
}
