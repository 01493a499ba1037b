/**
 * Finds the storage slot behind an ERC-20 view (`balanceOf(holder)`, `allowance(owner, spender)`), for Anvil's
 * `anvil_dealERC20` and `anvil_setERC20Allowance`, as Anvil finds it (`find_erc20_storage_slot` in
 * foundry-rs/foundry `crates/anvil/src/eth/api.rs`): run the view once recording the token's storage slots it reads,
 * then, for each in the order read, run it again with that slot overridden and keep the first whose value comes back
 * as the answer. Anvil tries one value; a slot is kept here only when two different values both come back (the
 * amount and another): when the holder already has the amount, a slot the view reads and drops also gives the
 * amount back with the amount in it, and Anvil 1.7.1 writes that one (tried by hand; test/erc20_cheats.test.ts).
 */
import type { EVM, InterpreterStep } from '@ethereumjs/evm'
import { bytesToBigInt, bytesToHex } from '@ethereumjs/util'
import type { Chain } from '../chain/chain.js'
import { execute, type CallListener, type StateOverrides } from '../exec/call.js'

const SLOAD = 0x54

/** Records the slots of `token`'s own storage a call reads (SLOAD in a frame whose storage is the token's). */
class SlotReads implements CallListener {
  readonly slots: bigint[] = []
  private readonly seen = new Set<bigint>()
  constructor(private readonly tokenHex: string) {}

  private readonly onStep = (step: InterpreterStep): void => {
    if (step.opcode.code !== SLOAD || step.stack.length === 0) return
    if (step.address.toString() !== this.tokenHex) return
    const slot = step.stack[step.stack.length - 1]!
    if (this.seen.has(slot)) return
    this.seen.add(slot)
    this.slots.push(slot)
  }

  attach(evm: EVM): void {
    evm.events.on('step', this.onStep)
  }

  detach(evm: EVM): void {
    evm.events.off('step', this.onStep)
  }
}

/**
 * The slot of `token` that holds what `view` (ABI-encoded calldata answering one uint256) answers, at the head; undefined
 * when none does (a view that reverts, reads no slot of the token, or computes its answer).
 */
export async function findViewSlot(chain: Chain, token: Uint8Array, view: Uint8Array, amount: bigint, gasLimit: bigint): Promise<bigint | undefined> {
  const reads = new SlotReads(bytesToHex(token))
  const first = await execute(chain, chain.head, { to: token, data: view }, gasLimit, undefined, reads)
  if (first.error !== undefined) return undefined
  const other = amount === 0n ? 1n : amount - 1n
  for (const slot of reads.slots) {
    // Past the request's deadline each call fails at its first JUMPDEST, yet a view that read 20,000 slots would still
    // start 20,000 of them (0.4 s here): stop at once instead.
    chain.guard.check()
    if ((await answerWith(chain, token, view, slot, amount, gasLimit)) && (await answerWith(chain, token, view, slot, other, gasLimit))) return slot
  }
  return undefined
}

/** Whether `view` answers `value` with slot `slot` of `token` set to it. */
async function answerWith(chain: Chain, token: Uint8Array, view: Uint8Array, slot: bigint, value: bigint, gasLimit: bigint): Promise<boolean> {
  const overrides: StateOverrides = new Map([[bytesToHex(token), { address: token, override: { stateDiff: new Map([[slot, value]]) } }]])
  const out = await execute(chain, chain.head, { to: token, data: view }, gasLimit, overrides)
  return out.error === undefined && out.returnValue.length >= 32 && bytesToBigInt(out.returnValue.subarray(0, 32)) === value
}
