/**
 * Three changes to @ethereumjs/evm's interpreter (written against 10.1.3, dist/esm/interpreter.js and memory.js),
 * none reachable through `customOpcodes` or another option:
 *
 * 1. Jump analysis is cached per code. `_getValidJumpDestinations` walks the whole contract (decoding every PUSH
 *    into a bigint) on every frame that runs a JUMP: about a tenth of an eth_call of `balanceOf`. The result depends
 *    only on the code bytes and the EVM's opcode table, so it is kept per table, by code instance (the state
 *    manager's code cache hands out the same Uint8Array) and by content. Keying by content, never by address, means
 *    a redeploy (CREATE2 after SELFDESTRUCT, evm_revert then a different deploy) can never be served stale analysis.
 * 2. The step loop does not await a `runStep` per opcode. `run` awaits `runStep`, an async function, for every
 *    opcode even when nothing in it is asynchronous: about half the self time of an arithmetic loop. The fast loop
 *    below does what `runStep` does (dynamic gas, invalid opcode, `useGas`, pc, handler) and awaits only what
 *    returns a promise (the engine's gas handlers, its async opcodes, async custom opcodes). It steps aside, calling
 *    the engine's own `runStep`, whenever a 'step' listener is attached or DEBUG is on, so tracers see exactly the
 *    engine's events; and it is not used at all for features RSK does not have (EOF, Verkle/binary-tree code chunks
 *    and access witnesses, EIP-7928, EIP-8037) or when the engine's profiler is on. Between opcodes that only charge
 *    their static fee (`GAS_FREE`), it counts the frame's gas in a Number rather than a new BigInt per opcode.
 * 3. Memory grows geometrically. `Memory.extend` copies the whole memory into a buffer 8 KB larger each time it
 *    grows, which is quadratic for large memory. The buffer is capacity only (every reader is bounded by the
 *    word count or by offset and size), so growing it by at least half its size changes no result.
 *
 * Each patch checks that what it replaces exists and leaves the engine alone otherwise.
 */
import { EVMError } from '@ethereumjs/evm'
import type { Common } from '@ethereumjs/common'
import { EthereumJSErrorWithoutCode } from '@ethereumjs/util'
import { engineInterpreter, engineMemory } from './engineModule.js'
import { enginePatches } from './switch.js'

interface OpcodeInfo {
  code: number
  fee: number
  feeBigInt: bigint
  dynamicGas: boolean
  isAsync: boolean
  isInvalid: boolean
}

interface OpEntry {
  opcodeInfo: OpcodeInfo
  opHandler: (runState: RunState, common: Common) => unknown
  gasHandler: (runState: RunState, gas: bigint, common: Common) => Promise<bigint> | bigint
}

interface JumpAnalysis {
  jumps: Uint8Array
  pushes: Record<number, bigint>
  opcodesCached: (OpEntry | undefined)[]
}

interface RunState {
  gasLeft: bigint
  programCounter: number
  opCode: number
  code: Uint8Array
  validJumps: Uint8Array
  cachedPushes: Record<number, bigint>
  shouldDoJumpAnalysis: boolean
  env: { accessWitness?: unknown }
}

interface RunResult {
  runState: RunState
  exceptionError?: EVMError
}

/** The interpreter members used here (none is in the package's typings). */
interface Interpreter {
  _runState: RunState
  _evm: { DEBUG: boolean; events: { listenerCount(event: string): number }; _opcodeMap: object }
  common: Common
  profilerOpts?: { enabled?: boolean }
  _getValidJumpDestinations(code: Uint8Array): JumpAnalysis
  lookupOpInfo(op: number): OpEntry
  runStep(entry?: OpEntry): Promise<void>
  useGas(amount: bigint, context?: OpcodeInfo): void
  run(code: Uint8Array, opts?: { pc?: number }): Promise<RunResult>
}

interface Memory {
  _store: Uint8Array
  extend(offset: number, size: number): void
}

/** Features with per-step work in the engine's `runStep` that the fast loop does not repeat. */
const SLOW_EIPS = [3540, 6800, 7864, 7928, 8037]

const ERROR_TYPE = new EVMError(EVMError.errorMessages.STOP).errorType

function isEvmError(e: unknown): e is EVMError {
  return typeof e === 'object' && e !== null && 'errorType' in e && e.errorType === ERROR_TYPE
}

// ---- 1. jump analysis cache ---------------------------------------------------------------------------------------

/** Distinct codes remembered by content per opcode table; the map is emptied when it reaches this size. */
const MAX_BY_CONTENT = 4096

interface AnalysisCache {
  byInstance: WeakMap<Uint8Array, JumpAnalysis>
  byContent: Map<string, { code: Uint8Array; analysis: JumpAnalysis }[]>
}

