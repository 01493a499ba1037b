/**
 * The public `startServer`: it loads the server's modules (src/server/index.ts and what it imports: node:http, the
 * HTTP handler, the WebSocket layer) on its first call, so importing rsksim for an in-process provider does not load
 * them (docs/performance.md, twenty-second round).
 */
import type { RsksimServer, ServerOptions } from './index.js'

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
export async function startServer(options?: ServerOptions): Promise<RsksimServer> {
  const server = await import('./index.js')
  return server.startServer(options)
}
