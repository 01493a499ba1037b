/**
 * What one EVM step names, by the rules geth's access-list and prestate tracers share (eth/tracers/logger/
 * access_list_tracer.go, eth/tracers/native/prestate.go): SLOAD and SSTORE a slot of the account whose storage the
 * frame uses (a DELEGATECALL's caller: `step.address`); BALANCE, EXTCODESIZE, EXTCODECOPY, EXTCODEHASH and
 * SELFDESTRUCT the account on top of the stack; CALL, CALLCODE, DELEGATECALL and STATICCALL their target (the second
 * word, under the gas). Used by the prestate tracer (prestateTracer.ts) and eth_createAccessList (exec/accessList.ts).
 */
import type { InterpreterStep } from '@ethereumjs/evm'

const SLOT_OPS = new Set([0x54, 0x55])
const NAMES_ACCOUNT = new Set([0x31, 0x3b, 0x3c, 0x3f, 0xff])
const CALLS = new Set([0xf1, 0xf2, 0xf4, 0xfa])
const ADDRESS_MASK = (1n << 160n) - 1n

/** A slot (the key as a word) of `step.address`'s storage, or an account (its address as a word). */
export type StepTouch = { slot: bigint } | { account: bigint }

/** What `step` names (see the file comment), or undefined. */
export function stepTouch(step: InterpreterStep): StepTouch | undefined {
  const op = step.opcode.code
  const stack = step.stack
  const n = stack.length
  if (SLOT_OPS.has(op)) return n >= 1 ? { slot: stack[n - 1]! } : undefined
  if (NAMES_ACCOUNT.has(op)) return n >= 1 ? { account: stack[n - 1]! & ADDRESS_MASK } : undefined
  if (CALLS.has(op)) return n >= 2 ? { account: stack[n - 2]! & ADDRESS_MASK } : undefined
  return undefined
}
