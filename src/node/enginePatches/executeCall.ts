/**
 * `EVM._executeCall` without its slow copy of the message (written against @ethereumjs/evm 10.1.3, dist/esm/evm.js).
 *
 * Why: the engine hands the interpreter a copy of the call's message built as
 * `{ ...{ codeAddress: message.codeAddress }, ...message, gasLimit }`. Spreading the message's 19 fields into an object
 * that already has a property takes V8's generic path, one property at a time: 33-37 µs per call frame here, about a
 * sixth of an `eth_call` of `balanceOf` (profile: `node bench/profile.mjs --workloads calls`, the spread's line), and
 * even `{ ...message, codeAddress, gasLimit }` cost 3.1-4.6 µs against 0.14-0.28 µs without the added `codeAddress`
 * (measured alone, Node 20: adding a property to a spread copy is V8's slow path). The copy only gives the
 * interpreter the message's fields with `gasLimit` set to what this method charged before it, and on the path copied
 * here nothing is charged before (gasLimit stays `message.gasLimit`), so the message itself is handed over:
 * `runInterpreter` reads its fields by name (`codeAddress` through Message.prototype's getter) and writes none.
 *
 * Only the path rsksim's chains take is copied: calls with none of the EIPs whose steps
 * the engine's method adds (6800, 7864 and 7928 witnesses, 2780 top-frame charges, 7708 transfer logs) active, the
 * engine's debug logging off and no profiler. Anything else, and the switch turned off, runs the engine's own method.
 * Everything kept is the engine's method line for line; the load check looks for the pieces copied in its text.
 */
import { EVM } from '@ethereumjs/evm'
import { Account } from '@ethereumjs/util'
import type { Address } from '@ethereumjs/util'
import { enginePatches } from './switch.js'
import { sourceHasAll, sourceOf } from './sourceText.js'

/** The message fields read here (a `Message` of @ethereumjs/evm). */
interface Message {
  caller: Address
  to: Address
  codeAddress: Address
  gasLimit: bigint
  gasRefund: bigint
  depth: number
  delegatecall: boolean
  isCompiled: boolean
  code?: unknown
  data: Uint8Array
}

interface Result {
  executionGasUsed: bigint
  gasRefund?: bigint
}

/** The EVM members used here (protected in the typings). */
interface EvmInternals {
  DEBUG: boolean
  common: { isActivatedEIP(eip: number): boolean }
  stateManager: { getAccount(address: Address): Promise<Account | undefined> }
  _optsCached: { profiler?: { enabled?: boolean } }
  _executeCall(message: Message): Promise<{ execResult: unknown }>
  _reduceSenderBalance(account: Account, message: Message): Promise<void>
  _addToBalance(account: Account, message: Message): Promise<void>
  _loadCode(message: Message): Promise<void>
  postMessageCleanup(): void
  runInterpreter(message: object, opts: { initialLogs?: unknown }): Promise<Result>
  runPrecompile(code: unknown, data: Uint8Array, gasLimit: bigint): Promise<Result>
}

/** EIPs that add steps to the engine's method: with any of them active, the engine's own method runs. */
const ENGINE_ONLY_EIPS = [6800, 7864, 7928, 2780, 7708]

function patch(proto: EvmInternals): void {
  const original = proto._executeCall
  proto._executeCall = async function (this: EvmInternals, message: Message) {
    if (
      !enginePatches.active ||
      this.DEBUG ||
      this._optsCached.profiler?.enabled === true ||
      ENGINE_ONLY_EIPS.some((eip) => this.common.isActivatedEIP(eip))
    ) {
      return original.call(this, message)
    }
    const gasLimit = message.gasLimit
    let account = await this.stateManager.getAccount(message.caller)
    if (!account) account = new Account()
    let errorMessage: unknown
    // Reduce tx value from sender
    if (!message.delegatecall) {
      try {
        await this._reduceSenderBalance(account, message)
      } catch (e) {
        errorMessage = e
      }
    }
    // Load `to` account
    let toAccount = await this.stateManager.getAccount(message.to)
    if (!toAccount) toAccount = new Account()
    // Add tx value to the `to` account
    if (!message.delegatecall) {
      try {
        await this._addToBalance(toAccount, message)
      } catch (e) {
        errorMessage = e
      }
    }
    // Load code
    await this._loadCode(message)
    let exit = false
    if (!message.code || (typeof message.code !== 'function' && (message.code as Uint8Array).length === 0)) exit = true
    if (errorMessage !== undefined) exit = true
    if (exit) {
      return {
        execResult: {
          gasRefund: message.gasRefund,
          executionGasUsed: message.gasLimit - gasLimit,
          exceptionError: errorMessage,
          returnValue: new Uint8Array(0),
          logs: undefined,
        },
      }
    }
    let result: Result
    if (message.isCompiled) {
      result = await this.runPrecompile(message.code, message.data, gasLimit)
      result.gasRefund = message.gasRefund
    } else {
      // The engine's copy of the message only sets the gas limit, the message's own on this path (file comment).
      result = await this.runInterpreter(message, { initialLogs: undefined })
    }
    if (message.depth === 0) this.postMessageCleanup()
    result.executionGasUsed += message.gasLimit - gasLimit
    return { execResult: result }
  }
}

const evmProto: unknown = EVM.prototype
const isEvm = (p: unknown): p is EvmInternals => {
  if (typeof p !== 'object' || p === null) return false
  const r = p as Record<string, unknown>
  return ['_executeCall', '_reduceSenderBalance', '_addToBalance', '_loadCode', 'postMessageCleanup', 'runInterpreter', 'runPrecompile'].every((m) => typeof r[m] === 'function')
}

/**
 * What the copy reproduces, looked for in the engine's own method (property names survive bundling): if the pinned
 * release's method no longer reads the message this way, the copy is stale and stays off.
 */
const COPIED = [
  '...{ codeAddress: message.codeAddress }',
  '_reduceSenderBalance(account, message)',
  '_addToBalance(toAccount, message)',
  '_loadCode(message)',
  'message.delegatecall',
  'message.isCompiled',
  'runPrecompile(message.code, message.data, gasLimit)',
  'result.gasRefund = message.gasRefund',
  'postMessageCleanup()',
  'executionGasUsed += message.gasLimit - gasLimit',
  'isActivatedEIP(7864)',
  'isActivatedEIP(2780)',
  'isActivatedEIP(6800)',
  'isActivatedEIP(7928)',
  'isActivatedEIP(7708)',
]
const originalText = isEvm(evmProto) ? sourceOf(evmProto._executeCall) : ''
/**
 * EIPs the engine's method checks: a release that checks another one adds a step the copy lacks. 7702 is checked only
 * inside the 2780 step (which runs the engine's method).
 */
const KNOWN_EIPS = [...ENGINE_ONLY_EIPS, 7702]
const checkedEips = [...originalText.matchAll(/isActivatedEIP\((\d+)\)/g)].map((m) => Number(m[1]))

/** Whether `_executeCall` copies the message in the fast order (false when the engine's layout was not recognised). */
export let executeCallPatched = false
if (
  enginePatches.installable &&
  isEvm(evmProto) &&
  sourceHasAll(originalText, COPIED) &&
  checkedEips.every((eip) => KNOWN_EIPS.includes(eip))
) {
  patch(evmProto)
  executeCallPatched = true
}