function contentKey(code: Uint8Array): string {
  let h = 0x811c9dc5
  for (let i = 0; i < code.length; i++) h = Math.imul(h ^ code[i]!, 0x01000193)
  return `${code.length}:${h >>> 0}`
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

function patchJumpAnalysis(proto: Interpreter): void {
  const analyse = proto._getValidJumpDestinations
  // Per opcode table (the analysis stores the table's entries); a rebuilt table starts a new cache.
  const caches = new WeakMap<object, AnalysisCache>()
  proto._getValidJumpDestinations = function (this: Interpreter, code: Uint8Array): JumpAnalysis {
    if (!enginePatches.active) return analyse.call(this, code)
    const table = this._evm._opcodeMap
    let cache = caches.get(table)
    if (cache === undefined) {
      cache = { byInstance: new WeakMap(), byContent: new Map() }
      caches.set(table, cache)
    }
    const hit = cache.byInstance.get(code)
    if (hit !== undefined) return hit
    const key = contentKey(code)
    const bucket = cache.byContent.get(key) ?? []
    let analysis = bucket.find((e) => sameBytes(e.code, code))?.analysis
    if (analysis === undefined) {
      analysis = analyse.call(this, code)
      if (cache.byContent.size >= MAX_BY_CONTENT) cache.byContent.clear()
      // A copy: the caller's array could be changed later (the engine never does, but the key must not move).
      cache.byContent.set(key, [...bucket, { code: code.slice(), analysis }])
    }
    cache.byInstance.set(code, analysis)
    return analysis
  }
}

// ---- 2. step loop without a per-step await ------------------------------------------------------------------------

function fastPathApplies(it: Interpreter): boolean {
  if (!enginePatches.active || it.profilerOpts?.enabled === true) return false
  // (`chargeCodeAccesses` is set on most messages but only matters with EIP-6800/7864, both in SLOW_EIPS.)
  if (it._runState.env.accessWitness !== undefined) return false
  for (const eip of SLOW_EIPS) if (it.common.isActivatedEIP(eip)) return false
  return true
}

const traced = (it: Interpreter): boolean => it._evm.DEBUG || it._evm.events.listenerCount('step') > 0

/**
 * Opcodes whose gas is their static fee and whose handlers (the engine's, or the fast ones of fastOpcodes.ts and
 * fastArithmetic.ts) neither read nor change the frame's gas: arithmetic, comparison and bitwise operations, the
 * environment words, SLOAD (RSK has no EIP-2929: a static 200), POP, JUMP, JUMPI, PC, MSIZE, JUMPDEST, the pushes,
 * DUPs and SWAPs, STOP. For these the fast loop counts gas in a Number (`left`) instead of a BigInt, which the engine
 * allocates anew at every `useGas`; `runState.gasLeft` is brought up to date before any other opcode, a traced step,
 * an error and the end of the frame, so whatever reads it reads what the engine's loop would have left there.
 * GAS (0x5a), which reads it, is not in the list; nor is any opcode with dynamic gas.
 */
const GAS_FREE = new Uint8Array(256)
for (const op of [
  ...range(0x00, 0x09), // EXP (0x0a) has dynamic gas
  0x0b,
  ...range(0x10, 0x1d),
  0x30, 0x32, 0x33, 0x34, 0x35, 0x36, 0x38, 0x3a, 0x3d,
  0x41, 0x42, 0x43, 0x44, 0x45, 0x46,
  0x50, 0x54, 0x56, 0x57, 0x58, 0x59, 0x5b,
  ...range(0x5f, 0x9f),
]) GAS_FREE[op] = 1

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i)
}

/** Gas counted in a Number only while it stays exact (always, in practice: a frame's gas is below 2^53). */
const SAFE_GAS = BigInt(Number.MAX_SAFE_INTEGER)

