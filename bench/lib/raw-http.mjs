// PROTOTYPE, outside src on purpose (issue 13 item 4): rsksim's provider served over HTTP/1.1 parsed by hand on a
// raw `net` socket, to measure what owning the parser would gain over node:http (bench/http.mjs --servers raw).
// It covers what test/http_edge.test.ts checks (Content-Length and chunked bodies, `Expect: 100-continue`,
// HTTP/1.0, header and body limits, keep-alive, pipelining, idle timeout), and the cheap part of the server's
// rules (Host, POST only, Content-Type), but not API keys, origins or maxResponseSize: it is a measuring stick,
// not a server to ship.
import net from 'node:net'

const MAX_HEAD = 16 * 1024 // node:http's default --max-http-header-size
const REASONS = { 100: 'Continue', 200: 'OK', 204: 'No Content', 400: 'Bad Request', 413: 'Payload Too Large', 415: 'Unsupported Media Type', 431: 'Request Header Fields Too Large', 501: 'Not Implemented' }
const CORS = 'Access-Control-Allow-Origin: *\r\nAccess-Control-Allow-Methods: POST\r\nAccess-Control-Allow-Headers: Content-Type\r\n'
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const LOOPBACK = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])(:\d+)?$/i

let date = new Date().toUTCString()
setInterval(() => (date = new Date().toUTCString()), 1000).unref()

/** One request's head, parsed: method, target, version 1.0/1.1, lowercased headers, body framing. */
function parseHead(text) {
  const lines = text.split('\r\n')
  const m = /^([A-Z]+) (\S+) HTTP\/1\.([01])$/.exec(lines[0])
  if (!m) return { error: 400 }
  const headers = Object.create(null)
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]
    const colon = line.indexOf(':')
    if (colon <= 0) return { error: 400 } // includes obs-fold (a line starting with whitespace)
    const name = line.slice(0, colon)
    if (!TOKEN.test(name)) return { error: 400 }
    const key = name.toLowerCase()
    const value = line.slice(colon + 1).trim()
    if (key in headers) {
      if (key === 'content-length' && headers[key] !== value) return { error: 400 }
      if (key === 'host') return { error: 400 }
      headers[key] += ', ' + value
    } else headers[key] = value
  }
  const te = headers['transfer-encoding']
  const cl = headers['content-length']
  if (te !== undefined && cl !== undefined) return { error: 400 } // request smuggling guard (RFC 9112 §6.3)
  if (te !== undefined && te.toLowerCase() !== 'chunked') return { error: 501 }
  if (cl !== undefined && !/^\d{1,15}$/.test(cl)) return { error: 400 }
  const http10 = m[3] === '0'
  const connection = (headers.connection ?? '').toLowerCase()
  return {
    method: m[1],
    target: m[2],
    http10,
    headers,
    chunked: te !== undefined,
    length: cl === undefined ? 0 : Number(cl),
    keepAlive: http10 ? connection.includes('keep-alive') : !connection.includes('close'),
  }
}

/** Decodes a chunked body starting at `pos`: { body, end } when complete, null when more bytes are needed. */
function decodeChunked(buf, pos, max) {
  const parts = []
  let size = 0
  for (;;) {
    const eol = buf.indexOf('\r\n', pos, 'latin1')
    if (eol < 0) return buf.length - pos > 1024 ? { error: 400 } : null
    const hex = buf.latin1Slice(pos, eol).split(';', 1)[0].trim()
    if (!/^[0-9a-fA-F]{1,8}$/.test(hex)) return { error: 400 }
    const n = parseInt(hex, 16)
    if (n === 0) {
      // Trailer fields, then an empty line.
      const end = buf.indexOf('\r\n\r\n', eol, 'latin1')
      if (buf.length >= eol + 4 && buf[eol + 2] === 13 && buf[eol + 3] === 10) return { body: Buffer.concat(parts, size), end: eol + 4 }
      if (end < 0) return null
      return { body: Buffer.concat(parts, size), end: end + 4 }
    }
    size += n
    if (size > max) return { error: 413 }
    if (buf.length < eol + 2 + n + 2) return null
    parts.push(buf.subarray(eol + 2, eol + 2 + n))
    if (buf[eol + 2 + n] !== 13 || buf[eol + 3 + n] !== 10) return { error: 400 }
    pos = eol + 4 + n
  }
}

