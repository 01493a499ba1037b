/**
 * The engine's `Interpreter` constructor with a small first memory (written against @ethereumjs/evm 10.1.3,
 * dist/esm/interpreter.js and memory.js), used by the patched `runInterpreter` (runInterpreter.ts).
 *
 * Why: the engine's constructor gives every call frame a `new Memory()`, whose constructor allocates 8 KB
 * (`CONTAINER_SIZE`) outside the JavaScript heap. A token `transfer` uses 160 bytes of memory (the largest in its
 * struct-log trace), so each frame pays for an 8 KB zeroed buffer and the garbage collector for its external memory.
 * The same engine with a 1 KB container answered `eth_call`s 8 % faster (`bench/ab.mjs`, docs/performance.md, seventh round).
 * Here a frame's memory starts at 1 KB, cut from a shared slab (`frameMemory`), and the memory patch (interpreter.ts)
 * grows it as the engine would, by whole words, when a frame uses more.
 *
 * The constructor is the engine's line for line except that memory and the shared empty arrays; the load check
 * compares the run state's keys and the constructor's other assignments with the engine's source text, and the
 * memory constructor's only statement, so a release that changes either leaves the engine's constructor in use.
 */
import { EthereumJSErrorWithoutCode } from '@ethereumjs/util'
import { engineInterpreter, engineMemory, engineStack } from './engineModule.js'
import { enginePatches } from './switch.js'

/**
 * The run state's empty `code`, `validJumps` and `returnBytes`, one for every frame (the engine makes three new ones:
 * about 1 µs per frame in a profile of eth_calls). Each is replaced, never written into, and an empty array holds
 * nothing to write.
 */
const EMPTY = new Uint8Array(0)

/** Bytes of memory a frame starts with (a multiple of the 32-byte word, as the memory patch requires). */
export const INITIAL_MEMORY = 1024

type Ctor = new (...args: unknown[]) => object

interface EvmLike {
  common: { consensusType(): string }
  _optsCached: { cliqueSigner?: unknown }
}

interface Env {
  gasRefund: bigint
  initialLogs?: unknown
}

/** The run state's keys, in the engine's order. */
const RUN_STATE_KEYS = [
  'programCounter',
  'opCode',
  'memory',
  'memoryWordCount',
  'highestMemCost',
  'stack',
  'code',
  'validJumps',
  'cachedPushes',
  'stateManager',
  'blockchain',
  'env',
  'shouldDoJumpAnalysis',
  'interpreter',
  'gasRefund',
  'gasLeft',
  'stateGasSpilled',
  'returnBytes',
]
/** The constructor's assignments to `this`, in the engine's order. */
const FIELDS = ['opDebuggers', '_evm', '_stateManager', 'common', '_runState', 'journal', '_env', '_result', 'profilerOpts', 'performanceLogger']

/** Bytes of each slab that frames' first memories are cut from: 64 frames. */
const SLAB_BYTES = 64 * INITIAL_MEMORY
let slab = new ArrayBuffer(SLAB_BYTES)
let slabUsed = 0

/**
 * A frame's first memory: the next unused 1 KB of a shared slab, never handed out twice, so it starts zeroed like a
 * new array and no two frames share bytes. A typed array of its own buffer costs V8 a backing store outside the heap
 * (allocation, zeroing, external-memory accounting): 3-4.7 µs against 0.3-0.5 µs for a view of a slab, measured
 * alone (docs/performance.md "Twelfth round"). A slab is freed once no frame's memory views it; memory that grows
 * past 1 KB moves to an array of its own (interpreter.ts).
 */
function frameMemory(): Uint8Array {
  if (slabUsed === SLAB_BYTES) {
    slab = new ArrayBuffer(SLAB_BYTES)
    slabUsed = 0
  }
  const memory = new Uint8Array(slab, slabUsed, INITIAL_MEMORY)
  slabUsed += INITIAL_MEMORY
  return memory
}

/**
 * `new Interpreter(evm, stateManager, blockchain, env, gasLeft, journal, performanceLogs, profilerOpts)` with a
 * 1 KB memory. Only called when `newInterpreterPatched`.
 */
