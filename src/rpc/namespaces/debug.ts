/**
 * debug_traceTransaction, debug_traceBlockByHash, debug_traceBlockByNumber, debug_wireProtocolQueueSize
 * (spec "Supported modules": debug; RSKj `co/rsk/rpc/modules/debug/*`, reference §3.10).
 */
import { bytesToHex } from '@ethereumjs/util'
import { ErrorCode, invalidParams, RpcError } from '../../errors.js'
import { optional, removeHexPrefix, type Codec } from '../codecs/primitives.js'
import { blockHashText, hashText, retrieverBlockId } from '../codecs/rskjText.js'
import { blockRef, LATEST } from '../codecs/block.js'
import { callGas, callObject, callRequest, stateOverrides } from '../codecs/objects.js'
import { method, noParams, type HandlerContext, type MethodTable } from '../method.js'
import { blockOrPending, callBlock } from '../resolve.js'
import { formatCallTracer, formatCallTree, formatStructTrace, type DisabledField } from '../format/trace.js'
import { formatRemascRskTrace } from '../format/remascTrace.js'
import type { BlockRecord } from '../../node/chain/types.js'
import { traceCallFrames, traceCallStructLogs, traceCalls, traceStructLogs } from '../../node/exec/tracers/index.js'
import type { StateOverrides } from '../../node/exec/call.js'
import { tracePrestate, tracePrestateCall, type PrestateOptions } from '../../node/exec/tracers/index.js'
import { formatPrestate } from '../format/prestate.js'

export interface DebugTraceOptions {
  /** `prestateTracer` is the test author's (geth's, Anvil's): refused in hosted mode (`allowedTracer`). */
  tracer: 'rskTracer' | 'callTracer' | 'prestateTracer'
  disabled: Set<DisabledField>
  onlyTopCall: boolean
  withLog: boolean
  /** The prestate tracer's `tracerConfig` (geth's `diffMode`, `disableCode`, `disableStorage`). */
  prestate: PrestateOptions
  /** The tracer's name as given, for the error that refuses it. */
  tracerText?: string
}

/** Jackson's `JsonNode.asText()`: what RSKj reads every option value as. */
const asText = (v: unknown): string =>
  typeof v === 'string' ? v : typeof v === 'boolean' || typeof v === 'number' ? String(v) : v === null ? 'null' : ''
/** Java `Boolean.parseBoolean`: only "true", in any case. */
const isTrue = (v: unknown): boolean => asText(v).toLowerCase() === 'true'

const DISABLE: Record<string, DisabledField> = { disablememory: 'memory', disablestack: 'stack', disablestorage: 'storage' }

/** RSKj `TraceOptions.addOption`: exact-case onlyTopCall/withLog, any-case disable options, others ignored. */
function addOption(o: DebugTraceOptions, key: string, value: unknown): void {
  if (key === 'onlyTopCall') o.onlyTopCall = isTrue(value)
  else if (key === 'withLog') o.withLog = isTrue(value)
  else {
    const field = DISABLE[key.toLowerCase()]
    if (field !== undefined && isTrue(value)) o.disabled.add(field)
  }
}

const PRESTATE_KEYS = ['diffMode', 'disableCode', 'disableStorage'] as const

/** The prestate tracer's `tracerConfig`, read as geth reads its JSON into booleans: another type is refused. */
function prestateConfig(config: Record<string, unknown>): PrestateOptions {
  const o: PrestateOptions = { diffMode: false, disableCode: false, disableStorage: false }
  for (const key of PRESTATE_KEYS) {
    const v = config[key]
    if (v === undefined || v === null) continue
    if (typeof v !== 'boolean') throw invalidParams(`Invalid tracerConfig: ${key} must be a boolean, got ${JSON.stringify(v)}`)
    o[key] = v
  }
  return o
}

/**
 * The optional second parameter (RSKj `DebugTracerParam.Deserializer`): `tracer` (any case of `rskTracer` or
 * `callTracer`, or the extension `prestateTracer`), `tracerConfig` entries and top-level keys as options. An unknown
 * tracer is -32602 with RSKj's text (RSKj lets the IllegalArgumentException become -32603; see
 * docs/modules/tracing.md).
 */
export const traceOptions: Codec<DebugTraceOptions> = (v) => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalidParams('Invalid trace options: expected an object.')
  const o: DebugTraceOptions = { ...DEFAULTS, disabled: new Set() }
  let config: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(v)) {
    if (key.toLowerCase() === 'tracerconfig') {
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
        config = value as Record<string, unknown>
        for (const [k, cv] of Object.entries(value)) addOption(o, k, cv)
      }
    } else if (key.toLowerCase() === 'tracer') {
      const name = asText(value).toLowerCase()
      o.tracerText = asText(value)
      if (name === 'calltracer') o.tracer = 'callTracer'
      else if (name === 'rsktracer') o.tracer = 'rskTracer'
      else if (name === 'prestatetracer') o.tracer = 'prestateTracer'
      else throw invalidParams(`Invalid tracer type: ${asText(value)}`)
    } else addOption(o, key, value)
  }
  if (o.tracer === 'prestateTracer') o.prestate = prestateConfig(config)
  return o
}

