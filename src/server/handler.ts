/**
 * The node:http request listener of the rsksim server: `POST /<API_KEY>` with a JSON-RPC body (spec "Endpoints",
 * "Authentication"), with the status codes of RSKj's Netty pipeline (reference §1.1–1.2).
 *
 * Order of checks (each one answers and stops):
 * 1. `OPTIONS` → 204 CORS preflight; any other non-POST method → 501, empty body (`JsonRpcWeb3FilterHandler`).
 * 2. `Content-Type` not `application/json` / `application/json-rpc` → 415, empty body.
 * 3. Body over `maxBodyBytes` → 413, empty body (Netty `HttpObjectAggregator`).
 * 4. API keys configured and the last path segment is not one of them → 401 with a JSON-RPC error; nothing runs.
 * 5. Empty body → `{"error":{"code":-32099,"message":"Unexpected error"}}`, 200 (RSKj catch-all, reference §1.2).
 * 6. Malformed JSON → 400 `-32700 JSON parse error`, id null.
 * 7. Everything else goes to the provider's dispatcher; the status follows the reply (`statusOf`).
 * The transport checks (1–3) come before the key check because they need no body and mirror RSKj's filter
 * handlers, which run before any JSON-RPC handling; the key check needs the body only to echo the request id.
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

/** What the server needs from a provider: its JSON-RPC dispatcher (see `Provider.handleJsonRpc`). */
export interface JsonRpcEndpoint {
  handleJsonRpc(payload: unknown): Promise<JsonRpcReply>
}

/** Settings of the request listener. */
export interface HandlerConfig extends ReplyConfig {
  /** Accepted API keys, or null to serve every path. */
  apiKeys: ReadonlySet<string> | null
  /** Largest accepted request body in bytes. */
  maxBodyBytes: number
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

/** The `id` of a single request object, when the body parses and has a string or number id; else null. */
function requestIdOf(body: string): JsonRpcId {
  try {
    const payload: unknown = JSON.parse(body)
    if (typeof payload === 'object' && payload !== null && !Array.isArray(payload) && 'id' in payload) {
      const id = payload.id
      if (typeof id === 'string' || typeof id === 'number') return id
    }
  } catch {
    // unparseable: id null
  }
  return null
}

function unauthorizedJson(id: JsonRpcId): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code: UNAUTHORIZED_CODE, message: UNAUTHORIZED_MESSAGE } })
}

/** Serialises a reply; a value JSON cannot carry (a bug upstream) becomes the RSKj catch-all error. */
function serialise(reply: Exclude<JsonRpcReply, undefined>): { status: number; json: string } {
  try {
    return { status: statusOf(reply), json: JSON.stringify(reply) }
  } catch {
    return { status: 200, json: UNEXPECTED_ERROR_JSON }
  }
}

async function handle(endpoint: JsonRpcEndpoint, config: HandlerConfig, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method === 'OPTIONS') return writePreflight(res, config)
  if (req.method !== 'POST') return writeEmpty(res, 501, config)
  if (!isJsonContentType(req.headers['content-type'])) return writeEmpty(res, 415, config)

  const read = await readBody(req, config.maxBodyBytes)
  if (!read.ok) {
    if (read.reason === 'too-large') writeEmpty(res, 413, config, true)
    return
  }
  const text = read.body.toString('utf8')

  if (config.apiKeys !== null) {
    const key = apiKeyOf(req.url)
    if (key === undefined || !config.apiKeys.has(key)) return writeJson(res, 401, unauthorizedJson(requestIdOf(text)), config)
  }

  if (text.trim() === '') return writeJson(res, 200, UNEXPECTED_ERROR_JSON, config)

  let payload: unknown
  try {
    payload = JSON.parse(text)
  } catch {
    return writeJson(res, 400, PARSE_ERROR_JSON, config)
  }

  const reply = await endpoint.handleJsonRpc(payload)
  if (reply === undefined) return writeEmpty(res, 200, config)
  const { status, json } = serialise(reply)
  writeJson(res, status, json, config)
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
