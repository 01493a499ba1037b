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
import { lowerBackgroundThreads } from '../node/threadPriority.js'
import { handlePayload, invoke, type Transport } from '../rpc/dispatch.js'
import { checkStateDump, dumpState, loadState, type StateDump } from '../node/dev/stateDump.js'
import type { JsonRpcReply, RequestArguments } from '../rpc/types.js'
import { Subscriptions, type Sink } from '../rpc/subscribe/subscriptions.js'
import { OwnSubscriptions } from './ownSubscriptions.js'

export interface ProviderEvents {
  /** EIP-1193 `connect`, emitted once the node is ready. */
  connect: [{ chainId: string }]
  /** EIP-1193 `disconnect`, after `disconnect()`. */
  disconnect: [RpcError]
  /** A block was mined (rsksim extension): its number and hash. */
  block: [{ number: string; hash: string }]
  /**
   * A contract called console.log (Hardhat's console.sol, forge-std's console): the formatted text, and the hash of
   * the mined transaction (null for eth_call). Not emitted in hosted mode.
   */
  console: [ConsoleLogEvent]
  /** EIP-1193 `message`: an `eth_subscribe` notification. */
  message: [{ type: 'eth_subscription'; data: { subscription: string; result: unknown } }]
  /** Legacy `data` event (web3.js, older ethers): the notification as its JSON-RPC envelope. */
  data: [{ jsonrpc: '2.0'; method: 'eth_subscription'; params: { subscription: string; result: unknown } }]
}

/** Payload of the provider's `console` event. */
export interface ConsoleLogEvent {
  message: string
  transactionHash: string | null
}

type Callback = (error: Error | null, response?: unknown) => void

