/**
 * The accounts and storage slots a call touches, for `eth_createAccessList` (geth's method; Anvil and Hardhat answer
 * it). The rules are geth's access-list tracer (`eth/tracers/logger/access_list_tracer.go`), which Anvil's
 * `AccessListInspector` (paradigmxyz/revm-inspectors `src/access_list.rs`) follows:
 *
 * - SLOAD and SSTORE add the slot under the account whose storage the frame uses (a DELEGATECALL's caller);
 * - BALANCE, EXTCODESIZE, EXTCODECOPY, EXTCODEHASH and SELFDESTRUCT add the account named on the stack, CALL,
 *   CALLCODE, DELEGATECALL and STATICCALL their target, each without slots, unless it is the sender, the call's
 *   recipient (for a creation, the new contract) or a precompile (RSK's: reference §7.6). Those three are listed only
 *   with the slots the call used in their storage.
 *
 * On RSK an access list changes nothing: there are no typed (EIP-2930) transactions to carry one, and no EIP-2929
 * warm/cold pricing it could pay for in advance. So one run gives the list (geth runs again with the list applied
 * until it stops changing, since the list's own gas effect can change the path) and its gas.
 */
import type { EVM, InterpreterStep } from '@ethereumjs/evm'
import { bigIntToBytes, bytesToHex, setLengthLeft } from '@ethereumjs/util'
import type { Chain } from '../chain/chain.js'
import type { BlockRecord } from '../chain/types.js'
import { isRskPrecompile } from '../rsk/evm/evmProfile.js'
import { stepTouch } from './tracers/stepTouches.js'
import { execute, type CallListener, type CallOutcome, type CallRequest, type StateOverrides } from './call.js'


/** One entry of an access list: an account and the storage slots used in it, both ascending. */
export interface AccessListEntry {
  address: Uint8Array
  storageKeys: bigint[]
}

export interface AccessListOutcome {
  accessList: AccessListEntry[]
  outcome: CallOutcome
}

/** Records what a call touches, as geth's access-list tracer does (see the file comment). */
class AccessRecorder implements CallListener {
  /** Slots by account (`0x` hex): every account whose storage the call used. */
  readonly slots = new Map<string, Set<bigint>>()
  /** Accounts (as stack words) named by an opcode, before the exclusions. */
  readonly named = new Set<bigint>()
  /** The top frame's account: the call's recipient, or the contract a creation makes. */
  top: bigint | undefined

  private readonly onStep = (step: InterpreterStep): void => {
    if (step.depth === 0 && this.top === undefined) this.top = BigInt(step.address.toString())
    const t = stepTouch(step)
    if (t === undefined) return
    if ('account' in t) {
      this.named.add(t.account)
      return
    }
    this.addSlot(step.address.toString(), t.slot)
  }

  /** Lists slot `key` of `owner` (`0x` hex). */
  addSlot(owner: string, key: bigint): void {
    let set = this.slots.get(owner)
    if (set === undefined) this.slots.set(owner, (set = new Set()))
    set.add(key)
  }

  attach(evm: EVM): void {
    evm.events.on('step', this.onStep)
  }

  detach(evm: EVM): void {
    evm.events.off('step', this.onStep)
  }
}

const addressBytes = (word: bigint): Uint8Array => setLengthLeft(bigIntToBytes(word), 20)

/**
 * Runs `req` at `block` as eth_call runs it (nothing is kept) and answers the accounts and slots it touched, accounts
 * in ascending order (Anvil's order changes from one call to the next: a hash map), each one's slots ascending.
 */
export async function accessListOf(
  chain: Chain,
  block: BlockRecord,
  req: CallRequest,
  gasLimit: bigint,
  overrides?: StateOverrides,
  given: readonly AccessListEntry[] = [],
): Promise<AccessListOutcome> {
  const recorder = new AccessRecorder()
  const outcome = await execute(chain, block, req, gasLimit, overrides, recorder)
  // The call's own `accessList` starts the list, as geth's tracer starts from it (`NewAccessListTracer`): its
  // accounts under the same exclusions, its slots always (an excluded account is then listed with them).
  for (const e of given) {
    const owner = bytesToHex(e.address)
    for (const k of e.storageKeys) recorder.addSlot(owner, k)
    recorder.named.add(BigInt(owner))
  }
  const sender = req.from === undefined ? 0n : BigInt(bytesToHex(req.from))
  const recipient = recorder.top ?? (req.to === undefined ? undefined : BigInt(bytesToHex(req.to)))
  const words = new Set<bigint>()
  for (const hex of recorder.slots.keys()) words.add(BigInt(hex))
  for (const w of recorder.named) if (w !== sender && w !== recipient && !isRskPrecompile(w)) words.add(w)
  const accessList = [...words]
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((w) => {
      const address = addressBytes(w)
      const keys = [...(recorder.slots.get(bytesToHex(address)) ?? [])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      return { address, storageKeys: keys }
    })
  return { accessList, outcome }
}
