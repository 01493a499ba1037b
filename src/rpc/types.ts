/** JSON-RPC 2.0 envelopes as rsksim reads and writes them (spec "JSON-RPC request/response"). */

export type JsonRpcId = number | string | null

/** One request object as received; every member is checked by the dispatcher before use. */
export interface JsonRpcRequest {
  jsonrpc?: string
  id?: JsonRpcId
  method: string
  params?: unknown
}

export interface JsonRpcErrorObject {
  code: number
  message: string
  data?: string
}

/** Key order follows RSKj: `jsonrpc`, `id`, then `result` or `error` (reference §1.2). */
export type JsonRpcResponse =
  | { jsonrpc: string; id?: JsonRpcId; result: unknown }
  | { jsonrpc: string; id?: JsonRpcId; error: JsonRpcErrorObject }

/**
 * What the dispatcher answers for one parsed HTTP body:
 * - a response object (single request),
 * - an array of responses (batch; notifications leave no entry),
 * - a bare `{ error }` object when the batch itself is refused (over the batch limit),
 * - `undefined` when nothing is to be written (a notification).
 */
export type JsonRpcReply = JsonRpcResponse | JsonRpcResponse[] | { error: JsonRpcErrorObject } | undefined

/** EIP-1193 request arguments. */
export interface RequestArguments {
  readonly method: string
  /** Usually an array; anything else is answered -32602 by the method, as over HTTP. */
  readonly params?: unknown
}
