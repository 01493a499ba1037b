/**
 * The rsksim HTTP server: serves a `Provider` as the hosted service does, `POST {base_url}/<API_KEY>`
 * (spec "Endpoints", "Authentication"), with the HTTP behaviour of RSKj (reference §1.1–1.2).
 */
import { createServer, type Server } from 'node:http'
import type { Socket } from 'node:net'
import type { ProviderOptions } from '../options/index.js'
import { createProvider, type Provider } from '../provider/index.js'
import { createRequestCore, owesReply } from './handler.js'
import { DEFAULT_MAX_BODY_BYTES } from './http.js'
import { dumpTarget, loadAtStart, writeStateFile, type StateFileOptions } from './stateFile.js'
import { attachWebSocket } from './ws.js'
import { installFastPath } from './fastPath.js'
import { DEFAULT_MAX_PENDING_REPLY_BYTES, ReplyBudget } from './replyBudget.js'

/** Default port: RSKj `rpc.providers.web.http.port` (reference §1.1). */
export const DEFAULT_PORT = 4444
/** Default bind address. RSKj binds `localhost`; rsksim uses the IPv4 loopback so the URL is unambiguous. */
export const DEFAULT_HOST = '127.0.0.1'

export interface ServerOptions extends ProviderOptions {
  /** TCP port. Default 4444; 0 picks any free port (read it back from `RsksimServer.port`). */
  port?: number
  /** Interface to bind. Default `127.0.0.1`. */
  host?: string
  /**
   * Accepted API keys, carried as the last path segment (`POST /<API_KEY>`). When given, a request with a missing
   * or unknown key gets HTTP 401 and a JSON-RPC error (-32600 `invalid or missing API key`) and runs nothing.
   * When absent, every path is served.
   */
  apiKeys?: string[]
  /** Serve this provider instead of creating one; the provider options above are then ignored. */
  provider?: Provider
  /** Largest request body in bytes; larger bodies get 413. Default 5 MiB (RSKj `max_aggregated_frame_size`). */
  maxBodyBytes?: number
  /**
   * Keep connections open between requests. Default true.
   *
   * Deliberate difference from RSKj, which sends `Connection: close` and closes the channel after every reply
   * (`Web3ResultHttpResponseHandler.java`): clients that pool connections (undici `fetch`, viem, ethers) would then
   * pay a TCP handshake per request, which dominates the cost of a local call, and a busy test suite can run out of
   * ephemeral ports in TIME_WAIT (measured on this simulator: about 2.4x the requests per second for `eth_blockNumber`
   * from 8 concurrent `fetch` loops). Nothing a client can observe in the JSON changes. Set false to copy RSKj.
   */
  keepAlive?: boolean
  /**
   * Host names accepted in the `Host` header besides IP literals, `localhost`, `*.localhost` and `host`; `'*'`
   * accepts any. Other names get HTTP 400: a guard against DNS rebinding (src/server/access.ts). Default none.
   */
  allowedHosts?: string[] | '*'
  /**
   * Browser origins (e.g. `https://my-dapp.example`) whose pages may call wallet methods (key export, signing,
   * sending from the node's accounts); `'*'` allows every origin. Loopback origins and non-browser clients (no
   * `Origin` header) always may. Other origins may call every other method. Default none.
   */
  allowedOrigins?: string[] | '*'
  /** Most open connections; more are refused at once. Default 1,000. */
  maxConnections?: number
  /**
   * Most bytes of replies (HTTP and WebSocket) written but not yet taken by their clients, all connections together;
   * 0 = no limit. When a write takes the total past it, the server closes the connections whose clients hold the
   * most bytes the longest without reading, until it is back under (src/server/replyBudget.ts). Default 256 MiB.
   */
  maxPendingReplyBytes?: number
  /**
   * Idle time after which a connection is closed, in ms: between requests (keep-alive), and until a new
   * connection has sent its request headers. Default 10,000.
   */
  idleTimeout?: number
  /**
   * State files (Anvil's `--state`, `--load-state`, `--dump-state`, `--state-interval`): load at start, write on
   * `close()` and every `interval` seconds. See src/server/stateFile.ts.
   */
  state?: StateFileOptions
  /**
   * Serve whole simple requests through the fast path of src/server/fastPath.ts (default true); false = node:http
   * for every request. For tests and A/B measurements.
   * @internal
   */
  fastPath?: boolean
}

