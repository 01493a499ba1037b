/**
 * `eth_sendRawTransactionSync(rawTx, timeoutMs?)`, EIP-7966 (ethereum/EIPs `EIPS/eip-7966.md`), which Anvil answers
 * and viem's `sendRawTransactionSync` (and, for a local account, `sendTransactionSync` / `writeContractSync`) sends:
 * the transaction is submitted as eth_sendRawTransaction submits it (the same decoding, pool rules and RSKj errors),
 * and the answer is its receipt, as eth_getTransactionReceipt formats it, once it is mined. An extension (RSKj has no
 * such method): -32601 in hosted mode.
 *
 * Under automine the receipt is there when the submission returns. Otherwise the request waits outside the node's
 * queue (other requests, evm_mine from another client, interval mining go on), watching the blocks the node appends,
 * and reads the receipt inside the queue once its block is there.
 */
import { data as dataCodec, optional, show, type Codec } from '../../codecs/primitives.js'
import { decodeRawTransaction } from '../../codecs/rawTransaction.js'
import { invalidParams, RpcError } from '../../../errors.js'
import { method, type HandlerContext, type MethodSpec, type MethodTable } from '../../method.js'
import { formatReceipt, type ReceiptJson } from '../../format/receipt.js'
import { watchInclusion, type InclusionOutcome } from '../../../node/miner/inclusion.js'
import type { RskNode } from '../../../node/node.js'

/** EIP-7966's recommended wait ("RECOMMENDED: 2 seconds"), when the request names none (or 0). */
export const DEFAULT_SYNC_WAIT_MS = 2_000

/**
 * The longest wait a request may ask for; a longer one is cut to it. Anvil's bound: 1.7.1 waits exactly 30 s, its
 * later versions cap the asked wait at 30 s. The wait holds nothing of the node (no queue turn, no checkpoint), only
 * the caller's connection and a timer, so it is not bounded by `rpcTimeout`, which bounds work done in the queue.
 */
export const MAX_SYNC_WAIT_MS = 30_000

/** EIP-7966 §Returns: "an error code `4` with a timeout message", the hash as `data`. */
const TIMEOUT_CODE = 4
/** EIP-7966 §Returns: "an error code `5`" when the node will not process the transaction now (here: a nonce gap). */
const NOT_READY_CODE = 5

/** Milliseconds as a JSON integer or a `0x` quantity; 0 means the default (EIP-7966: an invalid wait → the default). */
const waitMs: Codec<number> = (v) => {
  let n: bigint | undefined
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) n = BigInt(v)
  else if (typeof v === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(v)) n = BigInt(v)
  if (n === undefined) {
    throw invalidParams(`Invalid timeout ${show(v)}: the milliseconds to wait for the receipt, a non-negative JSON integer or a 0x quantity`)
  }
  if (n === 0n) return DEFAULT_SYNC_WAIT_MS
  return n > BigInt(MAX_SYNC_WAIT_MS) ? MAX_SYNC_WAIT_MS : Number(n)
}

/** EIP-7966's example text, "The transaction was added to the mempool but wasn't processed in 2s.". */
function timedOut(hashHex: string, ms: number): RpcError {
  const took = ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`
  return new RpcError(TIMEOUT_CODE, `The transaction was added to the mempool but wasn't processed in ${took}.`, { data: hashHex })
}

type Submitted = { receipt: ReceiptJson } | { hashHex: string; watch: Promise<InclusionOutcome> }

/** The receipt of a mined transaction, or, when it is still waiting, a fresh watch (made here, inside the queue). */
function receiptOrWatch(node: RskNode, hashHex: string, deadline: number): Submitted {
  const at = node.chain.store.getTx(hashHex)
  return at !== undefined ? { receipt: formatReceipt(at) } : { hashHex, watch: watchInclusion(node.events, hashHex, deadline) }
}

async function sendRawTransactionSync({ node }: HandlerContext, raw: Uint8Array, ms = DEFAULT_SYNC_WAIT_MS): Promise<ReceiptJson> {
  // The wait starts once the transaction is in the pool.
  let deadline = 0
  // Step 1, in the queue under the request deadline, as invoke runs eth_sendRawTransaction: the same submission.
  let step: Submitted = await node.queue.run(() =>
    node.chain.guard.within(node.options.rpcTimeout, async () => {
      const t = decodeRawTransaction(raw, node.chain.common)
      // A mined failed transaction is answered with its receipt (status 0x0), as EIP-7966 and Anvil answer it: the
      // -32015 of eth_sendRawTransaction is RSKj's instant autominer's rule, and this method's answer is the receipt.
      await node.submit(t)
      if (node.pool.has(t.hashHex) && !node.pool.isPending(t.hashHex)) {
        const next = node.pool.nextNonce(t.fromHex, await node.chain.nonceAt(t.from, node.chain.head))
        throw new RpcError(
          NOT_READY_CODE,
          `The transaction was added to the mempool but wasn't processed due to a missing nonce: its nonce is ${t.tx.nonce} and the sender's next is ${next}, so it waits in the queued set until the nonces between are sent.`,
          { data: t.hashHex },
        )
      }
      deadline = Date.now() + ms
      return receiptOrWatch(node, t.hashHex, deadline)
    }),
  )
  // Step 2, outside the queue: wait for a block holding it; read the receipt in the queue (a block removed in between,
  // by evm_revert or a reorg, is waited past until the deadline).
  while (!('receipt' in step)) {
    const { hashHex, watch } = step
    const outcome = await watch
    if (outcome === 'timeout') throw timedOut(hashHex, ms)
    if (outcome === 'closed') {
      throw new RpcError(TIMEOUT_CODE, 'The transaction was added to the mempool, and the node was closed before it was processed.', { data: hashHex })
    }
    step = await node.queue.run(() => receiptOrWatch(node, hashHex, deadline))
  }
  return step.receipt
}

const sync: MethodSpec = { ...method([dataCodec, optional(waitMs)], (ctx, raw, ms) => sendRawTransactionSync(ctx, raw, ms)), queuesItself: true }

export const ethSyncMethods: MethodTable = {
  eth_sendRawTransactionSync: sync,
}
