/**
 * The node:http request listener of the rsksim server: `POST /<API_KEY>` with a JSON-RPC body (spec "Endpoints",
 * "Authentication"), with the status codes of RSKj's Netty pipeline (reference §1.1–1.2).
 *
 * Order of checks (each one answers and stops; nothing before step 6 reads the body):
 * 1. `OPTIONS` → 204 CORS preflight.
 * 2. `Host` not accepted (DNS rebinding, src/server/access.ts) → 400, as RSKj's host filter.
 * 3. Any method but POST → 501 (`JsonRpcWeb3FilterHandler`); `Content-Type` not `application/json` /
 *    `application/json-rpc` → 415. RSKj sends these without a body; rsksim adds a JSON-RPC error saying what to
 *    send instead, so a user who opens the URL in a browser or forgets the header learns why.
 * 4. API keys configured and the last path segment is not one of them → 401 with a JSON-RPC error, id null; the
 *    body is discarded unread and the connection closed, so a client without a key costs no parsing. A client
 *    that sent `Expect: 100-continue` gets `100 Continue` only after these checks pass.
 * 5. Body over `maxBodyBytes` → 413 (Netty `HttpObjectAggregator`), with an explaining error.
 * 6. Empty body → `{"error":{"code":-32099,"message":"Unexpected error"}}`, 200 (RSKj catch-all, reference §1.2).
 * 7. Malformed JSON → 400 `-32700 JSON parse error`, id null.
 * 8. Everything else goes to the provider's dispatcher (wallet methods vetoed for untrusted browser origins); the
 *    status follows the reply (`statusOf`); a reply over `maxResponseBytes` is replaced by RSKj's bare -32011.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import type { JsonRpcId, JsonRpcReply } from '../rpc/types.js'
import { isJsonContentType, readBody, replyHeads, statusOf, writeEmpty, writeJson, writePreflight, type ReplyConfig } from './http.js'
import { hostAllowed, walletRefusal, type AccessConfig } from './access.js'
import { replyText, type MethodVeto } from '../rpc/dispatch.js'
import { parseRequestJson } from '../rpc/requestJson.js'
import { responseTooLarge } from '../errors.js'
import type { ReplyBudget } from './replyBudget.js'

/** What the server needs from a provider: its JSON-RPC dispatcher (see `Provider.handleJsonRpc`). */
export interface JsonRpcEndpoint {
  handleJsonRpc(payload: unknown, transport?: { veto?: MethodVeto; maxReplyBytes?: number }): Promise<JsonRpcReply>
}

/** Settings of the request listener. */
export interface HandlerConfig extends ReplyConfig {
  /** Accepted API keys, or null to serve every path. */
  apiKeys: ReadonlySet<string> | null
  /** Largest accepted request body in bytes. */
  maxBodyBytes: number
  /** Largest reply in bytes (RSKj `rpc.maxResponseSize`); 0 = no limit. */
  maxResponseBytes: number
  /** Host and Origin rules (src/server/access.ts). */
  access: AccessConfig
  /** The server's budget of reply bytes not yet taken by clients (src/server/replyBudget.ts); none = not counted. */
  budget?: ReplyBudget
}

/**
 * JSON-RPC code of the 401 reply to a missing or unknown API key. The spec leaves the answer "not shown"; rsksim
 * uses -32600 (invalid request), the standard JSON-RPC code for a request the server refuses to run, rather than
 * inventing a vendor code. Clients see HTTP 401 first.
 */
export const UNAUTHORIZED_CODE = -32600
export const UNAUTHORIZED_MESSAGE = 'invalid or missing API key'

const PARSE_ERROR_JSON = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"JSON parse error"}}'
/** RSKj `JsonRpcWeb3ServerHandler` catch-all (e.g. an empty body): a bare error, HTTP 200. */
export const UNEXPECTED_ERROR_JSON = '{"error":{"code":-32099,"message":"Unexpected error"}}'

/**
 * Whether a reply's JSON text is over `maxResponseBytes` (RSKj `rpc.maxResponseSize`, checked by its
 * `JsonRpcWeb3ServerHandler` for HTTP and WebSocket alike; 0 = no limit). A string's length never exceeds its UTF-8
 * byte length, so only long replies are measured exactly.
 */
export function overReplyLimit(json: string, maxResponseBytes: number): boolean {
  return maxResponseBytes > 0 && json.length * 3 > maxResponseBytes && Buffer.byteLength(json, 'utf8') > maxResponseBytes
}

