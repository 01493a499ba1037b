/**
 * JSON-RPC over WebSocket on the HTTP server's port (as Ganache, Hardhat and Anvil do; RSKj serves it on its own
 * port 4445, `co/rsk/rpc/netty/Web3WebSocketServer.java`). Same path rule as HTTP (`/<API_KEY>` when keys are
 * set; a bad key is refused before the upgrade). Each connection owns its subscriptions, freed when it closes.
 *
 * Limits (docs/robustness.md): a message may be at most 5 MiB (RSKj aggregates frames up to 5 MiB; larger closes
 * with 1009); a reply over `maxResponseSize` is RSKj's bare -32011, as over HTTP; at most 1000 subscriptions per
 * connection; a client that does not read is closed (1008) once 16 MiB wait in its send buffer, so it never holds
 * the node or others; what all sockets leave unsent counts in the server's budget (`maxPendingReplyBytes`,
 * src/server/replyBudget.ts); a ping every 30 s, and a socket that missed the previous pong is dropped. Closing the
 * server sends each client a close frame, 1001 "going away", and cuts the clients that have not answered it 1 s later.
 *
 * Order: a client never gets a notification before the reply that gives it its subscription id. RSKj refuses
 * eth_subscribe in a batch (`RskWebSocketJsonRpcHandler` cannot read an array as one `RskJsonRpcRequest` and passes
 * it to jsonrpc4j, which has no such method); rsksim serves it (docs/compatibility.md), so a batch's subscriptions
 * hold their notifications until the batch's reply is sent (a single eth_subscribe's too).
 */
import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import type { WebSocket, WebSocketServer } from 'ws'
import type { Provider } from '../provider/index.js'
import type { JsonRpcReply } from '../rpc/types.js'
import { apiKeyOf, overReplyLimit, tooLargeReplyJson, UNAUTHORIZED_CODE, UNAUTHORIZED_MESSAGE, UNEXPECTED_ERROR_JSON } from './handler.js'
import { hostAllowed, walletRefusal, type AccessConfig } from './access.js'
import { replyText, type MethodVeto, type Transport } from '../rpc/dispatch.js'
import { callsSubscribe } from '../rpc/subscribe/subscriptions.js'
import { parseRequestJson } from '../rpc/requestJson.js'
import { lazily } from '../node/lazily.js'
import type { ReplyBudget } from './replyBudget.js'

export const WS_MAX_MESSAGE_BYTES = 5 * 1024 * 1024
export const WS_MAX_BUFFERED_BYTES = 16 * 1024 * 1024
export const WS_PING_MS = 30_000
/** How long closing the server waits for WebSocket clients to answer its close frame before cutting them. */
export const WS_CLOSE_GRACE_MS = 1_000

function refuse(socket: Duplex, status: string, body: string): void {
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  )
}

const rpcError = (code: number, message: string): string => JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } })

/**
 * Serves `provider` over WebSocket on `server`'s upgrade requests; returns a function closing every socket with a
 * close frame (1001 "going away"), which resolves once every client answered or was cut (`closeGraceMs`). `ws` is
 * loaded at the first upgrade request, not when rsksim is imported nor when a server starts: importing it took 30-43
 * ms here (it loads node:https, node:tls and node:zlib), which an in-process provider and a server only asked over
 * HTTP never need (docs/performance.md, twentieth and twenty-third rounds). That first upgrade waits for the import;
 * the socket is not read meanwhile (a client sends no frame before the 101 answer), and is dropped if the server
 * closes first. `limits` are for tests: a smaller send buffer bound, a shorter ping interval and close grace; `budget` is the
 * server's budget of unsent reply bytes (src/server/replyBudget.ts), which counts what a socket leaves unsent.
 */
