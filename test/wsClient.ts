/** A WebSocket client for the server tests: a raw `ws` socket with a queue of parsed messages. */
import WebSocket from 'ws'

export interface WsClient {
  ws: WebSocket
  /** The next message, parsed. */
  next: () => Promise<any>
  /** Sends a request (ids counted from 1) and answers the next message. */
  call: (method: string, params?: unknown[]) => Promise<any>
  /** The close code and reason the client saw. */
  closed: Promise<{ code: number; reason: string }>
}

/** Opens `url` with `ws`'s client `options` and resolves once open. */
export async function openWs(url: string, options: WebSocket.ClientOptions = {}): Promise<WsClient> {
  const ws = new WebSocket(url, options)
  const queue: any[] = []
  const waiters: Array<(m: any) => void> = []
  ws.on('message', (d) => {
    const m = JSON.parse(String(d))
    const w = waiters.shift()
    if (w) w(m)
    else queue.push(m)
  })
  const closed = new Promise<{ code: number; reason: string }>((r) => ws.on('close', (code, reason) => r({ code, reason: String(reason) })))
  await new Promise<void>((res, rej) => {
    ws.once('open', () => res())
    ws.once('error', rej)
  })
  const next = (): Promise<any> => (queue.length > 0 ? Promise.resolve(queue.shift()) : new Promise((r) => waiters.push(r)))
  let id = 0
  const call = (method: string, params: unknown[] = []): Promise<any> => {
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }))
    return next()
  }
  return { ws, next, call, closed }
}