/**
 * The second parameter of the three RSKj methods. Absent: the defaults (RSKj's one-parameter overloads,
 * `Web3DebugModule.java` 33-51). JSON null: Jackson gives no `DebugTracerParam` (a null token is the deserializer's
 * null value), and `traceParams.getTraceOptions()` (Web3DebugModule.java 38, 46, 55) throws a NullPointerException,
 * -32603 in RSKj; rsksim answers -32602 as for any options that are not an object.
 */
const traceOptionsParam: Codec<DebugTraceOptions | undefined> = Object.assign((v: unknown) => (v === undefined ? undefined : traceOptions(v)), {
  optional: true,
})

const DEFAULTS: DebugTraceOptions = {
  tracer: 'rskTracer',
  disabled: new Set(),
  onlyTopCall: false,
  withLog: false,
  prestate: { diffMode: false, disableCode: false, disableStorage: false },
}

/**
 * `opts`, unless it names the prestate tracer in hosted mode: RSKj knows only `rskTracer` and `callTracer`, so the
 * service refuses any other name with -32602 `Invalid tracer type` (outside hosted mode it is the test author's).
 */
function allowedTracer<T extends DebugTraceOptions>(ctx: HandlerContext, opts: T): T {
  if (opts.tracer === 'prestateTracer' && ctx.node.options.hosted) throw invalidParams(`Invalid tracer type: ${opts.tracerText}`)
  return opts
}

/** debug_traceCall's options: `traceOptions`, and the call's `stateOverrides` (geth's and Anvil's key; eth_call's form). */
const traceCallOptions: Codec<DebugTraceOptions & { overrides?: StateOverrides }> = (v) => {
  const o = traceOptions(v)
  const given = (v as Record<string, unknown>).stateOverrides
  return given === undefined || given === null ? o : { ...o, overrides: stateOverrides(given) }
}

async function traceTransaction(ctx: HandlerContext, hash: Uint8Array, given: DebugTraceOptions = DEFAULTS): Promise<unknown> {
  const { node } = ctx
  const opts = allowedTracer(ctx, given)
  const hashHex = bytesToHex(hash)
  const loc = node.chain.store.getTx(hashHex)
  if (opts.tracer === 'prestateTracer') {
    // As geth answers an unknown transaction (and as callTracer does here): an error, not null.
    if (loc === undefined) throw new RpcError(ErrorCode.Internal, `No transaction info for ${hashHex}`)
    const [trace] = await tracePrestate(node.chain, loc.block, prestateLimits(node, opts), (i) => i === loc.index, node.remasc)
    return trace === undefined ? null : formatPrestate(trace.trace)
  }
  if (opts.tracer === 'callTracer') {
    // RSKj `CallTracer.traceTransaction` throws IllegalArgumentException → -32603 (reference §3.10).
    if (loc === undefined) throw new RpcError(ErrorCode.Internal, `No transaction info for ${hashHex}`)
    const [trace] = await traceCalls(node.chain, loc.block, (i) => i === loc.index)
    return trace === undefined ? null : formatCallTracer(trace, opts)
  }
  // RSKj `RskTracer.traceTransaction`: unknown → null.
  if (loc === undefined) return null
  if (loc.block.transactions[loc.index]!.system === 'remasc') return remascRskTrace(node, loc.block)
  const [trace] = await traceStructLogs(node.chain, loc.block, loc.index, { maxBytes: node.options.maxResponseSize, omitted: opts.disabled })
  return trace === undefined ? null : formatStructTrace(trace, opts.disabled)
}

/** Block variants: an array of struct traces, or `[{txHash, result}]` for callTracer; genesis has none. */
async function traceBlock(ctx: HandlerContext, block: BlockRecord | undefined, given: DebugTraceOptions = DEFAULTS): Promise<unknown> {
  const { node } = ctx
  const opts = allowedTracer(ctx, given)
  if (block === undefined) return null
  if (opts.tracer === 'prestateTracer') {
    const traces = await tracePrestate(node.chain, block, prestateLimits(node, opts), undefined, node.remasc)
    return traces.map((t) => ({ txHash: t.txHashHex, result: formatPrestate(t.trace) }))
  }
  if (opts.tracer === 'callTracer') {
    const traces = await traceCalls(node.chain, block)
    return traces.map((t) => ({ txHash: t.txHashHex, result: formatCallTracer(t, opts) }))
  }
  const traces = await traceStructLogs(node.chain, block, undefined, { maxBytes: node.options.maxResponseSize, omitted: opts.disabled })
  const out: unknown[] = traces.map((t) => formatStructTrace(t, opts.disabled))
  // RSKj `RskTracer.traceBlock` lists every transaction's trace, the REMASC one (always last) included.
  if (block.transactions.at(-1)?.system === 'remasc') out.push(await remascRskTrace(node, block))
  return out
}

/** The prestate tracer's options and the reply's size limit. */
const prestateLimits = (node: HandlerContext['node'], opts: DebugTraceOptions) => ({ ...opts.prestate, maxBytes: node.options.maxResponseSize })

