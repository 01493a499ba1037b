/**
 * Hardhat 3 `network` hooks: answer every request of an rsksim network from an in-process rsksim `Provider`.
 *
 * Hook order: Hardhat runs a user plugin's `onRequest` before its own request handlers (hardhat
 * `core/hook-manager.ts` chains plugins in reverse registration order), so those handlers — gas filling among them —
 * never see an rsksim request. The plugin therefore fills `gas` itself as Hardhat's `AutomaticGasHandler` does for
 * `gas: 'auto'`: `eth_estimateGas` of the transaction, times `gasMultiplier`. Without it the service's 90,000 default
 * would apply (spec: `eth_sendTransaction`), and a deployment sent by hardhat-viem would run out of gas.
 */
import { createProvider, type Provider } from '../../provider/index.js'
import { VERSION } from '../../version.js'
import { toRpcError } from '../../errors.js'
import type { ProviderOptions } from '../../options/index.js'
import type { JsonRpcReply } from '../../rpc/types.js'
import { HARDHAT_CLIENT_VERSION_PREFIX } from './shared.js'
import type { RsksimNetworkOptions } from './index.js'

/** The members of Hardhat's `NetworkConnection` the hooks read. */
interface Connection {
  networkName: string
  networkConfig: { rsksim?: RsksimNetworkOptions; gas?: unknown; gasMultiplier?: number }
}

interface Request {
  jsonrpc: '2.0'
  id?: number | string
  method: string
  params?: unknown
}

type RequestNext = (context: unknown, connection: Connection, request: Request) => Promise<unknown>
type CloseNext = (context: unknown, connection: Connection) => Promise<void>

/** Options for the rsksim provider of a Hardhat network (clientVersion: see shared.ts). */
function providerOptions(options: RsksimNetworkOptions): ProviderOptions {
  return { clientVersion: `${HARDHAT_CLIENT_VERSION_PREFIX}/${VERSION}`, ...options }
}

/** Fills `gas` of an `eth_sendTransaction` sent without it (Hardhat `AutomaticGasHandler`, gas: 'auto'). */
async function withGas(provider: Provider, connection: Connection, request: Request): Promise<Request> {
  if (request.method !== 'eth_sendTransaction' || connection.networkConfig.gas !== 'auto') return request
  const params = request.params
  if (!Array.isArray(params) || typeof params[0] !== 'object' || params[0] === null) return request
  const tx = params[0] as Record<string, unknown>
  if (tx.gas !== undefined) return request
  const estimate = BigInt((await provider.request({ method: 'eth_estimateGas', params: [tx] })) as string)
  const multiplier = connection.networkConfig.gasMultiplier ?? 1
  const gas = multiplier === 1 ? estimate : BigInt(Math.floor(Number(estimate) * multiplier))
  return { ...request, params: [{ ...tx, gas: '0x' + gas.toString(16) }, ...params.slice(1)] }
}

export default async (): Promise<Record<string, unknown>> => {
  const providers = new WeakMap<Connection, Promise<Provider>>()

  function providerFor(connection: Connection, options: RsksimNetworkOptions): Promise<Provider> {
    let provider = providers.get(connection)
    if (provider === undefined) {
      provider = createProvider(providerOptions(options))
      providers.set(connection, provider)
    }
    return provider
  }

  return {
    async onRequest(context: unknown, connection: Connection, request: Request, next: RequestNext): Promise<unknown> {
      const options = connection.networkConfig.rsksim
      if (options === undefined) return next(context, connection, request)
      const provider = await providerFor(connection, options)
      let filled: Request
      try {
        filled = await withGas(provider, connection, request)
      } catch (e) {
        // The estimate failed (a revert, insufficient funds): answer with its error, as sending would have.
        return { jsonrpc: '2.0', id: request.id ?? null, error: toRpcError(e).toJSON() }
      }
      const reply: JsonRpcReply = await provider.handleJsonRpc({ ...filled, id: request.id ?? null })
      return reply
    },

    async closeConnection(context: unknown, connection: Connection, next: CloseNext): Promise<void> {
      const provider = providers.get(connection)
      providers.delete(connection)
      if (provider !== undefined) await (await provider).disconnect()
      return next(context, connection)
    },
  }
}
