/**
 * `EVM.runInterpreter` with a lazily built `runState` in its result (written against @ethereumjs/evm 10.1.3,
 * dist/esm/evm.js).
 *
 * Why: the engine's `runInterpreter` ends by merging the interpreter's run state, its result and its environment into
 * one new object of about 60 keys (`runState: { ...runState, ...result, ...env }`), for every message, nested calls
 * included. Objects that large are built in dictionary mode: the profile of an `eth_call` of `balanceOf` shows
 * `runInterpreter` with about a tenth of the self time. Neither the engine (EVM, VM) nor rsksim reads
 * `execResult.runState` (tracers read the interpreter's run state through the 'step' event), but it is public in the
 * `ExecResult` type, so it is kept: a proxy (`lazyRunState`) builds the very same merge on first access and remembers
 * it. The interpreter is finished when the result is returned and nothing writes to its run state, result or
 * environment afterwards, so the later merge holds the same values. The result object itself is one literal with
 * the engine's keys in the engine's order, not a spread copy that properties are then added to: on Node 20 each
 * property added to a spread copy costs 1.2-2.1 µs (about 10 µs per call frame with the engine's five).
 *
 * `_executeCall` (executeCall.ts) hands over its message itself, not a copy: see there.
 *
 * Everything else is the engine's method line for line. The patch checks that the engine's pieces it uses exist.
 */
import { EVM, EVMError, type ExecResult } from '@ethereumjs/evm'
import { Account, BIGINT_0, createZeroAddress, type Address } from '@ethereumjs/util'
import { engineInterpreter } from './engineModule.js'
import { newInterpreter, newInterpreterPatched } from './newInterpreter.js'
import { enginePatches } from './switch.js'
import { sourceHasAll, sourceOf } from './sourceText.js'

type Message = {
  to?: Address
  caller: Address
  data: Uint8Array
  value: bigint
  code?: unknown
  isStatic: boolean
  isCreate?: boolean
  depth: number
  codeAddress: Address
  gasRefund: bigint
  chargeCodeAccesses?: boolean
  blobVersionedHashes?: Uint8Array[]
  accessWitness?: { commit(): void }
  createdAddresses?: Set<string>
  selfdestruct?: Map<string, Uint8Array>
  gasLimit: bigint
}

interface InterpreterOpts {
  pc?: number
  initialLogs?: unknown
}

interface RunResult {
  runState: { gasLeft: bigint; gasRefund: bigint; stateGasSpilled?: bigint }
  exceptionError?: EVMError
}

interface InterpreterInstance {
  _result: Record<string, unknown> & { returnValue?: Uint8Array; selfdestruct?: unknown; createdAddresses?: unknown }
  _env: object
  run(code: unknown, opts: InterpreterOpts): Promise<RunResult>
}

type InterpreterClass = new (...args: unknown[]) => InterpreterInstance

/** The EVM members used here (protected in the typings). */
interface EvmInternals {
  stateManager: { getAccount(address: Address): Promise<Account | undefined> }
  blockchain: unknown
  journal: unknown
  performanceLogger: unknown
  _optsCached: { profiler?: unknown }
  _tx?: { gasPrice: bigint; origin?: Address }
  _block?: unknown
  runInterpreter(message: Message, opts?: InterpreterOpts): Promise<ExecResult>
}