export function newInterpreter(
  evm: EvmLike,
  stateManager: unknown,
  blockchain: unknown,
  env: Env,
  gasLeft: bigint,
  journal: unknown,
  performanceLogs: unknown,
  profilerOpts: unknown,
): object {
  const it = Object.create((engineInterpreter as Ctor).prototype) as Record<string, unknown>
  it.opDebuggers = {}
  it._evm = evm
  it._stateManager = stateManager
  it.common = evm.common
  if (evm.common.consensusType() === 'poa' && evm._optsCached.cliqueSigner === undefined) {
    throw EthereumJSErrorWithoutCode('Must include cliqueSigner function if clique/poa is being used for consensus type')
  }
  const memory = Object.create((engineMemory as Ctor).prototype) as { _store: Uint8Array }
  memory._store = frameMemory()
  it._runState = {
    programCounter: 0,
    opCode: 0xfe, // INVALID opcode
    memory,
    memoryWordCount: 0n,
    highestMemCost: 0n,
    stack: new (engineStack as Ctor)(),
    code: EMPTY,
    validJumps: EMPTY,
    cachedPushes: {},
    stateManager,
    blockchain,
    env,
    shouldDoJumpAnalysis: true,
    interpreter: it,
    gasRefund: env.gasRefund,
    gasLeft,
    stateGasSpilled: 0n,
    returnBytes: EMPTY,
  }
  it.journal = journal
  it._env = env
  it._result = {
    logs: env.initialLogs ? [...(env.initialLogs as unknown[])] : [],
    returnValue: undefined,
    selfdestruct: new Map(),
  }
  it.profilerOpts = profilerOpts
  it.performanceLogger = performanceLogs
  return it
}

/** The text inside the braces that open at or after `from` in `source` (brackets counted; no strings hold any here). */
function braced(source: string, from: number): string | undefined {
  const open = source.indexOf('{', from)
  if (from < 0 || open < 0) return undefined
  let depth = 0
  for (let i = open; i < source.length; i++) {
    if (source[i] === '{') depth++
    else if (source[i] === '}' && --depth === 0) return source.slice(open + 1, i)
  }
  return undefined
}

/** The keys of an object literal's text: the first word of each entry between commas at depth 0. */
function literalKeys(text: string): string[] {
  const keys: string[] = []
  let depth = 0
  let entry = ''
  for (const ch of text + ',') {
    if ('([{'.includes(ch)) depth++
    else if (')]}'.includes(ch)) depth--
    if (ch === ',' && depth === 0) {
      const key = /^(?:\s|\/\/[^\n]*\n)*(\w+)/.exec(entry)?.[1]
      if (key !== undefined) keys.push(key)
      entry = ''
    } else entry += ch
  }
  return keys
}

/** Whether the engine's constructors are what the copy above assumes (source text; names survive bundling). */
function copyMatches(): boolean {
  if (typeof engineInterpreter !== 'function' || typeof engineMemory !== 'function' || typeof engineStack !== 'function') return false
  const source = engineInterpreter.toString()
  const at = source.indexOf('constructor(')
  const params = /constructor\(([^)]*)\)/.exec(source)?.[1]
  const body = braced(source, source.indexOf(')', at))
  if (at < 0 || params?.split(',').length !== 8 || body === undefined) return false
  const runStateAt = body.search(/this\._runState\s*=\s*\{/)
  const runState = braced(body, runStateAt)
  if (runState === undefined || runStateAt < 0) return false
  const fields = [...body.matchAll(/this\.(\w+)\s*=(?!=)/g)].map((m) => m[1])
  const memorySource = engineMemory.toString()
  const memoryBody = braced(memorySource, memorySource.indexOf('constructor()'))
  return (
    memorySource.includes('constructor()') &&
    memoryBody !== undefined &&
    /^\s*this\._store\s*=\s*new Uint8Array\(\w+\);?\s*$/.test(memoryBody) &&
    JSON.stringify(literalKeys(runState)) === JSON.stringify(RUN_STATE_KEYS) &&
    JSON.stringify(fields) === JSON.stringify(FIELDS) &&
    /memory:\s*new \w+(?:\(\))?[,}]/.test(runState + '}') &&
    /stack:\s*new \w+(?:\(\))?[,}]/.test(runState + '}')
  )
}

/** Whether `newInterpreter` may stand for the engine's constructor (the engine's layout was recognised). */
export const newInterpreterPatched: boolean = enginePatches.installable && copyMatches()
