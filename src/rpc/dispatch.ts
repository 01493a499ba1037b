/**
 * JSON-RPC dispatch: envelope checks → method lookup → parameter decoding → handler → one error normaliser.
 * Checks and texts follow RSKj's `JsonRpcCustomServer` on jsonrpc4j (reference §1.2).
 */
import { invalidParams, invalidRequest, methodNotAvailable, methodNotFound, responseTooLarge, toRpcError, RequestLevelError, type RpcError } from '../errors.js'
import type { RskNode } from '../node/node.js'
import { EXTENSIONS, METHODS, UNSUPPORTED } from './methods.js'
import type { MethodSpec } from './method.js'
import type { JsonRpcId, JsonRpcReply, JsonRpcResponse } from './types.js'
import { LOCAL, routeToFork } from './forkRoute.js'
import { timeLeft } from './forkAsk.js'

/**
 * Looks a method up by wire name; unknown and unsupported names throw -32601 with RSKj's texts. In hosted mode an
 * extension is an unknown name.
 */
export function lookup(name: string, hosted = false): MethodSpec {
  const spec = Object.hasOwn(METHODS, name) ? METHODS[name] : undefined
  if (spec !== undefined && !(hosted && EXTENSIONS.has(name))) return spec
  if (UNSUPPORTED[name] === 'not available') throw methodNotAvailable(name)
  throw methodNotFound()
}

/** Decodes positional params against the method's codecs: too many or too few → -32602. */
function decodeParams(spec: MethodSpec, params: unknown): unknown[] {
  let list: readonly unknown[]
  if (params === undefined || params === null) list = []
  else if (Array.isArray(params)) list = params
  else if (typeof params === 'object' && Object.keys(params).length === 0) list = []
  else throw invalidParams()
  const codecs = spec.params
  if (list.length > codecs.length) throw invalidParams()
  const out = new Array<unknown>(codecs.length)
  for (let i = 0; i < codecs.length; i++) {
    const codec = codecs[i]!
    if (i >= list.length) {
      if (codec.optional !== true) throw invalidParams()
      out[i] = undefined
    } else out[i] = codec(list[i])
  }
  return out
}

/**
 * Runs one call through the node's queue, under the request deadline (`rpcTimeout`, src/node/exec/guard.ts), which
 * starts when the call leaves the queue, less the time a fork route spent asking the remote; throws RpcError.
 */
export async function invoke(node: RskNode, name: string, params: unknown): Promise<unknown> {
  const spec = lookup(name, node.options.hosted)
  const args = decodeParams(spec, params)
  const fork = node.fork
  let timeout = node.options.rpcTimeout
  if (fork !== undefined) {
    // The remote's history is answered by the remote, outside the queue (src/rpc/forkRoute.ts), by the deadline.
    const deadline = timeout > 0 ? Date.now() + timeout : undefined
    const remote = await routeToFork(node, fork, name, args, params, deadline)
    if (remote !== LOCAL) return remote
    // A route that asked the remote before it left the request to rsksim spent part of the request's time: the local
    // run has what is left (forkAsk.ts `timeLeft`), not a second `rpcTimeout`.
    timeout = timeLeft(deadline)
  }
  const ctx = { node, method: name }
  if (spec.queuesItself) return spec.handler(ctx, ...args)
  return node.queue.run(() => node.chain.guard.within(timeout, () => spec.handler(ctx, ...args)))
}

const isId = (v: unknown): v is JsonRpcId => v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))

function failure(jsonrpc: string, id: JsonRpcId | undefined, e: RpcError): JsonRpcResponse {
  return id === undefined ? { jsonrpc, error: e.toJSON() } : { jsonrpc, id, error: e.toJSON() }
}

/** A transport's veto of some methods for one request body (e.g. wallet methods to an untrusted browser origin). */
export type MethodVeto = (method: string) => RpcError | undefined

/**
 * Methods served by the caller rather than the node's table (eth_subscribe/eth_unsubscribe belong to a connection
 * or a provider, not to the node).
 */
export type LocalMethods = Readonly<Record<string, (params: unknown) => unknown>>

/** What the transport a body came through adds to its dispatch: methods it refuses, methods it serves itself. */
export interface Transport {
  veto?: MethodVeto
  local?: LocalMethods
  /**
   * The server's reply limit in bytes (`maxResponseSize`, RSKj `rpc.maxResponseSize`; 0 or absent = none). A batch
   * stops at the first answer that takes its answers past it (see handleBody); the server checks the whole reply.
   */
  maxReplyBytes?: number
}