export function attachWebSocket(
  server: Server,
  provider: Provider,
  apiKeys: ReadonlySet<string> | null,
  access: AccessConfig,
  {
    maxBufferedBytes = WS_MAX_BUFFERED_BYTES,
    pingMs = WS_PING_MS,
    closeGraceMs = WS_CLOSE_GRACE_MS,
    budget,
  }: { maxBufferedBytes?: number; pingMs?: number; closeGraceMs?: number; budget?: ReplyBudget | undefined } = {},
): () => Promise<void> {
  let wss: WebSocketServer | undefined
  let closed = false
  const alive = new WeakMap<WebSocket, boolean>()
  const load = lazily(() => import('ws').then(({ WebSocketServer }) => (wss = new WebSocketServer({ noServer: true, maxPayload: WS_MAX_MESSAGE_BYTES }))))

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy())
    if (provider.options.hosted) {
      // The service's documentation shows no WebSocket endpoint: hosted mode refuses it (docs/compatibility.md).
      return refuse(socket, '400 Bad Request', rpcError(-32600, 'WebSocket is not served in hosted mode'))
    }
    // The HTTP server's browser rules apply to upgrades too (src/server/access.ts): Host against DNS rebinding, and
    // wallet methods only for trusted origins.
    if (!hostAllowed(req.headers.host, access)) return refuse(socket, '400 Bad Request', rpcError(-32600, 'the Host header names a host this server does not serve (DNS rebinding protection)'))
    if (apiKeys !== null) {
      const key = apiKeyOf(req.url)
      if (key === undefined || !apiKeys.has(key)) return refuse(socket, '401 Unauthorized', rpcError(UNAUTHORIZED_CODE, UNAUTHORIZED_MESSAGE))
    }
    const veto = walletRefusal(req.headers.origin, access)
    const upgrade = (w: WebSocketServer): void => {
      if (closed || socket.destroyed) return void socket.destroy()
      w.handleUpgrade(req, socket, head, (ws) => serve(ws, socket, veto))
    }
    if (wss !== undefined) return upgrade(wss)
    load()
      .then(upgrade, () => refuse(socket, '500 Internal Server Error', rpcError(-32603, 'the WebSocket server could not be loaded')))
      .catch(() => socket.destroy())
  })

  // RSKj runs every WebSocket request but eth_subscribe/eth_unsubscribe through the handler of its HTTP server
  // (`Web3WebSocketServer`'s pipeline ends in `JsonRpcWeb3ServerHandler`), so the reply limit applies here as there.
  const maxReplyBytes = provider.options.maxResponseSize
  const replyJson = (reply: NonNullable<JsonRpcReply>): string => {
    let json: string
    try {
      json = replyText(reply)
    } catch {
      // A reply JSON cannot carry (more text than a JavaScript string holds, with the limit off) must not escape:
      // this runs in a promise nobody awaits, and an unhandled rejection ends the process.
      return UNEXPECTED_ERROR_JSON
    }
    return overReplyLimit(json, maxReplyBytes) ? tooLargeReplyJson(maxReplyBytes) : json
  }

  function serve(ws: WebSocket, socket: Duplex, veto: MethodVeto | undefined): void {
    alive.set(ws, true)
    // Notifications of subscriptions whose id has not reached the client yet: made by a body whose reply is not sent.
    // They wait, in order, until that reply is sent (geth's `Notifier` buffers the same way until `activate`,
    // rpc/subscription.go): in a batch with eth_subscribe and evm_mine, the block's notification came first.
    const held = new Map<string, string[]>()
    let heldBytes = 0
    // What this socket leaves unsent, held notifications included: bounded by `maxBufferedBytes` and counted in the
    // server's budget. One object per socket (the budget follows it by identity).
    const unsent = {
      get bufferedAmount(): number {
        return ws.bufferedAmount + heldBytes
      },
    }
    /** Ends the socket's subscriptions and drops what they hold: the socket is going. */
    const endSubscriptions = (): void => {
      subs.close()
      held.clear()
      heldBytes = 0
    }
    const overflow = (reason: string): void => {
      endSubscriptions()
      ws.close(1008, reason)
    }
    const send = (json: string): void => {
      if (ws.readyState !== ws.OPEN) return
      if (unsent.bufferedAmount > maxBufferedBytes) return overflow('send buffer full: the client does not read')
      ws.send(json)
      // A message the kernel did not take at once counts in the server's budget of unsent replies, which may close
      // this socket (terminated: a close frame would wait behind the bytes its client does not read).
      if (budget !== undefined && unsent.bufferedAmount > 0) budget.noteWebSocket(unsent, socket, cut)
    }
    // Closed by the budget: the subscriptions stop at once (the 'close' event comes only once the loop turns, and a
    // hardhat_mine turn makes 1,000 blocks), then the socket goes with what it holds.
    const cut = (): void => {
      endSubscriptions()
      ws.terminate()
    }
    const subs = provider.openSubscriptions((subscription, result) => {
      const json = JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription, result } })
      const queue = held.get(subscription)
      if (queue === undefined) return send(json)
      if (ws.readyState !== ws.OPEN) return
      queue.push(json)
      heldBytes += json.length
      if (unsent.bufferedAmount > maxBufferedBytes) return overflow('send buffer full: notifications wait for the reply that gives their subscription id')
      if (budget !== undefined) budget.noteWebSocket(unsent, socket, cut)
    })
    /** Sends what the subscriptions `made` by a body got while its reply was on its way; the reply has been sent. */
    const release = (made: readonly string[]): void => {
      for (const id of made) {
        const queue = held.get(id)
        if (queue === undefined) continue
        held.delete(id)
        for (const json of queue) heldBytes -= json.length
        // A subscription cancelled meanwhile (its body answered by a bare error) sends nothing.
        if (subs.has(id)) for (const json of queue) send(json)
      }
      if (budget !== undefined && ws.readyState === ws.OPEN) budget.noteWebSocket(unsent, socket, cut)
    }
    // The transport of a body that subscribes nothing: built once for the socket.
    const plain: Transport = { local: subs.methods, maxReplyBytes, ...(veto ? { veto } : {}) }
    ws.on('pong', () => alive.set(ws, true))
    ws.on('error', () => ws.terminate())
    ws.on('close', endSubscriptions)
    ws.on('message', (data, isBinary) => {
      void (async () => {
        let payload: unknown
        try {
          payload = parseRequestJson(isBinary ? Buffer.from(data as Buffer).toString('utf8') : String(data))
        } catch {
          return send(rpcError(-32700, 'JSON parse error'))
        }
        if (!callsSubscribe(payload)) {
          const reply = await provider.handleJsonRpc(payload, plain)
          if (reply !== undefined) send(replyJson(reply))
          return
        }
        const made: string[] = []
        const local = subs.forBody((id) => {
          made.push(id)
          held.set(id, [])
        })
        const reply = await provider.handleJsonRpc(payload, { ...plain, local })
        // A bare error (no `jsonrpc`) answers the whole body: no id it subscribed reached the client.
        if (reply !== undefined && !Array.isArray(reply) && !('jsonrpc' in reply)) for (const id of made) subs.cancel(id)
        if (reply !== undefined) send(replyJson(reply))
        release(made)
      })()
    })
  }

  const ping = setInterval(() => {
    for (const ws of wss?.clients ?? []) {
      if (alive.get(ws) === false) {
        ws.terminate()
        continue
      }
      alive.set(ws, false)
      ws.ping()
    }
  }, pingMs)
  ping.unref()

  return () => {
    closed = true
    clearInterval(ping)
    if (wss === undefined) return Promise.resolve()
    const open = [...wss.clients]
    wss.close()
    if (open.length === 0) return Promise.resolve()
    return new Promise<void>((resolve) => {
      let left = open.length
      // A client that does not answer the close frame (or does not read, so the frame waits behind what it left
      // unsent) is cut once the grace has passed, instead of `ws`'s 30 s close timeout.
      const cutLate = setTimeout(() => {
        for (const ws of open) ws.terminate()
      }, closeGraceMs)
      for (const ws of open) {
        ws.once('close', () => {
          if (--left > 0) return
          clearTimeout(cutLate)
          resolve()
        })
        // 1001 "going away" (RFC 6455 §7.4.1): a server going down, as browsers and servers send on shutdown.
        ws.close(1001, 'server shutting down')
      }
    })
  }
}