/** Default most open connections (well under the usual file-descriptor limits). */
export const DEFAULT_MAX_CONNECTIONS = 1_000
/** Default idle time of a connection before the server closes it, in ms. */
export const DEFAULT_IDLE_TIMEOUT = 10_000

export interface RsksimServer {
  /**
   * URL that serves requests: `http://127.0.0.1:4444`, or with API keys `http://127.0.0.1:4444/<first key>`, so
   * `new JsonRpcProvider(server.url)` works either way.
   */
  url: string
  /** URL without an API key, e.g. `http://127.0.0.1:4444` (append `/<API_KEY>` when keys are set). */
  baseUrl: string
  /** WebSocket URL on the same port, e.g. `ws://127.0.0.1:4444`; with API keys it includes the first key, as `url`. */
  wsUrl: string
  /** The bound port (the real one when `port: 0` was asked). */
  port: number
  /** The bound host. */
  host: string
  /** The provider being served. */
  provider: Provider
  /**
   * Stops listening, closes idle and active connections (WebSocket clients with a close frame, 1001 "going away",
   * cut if they have not answered it within 1 s), and disconnects the provider if the server created it.
   */
  close(): Promise<void>
  /**
   * The budget of unsent reply bytes (`held`, `peak`, `closed`), undefined when `maxPendingReplyBytes` is 0. For tests.
   * @internal
   */
  replyBudget?: ReplyBudget | undefined
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException): void => {
      server.off('listening', onListening)
      const why =
        e.code === 'EADDRINUSE'
          ? 'the address is already in use'
          : e.code === 'EACCES'
            ? 'permission denied'
            : e.code === 'EADDRNOTAVAIL'
              ? 'the address is not available on this machine'
              : e.message
      reject(new Error(`rsksim: cannot listen on ${urlHost(host)}:${port}: ${why}`, { cause: e }))
    }
    const onListening = (): void => {
      server.off('error', onError)
      resolve()
    }
    server.once('error', onError)
    server.once('listening', onListening)
    server.listen(port, host)
  })
}

/**
 * Closes connections that stay silent for `ms`: one that never sends a request (node:http's header timeout does
 * not cover a connection that sent nothing at all) and one idle between requests; never one whose client waits
 * for its reply (`owesReply`).
 */
function closeIdleSockets(server: Server, ms: number): void {
  server.timeout = ms
  server.on('timeout', (socket: Socket) => {
    if (!owesReply(socket)) socket.destroy()
  })
}

function checkPort(port: number): void {
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`rsksim: invalid port ${port}`)
}

