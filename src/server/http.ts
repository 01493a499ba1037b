/**
 * Small node:http helpers of the rsksim server: reading a bounded body, writing JSON and empty replies, the
 * CORS headers, and the HTTP status of a JSON-RPC reply. Reference: RSKj `java/co/rsk/rpc/netty/` (reference §1.1).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { JsonRpcReply } from '../rpc/types.js'

/** Default largest request body: RSKj `max_aggregated_frame_size` = 5 MiB (reference §1.1). */
export const DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024

/**
 * CORS headers put on every reply, so a dApp served from another origin (e.g. `http://localhost:3000`) can call
 * the simulator from a browser. RSKj's CORS handler allows only POST and only the `Content-Type` header, with the
 * origin taken from `rpc.providers.web.cors` (default `localhost`) and answers other origins with 400; rsksim
 * allows every origin (`*`): it is a local development tool, and a refused origin is only a source of confusion.
 */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'POST',
  'Access-Control-Allow-Headers': 'Content-Type',
}

/** How long a browser may cache a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE = '600'

/** JSON-RPC codes answered with HTTP 400 (RSKj `Web3HttpStatusCodeProvider.java`, reference §1.1). */
const BAD_REQUEST_CODES: ReadonlySet<number> = new Set([-32700, -32600, -32602])

/**
 * True when the `Content-Type` header names `application/json` or `application/json-rpc`; parameters such as
 * `charset` are allowed (RSKj `JsonRpcWeb3FilterHandler.java`).
 *
 * @example
 * ```ts
 * isJsonContentType('application/json; charset=utf-8') // true
 * isJsonContentType('text/plain')                       // false
 * ```
 */
export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false
  const mediaType = header.split(';', 1)[0]?.trim().toLowerCase()
  return mediaType === 'application/json' || mediaType === 'application/json-rpc'
}

/**
 * The HTTP status for a JSON-RPC reply, as RSKj computes it: 400 when a single reply (or a bare `{ error }` reply,
 * such as the batch-size refusal) carries code -32700, -32600 or -32602; 200 otherwise, batches included.
 *
 * @example
 * ```ts
 * statusOf({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'method parameters invalid' } }) // 400
 * statusOf([{ jsonrpc: '2.0', id: 1, result: '0x1' }])                                             // 200
 * ```
 */
export function statusOf(reply: JsonRpcReply): number {
  if (reply === undefined || Array.isArray(reply)) return 200
  if ('error' in reply && BAD_REQUEST_CODES.has(reply.error.code)) return 400
  return 200
}

/**
 * Reads a request body of at most `maxBytes` bytes and calls `done` once with it, or with `undefined` when it is
 * larger (the rest is drained, read and dropped, so the client can finish sending and then read the 413). A body
 * cut off by the client never calls `done`: its socket is gone, and nobody is left to answer.
 *
 * One `data` and one `end` listener, and no promise: most bodies arrive in a single chunk, which is handed over
 * as it is, without a copy.
 *
 * @example
 * ```ts
 * readBody(req, 5 * 1024 * 1024, (body) => (body === undefined ? tooLarge(res) : serve(res, body)))
 * ```
 */
export function readBody(req: IncomingMessage, maxBytes: number, done: (body: Buffer | undefined) => void): void {
  const declared = Number(req.headers['content-length'])
  let tooLarge = declared > maxBytes
  let first: Buffer | undefined
  let rest: Buffer[] | undefined
  let size = 0
  req.on('data', (chunk: Buffer) => {
    if (tooLarge) return
    size += chunk.length
    if (size > maxBytes) {
      tooLarge = true
      first = rest = undefined
    } else if (first === undefined) first = chunk
    else (rest ??= [first]).push(chunk)
  })
  req.on('end', () => {
    if (tooLarge) done(undefined)
    else done(rest !== undefined ? Buffer.concat(rest, size) : (first ?? EMPTY))
  })
}

const EMPTY = Buffer.alloc(0)

/** Per-server choices applied to every reply. */
export interface ReplyConfig {
  /** Keep the connection open after the reply (false = send `Connection: close`, as RSKj does). */
  keepAlive: boolean
}

/**
 * The fixed headers of every reply as a flat `[name, value, …]` list, which `writeHead` hands to node:http's
 * header writer as it is (an object costs an `Object.keys` per reply). Built once per server and choice.
 */
export interface ReplyHeads {
  /** CORS (and `Connection: close` when keep-alive is off) + `Content-Type: application/json`. */
  json: readonly string[]
  /** The same, forcing `Connection: close` (refusals). */
  jsonClose: readonly string[]
  /** CORS (and `Connection: close` when keep-alive is off), no `Content-Type`. */
  bare: readonly string[]
  preflight: readonly string[]
}

const CORS_FLAT: readonly string[] = Object.entries(CORS_HEADERS).flat()

/** The header lists of a server with `config` (see `ReplyHeads`). */
export function replyHeads(config: ReplyConfig): ReplyHeads {
  const conn = config.keepAlive ? [] : ['Connection', 'close']
  return {
    json: [...CORS_FLAT, ...conn, 'Content-Type', 'application/json'],
    jsonClose: [...CORS_FLAT, 'Connection', 'close', 'Content-Type', 'application/json'],
    bare: [...CORS_FLAT, ...conn],
    preflight: [...CORS_FLAT, ...conn, 'Access-Control-Max-Age', PREFLIGHT_MAX_AGE],
  }
}

/**
 * Writes a JSON reply the way RSKj's `Web3ResultHttpResponseHandler` and jsonrpc4j do: `Content-Type:
 * application/json`, `Content-Length`, and the serialised JSON followed by one `\n`. `close` forces
 * `Connection: close`.
 *
 * The body goes to `res.end` as a string: node:http then sends head and body as one string write, where a Buffer
 * body costs a copy into the Buffer plus a two-part writev (7 % of the server's CPU for `eth_blockNumber` under
 * autocannon). The headers keep the order of the other replies.
 *
 * @example
 * ```ts
 * writeJson(res, 200, '{"jsonrpc":"2.0","id":1,"result":"0x0"}', replyHeads({ keepAlive: true }))
 * ```
 */
export function writeJson(res: ServerResponse, status: number, json: string, heads: ReplyHeads, close = false): void {
  const body = json + '\n'
  const length = String(Buffer.byteLength(body, 'utf8'))
  res.writeHead(status, [...(close ? heads.jsonClose : heads.json), 'Content-Length', length])
  res.end(body, 'utf8')
}

/**
 * Writes a reply without a body (`Content-Length: 0`), as RSKj does for 501, 415, 413 and notifications.
 *
 * @example
 * ```ts
 * writeEmpty(res, 200, replyHeads({ keepAlive: true }))
 * ```
 */
export function writeEmpty(res: ServerResponse, status: number, heads: ReplyHeads): void {
  res.writeHead(status, [...heads.bare, 'Content-Length', '0'])
  res.end()
}

/**
 * Answers a CORS preflight (`OPTIONS`) with 204 and the allowed method and header, so browser dApps can POST
 * JSON. RSKj's Netty CORS handler answers preflights too (reference §1.1).
 *
 * @example
 * ```ts
 * if (req.method === 'OPTIONS') return writePreflight(res, replyHeads({ keepAlive: true }))
 * ```
 */
export function writePreflight(res: ServerResponse, heads: ReplyHeads): void {
  // No Content-Length: RFC 9110 §8.6 forbids it on a 204.
  res.writeHead(204, heads.preflight as string[])
  res.end()
}
