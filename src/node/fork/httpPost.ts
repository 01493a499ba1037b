/**
 * One JSON POST to the fork's remote over node:http(s) with a keep-alive agent of its own. It replaces `fetch`:
 * undici's streams and signals cost about 3 ms of CPU per request here (a cold fork sends hundreds), node:http a
 * fraction of it (docs/performance.md, forking). A request that takes longer than `timeout` fails with an error
 * named `TimeoutError`, as `AbortSignal.timeout` does; `signal` aborts it.
 */
import type { Agent as HttpAgent } from 'node:http'
import { nodeHttp, nodeHttps } from '../builtins.js'

export interface PostReply {
  status: number
  statusText: string
  retryAfter: string | null
  text: string
}

/** Keep-alive connections to one remote; `destroy` closes them. */
export function remoteAgent(url: URL): HttpAgent {
  const options = { keepAlive: true, maxSockets: 16 }
  return url.protocol === 'https:' ? new (nodeHttps().Agent)(options) : new (nodeHttp().Agent)(options)
}

/**
 * The largest reply taken from the remote: far above any answer the service gives (10 MiB is its own reply limit), low
 * enough that a remote sending without end cannot exhaust the node's memory.
 */
export const MAX_REPLY_BYTES = 128 * 1024 * 1024

export function httpPost(
  url: URL,
  agent: HttpAgent,
  headers: Record<string, string>,
  body: string,
  timeout: number,
  signal: AbortSignal,
  maxBytes = MAX_REPLY_BYTES,
): Promise<PostReply> {
  return new Promise((resolve, reject) => {
    let settled = false
    const fail = (e: Error): void => {
      if (settled) return
      settled = true
      reject(e)
    }
    const send = url.protocol === 'https:' ? nodeHttps().request : nodeHttp().request
    const req = send(url, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) }, signal }, (res) => {
      const chunks: Buffer[] = []
      let size = 0
      res.on('data', (c: Buffer) => {
        size += c.length
        if (size <= maxBytes) return void chunks.push(c)
        const e = new Error(`the reply is larger than ${maxBytes} bytes`)
        e.name = 'ReplyTooLarge'
        fail(e)
        req.destroy()
      })
      res.on('error', fail)
      res.on('end', () => {
        if (settled) return
        settled = true
        const retryAfter = res.headers['retry-after']
        resolve({
          status: res.statusCode ?? 0,
          statusText: res.statusMessage ?? '',
          retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
          text: Buffer.concat(chunks).toString('utf8'),
        })
      })
    })
    req.setTimeout(timeout, () => {
      const e = new Error(`no answer within ${timeout} ms`)
      e.name = 'TimeoutError'
      req.destroy(e)
    })
    req.on('error', fail)
    req.end(body)
  })
}