function patch(proto: EvmInternals, Interpreter: InterpreterClass): void {
  const original = proto.runInterpreter
  proto.runInterpreter = async function (this: EvmInternals, message: Message, opts: InterpreterOpts = {}) {
    // Without a block (never the case through runCall/runCode) the engine's own method supplies its default one.
    if (!enginePatches.active || this._block === undefined) return original.call(this, message, opts)
    let contract = await this.stateManager.getAccount(message.to ?? createZeroAddress())
    if (!contract) contract = new Account()
    const env = {
      address: message.to ?? createZeroAddress(),
      caller: message.caller ?? createZeroAddress(),
      callData: message.data ?? Uint8Array.from([0]),
      callValue: message.value ?? BIGINT_0,
      code: message.code,
      isStatic: message.isStatic ?? false,
      isCreate: message.isCreate ?? false,
      depth: message.depth ?? 0,
      gasPrice: this._tx!.gasPrice,
      origin: this._tx!.origin ?? message.caller ?? createZeroAddress(),
      block: this._block,
      contract,
      codeAddress: message.codeAddress,
      gasRefund: message.gasRefund,
      chargeCodeAccesses: message.chargeCodeAccesses,
      blobVersionedHashes: message.blobVersionedHashes ?? [],
      accessWitness: message.accessWitness,
      createdAddresses: message.createdAddresses,
      initialLogs: opts.initialLogs,
    }
    // newInterpreter.ts: the engine's constructor with a 1 KB first memory instead of 8 KB, when recognised.
    const interpreter = newInterpreterPatched
      ? (newInterpreter(this as never, this.stateManager, this.blockchain, env, message.gasLimit, this.journal, this.performanceLogger, this._optsCached.profiler) as InterpreterInstance)
      : new Interpreter(this, this.stateManager, this.blockchain, env, message.gasLimit, this.journal, this.performanceLogger, this._optsCached.profiler)
    if (message.selfdestruct) interpreter._result.selfdestruct = message.selfdestruct
    if (message.createdAddresses) interpreter._result.createdAddresses = message.createdAddresses
    const interpreterRes = await interpreter.run(message.code, opts)
    let result = interpreter._result
    let gasUsed = message.gasLimit - interpreterRes.runState.gasLeft
    if (interpreterRes.exceptionError) {
      if (
        interpreterRes.exceptionError.error !== EVMError.errorMessages.REVERT &&
        interpreterRes.exceptionError.error !== EVMError.errorMessages.INVALID_EOF_FORMAT
      ) {
        gasUsed = message.gasLimit
      }
      // Clear the result on error (the engine's `{ ...result, logs: [], selfdestruct, createdAddresses }`, same keys)
      result = { logs: [], returnValue: result.returnValue, selfdestruct: new Map(), createdAddresses: new Set() }
    }
    message.accessWitness?.commit()
    // The engine's `runState` is `{ ...interpreterRes.runState, ...result, ...interpreter._env }`, a copy of ~60 keys
    // nothing in the engine or rsksim reads: built on first access (lazyRunState below).
    const runState = lazyRunState(interpreterRes.runState, result, interpreter._env)
    const returnValue = result.returnValue ?? new Uint8Array(0)
    const { gasLeft, gasRefund, stateGasSpilled } = interpreterRes.runState
    const exceptionError = interpreterRes.exceptionError
    // The engine's object, key for key in its order (the result's own keys, then runState and the run's figures),
    // written as one literal: adding properties to a spread copy costs V8 (Node 20) 1.2-2.1 µs each, about 10 µs per
    // call frame for the engine's `{ ...result, runState, … }` (docs/performance.md "Ninth round").
    // The result holds logs, returnValue and selfdestruct, and createdAddresses when the message carried them or
    // the run failed (the interpreter's constructor and this method are all that set its keys).
    if (!('createdAddresses' in result)) {
      return {
        logs: result.logs,
        returnValue,
        selfdestruct: result.selfdestruct,
        runState,
        exceptionError,
        gas: gasLeft,
        executionGasUsed: gasUsed,
        gasRefund,
        stateGasSpilled,
      } as unknown as ExecResult
    }
    return {
      logs: result.logs,
      returnValue,
      selfdestruct: result.selfdestruct,
      createdAddresses: result.createdAddresses,
      runState,
      exceptionError,
      gas: gasLeft,
      executionGasUsed: gasUsed,
      gasRefund,
      stateGasSpilled,
    } as unknown as ExecResult
  }
}

/** What a lazy run state merges, and the merge once made. */
interface RunStateParts {
  runState: object
  result: object
  env: object
  merged: Record<PropertyKey, unknown> | undefined
}

const merged = (t: RunStateParts): Record<PropertyKey, unknown> => (t.merged ??= { ...t.runState, ...t.result, ...t.env })

/** Every operation on a lazy run state acts on the merge (made on the first one). */
const LAZY: ProxyHandler<RunStateParts> = {
  get: (t, key) => Reflect.get(merged(t), key),
  set: (t, key, value) => Reflect.set(merged(t), key, value),
  has: (t, key) => Reflect.has(merged(t), key),
  deleteProperty: (t, key) => Reflect.deleteProperty(merged(t), key),
  ownKeys: (t) => Reflect.ownKeys(merged(t)),
  getOwnPropertyDescriptor: (t, key) => Reflect.getOwnPropertyDescriptor(merged(t), key),
  defineProperty: (t, key, descriptor) => Reflect.defineProperty(merged(t), key, descriptor),
}

/**
 * The engine's merged run state as a plain data property whose merge is made on first use: a proxy over the three
 * parts. A getter on the result object did the same, but V8 builds an object literal with accessors in its runtime,
 * one property at a time: ~5 µs per call frame in a profile of `eth_call`s (docs/performance.md "Twelfth round"),
 * against one small object and a proxy here. Spreads and `Object.keys` of the result see `runState` as the engine's
 * plain property; reads, writes, `in`, keys and descriptors of the run state see the merge.
 */
function lazyRunState(runState: object, result: object, env: object): object {
  return new Proxy<RunStateParts>({ runState, result, env, merged: undefined }, LAZY)
}

const evmProto: unknown = EVM.prototype
const isEvm = (p: unknown): p is EvmInternals =>
  typeof p === 'object' && p !== null && typeof (p as Record<string, unknown>).runInterpreter === 'function'

/**
 * What the copy above reproduces, looked for in the engine's own method (property names survive bundling): if the
 * pinned release's method no longer builds the interpreter this way, the copy is stale and stays off.
 */
const COPIED = ['new Interpreter(', '_optsCached', 'performanceLogger', 'interpreter._result', 'accessWitness', 'blobVersionedHashes', 'INVALID_EOF_FORMAT', 'stateGasSpilled']
const originalText = isEvm(evmProto) ? sourceOf(evmProto.runInterpreter) : ''

/** Whether `runInterpreter` builds `runState` lazily (false when the engine's layout was not recognised). */
export let runInterpreterPatched = false
if (
  enginePatches.installable &&
  isEvm(evmProto) &&
  sourceHasAll(originalText, COPIED) &&
  typeof engineInterpreter === 'function'
) {
  patch(evmProto, engineInterpreter as unknown as InterpreterClass)
  runInterpreterPatched = true
}