/** Longest run of in-process requests without a turn of the event loop, in ms. */
const YIELD_AFTER_MS = 10

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

  /**
   * Use `createProvider`; the constructor does no I/O. The node is internal: it is not part of the published types,
   * so the simulator's insides can change without changing the API.
   *
   * @internal
   */
  constructor(
    /** @internal */
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
    if (!options.hosted) node.events.on('console', (line) => this.emit('console', line))
  }

  /**
   * EIP-1193 request. Resolves with the result (typed as `T` when the caller names it); rejects with an `RpcError`
   * carrying `code`, `message` and, for reverts, `data`.
   *
   * @example
   * ```ts
   * const provider = await createProvider()
   * const block = await provider.request({ method: 'eth_blockNumber' }) // '0x0'
   * ```
   */
  async request<T = unknown>(args: RequestArguments): Promise<T> {
    if (typeof args !== 'object' || args === null || typeof args.method !== 'string') {
      throw invalidRequest('invalid request: expected { method: string, params?: unknown[] }')
    }
    // Subscriptions belong to this provider (default mode only; RSKj serves them over WebSocket alone, so the hosted
    // mode answers -32601 as the service's HTTP endpoint does). They act when called, before any turn of the event
    // loop: a subscription hears every event announced after the call, and once eth_unsubscribe is called (a listener
    // may call it on a block's first log) nothing more is emitted for the id. Notifications wait for the id to reach
    // the caller (src/provider/ownSubscriptions.ts).
    if (!this.options.hosted && (args.method === 'eth_subscribe' || args.method === 'eth_unsubscribe')) return this.subscriptionRequest(args) as T
    const sent = ++this.sent
    if (performance.now() - this.lastYield > YIELD_AFTER_MS) await this.yieldToEventLoop()
    try {
      const result = await invoke(this.node, args.method, args.params)
      // The JSON value of the method's answer; `T` is the caller's claim about it (as in viem's typed requests).
      return (result === undefined ? null : result) as T
    } catch (e) {
      throw toRpcError(e)
    } finally {
      this.releaseHeld(sent)
    }
  }

  /**
   * Before the answer of the `sent`-th request (`request` or `sendAsync`): subscriptions made before it was sent had
   * answered their ids, so what they hold goes out now, as over WebSocket (src/provider/ownSubscriptions.ts). A
   * listener that throws there fails that request, as an RpcError like any other failure.
   */
  private releaseHeld(sent: number): void {
    try {
      this.subs?.releaseMadeBefore(sent)
    } catch (e) {
      throw toRpcError(e)
    }
  }

  /** Requests sent to `request` so far (subscription requests aside): orders them against subscriptions. */
  private sent = 0

  /**
   * Subscribes to a provider event (`connect`, `disconnect`, `block`, `console`, `message`, `data`; see
   * `ProviderEvents`). The second overload takes any event name, as EIP-1193 providers do (`accountsChanged` and
   * `chainChanged` are never emitted here), so the provider is assignable to viem's `EIP1193Provider`.
   */
  override on<E extends keyof ProviderEvents>(event: E, listener: (...args: ProviderEvents[E]) => void, context?: unknown): this
  override on(event: string, listener: (...args: never[]) => unknown, context?: unknown): this
  override on(event: string, listener: (...args: never[]) => unknown, context?: unknown): this {
    // eventemitter3 accepts any name and listener at run time; only its typings are narrower.
    return super.on(event as keyof ProviderEvents, listener as () => void, context)
  }

  /** Removes a listener added with `on` (EIP-1193). */
  override removeListener<E extends keyof ProviderEvents>(event: E, listener?: (...args: ProviderEvents[E]) => void, context?: unknown, once?: boolean): this
  override removeListener(event: string, listener?: (...args: never[]) => unknown, context?: unknown, once?: boolean): this
  override removeListener(event: string, listener?: (...args: never[]) => unknown, context?: unknown, once?: boolean): this {
    return super.removeListener(event as keyof ProviderEvents, listener as (() => void) | undefined, context, once)
  }

  /**
   * In process, a request on in-memory state completes on microtasks alone, so a test awaiting requests in a
   * tight loop would starve timers and I/O (interval mining, a server in the same process). Every
   * `YIELD_AFTER_MS` of such a run, the next request first lets the event loop turn once.
   */
  private lastYield = performance.now()

  private async yieldToEventLoop(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve))
    this.lastYield = performance.now()
  }

  /**
   * Answers a parsed JSON-RPC body (one request or a batch) with the response envelope(s), as the HTTP server
   * does. Never throws. `transport` carries what the connection adds (src/rpc/dispatch.ts `Transport`): `veto`
   * refuses methods for this body (the server refuses wallet methods to untrusted browser origins,
   * src/server/access.ts), `local` serves methods for the connection (the WebSocket server's eth_subscribe and
   * eth_unsubscribe, from `openSubscriptions`), `maxReplyBytes` stops a batch whose answers pass the servers' reply
   * limit. The object is handed to dispatch as it is, so a server can build it once and use it for every body.
   */
  handleJsonRpc(payload: unknown, transport: Transport = {}): Promise<JsonRpcReply> {
    return handlePayload(this.node, payload, transport).catch((e): JsonRpcReply => ({ jsonrpc: '2.0', id: null, error: toRpcError(e).toJSON() }))
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

  /**
   * Legacy: answers a request or batch through a Node-style callback with the response envelope(s). Outside hosted
   * mode it serves eth_subscribe and eth_unsubscribe too (web3.js 1.x and Truffle subscribe through it and read the
   * `data` event), with `request`'s order: a subscription's notifications come after the reply that gives its id.
   */
  sendAsync(payload: unknown, callback: Callback): void {
    const sent = ++this.sent
    void this.handleJsonRpc(payload, this.legacyTransport()).then((reply) => {
      try {
        this.releaseHeld(sent)
      } catch (e) {
        callback(e as Error)
        return
      }
      callback(null, reply)
    })
  }

  private legacy: Transport | undefined

  /** The provider's own eth_subscribe/eth_unsubscribe for bodies sent through `sendAsync` (none in hosted mode). */
  private legacyTransport(): Transport {
    if (this.options.hosted) return {}
    return (this.legacy ??= {
      local: {
        eth_subscribe: (params) => this.subscriptionRequest({ method: 'eth_subscribe', params }),
        eth_unsubscribe: (params) => this.subscriptionRequest({ method: 'eth_unsubscribe', params }),
      },
    })
  }

  /**
   * The state file of this node (accounts, code, storage, head number and time; format in docs/extensions.md), as
   * `anvil_dumpState` gives it but as a plain object. Works in hosted mode too: it is the embedding program's call.
   *
   * @example
   * ```ts
   * const state = await provider.dumpState()
   * writeFileSync('fixture.json', JSON.stringify(state))
   * ```
   */
  dumpState(): Promise<StateDump> {
    return this.node.queue.run(() => dumpState(this.node.chain))
  }

  /**
   * Loads a state file (the object `dumpState` gave, or its parsed JSON) into this node. Rejects with a clear error,
   * changing nothing, when the file is of another chain id, another format or version, or malformed.
   *
   * @example
   * ```ts
   * await provider.loadState(JSON.parse(readFileSync('fixture.json', 'utf8')))
   * ```
   */
  loadState(file: unknown): Promise<void> {
    return this.node.queue.run(async () => {
      const checked = checkStateDump(file, this.node.chain.common.chainId())
      await loadState(this.node.chain, this.node.clock, checked)
    })
  }

  private subs: OwnSubscriptions | undefined

  /**
   * A set of subscriptions owned by a connection (the WebSocket server): notifications go to `sink`; pass its
   * `methods` (or, for a body that subscribes, `forBody(...)`) to `handleJsonRpc` as `local` so that
   * eth_subscribe/eth_unsubscribe act on it. `close()` it when the connection ends.
   */
  openSubscriptions(sink: Sink): Subscriptions {
    return new Subscriptions(this.node, sink)
  }

  private subscriptionRequest(args: RequestArguments): string | boolean {
    try {
      const subs = this.subscriptions()
      return args.method === 'eth_subscribe' ? subs.subscribe(args.params, this.sent) : subs.unsubscribe(args.params)
    } catch (e) {
      throw toRpcError(e)
    }
  }

  /** The provider's own subscriptions: a notification is emitted only once its id reached the caller. */
  private subscriptions(): OwnSubscriptions {
    return (this.subs ??= new OwnSubscriptions(this.node, (subscription, result) => {
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
  // Once per process, and only for a provider that exists: V8's compiler threads below the thread that runs the
  // chain (src/node/threadPriority.ts).
  lowerBackgroundThreads()
  queueMicrotask(() => provider.emit('connect', { chainId: '0x' + resolved.network.chainId.toString(16) }))
  return provider
}
