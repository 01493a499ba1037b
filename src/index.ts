/**
 * rsksim: an in-process simulator of the Rootstock (RSK) JSON-RPC service.
 *
 * @example
 * ```ts
 * import { createProvider, startServer } from 'rsksim'
 * const provider = await createProvider()                      // EIP-1193, regtest (chain id 33)
 * const server = await startServer({ port: 4444 })             // POST http://127.0.0.1:4444/
 * await server.close()
 * ```
 */
export { createProvider, Provider, type ConsoleLogEvent, type InitialAccount, type ProviderEvents } from './provider/index.js'
export { startServer } from './server/load.js'
export type { ServerOptions, RsksimServer } from './server/index.js'
export { RpcError, ErrorCode } from './errors.js'
export { NETWORKS, DEFAULTS, type ProviderOptions, type NetworkName, type GenesisAccount, type MiningOptions, type ForkOptions } from './options/index.js'
export type { JsonRpcRequest, JsonRpcResponse, JsonRpcReply, RequestArguments } from './rpc/types.js'
export { VERSION } from './version.js'