/** `startServer` (documented, and loaded on first call, by src/server/load.ts, which users import through the package). */
export async function startServer(options: ServerOptions = {}): Promise<RsksimServer> {
  const {
    port = DEFAULT_PORT,
    host = DEFAULT_HOST,
    apiKeys,
    provider: given,
    maxBodyBytes = DEFAULT_MAX_BODY_BYTES,
    keepAlive = true,
    allowedHosts = [],
    allowedOrigins = [],
    maxConnections = DEFAULT_MAX_CONNECTIONS,
    idleTimeout = DEFAULT_IDLE_TIMEOUT,
    maxPendingReplyBytes = DEFAULT_MAX_PENDING_REPLY_BYTES,
    state = {},
    fastPath = true,
    ...providerOptions
  } = options
  checkPort(port)
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes < 0) throw new RangeError(`rsksim: invalid maxBodyBytes ${maxBodyBytes}`)
  if (apiKeys !== undefined && apiKeys.some((k) => k.length === 0 || k.includes('/'))) {
    throw new RangeError('rsksim: an API key must be a non-empty string without "/"')
  }

  if (!Number.isInteger(maxConnections) || maxConnections < 1) throw new RangeError(`rsksim: invalid maxConnections ${maxConnections}`)
  if (!Number.isInteger(idleTimeout) || idleTimeout < 1) throw new RangeError(`rsksim: invalid idleTimeout ${idleTimeout}`)
  if (!Number.isSafeInteger(maxPendingReplyBytes) || maxPendingReplyBytes < 0) {
    throw new RangeError(`rsksim: invalid maxPendingReplyBytes ${maxPendingReplyBytes}`)
  }
  const budget = maxPendingReplyBytes > 0 ? new ReplyBudget(maxPendingReplyBytes) : undefined

  if (state.interval !== undefined && (!(state.interval > 0) || dumpTarget(state) === undefined)) {
    throw new RangeError('rsksim: state.interval needs a positive number of seconds and a file to write (state.path or state.dump)')
  }

  const provider = given ?? (await createProvider(providerOptions))
  const owned = given === undefined
  try {
    await loadAtStart(provider, state)
  } catch (e) {
    if (owned) await provider.disconnect()
    throw e
  }
  const core = createRequestCore(provider, {
    apiKeys: apiKeys === undefined ? null : new Set(apiKeys),
    maxBodyBytes,
    maxResponseBytes: provider.options.maxResponseSize,
    keepAlive,
    access: { allowedHosts, allowedOrigins, boundHost: host },
    ...(budget !== undefined ? { budget } : {}),
  })
  const server = createServer(core.listener)
  // Requests with `Expect: 100-continue` come to the same listener, which sends 100 only once they pass its checks.
  server.on('checkContinue', core.listener)
  // With keep-alive off every reply closes its connection, which node:http does; the fast path serves kept ones.
  const closeFast = fastPath && keepAlive ? installFastPath(server, core, maxBodyBytes, idleTimeout, budget) : undefined
  server.maxConnections = maxConnections
  server.keepAliveTimeout = idleTimeout
  closeIdleSockets(server, idleTimeout)
  let closeSockets: () => Promise<void>
  try {
    closeSockets = attachWebSocket(server, provider, apiKeys === undefined ? null : new Set(apiKeys), { allowedHosts, allowedOrigins, boundHost: host }, { budget })
    await listen(server, port, host)
  } catch (e) {
    if (owned) await provider.disconnect()
    throw e
  }

  const address = server.address()
  const boundPort = typeof address === 'object' && address !== null ? address.port : port
  const target = dumpTarget(state)
  const saver =
    state.interval !== undefined && target !== undefined
      ? setInterval(() => void writeStateFile(provider, target).catch(() => undefined), state.interval * 1000)
      : undefined
  saver?.unref()
  let closing: Promise<void> | undefined
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      if (saver !== undefined) clearInterval(saver)
      // WebSocket clients get a close frame (1001) and at most WS_CLOSE_GRACE_MS to answer it; the HTTP server's
      // close waits for their sockets too (an upgraded socket is no longer one of node:http's connections, so
      // closeAllConnections leaves it to the close handshake).
      const sockets = closeSockets()
      closeFast?.()
      server.close(() => void sockets.then(() => resolve()))
      server.closeAllConnections()
    }).then(async () => {
      if (target !== undefined) await writeStateFile(provider, target)
      if (owned) await provider.disconnect()
    })
    return closing
  }

  const baseUrl = `http://${urlHost(host)}:${boundPort}`
  const firstKey = apiKeys?.[0]
  return {
    url: firstKey === undefined ? baseUrl : `${baseUrl}/${encodeURIComponent(firstKey)}`,
    baseUrl,
    wsUrl: firstKey === undefined ? `ws://${urlHost(host)}:${boundPort}` : `ws://${urlHost(host)}:${boundPort}/${encodeURIComponent(firstKey)}`,
    port: boundPort,
    host,
    provider,
    close,
    replyBudget: budget,
  }
}
