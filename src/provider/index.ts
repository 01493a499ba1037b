/**
 * The EIP-1193 provider: `request`, events, and the legacy `send` / `sendAsync` of older web3 tools.
 */
import { EventEmitter } from 'eventemitter3'
import { bytesToHex } from '@ethereumjs/util'
import { RpcError, invalidRequest, toRpcError } from '../errors.js'
import type { ProviderOptions, ResolvedOptions } from '../options/index.js'
import { resolveOptions } from '../options/resolve.js'
import { RskNode } from '../node/node.js'
import { privateKeyToAddress } from '../node/crypto.js'
import { handlePayload, invoke } from '../rpc/dispatch.js'
import type { JsonRpcReply, RequestArguments } from '../rpc/types.js'
import { Subscriptions, type Sink } from '../rpc/subscribe/subscriptions.js'

export interface ProviderEvents {
  /** EIP-1193 `connect`, emitted once the node is ready. */
  connect: [{ chainId: string }]
  /** EIP-1193 `disconnect`, after `disconnect()`. */
  disconnect: [RpcError]
  /** A block was mined (rsksim extension): its number and hash. */
  block: [{ number: string; hash: string }]
  /** EIP-1193 `message`: an `eth_subscribe` notification. */
  message: [{ type: 'eth_subscription'; data: { subscription: string; result: unknown } }]
  /** Legacy `data` event (web3.js, older ethers): the notification as its JSON-RPC envelope. */
  data: [{ jsonrpc: '2.0'; method: 'eth_subscription'; params: { subscription: string; result: unknown } }]
}

type Callback = (error: Error | null, response?: unknown) => void

/** A funded account created at genesis. */
export interface InitialAccount {
  address: string
  /** Private key as `0x` hex. */
  secretKey: string
  balance: bigint
}

export class Provider extends EventEmitter<ProviderEvents> {
  /** The accounts funded at genesis, with their keys (as the CLI prints them). */
  readonly initialAccounts: readonly InitialAccount[]

  /** Use `createProvider`; the constructor does no I/O. */
  constructor(
    readonly node: RskNode,
    readonly options: ResolvedOptions,
  ) {
    super()
    this.initialAccounts = options.accounts.map((a) => ({
      address: bytesToHex(privateKeyToAddress(a.secretKey)),
      secretKey: bytesToHex(a.secretKey),
      balance: a.balance,
    }))
    node.events.on('block', (b) => this.emit('block', { number: '0x' + b.number.toString(16), hash: b.hashHex }))
  }

  /**
   * EIP-1193 request. Resolves with the result; rejects with an `RpcError` carrying `code`, `message` and,
   * for reverts, `data`.
   *
   * @example
   * ```ts
   * const provider = await createProvider()
   * const block = await provider.request({ method: 'eth_blockNumber' }) // '0x0'
   * ```
   */
  async request(args: RequestArguments): Promise<unknown> {
    if (typeof args !== 'object' || args === null || typeof args.method !== 'string') {
      throw invalidRequest('invalid request: expected { method: string, params?: unknown[] }')
    }
    try {
      // Subscriptions belong to this provider (default mode only; RSKj serves them over WebSocket alone, so the
      // hosted mode answers -32601 as the service's HTTP endpoint does).
      if (!this.options.hosted && args.method === 'eth_subscribe') return this.subscriptions().subscribe(args.params)
      if (!this.options.hosted && args.method === 'eth_unsubscribe') return this.subscriptions().unsubscribe(args.params)
      const result = await invoke(this.node, args.method, args.params)
      return result === undefined ? null : result
    } catch (e) {
      throw toRpcError(e)
    }
  }

  /**
   * Answers a parsed JSON-RPC body (one request or a batch) with the response envelope(s), as the HTTP server
   * does. Never throws.
   */
  handleJsonRpc(payload: unknown, subscriptions?: Subscriptions): Promise<JsonRpcReply> {
    return handlePayload(this.node, payload, subscriptions?.methods).catch((e) => ({ jsonrpc: '2.0', id: null, error: toRpcError(e).toJSON() }))
  }

  /**
   * Legacy: `send(payload, callback)` as web3 0.x/1.x providers, or `send(method, params)` returning a promise
   * as ethers v5's `JsonRpcProvider.send`.
   */
  send(payload: unknown, callback: Callback): void
  send(method: string, params?: unknown[]): Promise<unknown>
  send(payloadOrMethod: unknown, callbackOrParams?: Callback | unknown[]): Promise<unknown> | void {
    if (typeof payloadOrMethod === 'string') {
      return this.request({ method: payloadOrMethod, params: (callbackOrParams as unknown[] | undefined) ?? [] })
    }
    this.sendAsync(payloadOrMethod, callbackOrParams as Callback)
  }

  /** Legacy: answers a request or batch through a Node-style callback with the response envelope(s). */
  sendAsync(payload: unknown, callback: Callback): void {
    void this.handleJsonRpc(payload).then((reply) => callback(null, reply))
  }

  private subs: Subscriptions | undefined

  /**
   * A set of subscriptions owned by a connection (the WebSocket server): notifications go to `sink`; pass it to
   * `handleJsonRpc` so that eth_subscribe/eth_unsubscribe act on it. `close()` it when the connection ends.
   */
  openSubscriptions(sink: Sink): Subscriptions {
    return new Subscriptions(this.node, sink)
  }

  private subscriptions(): Subscriptions {
    return (this.subs ??= new Subscriptions(this.node, (subscription, result) => {
      this.emit('message', { type: 'eth_subscription', data: { subscription, result } })
      this.emit('data', { jsonrpc: '2.0', method: 'eth_subscription', params: { subscription, result } })
    }))
  }

  /** Stops interval mining and timers, drops subscriptions, and emits `disconnect`. */
  async disconnect(): Promise<void> {
    this.subs?.close()
    await this.node.close()
    this.emit('disconnect', new RpcError(4900, 'rsksim provider disconnected'))
  }
}

/**
 * Creates a provider over a fresh simulated node.
 *
 * @example
 * ```ts
 * import { createProvider } from 'rsksim'
 * const provider = await createProvider()                       // regtest: chain id 0x21
 * const accounts = await provider.request({ method: 'eth_accounts' })
 * ```
 */
export async function createProvider(options: ProviderOptions = {}): Promise<Provider> {
  const resolved = resolveOptions(options)
  const node = await RskNode.create(resolved)
  const provider = new Provider(node, resolved)
  queueMicrotask(() => provider.emit('connect', { chainId: '0x' + resolved.network.chainId.toString(16) }))
  return provider
}