function reply(socket, status, body, keepAlive, http10, extra = '') {
  const conn = !keepAlive ? 'Connection: close\r\n' : http10 ? 'Connection: keep-alive\r\n' : ''
  const head = `HTTP/1.1 ${status} ${REASONS[status] ?? 'Unknown'}\r\n${CORS}${extra}Date: ${date}\r\n${conn}`
  if (status === 204) socket.write(head + '\r\n')
  else if (body === '') socket.write(head + 'Content-Length: 0\r\n\r\n')
  else socket.write(`${head}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
  if (!keepAlive) socket.end()
}

const refusal = (message) => JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message } }) + '\n'

function serveConnection(socket, provider, o) {
  let buf = null
  let req = null // the head being served, while its body arrives
  let busy = false // a reply is being computed: pipelined requests wait in `buf`
  let continued = false
  socket.setNoDelay(true)
  socket.setTimeout(o.idleTimeout, () => busy || socket.destroy())
  socket.on('error', () => socket.destroy())
  socket.on('data', (chunk) => {
    buf = buf === null ? chunk : Buffer.concat([buf, chunk])
    if (!busy) parse()
  })
  const fail = (status, message) => {
    buf = null
    socket.pause()
    reply(socket, status, message === undefined ? '' : refusal(message), false, false)
  }
  function parse() {
    while (buf !== null && !busy && !socket.destroyed && socket.writable) {
      if (req === null) {
        const end = buf.indexOf('\r\n\r\n', 0, 'latin1')
        if (end < 0) {
          if (buf.length > MAX_HEAD) return fail(431)
          return
        }
        if (end > MAX_HEAD) return fail(431)
        const head = parseHead(buf.latin1Slice(0, end))
        if (head.error) return fail(head.error)
        if (head.method === 'OPTIONS') {
          buf = buf.length > end + 4 ? buf.subarray(end + 4) : null
          reply(socket, 204, '', head.keepAlive, head.http10, 'Access-Control-Max-Age: 600\r\n')
          continue
        }
        const host = head.headers.host
        if (host !== undefined && !LOOPBACK.test(host) && !/^[\d.]+(:\d+)?$/.test(host)) return fail(400, 'the Host header names a host this server does not serve')
        if (head.method !== 'POST') return fail(501, 'rsksim serves JSON-RPC 2.0 over POST only')
        const type = (head.headers['content-type'] ?? '').split(';', 1)[0].trim().toLowerCase()
        if (type !== 'application/json' && type !== 'application/json-rpc') return fail(415, 'Content-Type must be application/json')
        if (!head.chunked && head.length > o.maxBodyBytes) return fail(413, `the request body is larger than ${o.maxBodyBytes} bytes`)
        head.bodyStart = end + 4
        req = head
        continued = false
      }
      let body
      let next
      if (req.chunked) {
        const r = decodeChunked(buf, req.bodyStart, o.maxBodyBytes)
        if (r !== null && r.error) return fail(r.error, r.error === 413 ? `the request body is larger than ${o.maxBodyBytes} bytes` : undefined)
        if (r !== null) ({ body, end: next } = r)
      } else if (buf.length >= req.bodyStart + req.length) {
        next = req.bodyStart + req.length
        body = buf.subarray(req.bodyStart, next)
      }
      if (body === undefined) {
        if (!continued && (req.headers.expect ?? '').toLowerCase() === '100-continue') {
          continued = true
          socket.write('HTTP/1.1 100 Continue\r\n\r\n')
        }
        return
      }
      buf = buf.length > next ? buf.subarray(next) : null
      const { keepAlive, http10 } = req
      req = null
      run(body.toString('utf8'), keepAlive, http10)
    }
  }
  function run(text, keepAlive, http10) {
    let payload
    try {
      payload = JSON.parse(text)
    } catch {
      if (text.trim() === '') reply(socket, 200, '{"error":{"code":-32099,"message":"Unexpected error"}}\n', keepAlive, http10)
      else reply(socket, 400, '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"JSON parse error"}}\n', keepAlive, http10)
      return
    }
    busy = true
    provider.handleJsonRpc(payload).then((r) => {
      busy = false
      if (r === undefined) reply(socket, 200, '', keepAlive, http10)
      else {
        const bad = !Array.isArray(r) && r.error && (r.error.code === -32700 || r.error.code === -32600 || r.error.code === -32602)
        reply(socket, bad ? 400 : 200, JSON.stringify(r) + '\n', keepAlive, http10)
      }
      if (keepAlive) parse()
    })
  }
}

/** Starts the prototype on 127.0.0.1 (free port by default); resolves with { url, port, close }. */
export async function startRawServer(provider, { port = 0, maxBodyBytes = 5 * 1024 * 1024, idleTimeout = 10_000 } = {}) {
  const sockets = new Set()
  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    serveConnection(socket, provider, { maxBodyBytes, idleTimeout })
  })
  server.maxConnections = 1000
  await new Promise((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve))
  const bound = server.address().port
  return {
    url: `http://127.0.0.1:${bound}`,
    baseUrl: `http://127.0.0.1:${bound}`,
    port: bound,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}
