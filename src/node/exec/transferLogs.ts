/**
 * eth_simulateV1's `traceTransfers`: every movement of value a call makes is reported as an ERC-20 `Transfer` log
 * from the pseudo address 0xEeeee…EEeE (ERC-7528), in order among the contract's own logs (execution-apis
 * docs/reference/ethsimulatev1-notes: "ETH transfer logs"; geth internal/ethapi/logtracer.go does the same). Listed:
 * the transaction's own value, a CALL's or CREATE's value, a SELFDESTRUCT's balance; not DELEGATECALL or CALLCODE
 * (no value moves to another account), not gas fees, not balance overrides. A frame that fails takes its transfers
 * with it, as it takes its logs.
 *
 * Why markers: the engine reports a transaction's logs only at the end (its `execResult.logs`, the logs of the
 * frames that succeeded, in order). To put a transfer where it happened among them, each frame keeps a list of what
 * happened in it: a LOG opcode (a marker whose log the engine hands over at the end), a transfer, or a child frame.
 * A failed frame's list is emptied. Walked in order at the end, the surviving markers are exactly the engine's
 * logs, one for one (checked).
 */
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm'
import { EvmRecorder } from './tracers/recorder.js'
import { Address, bigIntToBytes, setLengthLeft } from '@ethereumjs/util'
import type { LogRecord } from '../chain/types.js'
import { LiveState } from '../state/liveState.js'

/** ERC-7528's address for the chain's native coin. */
const NATIVE_TRANSFER_ADDRESS = new Uint8Array(20).fill(0xee)
/** keccak256("Transfer(address,address,uint256)"). */
const TRANSFER_TOPIC = Uint8Array.from(Buffer.from('ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', 'hex'))

interface Transfer {
  kind: 'transfer'
  from: Uint8Array
  /** Unknown for a CREATE until its frame ends (the engine computes the address inside it). */
  to?: Uint8Array
  value: bigint
}
type Item = { kind: 'log' } | Transfer | { kind: 'frame'; items: Item[] }

const LOG0 = 0xa0
const LOG4 = 0xa4
const SELFDESTRUCT = 0xff

/** Listens to the EVM while one simulated transaction runs; `logs` then merges its transfers into the engine's logs. */
export class TransferLogs extends EvmRecorder {
  private top: Item[] = []
  private readonly open: { items: Item[]; transfer?: Transfer }[] = []
  /** The last opcode seen at each depth: the one that opened the frame at depth + 1. */
  private readonly lastOp: number[] = []

  protected readonly onBeforeMessage = (message: Message): void => {
    const items: Item[] = []
    const parent = this.open[this.open.length - 1]
    if (parent === undefined) this.top = items
    else parent.items.push({ kind: 'frame', items })
    const opener = message.depth === 0 ? undefined : this.lastOp[message.depth - 1]
    let transfer: Transfer | undefined
    // DELEGATECALL (0xf4) and CALLCODE (0xf2) run another's code in the caller's own account: nothing moves.
    if (message.value > 0n && opener !== 0xf4 && opener !== 0xf2) {
      transfer = { kind: 'transfer', from: message.caller.bytes, value: message.value, ...(message.to !== undefined ? { to: message.to.bytes } : {}) }
      items.push(transfer)
    }
    this.open.push({ items, ...(transfer !== undefined ? { transfer } : {}) })
  }

  protected readonly onAfterMessage = (result: EVMResult): void => {
    const frame = this.open.pop()
    if (frame === undefined) return
    if (frame.transfer !== undefined && frame.transfer.to === undefined && result.createdAddress !== undefined) frame.transfer.to = result.createdAddress.bytes
    if (result.execResult.exceptionError !== undefined) frame.items.length = 0
  }

  protected readonly onStep = (step: InterpreterStep): void => {
    const code = step.opcode.code
    this.lastOp[step.depth] = code
    const frame = this.open[this.open.length - 1]
    if (frame === undefined) return
    if (code >= LOG0 && code <= LOG4) frame.items.push({ kind: 'log' })
    else if (code === SELFDESTRUCT && step.stack.length > 0) {
      // The contract's balance as SELFDESTRUCT moves it: its account was read to run it, so it is known without a read.
      const state = step.stateManager
      const self = step.address
      if (!(state instanceof LiveState) || state.preload([self]) !== undefined) return
      const balance = state.accountNow(self)?.balance ?? 0n
      const to = setLengthLeft(bigIntToBytes(step.stack[step.stack.length - 1]!), 32).subarray(12)
      if (balance > 0n) frame.items.push({ kind: 'transfer', from: self.bytes, to: new Address(to).bytes, value: balance })
    }
  }

  /** The transaction's logs, `engineLogs` (its `execResult.logs`), with the transfers in their places. */
  logs(engineLogs: readonly LogRecord[]): LogRecord[] {
    const out: LogRecord[] = []
    let next = 0
    const walk = (items: Item[]): void => {
      for (const item of items) {
        if (item.kind === 'frame') walk(item.items)
        else if (item.kind === 'log') out.push(engineLogs[next++]!)
        else if (item.to !== undefined) out.push(transferLog(item.from, item.to, item.value))
      }
    }
    walk(this.top)
    if (next !== engineLogs.length) throw new Error(`traceTransfers: ${next} LOG opcodes kept, the engine kept ${engineLogs.length} logs`)
    return out
  }
}

function transferLog(from: Uint8Array, to: Uint8Array, value: bigint): LogRecord {
  return { address: NATIVE_TRANSFER_ADDRESS, topics: [TRANSFER_TOPIC, setLengthLeft(from, 32), setLengthLeft(to, 32)], data: setLengthLeft(bigIntToBytes(value), 32) }
}