/** The REMASC transaction (the block's last) under rskTracer: RSKj's summarized trace (format/remascTrace.ts). */
async function remascRskTrace(node: HandlerContext['node'], block: BlockRecord): Promise<unknown> {
  const last = block.transactions.length - 1
  const [trace] = await traceCalls(node.chain, block, (i) => i === last)
  return formatRemascRskTrace(trace!)
}

export const debugMethods: MethodTable = {
  /** No peers in a simulation: the wire queue is always empty (RSKj `DebugModuleImpl.wireProtocolQueueSize`). */
  debug_wireProtocolQueueSize: noParams(() => '0x0'),
  debug_traceTransaction: method([hashText, traceOptionsParam], (ctx, hash, opts) => traceTransaction(ctx, hash, opts)),
  debug_traceBlockByHash: method([blockHashText, traceOptionsParam], (ctx, hash, opts) =>
    traceBlock(ctx, ctx.node.chain.store.getByHash(bytesToHex(hash)), opts),
  ),
  /** `pending`: the pending block RSKj builds (`Web3InformationRetriever.getBlock`), replayed as a mined block. */
  debug_traceBlockByNumber: method([retrieverBlockId, traceOptionsParam], async (ctx, sel, opts) =>
    traceBlock(ctx, await blockOrPending(ctx.node, sel, ctx.method), opts),
  ),
}

/**
 * The test author's tracing extension (answered outside hosted mode only; RSKj has no such method): `debug_traceCall
 * (call, block = latest, options)` as Anvil and Hardhat name it, the call run as `eth_call` runs it (the same block
 * forms, `pending` included, the same gas cap, never kept) and traced with the tracers of debug_traceTransaction,
 * in their shapes: struct logs (`rskTracer`, the default) or `callTracer`. `options.stateOverrides` overrides
 * accounts as eth_call's third parameter does.
 */
export const debugCallMethods: MethodTable = {
  debug_traceCall: method([callObject, optional(blockRef), optional(traceCallOptions)], async (ctx, call, sel, given = DEFAULTS) => {
    const { node } = ctx
    const opts = allowedTracer(ctx, given)
    const block = await callBlock(node, sel ?? LATEST)
    const traced = {
      block,
      req: callRequest(call),
      gasLimit: callGas(call, node.options.callGasCap),
      ...('overrides' in opts && opts.overrides !== undefined ? { overrides: opts.overrides } : {}),
    }
    try {
      if (opts.tracer === 'callTracer') return formatCallTree(await traceCallFrames(node.chain, traced), opts)
      if (opts.tracer === 'prestateTracer') return formatPrestate(await tracePrestateCall(node.chain, traced, prestateLimits(node, opts)))
      return formatStructTrace(await traceCallStructLogs(node.chain, traced, { maxBytes: node.options.maxResponseSize, omitted: opts.disabled }), opts.disabled)
    } finally {
      node.reportCallConsole(true)
    }
  }),
}

/**
 * `new RskAddress(String)` as `DebugModuleImpl.accountTransactionQuota` builds it: a leading `0x` is removed, an
 * odd number of digits is left-padded with one 0 (`HexUtils.stringHexToByteArray`, so 39 digits are accepted),
 * and anything but 20 bytes is `InvalidRskAddressException`, which `RskErrorResolver` answers -32602 with the
 * digit count of the text without `0x`. Jackson hands a JSON number over as its decimal text. Where RSKj ends in
 * -32603 (non-hex digits: `Hex.decode`; null: a NullPointerException) rsksim answers -32602 saying what is wrong.
 */
const quotaAddress: Codec<string> = (v) => {
  const text = typeof v === 'number' ? String(v) : v
  if (typeof text !== 'string') throw invalidParams('invalid argument 0: the address must be a hex string')
  const digits = removeHexPrefix(text)
  if (!/^[0-9a-fA-F]*$/.test(digits)) throw invalidParams(`invalid argument 0: ${JSON.stringify(text)} is not a hex address`)
  if (Math.ceil(digits.length / 2) !== 20) {
    throw invalidParams(`invalid argument 0: hex string has length ${text.replaceAll('0x', '').length}, want 40 for RSK address`)
  }
  return '0x' + digits.padStart(40, '0').toLowerCase()
}

/**
 * RSKj-regtest-only debug methods (not in the service's list: answered outside hosted mode, merged by
 * rskjRegtest.ts). `debug_accountTransactionQuota` (`Web3DebugModule`, `DebugModuleImpl.accountTransactionQuota`
 * → `TxQuotaChecker.getTxQuota`): the account's `TxQuota` as Jackson writes its two `@JsonProperty` fields,
 * `{timestamp, availableVirtualGas}` (JSON numbers: milliseconds and a double), or null for an account the
 * checker does not track (src/node/pool/txQuota.ts).
 */
export const debugRegtestMethods: MethodTable = {
  debug_accountTransactionQuota: method([quotaAddress], ({ node }, addr) => {
    const q = node.txQuota.get(addr)
    return q === undefined ? null : { timestamp: q.timestamp, availableVirtualGas: q.availableVirtualGas }
  }),
}
