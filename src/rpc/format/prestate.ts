/**
 * The JSON shape of geth's `prestateTracer` (an extension: RSKj has no such tracer), as geth and Anvil write it:
 * addresses and slot keys in ascending order (Go writes a map's keys sorted), `balance` as a QUANTITY, `nonce` as a
 * JSON number, `code` as DATA, `storage` as 32-byte keys to 32-byte values; absent fields left out. Pure.
 */
import { bytesToHex } from '@ethereumjs/util'
import type { Prestate, PrestateTrace } from '../../node/exec/tracers/index.js'
import { quantity } from './hex.js'

function formatState(state: Prestate): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const address of [...state.keys()].sort()) {
    const a = state.get(address)!
    const storage: Record<string, string> = {}
    if (a.storage !== undefined) for (const slot of [...a.storage.keys()].sort()) storage[slot] = bytesToHex(a.storage.get(slot)!)
    out[address] = {
      ...(a.balance !== undefined ? { balance: quantity(a.balance) } : {}),
      ...(a.code !== undefined ? { code: bytesToHex(a.code) } : {}),
      ...(a.nonce !== undefined ? { nonce: Number(a.nonce) } : {}),
      ...(a.storage !== undefined ? { storage } : {}),
    }
  }
  return out
}

/** The accounts before (`{address: account}`), or in diff mode `{post, pre}`. */
export function formatPrestate(trace: PrestateTrace): unknown {
  return trace.post === undefined ? formatState(trace.pre) : { post: formatState(trace.post), pre: formatState(trace.pre) }
}
