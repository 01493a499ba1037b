/**
 * The node's own failures, in domain terms. The node never builds JSON-RPC errors: `toRpcError` (src/errors.ts)
 * turns each of these into the code and text RSKj answers, in one place.
 */
import { stringifyJson } from './integerJson.js'

/** An execution ended in REVERT with `data` as its return data (eth_estimateGas). */
export class ExecutionReverted extends Error {
  override readonly name = 'ExecutionReverted'
  constructor(readonly data: Uint8Array) {
    super('execution reverted')
  }
}

/**
 * eth_estimateGas could not find a gas limit that works: the sender cannot pay (`insufficient funds for transfer`),
 * the bound is too low (`gas required exceeds allowance (N)`), or the engine's error for another failure.
 */
export class EstimateFailed extends Error {
  override readonly name = 'EstimateFailed'
}

/** The transaction pool refused a transaction; `message` is RSKj's reason, returned verbatim (reference §5.5). */
export class TransactionRejected extends Error {
  override readonly name = 'TransactionRejected'
}

/**
 * The on-disk database could not be written (disk full, directory removed, …). From then on every request answers
 * this error: what the node would answer could no longer be kept (src/node/persist/persistence.ts).
 */
export class DatabaseWriteFailed extends Error {
  override readonly name = 'DatabaseWriteFailed'
  constructor(where: string, cause: unknown) {
    super(`the database at ${where} could not be written (${cause instanceof Error ? cause.message : String(cause)}); rsksim answers nothing more it could not keep: restart it`, { cause })
  }
}

/**
 * A local call (eth_call, eth_estimateGas) whose gas limit RSKj's executor cannot take its costs from: a call to an
 * account without code or a deployment without code below the intrinsic gas, or a call to a precompile below the
 * intrinsic gas plus the precompile's price. A local call skips the pre-checks a transaction gets, and
 * `TransactionExecutor` then subtracts with `GasCost.subtract`, whose InvalidGasException no one catches (RSKj's own
 * test, EthModuleGasEstimationDSLTest `testEstimateGas_basicTests`, expects the exception for 20,999 and 1,000 gas to
 * an account): RSKj answers -32603 `Internal server error`. rsksim answers -32602 with this message instead, as for
 * the other inputs RSKj fails on with an uncaught exception (docs/compatibility.md): the call is refused either way,
 * and a client learns why (viem also retries -32603, not -32602).
 */
export class LocalCallGasTooLow extends Error {
  override readonly name = 'LocalCallGasTooLow'
  /**
   * `what` names the gas RSKj subtracts: the intrinsic gas (`intrinsic`), or that and a precompile's price; `trace`:
   * a traced call (`debug_traceCall`) whose gas does not reach its code.
   */
  constructor(gasLimit: bigint, intrinsic: bigint, what: 'no code' | 'precompile' | 'trace') {
    super(
      what === 'no code'
        ? `Invalid gas: ${gasLimit} is less than this call's intrinsic gas (${intrinsic}), which RSKj takes from the gas limit before anything runs`
        : what === 'trace'
          ? `Invalid gas: ${gasLimit} is less than this call's intrinsic gas (${intrinsic}): no code runs, so there is nothing to trace`
          : `Invalid gas: ${gasLimit} is less than this call's intrinsic gas (${intrinsic}) plus the precompile's price, which RSKj takes from the gas limit before the precompile runs`,
    )
  }
}

/** A rollback or reorg deeper than the chain above its first block (`anvil_rollback`, `anvil_reorg`): -32602. */
export class ChainTooShort extends Error {
  override readonly name = 'ChainTooShort'
}

/** The state of a block is no longer kept (`stateHistory`): RSKj's "State not found for block with hash …". */
export class StateNotKept extends Error {
  override readonly name = 'StateNotKept'
  constructor(readonly blockHashHex: string) {
    super(`State not found for block with hash ${blockHashHex}`)
  }
}

/**
 * A call to a fork's remote node failed (src/node/fork/remote.ts): the remote answered a JSON-RPC error (`code` and
 * `data` are the remote's), or it could not be reached or understood, or the client was closed. `url` is the redacted
 * URL: no message ever carries the remote's API key or header values. `retryable` is true when the cause was
 * transient (rate limit, 5xx, timeout, network) and the retries ran out: asking again later may work.
 */
export class RemoteFailed extends Error {
  override readonly name = 'RemoteFailed'
  readonly url: string
  readonly method: string
  readonly params: unknown[]
  readonly code?: number
  readonly data?: unknown
  readonly retryable: boolean
  /** The remote's own error message, when it answered with a JSON-RPC error (`code` is then its code). */
  readonly remoteMessage?: string

  constructor(init: { url: string; method: string; params: unknown[]; cause: string; code?: number; data?: unknown; retryable?: boolean; remoteMessage?: string }) {
    super(`fork remote ${init.url}: ${init.method}(${shortJson(init.params)}) failed: ${init.cause}`)
    this.url = init.url
    this.method = init.method
    this.params = init.params
    if (init.code !== undefined) this.code = init.code
    if (init.data !== undefined) this.data = init.data
    this.retryable = init.retryable ?? false
    if (init.remoteMessage !== undefined) this.remoteMessage = init.remoteMessage
  }
}

/** JSON of `value` (a bigint as its digits) cut to 120 characters, for messages. */
function shortJson(value: unknown): string {
  let text: string
  try {
    text = stringifyJson(value) ?? String(value)
  } catch {
    text = String(value)
  }
  return text.length > 120 ? `${text.slice(0, 119)}…` : text
}

/**
 * A fork could not be made or read (src/node/fork): `refused` when the request asked for what the remote cannot give
 * (a block past its head, another chain id: the caller's parameters), else the remote answered something that is not
 * what JSON-RPC promises. The message says which, and names the remote without its key.
 */
export class ForkError extends Error {
  override readonly name = 'ForkError'
  constructor(
    message: string,
    readonly refused = false,
  ) {
    super(message)
  }
}
