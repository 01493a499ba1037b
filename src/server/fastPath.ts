/**
 * A fast path in front of node:http for the one request shape a JSON-RPC client sends again and again: a whole
 * `POST <path> HTTP/1.1` with `Content-Length`, on a kept-alive connection, that passes the server's checks.
 * Measured with bench/http.mjs (docs/performance.md, issue 13): node:http's request/response objects, header
 * objects and stream machinery cost about 9 µs of server CPU per `eth_blockNumber` (22-24 → 13-14 µs per request).
 *
 * Everything else goes to node:http unchanged: the connection, with the bytes already read put back, is handed
 * to node:http's own connection listener (the same one that `server.listen` would call) and stays there. That
 * covers chunked bodies, `Expect`, HTTP/1.0, `Connection: close`, upgrades (WebSocket), OPTIONS and other methods,
 * every refusal (Host, Content-Type, API key, body size), malformed or unusual heads, and any request not wholly
 * received yet, so this code never waits on a partial request and has no timeouts of its own but the idle one.
 * The replies are the bytes node:http writes for the same reply (headers in the same order, `Date`, `Connection`,
 * `Keep-Alive`); test/http_edge.test.ts runs every case with the fast path on and off.
 *
 * It is installed only when the server's `'connection'` listeners are exactly node:http's `connectionListener`
 * (checked at start); otherwise the server runs on node:http alone, as before.
 */
import { maxHeaderSize, STATUS_CODES, type Server } from 'node:http'
import type { Socket } from 'node:net'
import type { RequestCore } from './handler.js'
import { CORS_HEADERS } from './http.js'
import type { ReplyBudget } from './replyBudget.js'

const HEAD_END = Buffer.from('\r\n\r\n')
/** Bytes a client may send ahead while a reply is owed before its connection is paused. */
const PIPELINE_BYTES = 1024 * 1024
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/
/** Characters a header value or a request target may not hold (RFC 9110 §5.5: no CTLs but tab; no bare LF). */
const BAD_VALUE = /[\x00-\x08\x0a-\x1f\x7f]/
const BAD_TARGET = /[\x00-\x20\x7f]/
const CORS_LINES = Object.entries(CORS_HEADERS)
  .map(([k, v]) => `${k}: ${v}\r\n`)
  .join('')

let dateSecond = -1
let dateText = ''
/** The `Date` header value, recomputed once a second as node:http does. */
function httpDate(): string {
  const now = Date.now()
  const second = Math.floor(now / 1000)
  if (second !== dateSecond) {
    dateSecond = second
    dateText = new Date(now).toUTCString()
  }
  return dateText
}

/**
 * While requests come from more than one connection, replies are written together once the requests that arrived with
 * them are served (`setImmediate`: after the event loop's poll phase), not one by one. Under concurrent connections a reply
 * written as soon as it was ready woke the waiting client for each one: the socket write took 33 µs of server CPU
 * per `eth_call` against 10 µs per `eth_blockNumber`, whose client was never left waiting, and writing together took
 * `eth_call` at 10 connections from 12,140 to 14,646 req/s (docs/performance.md, seventeenth round). A request that
 * follows one of its own connection's (a client sending one request at a time, whatever other connections it keeps
 * open) is answered at once: deferring cost such a client 3-5 µs of server CPU a request.
 */
const owedSockets: Socket[] = []
const owedReplies: string[] = []
const owedBudgets: Array<ReplyBudget | undefined> = []

/**
 * Writes `text` to `socket`; a write the kernel does not take at once (bytes left in `writableLength`) is counted in
 * the server's budget of unsent replies (src/server/replyBudget.ts), which may close the connection.
 */
function write(socket: Socket, text: string, budget: ReplyBudget | undefined): void {
  socket.write(text)
  if (budget !== undefined && socket.writableLength > 0) budget.noteSocket(socket)
}

/** Writes every reply owed. */
function writeOwed(): void {
  for (let i = 0; i < owedSockets.length; i++) {
    const socket = owedSockets[i]!
    if (!socket.destroyed) write(socket, owedReplies[i]!, owedBudgets[i])
  }
  owedSockets.length = 0
  owedReplies.length = 0
  owedBudgets.length = 0
}

