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
 *    body is discarded unread and the connection closed, so a client without a key costs no parsing.
 * 5. Body over `maxBodyBytes` → 413 (Netty `HttpObjectAggregator`), with an explaining error.
 * 6. Empty body → `{"error":{"code":-32099,"message":"Unexpected error"}}`, 200 (RSKj catch-all, reference §1.2).
 * 7. Malformed JSON → 400 `-32700 JSON parse error`, id null.
 * 8. Everything else goes to the provider's dispatcher (wallet methods vetoed for untrusted browser origins); the
 *    status follows the reply (`statusOf`); a reply over `maxResponseBytes` is replaced by RSKj's bare -32011.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { JsonRpcId, JsonRpcReply } from '../rpc/types.js'
import {
  isJsonContentType,
  readBody,
  statusOf,
  writeEmpty,
  writeJson,
  writePreflight,
  type ReplyConfig,
} from './http.js'
import { hostAllowed, walletRefusal, type AccessConfig } from './access.js'
import type { MethodVeto } from '../rpc/dispatch.js'
import { responseTooLarge } from '../errors.js'

/** What the server needs from a provider: its JSON-RPC dispatcher (see `Provider.handleJsonRpc`). */
export interface JsonRpcEndpoint {
  handleJsonRpc(payload: unknown, transport?: { veto?: MethodVeto }): Promise<JsonRpcReply>
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
const UNEXPECTED_ERROR_JSON = '{"error":{"code":-32099,"message":"Unexpected error"}}'

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

/**
 * Serialises a reply; a value JSON cannot carry (a bug upstream) becomes the RSKj catch-all error, and a reply over
 * `maxBytes` (0 = no limit) RSKj's bare -32011 `Response size limit of N bytes exceeded` (reference §1.2).
 */
function serialise(reply: Exclude<JsonRpcReply, undefined>, maxBytes: number): { status: number; json: string } {
  let json: string
  try {
    json = JSON.stringify(reply)
  } catch {
    return { status: 200, json: UNEXPECTED_ERROR_JSON }
  }
  // A string's length never exceeds its UTF-8 byte length, so only long replies are measured exactly.
  if (maxBytes > 0 && json.length * 3 > maxBytes && Buffer.byteLength(json, 'utf8') > maxBytes) {
    return { status: 200, json: JSON.stringify({ error: responseTooLarge(maxBytes).toJSON() }) }
  }
  return { status: statusOf(reply), json }
}

async function handle(endpoint: JsonRpcEndpoint, config: HandlerConfig, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method === 'OPTIONS') return writePreflight(res, config)
  if (!hostAllowed(req.headers.host, config.access)) return refuse(req, res, 400, BAD_HOST_JSON, config)
  if (req.method !== 'POST') return refuse(req, res, 501, NOT_POST_JSON, config)
  if (!isJsonContentType(req.headers['content-type'])) return refuse(req, res, 415, NOT_JSON_JSON, config)
  if (config.apiKeys !== null) {
    const key = apiKeyOf(req.url)
    if (key === undefined || !config.apiKeys.has(key)) return refuse(req, res, 401, UNAUTHORIZED_JSON, config)
  }

  const read = await readBody(req, config.maxBodyBytes)
  if (!read.ok) {
    if (read.reason === 'too-large') writeJson(res, 413, tooLargeJson(config.maxBodyBytes), config, true)
    return
  }
  const text = read.body.toString('utf8')
  if (text.trim() === '') return writeJson(res, 200, UNEXPECTED_ERROR_JSON, config)

  let payload: unknown
  try {
    payload = JSON.parse(text)
  } catch {
    return writeJson(res, 400, PARSE_ERROR_JSON, config)
  }

  const veto = walletRefusal(headerText(req.headers.origin), config.access)
  const reply = await endpoint.handleJsonRpc(payload, veto === undefined ? {} : { veto })
  if (reply === undefined) return writeEmpty(res, 200, config)
  const { status, json } = serialise(reply, config.maxResponseBytes)
  writeJson(res, status, json, config)
}

const headerText = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v)

/**
 * Answers a request refused before its body was read. The body is discarded as it arrives (never buffered or
 * parsed) and the connection closed after the reply, so the refused client cannot queue more work on it.
 */
function refuse(req: IncomingMessage, res: ServerResponse, status: number, json: string, config: HandlerConfig): void {
  req.resume()
  writeJson(res, status, json, config, true)
}

/**
 * Builds the node:http request listener that serves `endpoint` (normally a `Provider`).
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http'
 * const provider = await createProvider()
 * const listener = createRequestListener(provider, { apiKeys: null, maxBodyBytes: 5 << 20, keepAlive: true })
 * createServer(listener).listen(4444)
 * ```
 */
export function createRequestListener(
  endpoint: JsonRpcEndpoint,
  config: HandlerConfig,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(endpoint, config, req, res).catch(() => {
      // handleJsonRpc never throws; this guards the listener itself so no request is left hanging.
      if (!res.headersSent) writeJson(res, 200, UNEXPECTED_ERROR_JSON, config)
      else res.destroy()
    })
  }
}