/** RSKj's bare -32011 sent instead of a reply over `maxResponseBytes`. */
export const tooLargeReplyJson = (maxResponseBytes: number): string => JSON.stringify({ error: responseTooLarge(maxResponseBytes).toJSON() })

/**
 * The API key of a request path: its last non-empty segment, percent-decoded (`/abc` → `abc`,
 * `/rpc/abc/` → `abc`, `/` → undefined). The query string is ignored.
 *
 * @example
 * ```ts
 * apiKeyOf('/v1/my-key?x=1') // 'my-key'
 * apiKeyOf('/')              // undefined
 * ```
 */
export function apiKeyOf(url: string | undefined): string | undefined {
  const path = (url ?? '/').split(/[?#]/, 1)[0] ?? ''
  const segments = path.split('/').filter((s) => s.length > 0)
  const last = segments[segments.length - 1]
  if (last === undefined) return undefined
  try {
    return decodeURIComponent(last)
  } catch {
    return last
  }
}

/** A JSON-RPC error reply with id null, for refusals made before any request is read. */
function refusalJson(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: null as JsonRpcId, error: { code, message } })
}

const UNAUTHORIZED_JSON = refusalJson(UNAUTHORIZED_CODE, UNAUTHORIZED_MESSAGE)
const NOT_POST_JSON = refusalJson(-32600, 'rsksim serves JSON-RPC 2.0 over POST only: send POST with Content-Type: application/json')
const NOT_JSON_JSON = refusalJson(-32600, 'the request body must be sent with Content-Type: application/json (or application/json-rpc)')
const BAD_HOST_JSON = refusalJson(
  -32600,
  'the Host header names a host this server does not serve (DNS rebinding protection): use localhost or an IP address, or allow the name with the allowedHosts option / --allow-host',
)
const tooLargeJson = (max: number): string => refusalJson(-32600, `the request body is larger than ${max} bytes (maxBodyBytes / --max-body-bytes)`)

const CONTINUE = /^100-continue$/i

/** Replies still owed per socket (requests read but not answered; several when a client pipelines). */
const owed = new WeakMap<Socket, number>()

/**
 * Whether `socket` still owes a reply: the server's idle timeout never cuts a connection whose client waits for
 * its answer (a long `eth_call`), only one idle between requests.
 */
export function owesReply(socket: Socket): boolean {
  return (owed.get(socket) ?? 0) > 0
}

/** Where a reply goes: an HTTP status and the JSON text, or `undefined` for an empty 200 (a notification). */
export type SendReply = (status: number, json: string | undefined) => void

/**
 * What the server's front ends share (the node:http listener, and the fast path of src/server/fastPath.ts): the
 * checks made before a body is read, and the running of a body into a reply.
 */
export interface RequestCore {
  /** The node:http request listener (also for 'checkContinue'). */
  listener: (req: IncomingMessage, res: ServerResponse) => void
  /** Whether a POST to `target` with these headers passes every check made before its body is read. */
  admits(target: string, host: string | undefined, contentType: string | undefined): boolean
  /** Runs a request body (`text`, UTF-8 decoded) and sends its reply; steps 6-8 of the list above. */
  run(text: string, origin: string | undefined, send: SendReply): void
}

/**
 * Builds the request handling that serves `endpoint` (normally a `Provider`): `listener` for node:http.
 *
 * The hot path (a POST whose body arrives, a reply written) allocates no promise or object of its own beyond the
 * provider's: one `data` and one `end` listener, header lists built once (`replyHeads`), and the reply written
 * from the provider's promise callback.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http'
 * const provider = await createProvider()
 * const access = { allowedHosts: [], allowedOrigins: [], boundHost: '127.0.0.1' }
 * const { listener } = createRequestCore(provider, { apiKeys: null, maxBodyBytes: 5 << 20, maxResponseBytes: 0, keepAlive: true, access })
 * createServer(listener).listen(4444)
 * ```
 */
