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

/** Outcome of reading a request body under a size limit. */
export type BodyResult = { ok: true; body: Buffer } | { ok: false; reason: 'too-large' | 'aborted' }

/**
 * Reads a request body of at most `maxBytes` bytes. A larger body is drained (read and dropped, so the client
 * can finish sending and then read the 413) and reported as `too-large`.
 *
 * @example
 * ```ts
 * const read = await readBody(req, 5 * 1024 * 1024)
 * if (!read.ok) { res.statusCode = 413; res.end() }
 * ```
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length'])
    let tooLarge = Number.isFinite(declared) && declared > maxBytes
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) return
      size += chunk.length
      if (size > maxBytes) {
        tooLarge = true
        chunks.length = 0
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => resolve(tooLarge ? { ok: false, reason: 'too-large' } : { ok: true, body: Buffer.concat(chunks, size) }))
    req.on('error', () => resolve({ ok: false, reason: 'aborted' }))
    req.on('close', () => {
      if (!req.complete) resolve({ ok: false, reason: 'aborted' })
    })
  })
}

/** Per-server choices applied to every reply. */
export interface ReplyConfig {
  /** Keep the connection open after the reply (false = send `Connection: close`, as RSKj does). */
  keepAlive: boolean
}

function baseHeaders(config: ReplyConfig, close = false): Record<string, string> {
  const headers: Record<string, string> = { ...CORS_HEADERS }
  if (close || !config.keepAlive) headers.Connection = 'close'
  return headers
}

/**
 * Writes a JSON reply the way RSKj's `Web3ResultHttpResponseHandler` and jsonrpc4j do: `Content-Type:
 * application/json`, `Content-Length`, and the serialised JSON followed by one `\n`.
 *
 * The body goes to `res.end` as a string: node:http then sends head and body as one string write, where a Buffer
 * body costs a copy into the Buffer plus a two-part writev (7 % of the server's CPU for `eth_blockNumber` under
 * autocannon). The headers keep the order of the other replies.
 *
 * @example
 * ```ts
 * writeJson(res, 200, '{"jsonrpc":"2.0","id":1,"result":"0x0"}', { keepAlive: true })
 * ```
 */
export function writeJson(res: ServerResponse, status: number, json: string, config: ReplyConfig, close = false): void {
  const body = `${json}\n`
  const length = String(Buffer.byteLength(body, 'utf8'))
  res.writeHead(status, { ...baseHeaders(config, close), 'Content-Type': 'application/json', 'Content-Length': length })
  res.end(body, 'utf8')
}

/**
 * Writes a reply without a body (`Content-Length: 0`), as RSKj does for 501, 415, 413 and notifications.
 * `close` forces `Connection: close` (used after a refused oversized body).
 *
 * @example
 * ```ts
 * writeEmpty(res, 501, { keepAlive: true })
 * ```
 */
export function writeEmpty(res: ServerResponse, status: number, config: ReplyConfig, close = false): void {
  res.writeHead(status, { ...baseHeaders(config, close), 'Content-Length': '0' })
  res.end()
}

/**
 * Answers a CORS preflight (`OPTIONS`) with 204 and the allowed method and header, so browser dApps can POST
 * JSON. RSKj's Netty CORS handler answers preflights too (reference §1.1).
 *
 * @example
 * ```ts
 * if (req.method === 'OPTIONS') return writePreflight(res, { keepAlive: true })
 * ```
 */
export function writePreflight(res: ServerResponse, config: ReplyConfig): void {
  // No Content-Length: RFC 9110 §8.6 forbids it on a 204.
  res.writeHead(204, { ...baseHeaders(config), 'Access-Control-Max-Age': PREFLIGHT_MAX_AGE })
  res.end()
}