/** The engine's `run` for legacy code, minus what `fastPathApplies` excludes; steps via `runStep` when traced. */
async function fastRun(it: Interpreter, code: Uint8Array, opts: { pc?: number }): Promise<RunResult> {
  const rs = it._runState
  rs.code = code
  rs.programCounter = opts.pc ?? rs.programCounter
  const start = rs.programCounter
  if (start !== 0 && (start < 0 || start >= code.length)) {
    throw EthereumJSErrorWithoutCode('Internal error: program counter not in range')
  }
  // The engine analyses when it first meets a jump; analysing up front gives the same tables (cached, see 1.)
  // and PUSH reads the same value from them as from the code.
  const { jumps, pushes, opcodesCached } = it._getValidJumpDestinations(code)
  rs.validJumps = jumps
  rs.cachedPushes = pushes
  rs.shouldDoJumpAnalysis = false
  const common = it.common
  let tracing = traced(it)
  let err: EVMError | undefined
  // The frame's gas as a Number while only GAS_FREE opcodes run (`counting`); rs.gasLeft is exact otherwise.
  const exact = rs.gasLeft <= SAFE_GAS
  let left = 0
  let counting = false
  while (rs.programCounter < code.length) {
    const entry = opcodesCached[rs.programCounter] ?? it.lookupOpInfo(code[rs.programCounter]!)
    const info = entry.opcodeInfo
    rs.opCode = info.code
    try {
      if (exact && !tracing && GAS_FREE[info.code] === 1 && !info.dynamicGas) {
        if (!counting) {
          left = Number(rs.gasLeft)
          counting = true
        }
        // The engine's useGas: charge, and on running out leave 0 and fail the frame.
        left -= info.fee
        if (left < 0) {
          left = 0
          throw new EVMError(EVMError.errorMessages.OUT_OF_GAS)
        }
        rs.programCounter++
        const done = entry.opHandler(rs, common)
        if (info.isAsync && done instanceof Promise) {
          await done
          tracing = traced(it)
        }
        continue
      }
      if (counting) {
        rs.gasLeft = BigInt(left)
        counting = false
      }
      if (tracing) {
        await it.runStep(entry)
        continue
      }
      let gas = info.feeBigInt
      if (info.dynamicGas) {
        // Custom opcodes may have synchronous gas functions; only a promise is waited for.
        const charged = entry.gasHandler(rs, gas, common)
        gas = charged instanceof Promise ? await charged : charged
      }
      if (info.isInvalid) throw new EVMError(EVMError.errorMessages.INVALID_OPCODE)
      it.useGas(gas, info)
      rs.programCounter++
      const done = entry.opHandler(rs, common)
      // The engine marks every custom opcode async, whatever its handler returns; only a promise is waited for.
      if (info.isAsync && done instanceof Promise) {
        await done
        // A nested frame's listeners (beforeMessage, afterMessage) may have attached a 'step' listener.
        tracing = traced(it)
      }
    } catch (e) {
      if (counting) {
        rs.gasLeft = BigInt(left)
        counting = false
      }
      if (!isEvmError(e)) throw e
      if (e.error !== EVMError.errorMessages.STOP) err = e
      break
    }
  }
  if (counting) rs.gasLeft = BigInt(left)
  return { runState: rs, exceptionError: err }
}

function patchRun(proto: Interpreter): void {
  const run = proto.run
  proto.run = function (this: Interpreter, code: Uint8Array, opts: { pc?: number } = {}): Promise<RunResult> {
    return fastPathApplies(this) ? fastRun(this, code, opts) : run.call(this, code, opts)
  }
}

// ---- 3. geometric memory growth -----------------------------------------------------------------------------------

const PAGE = 8192

function patchMemory(proto: Memory): void {
  const extend = proto.extend
  proto.extend = function (this: Memory, offset: number, size: number): void {
    if (!enginePatches.active) return extend.call(this, offset, size)
    const capacity = this._store.length
    // The capacity is a whole number of pages (so of words): this is the engine's test on the word-rounded end.
    if (size === 0 || offset + size <= capacity) return
    const grown = Math.ceil(Math.max(offset + size, capacity + (capacity >> 1)) / PAGE) * PAGE
    const store = new Uint8Array(grown)
    store.set(this._store)
    this._store = store
  }
}

// ---- load-time checks ---------------------------------------------------------------------------------------------

function isPrototypeWith<T>(value: unknown, methods: string[]): value is T {
  if (typeof value !== 'object' || value === null) return false
  const record = value as Record<string, unknown>
  return methods.every((m) => typeof record[m] === 'function')
}

const interpreterProto: unknown = engineInterpreter?.prototype
const memoryProto: unknown = engineMemory?.prototype

/**
 * The fields the patches read or write that no method check covers, looked for in the engine's own source text
 * (property names survive bundling): the run state's `cachedPushes`, `shouldDoJumpAnalysis` and `validJumps`, the
 * EVM's `_opcodeMap`, the result's `returnValue` (set by `finish`, which the fast RETURN replaces), and Memory's
 * `_store`. A release that renamed one leaves every patch of this file off.
 */
const interpreterSource = typeof engineInterpreter === 'function' ? engineInterpreter.toString() : ''
const memorySource = typeof engineMemory === 'function' ? engineMemory.toString() : ''
/** Whether the interpreter's and memory's fields used here (and by the fast opcodes) are where the patches expect them. */
export const interpreterFieldsFound =
  ['cachedPushes', 'shouldDoJumpAnalysis', 'validJumps', '_opcodeMap', 'programCounter', '_result.returnValue'].every((f) => interpreterSource.includes(f)) &&
  memorySource.includes('_store')

/** Whether the interpreter patches are in effect (false when the engine's layout was not recognised). */
export let interpreterPatched = false
if (
  enginePatches.installable &&
  interpreterFieldsFound &&
  isPrototypeWith<Interpreter>(interpreterProto, ['run', 'runStep', '_getValidJumpDestinations', 'lookupOpInfo', 'useGas'])
) {
  patchJumpAnalysis(interpreterProto)
  patchRun(interpreterProto)
  interpreterPatched = true
}
/** Whether memory grows geometrically. */
export let memoryPatched = false
if (enginePatches.installable && interpreterFieldsFound && isPrototypeWith<Memory>(memoryProto, ['extend'])) {
  patchMemory(memoryProto)
  memoryPatched = true
}