/** Answers one request object; undefined for a notification (no `id`, or `id: null`). */
async function handleOne(node: RskNode, req: unknown, transport: Transport = {}): Promise<JsonRpcResponse | undefined> {
  if (typeof req !== 'object' || req === null || Array.isArray(req)) return failure('2.0', null, invalidRequest())
  const r = req as Record<string, unknown>
  const hasId = Object.hasOwn(r, 'id')
  if (hasId && !isId(r.id)) return failure('2.0', null, invalidRequest())
  if (r.jsonrpc !== undefined && r.jsonrpc !== '2.0') return failure('2.0', hasId ? (r.id as JsonRpcId) : null, invalidRequest())
  const jsonrpc = '2.0'
  const id = hasId ? (r.id as JsonRpcId) : undefined
  const notification = id === undefined || id === null
  // Without a method and an id there is nothing to answer to but the shape: -32600 (JSON-RPC 2.0 §5), never silence.
  if (typeof r.method !== 'string' && !hasId) return failure(jsonrpc, null, invalidRequest())
  try {
    if (typeof r.method !== 'string') throw methodNotFound()
    const refused = transport.veto?.(r.method)
    if (refused !== undefined) throw refused
    const local = transport.local
    const own = local !== undefined && Object.hasOwn(local, r.method) ? local[r.method] : undefined
    const result = own !== undefined ? own(r.params) : await invoke(node, r.method, r.params)
    if (notification) return undefined
    return { jsonrpc, id, result: result === undefined ? null : result }
  } catch (e) {
    const error = toRpcError(e)
    // A timeout or an oversized reply is answered for the whole request body (see handlePayload).
    if (error instanceof RequestLevelError) throw error
    return notification ? undefined : failure(jsonrpc, id, error)
  }
}

/**
 * Answers a parsed JSON body: one request or a batch (answered in order; notifications leave no entry). A batch
 * over `maxBatch` is refused whole with RSKj's text and no `jsonrpc`/`id`; one whose answers pass
 * `transport.maxReplyBytes` stops there with the bare -32011.
 */
export async function handlePayload(node: RskNode, payload: unknown, transport: Transport = {}): Promise<JsonRpcReply> {
  try {
    return await handleBody(node, payload, transport)
  } catch (e) {
    // RSKj's timeout and response-size errors stop the whole body: a bare error, no jsonrpc/id (reference §1.2).
    if (e instanceof RequestLevelError) return { error: e.toJSON() }
    throw e
  }
}

/**
 * The JSON text of replies dispatch already serialised to hold them to the reply limit: the servers send it as is
 * (`replyText`) instead of serialising the reply again.
 */
const replyTexts = new WeakMap<object, string>()

/** A reply's JSON text: the one dispatch made under a reply limit, else serialised now. */
export function replyText(reply: NonNullable<JsonRpcReply>): string {
  return replyTexts.get(reply) ?? JSON.stringify(reply)
}

async function handleBody(node: RskNode, payload: unknown, transport: Transport): Promise<JsonRpcReply> {
  const limit = transport.maxReplyBytes ?? 0
  if (Array.isArray(payload)) {
    if (payload.length === 0) return failure('2.0', null, invalidRequest())
    const max = node.options.maxBatchSize
    if (payload.length > max) {
      return { error: invalidRequest(`Cannot dispatch batch requests. ${max} is the max number of supported batch requests`).toJSON() }
    }
    const out: JsonRpcResponse[] = []
    const texts: string[] = []
    // The reply's bytes so far: `[`, then each answer with the `,` or `]` after it.
    let bytes = 1
    for (const req of payload) {
      const res = await handleOne(node, req, transport)
      if (res === undefined) continue
      out.push(res)
      // RSKj adds up the answers of a batch as it runs and stops past the limit (`JsonRpcCustomServer` →
      // `ResponseSizeLimitContext.addResponse`; geth's `batchResponseMaxSize` likewise), so a batch of large answers
      // never builds the whole reply: fifty 24 MB `eth_getLogs` answers would need more memory than a JavaScript
      // string can hold. Counted as the servers send it, so their own check of the whole reply agrees.
      if (limit > 0) {
        const text = JSON.stringify(res)
        texts.push(text)
        if ((bytes += Buffer.byteLength(text, 'utf8') + 1) > limit) throw responseTooLarge(limit)
      }
    }
    if (out.length === 0) return undefined
    if (limit > 0) replyTexts.set(out, `[${texts.join(',')}]`)
    return out
  }
  if (typeof payload !== 'object' || payload === null) return failure('2.0', null, invalidRequest())
  const res = await handleOne(node, payload, transport)
  // Held to the limit here too, not only by the server, so that the body's own work (a subscription it made) is undone.
  if (res !== undefined && limit > 0) {
    const text = JSON.stringify(res)
    if (Buffer.byteLength(text, 'utf8') > limit) throw responseTooLarge(limit)
    replyTexts.set(res, text)
  }
  return res
}
