/**
 * OpenEthereum's `stateDiff` (what `trace_replayTransaction` and `trace_replayBlockTransactions` answer, as Anvil,
 * Erigon and Nethermind do): for each account the transaction changed, its balance, nonce and code as `=` (the same),
 * `*` (from, to), `+` (an account it created) or `-` (one it removed), and each storage slot that changed. Built from
 * the prestate recorder's reads of the touched accounts before and after the transaction (prestateTracer.ts).
 */
import { equalsBytes } from '@ethereumjs/util'
import type { Snapshot } from './prestateTracer.js'

/** One field: unchanged, changed, born with the account, or gone with it. */
export type Delta<T> = '=' | { '*': { from: T; to: T } } | { '+': T } | { '-': T }

export interface AccountDiff {
  balance: Delta<bigint>
  code: Delta<Uint8Array>
  nonce: Delta<bigint>
  /** 32-byte slot key (hex) → its change; only slots whose value changed. */
  storage: Map<string, Delta<Uint8Array>>
}

/** Address (lowercase hex) → what changed in it; unchanged accounts are left out. */
export type StateDiff = Map<string, AccountDiff>

const ZERO_WORD = new Uint8Array(32)
const isZero = (v: Uint8Array): boolean => equalsBytes(v, ZERO_WORD)

function delta<T>(from: T, to: T, same: (a: T, b: T) => boolean): Delta<T> {
  return same(from, to) ? '=' : { '*': { from, to } }
}

const sameBigInt = (a: bigint, b: bigint): boolean => a === b

/** Every slot of `s` whose value is not zero, each as `+` or `-` (an account born or removed with its storage). */
function wholeStorage(s: Snapshot, sign: '+' | '-'): Map<string, Delta<Uint8Array>> {
  const out = new Map<string, Delta<Uint8Array>>()
  for (const [slot, value] of s.storage) if (!isZero(value)) out.set(slot, (sign === '+' ? { '+': value } : { '-': value }) as Delta<Uint8Array>)
  return out
}

/** The changes between the touched accounts' reads `before` and `after` one transaction. */
export function stateDiff(before: Map<string, Snapshot | undefined>, after: Map<string, Snapshot | undefined>): StateDiff {
  const out: StateDiff = new Map()
  for (const [address, b] of before) {
    const a = after.get(address)
    if (b === undefined && a === undefined) continue
    if (b === undefined) {
      out.set(address, { balance: { '+': a!.balance }, code: { '+': a!.code }, nonce: { '+': a!.nonce }, storage: wholeStorage(a!, '+') })
      continue
    }
    if (a === undefined) {
      out.set(address, { balance: { '-': b.balance }, code: { '-': b.code }, nonce: { '-': b.nonce }, storage: wholeStorage(b, '-') })
      continue
    }
    const storage = new Map<string, Delta<Uint8Array>>()
    for (const [slot, to] of a.storage) {
      const from = b.storage.get(slot) ?? ZERO_WORD
      if (!equalsBytes(from, to)) storage.set(slot, { '*': { from, to } })
    }
    const diff: AccountDiff = {
      balance: delta(b.balance, a.balance, sameBigInt),
      code: delta(b.code, a.code, equalsBytes),
      nonce: delta(b.nonce, a.nonce, sameBigInt),
      storage,
    }
    if (diff.balance === '=' && diff.code === '=' && diff.nonce === '=' && storage.size === 0) continue
    out.set(address, diff)
  }
  return out
}
