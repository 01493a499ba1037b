/**
 * The JSON of OpenEthereum's `stateDiff` (trace_replayTransaction, trace_replayBlockTransactions), as Anvil 1.7.1
 * writes it: addresses and slot keys in ascending order; each account's `balance`, `code`, `nonce` (QUANTITY, DATA,
 * QUANTITY) and `storage` (32-byte keys to 32-byte values), each unchanged (`"="`), changed (`{"*": {from, to}}`),
 * born (`{"+": value}`) or removed (`{"-": value}`). Pure.
 */
import { bytesToHex } from '@ethereumjs/util'
import type { Delta, StateDiff } from '../../node/exec/tracers/index.js'
import { quantity } from './hex.js'

function formatDelta<T>(d: Delta<T>, show: (v: T) => string): unknown {
  if (d === '=') return '='
  if ('*' in d) return { '*': { from: show(d['*'].from), to: show(d['*'].to) } }
  if ('+' in d) return { '+': show(d['+']) }
  return { '-': show(d['-']) }
}

export function formatStateDiff(diff: StateDiff): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const address of [...diff.keys()].sort()) {
    const a = diff.get(address)!
    const storage: Record<string, unknown> = {}
    for (const slot of [...a.storage.keys()].sort()) storage[slot] = formatDelta(a.storage.get(slot)!, bytesToHex)
    out[address] = { balance: formatDelta(a.balance, quantity), code: formatDelta(a.code, bytesToHex), nonce: formatDelta(a.nonce, quantity), storage }
  }
  return out
}
