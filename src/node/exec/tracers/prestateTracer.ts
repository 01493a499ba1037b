/**
 * geth's `prestateTracer` (Anvil and Hardhat answer it too; RSKj has no such tracer, so it is an extension): the
 * accounts a transaction touched, with their balance, nonce, code and the storage slots it read or wrote, as they
 * were before it ran, and in diff mode as they were after it too.
 *
 * What counts as touched follows geth's `eth/tracers/native/prestate.go`: the sender, the recipient or the created
 * contract, the fee's receiver (on RSK the REMASC contract where the block has a REMASC transaction, which the fees
 * go to, else the coinbase), every address a BALANCE, EXTCODESIZE, EXTCODECOPY, EXTCODEHASH, SELFDESTRUCT or
 * CALL-family opcode names, every contract a CREATE or CREATE2 makes, and every slot an SLOAD or SSTORE names.
 *
 * Values are read from the state, not reconstructed: the recorder collects the touched set while the transaction
 * runs, reads the state the transaction left (`settle(…, 'after')`), and, once the caller has taken the transaction
 * back, the state it started from (`settle(…, 'before')`). geth reads each account at first touch and corrects the
 * sender's and the recipient's balance by the value and gas, which the state already holds here.
 */
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm'
import type { StateManagerInterface } from '@ethereumjs/common'
import { Address, bigIntToBytes, bytesToHex, equalsBytes, hexToBytes, KECCAK256_NULL, setLengthLeft } from '@ethereumjs/util'
import { EvmRecorder } from './recorder.js'
import { stepTouch } from './stepTouches.js'
import type { SizeBudget } from './sizeBudget.js'

/** An account as the prestate tracer shows it; undefined fields are left out of the reply. */
export interface PrestateAccount {
  balance?: bigint
  nonce?: bigint
  code?: Uint8Array
  /** 32-byte slot key (hex) → 32-byte value (hex), in key order when formatted. */
  storage?: Map<string, Uint8Array>
}

/** Address (lowercase hex) → account. */
export type Prestate = Map<string, PrestateAccount>

/** geth's `prestateTracerConfig` (Anvil's too): `diffMode`, `disableCode`, `disableStorage`. */
export interface PrestateOptions {
  diffMode: boolean
  disableCode: boolean
  disableStorage: boolean
}

/** What one account was, read from a state: undefined when it had no account. */
export interface Snapshot {
  balance: bigint
  nonce: bigint
  code: Uint8Array
  storage: Map<string, Uint8Array>
}

/** The prestate tracer's answer: the accounts before (`pre`), and in diff mode what changed (`post`). */
export interface PrestateTrace {
  pre: Prestate
  post?: Prestate
}

const ZERO_WORD = new Uint8Array(32)

const word = (v: bigint): Uint8Array => setLengthLeft(bigIntToBytes(v), 32)
const addressOf = (v: bigint): string => bytesToHex(word(v).subarray(12))

/** Attach to an EVM for one transaction or call, `settle` after and before it, then `finish`. */
export class PrestateRecorder extends EvmRecorder {
  /** Touched addresses → the slots touched in their storage (32-byte hex keys). */
  private readonly touched = new Map<string, Set<string>>()
  /** Addresses a creation (the transaction's or a CREATE/CREATE2) was for. */
  private readonly created = new Set<string>()
  private after?: Map<string, Snapshot | undefined>
  private before?: Map<string, Snapshot | undefined>

  /** `always`: the accounts touched whatever runs (the sender, the recipient, the fee's receiver). */
  constructor(
    always: readonly Uint8Array[],
    private readonly options: PrestateOptions,
    private readonly budget: SizeBudget,
  ) {
    super()
    for (const a of always) this.touch(bytesToHex(a))
  }

  /** Adds slots to the touched set from outside the EVM (the REMASC system transaction's words). */
  touch(address: string, slot?: Uint8Array): void {
    let slots = this.touched.get(address)
    if (slots === undefined) this.touched.set(address, (slots = new Set()))
    if (slot !== undefined && !this.options.disableStorage) slots.add(bytesToHex(setLengthLeft(slot, 32)))
  }

  protected readonly onStep = (step: InterpreterStep): void => {
    const t = stepTouch(step)
    if (t === undefined) return
    if ('slot' in t) this.touch(step.address.toString(), word(t.slot))
    else this.touch(addressOf(t.account))
  }

  protected readonly onBeforeMessage = (message: Message): void => {
    if (message.to !== undefined) this.touch(message.to.toString())
  }

  /** A CREATE or CREATE2, made or failed, names its address here (the engine sets it on every path). */
  protected readonly onAfterMessage = (result: EVMResult): void => {
    if (result.createdAddress === undefined) return
    const address = result.createdAddress.toString()
    this.touch(address)
    this.created.add(address)
  }