/** Writes `text` now when `sequential` and nothing is owed (so replies keep their order), else with the others. */
function reply(socket: Socket, text: string, sequential: boolean, budget: ReplyBudget | undefined): void {
  if (sequential && owedSockets.length === 0) {
    write(socket, text, budget)
    return
  }
  if (owedSockets.length === 0) setImmediate(writeOwed)
  owedSockets.push(socket)
  owedReplies.push(text)
  owedBudgets.push(budget)
}

/** The head of a request the fast path serves: its target, the headers the checks read, its body's size. */
interface Head {
  target: string
  host: string | undefined
  contentType: string | undefined
  origin: string | undefined
  /** Bytes of the head, its closing blank line included: the body starts there. */
  headLength: number
  bodySize: number
}

/**
 * Parses the head that ends at `end` (the index of its blank line) if it is one the fast path serves; else
 * undefined (node:http then takes the connection). Strict on purpose: anything odd is left to node:http's parser.
 */
function parseHead(buf: Buffer, end: number): Head | undefined {
  const lines = buf.toString('latin1', 0, end).split('\r\n')
  const line = lines[0] ?? ''
  if (!line.startsWith('POST ') || !line.endsWith(' HTTP/1.1')) return undefined
  const target = line.slice(5, -9)
  if (target === '' || BAD_TARGET.test(target)) return undefined
  let host: string | undefined
  let contentType: string | undefined
  let origin: string | undefined
  let length: string | undefined
  for (let i = 1; i < lines.length; i++) {
    const l = lines[i] ?? ''
    const colon = l.indexOf(':')
    if (colon <= 0) return undefined
    const name = l.slice(0, colon).toLowerCase()
    if (!TOKEN.test(name)) return undefined
    const value = l.slice(colon + 1).trim()
    if (BAD_VALUE.test(value)) return undefined
    switch (name) {
      case 'host':
        if (host !== undefined) return undefined
        host = value
        break
      case 'content-type':
        if (contentType !== undefined) return undefined
        contentType = value
        break
      case 'origin':
        if (origin !== undefined) return undefined
        origin = value
        break
      case 'content-length':
        if (length !== undefined || !/^\d{1,10}$/.test(value)) return undefined
        length = value
        break
      case 'connection':
        if (value.toLowerCase() !== 'keep-alive') return undefined
        break
      case 'transfer-encoding':
      case 'expect':
      case 'upgrade':
      case 'te':
        return undefined
    }
  }
  // Without Host, node:http answers 400 (RFC 9112 §3.2: an HTTP/1.1 request must carry one; `requireHostHeader`).
  if (length === undefined || host === undefined) return undefined
  return { target, host, contentType, origin, headLength: end + 4, bodySize: Number(length) }
}

/**
 * Puts the fast path in front of `server`'s node:http connection handling. Returns a function that destroys the
 * connections it is serving (for `close()`), or undefined when node:http's connection listener is not the one
 * expected (then nothing is changed).
 */
