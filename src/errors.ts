import { ExecutionTimeout } from './node/exec/guard.js'
import { ResponseTooLarge } from './node/exec/tracers/sizeBudget.js'
import { TooManyFilters } from './node/filters/filters.js'
import { TooManyFilterValues } from './node/filters/filterValues.js'
import { EstimateFailed, ExecutionReverted, TransactionRejected, DatabaseWriteFailed, StateNotKept, LocalCallGasTooLow, RemoteFailed, ForkError, ChainTooShort } from './node/errors.js'
import { bytesToHex } from '@ethereumjs/util'
import { revertMessage } from './node/exec/revertReason.js'

/**
 * The one error class of rsksim and the factories for every JSON-RPC error it answers.
 *
 * Codes and texts follow the reference node (RSKj): see `java/org/ethereum/rpc/exception/RskJsonRpcRequestException.java`
 * and `RskErrorResolver.java` (reference §1.3). Handlers throw these; the dispatcher turns any other exception
 * into -32603 with the original kept as `cause`.
 *
 * @example
 * ```ts
 * try { await provider.request({ method: 'eth_call', params: [call, 'latest'] }) }
 * catch (e) { if (e instanceof RpcError && e.code === -32015) console.log(e.data) }
 * ```
 */
export class RpcError extends Error {
  override readonly name = 'RpcError'
  /** JSON-RPC error code. */
  readonly code: number
  /** Optional `data` member of the JSON-RPC error (revert payload as `0x` hex). */
  readonly data?: string

  constructor(code: number, message: string, options: { data?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    if (options.data !== undefined) this.data = options.data
  }

  /** The `error` member of a JSON-RPC response: `code`, `message`, then `data` when present. */
  toJSON(): { code: number; message: string; data?: string } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data }
  }
}

/** JSON-RPC error codes used by the reference node (reference §1.3). */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  Internal: -32603,
  /** `filter not found`, and geth-style `insufficient funds for transfer` from eth_estimateGas (spec "Errors"). */
  Generic: -32000,
  UnknownTxError: -32009,
  TxRejected: -32010,
  Timeout: -32011,
  LogLimit: -32012,
  Reverted: -32015,
  Unimplemented: -32201,
  WalletDisabled: -32604,
  SubmitBlock: -33000,
  Unexpected: -32099,
} as const

export const parseError = (): RpcError => new RpcError(ErrorCode.ParseError, 'JSON parse error')
export const invalidRequest = (message = 'invalid request'): RpcError => new RpcError(ErrorCode.InvalidRequest, message)
/** Unknown method name (RSKj `JsonRpcCustomServer`). */
export const methodNotFound = (): RpcError => new RpcError(ErrorCode.MethodNotFound, 'method not found')
/** Known method that this service does not offer (RSKj `RskErrorResolver`). */
export const methodNotAvailable = (method: string): RpcError =>
  new RpcError(ErrorCode.MethodNotFound, `the method ${method} does not exist/is not available`)
export const invalidParams = (message = 'method parameters invalid'): RpcError =>
  new RpcError(ErrorCode.InvalidParams, message)
export const internalError = (cause?: unknown): RpcError =>
  new RpcError(ErrorCode.Internal, 'Internal server error', { cause })
/** Pool rejection: the reason is returned verbatim (reference §5.5). */
export const txRejected = (reason: string): RpcError => new RpcError(ErrorCode.TxRejected, reason)
/** A revert in eth_call / eth_estimateGas / automined eth_sendTransaction (reference §5.1). */
export const reverted = (message: string, data: string): RpcError =>
  new RpcError(ErrorCode.Reverted, message, { data })
/** The -32015 error for a revert with return data `data`: RSKj's text (node/exec/revertReason.ts), the bytes as `data`. */
export const revertError = (data: Uint8Array): RpcError => reverted(revertMessage(data), bytesToHex(data))
export const blockNotFound = (id: string): RpcError => new RpcError(ErrorCode.InvalidRequest, `Block ${id} not found`)
export const blockHashNotFound = (hash: string): RpcError =>
  new RpcError(ErrorCode.InvalidRequest, `Block with hash ${hash} not found`)
export const filterNotFound = (): RpcError => new RpcError(ErrorCode.Generic, 'filter not found')
export const walletDisabled = (): RpcError => new RpcError(ErrorCode.WalletDisabled, 'The local wallet feature is disabled')
export const submitBlockError = (message: string): RpcError => new RpcError(ErrorCode.SubmitBlock, message)

/**
 * An error RSKj raises around the whole request rather than inside a method (`JsonRpcTimeoutError`,
 * `JsonRpcResponseLimitError`, reference §1.2): its reply is a bare `{ "error": … }` without `jsonrpc` and `id`,
 * HTTP 200, and in a batch it replaces the whole reply.
 */
export class RequestLevelError extends RpcError {}

/** RSKj `rpc.timeout` exceeded (reference §1.2). */
export const timeoutError = (cause?: unknown): RpcError =>
  new RequestLevelError(ErrorCode.Timeout, 'Execution has got timeout out.', { cause })
/** RSKj `rpc.maxResponseSize` exceeded (reference §1.2). */
export const responseTooLarge = (limit: number, cause?: unknown): RpcError =>
  new RequestLevelError(ErrorCode.Timeout, `Response size limit of ${limit} bytes exceeded`, { cause })

/**
 * The one table from failures to JSON-RPC errors: RpcErrors pass through; the node's domain errors (src/node/errors.ts,
 * the deadline, the size budget, the filter limit) become RSKj's codes and texts; anything else becomes -32603 with
 * the cause kept.
 */
export function toRpcError(e: unknown): RpcError {
  if (e instanceof RpcError) return e
  if (e instanceof ExecutionTimeout) return timeoutError(e)
  if (e instanceof ResponseTooLarge) return responseTooLarge(e.limit, e)
  if (e instanceof TooManyFilters || e instanceof TooManyFilterValues) return new RpcError(ErrorCode.Generic, e.message, { cause: e })
  if (e instanceof TransactionRejected) return txRejected(e.message)
  if (e instanceof EstimateFailed) return new RpcError(ErrorCode.Generic, e.message, { cause: e })
  if (e instanceof ExecutionReverted) return revertError(e.data)
  if (e instanceof DatabaseWriteFailed) return new RpcError(ErrorCode.Internal, e.message, { cause: e })
  // RSKj lets GasCost.subtract's exception escape a local call (a bare -32603): a parameter error saying why instead.
  if (e instanceof LocalCallGasTooLow) return new RpcError(ErrorCode.InvalidParams, e.message, { cause: e })
  if (e instanceof StateNotKept) return new RpcError(ErrorCode.InvalidRequest, e.message, { cause: e })
  if (e instanceof ChainTooShort) return new RpcError(ErrorCode.InvalidParams, e.message, { cause: e })
  // A fork's remote failed while its state was read (src/node/fork): the message names the remote and the call.
  if (e instanceof RemoteFailed) return new RpcError(ErrorCode.Internal, e.message, { cause: e })
  if (e instanceof ForkError) return new RpcError(e.refused ? ErrorCode.InvalidParams : ErrorCode.Internal, e.message, { cause: e })
  return internalError(e)
}
