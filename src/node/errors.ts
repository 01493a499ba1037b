/**
 * The node's own failures, in domain terms. The node never builds JSON-RPC errors: `toRpcError` (src/errors.ts)
 * turns each of these into the code and text RSKj answers, in one place.
 */

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