  /**
   * Reads every touched account from `state`: the state the transaction left, or the one it started from. The first
   * reading counts against the reply's budget as it goes (about the reply's size: hex doubles the bytes), so a
   * transaction that named thousands of large contracts stops at the limit instead of holding their code.
   */
  async settle(state: StateManagerInterface, when: 'after' | 'before'): Promise<void> {
    const counting = this.after === undefined && this.before === undefined
    const read = new Map<string, Snapshot | undefined>()
    for (const [address, slots] of this.touched) {
      const s = await this.snapshot(state, address, slots)
      if (counting) this.budget.spend(120 + (s === undefined ? 0 : s.code.length * 2 + s.storage.size * 140))
      read.set(address, s)
    }
    if (when === 'after') this.after = read
    else this.before = read
  }

  private async snapshot(state: StateManagerInterface, hex: string, slots: Set<string>): Promise<Snapshot | undefined> {
    const address = new Address(hexBytes(hex))
    const account = await state.getAccount(address)
    if (account === undefined) return undefined
    const code = this.options.disableCode || equalsBytes(account.codeHash, KECCAK256_NULL) ? new Uint8Array() : await state.getCode(address)
    const storage = new Map<string, Uint8Array>()
    for (const slot of slots) storage.set(slot, setLengthLeft(await state.getStorage(address, hexBytes(slot)), 32))
    return { balance: account.balance, nonce: account.nonce, code, storage }
  }

  /** The accounts read from the state the transaction left and from the one it started from (`settle`). */
  snapshots(): { before: Map<string, Snapshot | undefined>; after: Map<string, Snapshot | undefined> } {
    if (this.before === undefined || this.after === undefined) throw new Error('the prestate recorder was not settled')
    return { before: this.before, after: this.after }
  }

  /** The trace, in geth's rules for each mode. */
  finish(): PrestateTrace {
    const before = this.before
    const after = this.after
    if (before === undefined || after === undefined) throw new Error('the prestate recorder was not settled')
    return this.options.diffMode ? diff(before, after, this.created) : { pre: full(before) }
  }
}

/** Non-diff mode: every touched account as it was, one that did not exist as a zero balance (as Anvil answers it). */
function full(before: Map<string, Snapshot | undefined>): Prestate {
  const pre: Prestate = new Map()
  for (const [address, s] of before) pre.set(address, s === undefined ? { balance: 0n } : shown(s, s.storage))
  return pre
}

/**
 * Diff mode (geth `processDiffState`): `pre` holds the accounts that changed, as they were, with only their changed
 * slots whose old value was not zero; `post` holds what changed in them, with the changed slots whose new value is
 * not zero. A contract the transaction created is in `post` only; another account that did not exist (one paid
 * value) is in `pre` with a zero balance, as geth and Anvil show it; one it removed (SELFDESTRUCT) is in `pre` only.
 */
function diff(before: Map<string, Snapshot | undefined>, after: Map<string, Snapshot | undefined>, created: Set<string>): PrestateTrace {
  const pre: Prestate = new Map()
  const post: Prestate = new Map()
  for (const [address, b] of before) {
    const a = after.get(address)
    if (b === undefined && a === undefined) continue
    if (a === undefined) {
      pre.set(address, shown(b!, nonZero(b!.storage)))
      continue
    }
    const old: Snapshot = b ?? { balance: 0n, nonce: 0n, code: new Uint8Array(), storage: new Map() }
    const changed: PrestateAccount = {}
    if (a.balance !== old.balance) changed.balance = a.balance
    if (a.nonce !== old.nonce) changed.nonce = a.nonce
    if (!equalsBytes(a.code, old.code)) changed.code = a.code
    const oldSlots = new Map<string, Uint8Array>()
    const newSlots = new Map<string, Uint8Array>()
    for (const [slot, value] of a.storage) {
      const was = old.storage.get(slot) ?? ZERO_WORD
      if (equalsBytes(was, value)) continue
      if (!equalsBytes(was, ZERO_WORD)) oldSlots.set(slot, was)
      if (!equalsBytes(value, ZERO_WORD)) newSlots.set(slot, value)
      changed.storage = newSlots
    }
    if (Object.keys(changed).length === 0) continue
    if (changed.storage !== undefined && changed.storage.size === 0) delete changed.storage
    post.set(address, changed)
    if (b !== undefined) pre.set(address, shown(b, oldSlots))
    else if (!created.has(address)) pre.set(address, { balance: 0n })
  }
  return { pre, post }
}

/** geth's JSON rules: the balance always, the nonce when not 0, the code when not empty, the storage when not empty. */
function shown(s: Snapshot, storage: Map<string, Uint8Array>): PrestateAccount {
  return {
    balance: s.balance,
    ...(s.nonce !== 0n ? { nonce: s.nonce } : {}),
    ...(s.code.length > 0 ? { code: s.code } : {}),
    ...(storage.size > 0 ? { storage } : {}),
  }
}

function nonZero(storage: Map<string, Uint8Array>): Map<string, Uint8Array> {
  return new Map([...storage].filter(([, v]) => !equalsBytes(v, ZERO_WORD)))
}

const hexBytes = (hex: string): Uint8Array => hexToBytes(hex as `0x${string}`)
