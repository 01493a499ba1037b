/**
 * The rsksim HTTP server: serves a `Provider` as the hosted service does, `POST {base_url}/<API_KEY>`
 * (spec "Endpoints", "Authentication"), with the HTTP behaviour of RSKj (reference §1.1–1.2).
 */
import { createServer, type Server } from 'node:http'
import type { ProviderOptions } from '../options/index.js'
import { createProvider, type Provider } from '../provider/index.js'
import { createRequestListener } from './handler.js'
import { DEFAULT_MAX_BODY_BYTES } from './http.js'
import { attachWebSocket } from './ws.js'

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
}

export interface RsksimServer {
  /** Base URL, e.g. `http://127.0.0.1:4444` (append `/<API_KEY>` when keys are set). */
  url: string
  /** WebSocket URL on the same port, e.g. `ws://127.0.0.1:4444` (append `/<API_KEY>` when keys are set). */
  wsUrl: string
  /** The bound port (the real one when `port: 0` was asked). */
  port: number
  /** The bound host. */
  host: string
  /** The provider being served. */
  provider: Provider
  /** Stops listening, closes idle and active connections, and disconnects the provider if the server created it. */
  close(): Promise<void>
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

function checkPort(port: number): void {
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`rsksim: invalid port ${port}`)
}

/**
 * Starts an HTTP JSON-RPC server for a new (or the given) provider. Resolves once it listens; rejects with a clear
 * Error when the address cannot be bound (e.g. the port is in use).
 *
 * @example
 * ```ts
 * import { startServer } from 'rsksim'
 * const server = await startServer({ port: 0, apiKeys: ['secret'] })
 * const res = await fetch(`${server.url}/secret`, {
 *   method: 'POST',
 *   headers: { 'Content-Type': 'application/json' },
 *   body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
 * })
 * console.log(await res.json()) // { jsonrpc: '2.0', id: 1, result: '0x21' }
 * await server.close()
 * ```
 */
export async function startServer(options: ServerOptions = {}): Promise<RsksimServer> {
  const {
    port = DEFAULT_PORT,
    host = DEFAULT_HOST,
    apiKeys,
    provider: given,
    maxBodyBytes = DEFAULT_MAX_BODY_BYTES,
    keepAlive = true,
    ...providerOptions
  } = options
  checkPort(port)
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes < 0) throw new RangeError(`rsksim: invalid maxBodyBytes ${maxBodyBytes}`)
  if (apiKeys !== undefined && apiKeys.some((k) => k.length === 0 || k.includes('/'))) {
    throw new RangeError('rsksim: an API key must be a non-empty string without "/"')
  }

  const provider = given ?? (await createProvider(providerOptions))
  const owned = given === undefined
  const listener = createRequestListener(provider, {
    apiKeys: apiKeys === undefined ? null : new Set(apiKeys),
    maxBodyBytes,
    keepAlive,
  })
  const server = createServer(listener)
  const closeSockets = attachWebSocket(server, provider, apiKeys === undefined ? null : new Set(apiKeys))

  try {
    await listen(server, port, host)
  } catch (e) {
    if (owned) await provider.disconnect()
    throw e
  }

  const address = server.address()
  const boundPort = typeof address === 'object' && address !== null ? address.port : port
  let closing: Promise<void> | undefined
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      closeSockets()
      server.close(() => resolve())
      server.closeAllConnections()
    }).then(async () => {
      if (owned) await provider.disconnect()
    })
    return closing
  }

  return {
    url: `http://${urlHost(host)}:${boundPort}`,
    wsUrl: `ws://${urlHost(host)}:${boundPort}`,
    port: boundPort,
    host,
    provider,
    close,
  }
}