export function installFastPath(
  server: Server,
  core: RequestCore,
  maxBodyBytes: number,
  idleTimeoutMs: number,
  budget?: ReplyBudget,
): (() => void) | undefined {
  const listeners = server.listeners('connection')
  const nodeListener = listeners[0]
  if (listeners.length !== 1 || typeof nodeListener !== 'function' || nodeListener.name !== 'connectionListener') return undefined
  server.removeListener('connection', nodeListener as (socket: Socket) => void)
  const serving = new Set<Socket>()
  /** The connection of the request served last: a reply to the same one as before is a lone client's (`reply`). */
  let lastServed: Socket | undefined
  const keepAlive = `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(idleTimeoutMs / 1000)}\r\n\r\n`

  server.on('connection', (socket: Socket) => {
    serving.add(socket)
    let buf: Buffer | undefined
    let busy = false // a reply is owed: pipelined requests wait in `buf`
    let inServe = false // inside serve(): a reply sent at once does not recurse into it
    let sequential = false // the request being served came after one of this connection's own
    // The last head served on this connection, byte for byte, and what it said. A client sends the same head again
    // and again (a body of another length changes its Content-Length, and so the bytes): an equal head is compared,
    // not parsed and checked again (the checks depend on the head alone). Parsing and checking took 5.6 µs of the
    // 53 µs of server CPU per eth_blockNumber in a profile here (docs/performance.md, tenth round).
    let last: { bytes: Buffer; head: Head } | undefined

    const handOver = (): void => {
      // Replies owed on this connection go out before node:http can write its own (HTTP/1.1 replies keep order).
      if (owedSockets.includes(socket)) writeOwed()
      serving.delete(socket)
      socket.removeListener('data', onData)
      socket.removeListener('timeout', onTimeout)
      socket.removeListener('error', onError)
      socket.setTimeout(0)
      socket.pause()
      if (buf !== undefined) socket.unshift(buf)
      buf = undefined
      ;(nodeListener as (this: Server, socket: Socket) => void).call(server, socket)
      process.nextTick(() => socket.resume())
    }

    const send = (status: number, json: string | undefined): void => {
      busy = false
      if (socket.destroyed) return
      if (socket.isPaused()) socket.resume()
      const head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'unknown'}\r\n${CORS_LINES}`
      if (json === undefined) reply(socket, `${head}Content-Length: 0\r\nDate: ${httpDate()}\r\n${keepAlive}`, sequential, budget)
      else {
        const body = json + '\n'
        reply(socket, `${head}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body, 'utf8')}\r\nDate: ${httpDate()}\r\n${keepAlive}${body}`, sequential, budget)
      }
      if (buf !== undefined && !inServe) serve()
    }

    /** The head at the start of `buf` if the fast path serves it (parsed and admitted, or equal to the last one). */
    const servedHead = (buf: Buffer): Head | undefined => {
      const end = buf.indexOf(HEAD_END)
      if (end < 0) return undefined
      const n = end + 4
      // node:http answers 431 for a header section over its limit (`http.maxHeaderSize`: 16 KiB unless
      // `--max-http-header-size`; startServer's server sets none of its own). It counts only part of the head's bytes
      // (a 16,404-byte head passed, 16,414 did not, here), so a head of at most that many bytes is one it accepts; longer
      // heads go to node:http, which decides.
      if (n > maxHeaderSize) return undefined
      if (last !== undefined && last.bytes.length === n && buf.compare(last.bytes, 0, n, 0, n) === 0) return last.head
      const head = parseHead(buf, end)
      if (head === undefined || !core.admits(head.target, head.host, head.contentType)) return undefined
      last = { bytes: Buffer.from(buf.subarray(0, n)), head }
      return head
    }

    /** Serves whole simple requests from `buf` one at a time, in order; hands anything else to node:http. */
    const serve = (): void => {
      inServe = true
      while (buf !== undefined && !busy && !socket.destroyed) {
        const head = servedHead(buf)
        // A body not wholly received yet goes to node:http too: the fast path never waits on a partial request.
        const bodyEnd = head === undefined ? 0 : head.headLength + head.bodySize
        if (head === undefined || head.bodySize > maxBodyBytes || buf.length < bodyEnd) {
          inServe = false
          return handOver()
        }
        const text = buf.toString('utf8', head.headLength, bodyEnd)
        buf = bodyEnd < buf.length ? buf.subarray(bodyEnd) : undefined
        busy = true
        sequential = lastServed === socket
        lastServed = socket
        core.run(text, head.origin, send)
      }
      inServe = false
    }

    const onData = (chunk: Buffer): void => {
      buf = buf === undefined ? chunk : Buffer.concat([buf, chunk])
      if (!busy) serve()
      // A client that keeps sending while its reply is owed is not read further until the reply is out, as
      // node:http stops reading a connection with too many replies owed: memory stays bounded.
      else if (buf.length > PIPELINE_BYTES) socket.pause()
    }
    const onTimeout = (): void => {
      if (!busy && !owedSockets.includes(socket)) socket.destroy()
    }
    const onError = (): void => {
      socket.destroy()
    }
    socket.on('data', onData)
    // A listener of its own, not setTimeout's callback argument: that one is removed after its first call.
    socket.on('timeout', onTimeout)
    socket.setTimeout(idleTimeoutMs)
    socket.on('error', onError)
    socket.on('close', () => serving.delete(socket))
  })

  return () => {
    writeOwed()
    for (const socket of serving) socket.destroy()
    serving.clear()
  }
}