export function createRequestCore(endpoint: JsonRpcEndpoint, config: HandlerConfig): RequestCore {
  const heads = replyHeads(config)
  const { access, apiKeys, maxBodyBytes, maxResponseBytes, budget } = config
  const tooLarge = tooLargeJson(maxBodyBytes)
  // The transport of a request with no veto (only the reply limit): one shared object, not one per request.
  const noVeto = Object.freeze({ maxReplyBytes: maxResponseBytes })
  // `Host` values already accepted: a client sends the same one on every request, so the rule runs once per value.
  const goodHosts = new Set<string>()
  const hostOk = (host: string | undefined): boolean => {
    if (host === undefined || goodHosts.has(host)) return true
    if (!hostAllowed(host, access)) return false
    if (goodHosts.size < 64) goodHosts.add(host)
    return true
  }
  const keyOk = (target: string | undefined): boolean => {
    if (apiKeys === null) return true
    const key = apiKeyOf(target)
    return key !== undefined && apiKeys.has(key)
  }

  /**
   * Answers a request refused before its body was read. The body is discarded as it arrives (never buffered or
   * parsed) and the connection closed after the reply, so the refused client cannot queue more work on it.
   */
  const refuse = (req: IncomingMessage, res: ServerResponse, status: number, json: string): void => {
    req.resume()
    writeJson(res, status, json, heads, true)
  }

  const settle = (socket: Socket): void => {
    owed.set(socket, (owed.get(socket) ?? 1) - 1)
  }

  /** Sends the provider's reply: empty for notifications, RSKj's -32011 when over `maxResponseBytes`. */
  const deliver = (reply: JsonRpcReply, send: SendReply): void => {
    if (reply === undefined) return send(200, undefined)
    let json: string
    try {
      json = replyText(reply)
    } catch {
      // A value JSON cannot carry (a bug upstream) becomes the RSKj catch-all error.
      return send(200, UNEXPECTED_ERROR_JSON)
    }
    if (overReplyLimit(json, maxResponseBytes)) return send(200, tooLargeReplyJson(maxResponseBytes))
    send(statusOf(reply), json)
  }

  const run = (text: string, origin: string | undefined, send: SendReply): void => {
    let payload: unknown
    try {
      payload = parseRequestJson(text)
    } catch {
      // An empty (or blank) body is RSKj's catch-all, 200; anything else that is not JSON a parse error, 400.
      return send(text.trim() === '' ? 200 : 400, text.trim() === '' ? UNEXPECTED_ERROR_JSON : PARSE_ERROR_JSON)
    }
    const veto = origin === undefined ? undefined : walletRefusal(origin, access)
    endpoint.handleJsonRpc(payload, veto === undefined ? noVeto : { veto, maxReplyBytes: maxResponseBytes }).then(
      (reply) => deliver(reply, send),
      // handleJsonRpc never throws; this guards the server itself so no request is left hanging.
      () => send(200, UNEXPECTED_ERROR_JSON),
    )
  }

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method === 'OPTIONS') return writePreflight(res, heads)
    const headers = req.headers
    if (!hostOk(headers.host)) return refuse(req, res, 400, BAD_HOST_JSON)
    if (req.method !== 'POST') return refuse(req, res, 501, NOT_POST_JSON)
    if (!isJsonContentType(headers['content-type'])) return refuse(req, res, 415, NOT_JSON_JSON)
    if (!keyOk(req.url)) return refuse(req, res, 401, UNAUTHORIZED_JSON)
    // `Expect: 100-continue` (RFC 9110 §10.1.1) is invited only now that the request passed every check above
    // (the server routes those requests here through 'checkContinue'), so a refused client never sends its body;
    // one that announces too large a body gets its 413 at once. Without Expect, a too large body is drained
    // before the 413 (readBody): a client still writing it would otherwise meet a reset instead of the answer.
    if (req.httpVersionMinor === 1 && headers.expect !== undefined && CONTINUE.test(headers.expect)) {
      if (Number(headers['content-length']) > maxBodyBytes) return refuse(req, res, 413, tooLarge)
      res.writeContinue()
    }
    const socket = req.socket
    owed.set(socket, (owed.get(socket) ?? 0) + 1)
    const origin = headers.origin
    const send: SendReply = (status, json) => {
      settle(socket)
      if (json === undefined) writeEmpty(res, status, heads)
      else writeJson(res, status, json, heads)
      // Bytes the kernel did not take at once (or a reply waiting behind the connection's previous one) count in the
      // server's budget of unsent replies.
      if (budget !== undefined && res.writableLength > 0) budget.noteResponse(res, socket)
    }
    readBody(req, maxBodyBytes, (body) => {
      if (body !== undefined) return run(body.toString('utf8'), origin, send)
      settle(socket)
      writeJson(res, 413, tooLarge, heads, true)
    })
  }

  return {
    listener,
    admits: (target, host, contentType) => hostOk(host) && isJsonContentType(contentType) && keyOk(target),
    run,
  }
}
