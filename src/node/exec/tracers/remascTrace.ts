/**
 * The call tree of the REMASC system transaction, as RSKj traces it. REMASC is a precompiled contract, so RSKj
 * runs no program for it: `TransactionExecutor.extractTrace` builds a `SummarizedProgramTrace` over a
 * `TransferInvoke(sender, receiver, gas 0, value, data)` and adds the precompile's subtraces, which for REMASC are
 * one `CALL` per fee payment (`co/rsk/remasc/RemascFeesPayer.transferPayment`: a `TransferInvoke(REMASC, payee,
 * gas 0, amount)` with an empty `ProgramResult`). `TraceTransformer.toTraces` then prints the top frame with the
 * receipt's gas used and every subtrace with the transaction's own input (`toAction` reads the input of a CALL
 * from the transaction, not from the invoke).
 *
 * Each payment is also logged (`RemascFeesPayer.logPayment`: topics [mining_fee_topic, payee], data
 * RLP[paid block hash, amount]), one log per payment in payment order, so the receipt's logs give the subtraces
 * without re-running REMASC.
 */
import { RLP } from '@ethereumjs/rlp'
import { bytesToBigInt } from '@ethereumjs/util'
import type { BlockRecord } from '../../chain/types.js'
import type { CallFrame, IndexedLog, TxCallTrace } from './types.js'

/** The REMASC transaction's trace: index `index` of `block` must be the REMASC system transaction. */
export function remascCallTrace(block: BlockRecord, index: number): TxCallTrace {
  const t = block.transactions[index]!
  const receipt = block.receipts[index]!
  let logIndex = 0
  for (let i = 0; i < index; i++) logIndex += block.receipts[i]?.logs.length ?? 0
  const logs: IndexedLog[] = receipt.logs.map((l, i) => ({ ...l, index: logIndex + i }))
  const to = t.tx.to!.bytes
  const input = t.tx.data
  const calls: CallFrame[] = logs.map((l) => {
    const [, amount] = RLP.decode(l.data) as Uint8Array[]
    return {
      type: 'call',
      callType: 'CALL',
      from: to,
      to: l.topics[1]!.subarray(12),
      value: bytesToBigInt(amount ?? new Uint8Array()),
      gas: 0n,
      gasUsed: 0n,
      input,
      output: new Uint8Array(),
      reverted: false,
      logs: [],
      calls: [],
    }
  })
  const top: CallFrame = {
    type: 'call',
    callType: 'CALL',
    from: t.from,
    to,
    value: t.tx.value,
    gas: 0n,
    gasUsed: receipt.gasUsed,
    input,
    output: new Uint8Array(),
    reverted: false,
    logs,
    calls,
  }
  return { txHashHex: t.hashHex, blockHashHex: block.hashHex, blockNumber: block.number, index, top }
}
