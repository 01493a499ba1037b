/**
 * `EVM.getActiveOpcodes` made once per custom opcode list, hardfork and EIP set (written against @ethereumjs/evm
 * 10.1.3, dist/esm/evm.js).
 *
 * Why: an EVM builds its opcode tables in its constructor (`getOpcodesForHF`: the opcode objects, their fees from the
 * Common's params, the handler maps, the 256-entry map), about 0.4 ms here (`getOpcodesForHF` and `createOpcodes` in a
 * profile of 2,000 pending estimates, when each pending block had an EVM of its own). Besides the chain's own EVM,
 * the node makes one for every call at an older block and every replayed block (traces): Chain.vmOver. A new table
 * also starts the interpreter's jump-analysis cache, kept per table (interpreter.ts), empty. docs/performance.md,
 * twenty-fifth round.
 *
 * How: the tables are a function of the Common's hardfork, its EIPs and its params, and of the custom opcode list.
 * Chain.vmOver gives each EVM the chain's own list (the same array) and a copy of the chain's Common (the same hardfork,
 * EIPs and params); the tables made for the first EVM with a list are handed to the next with the same list, hardfork
 * and EIPs. Neither the engine nor rsksim writes into them once made (the engine reads `_opcodeMap` and the handler
 * maps per opcode; a hardfork change builds new ones through this method). An EVM without custom opcodes, and every
 * EVM made with the switch off, builds its own. The load check looks for the four fields the method sets and the call
 * it makes; test/engine_patches.test.ts checks that two EVMs of a chain share the tables (and that the switch off
 * gives each its own), and test/engine_differential.test.ts runs calls at `pending` and at older blocks both ways.
 */
import { EVM } from '@ethereumjs/evm'
import { enginePatches } from './switch.js'
import { sourceHasAll, sourceOf } from './sourceText.js'

/** What the method sets on the EVM (the value `getOpcodesForHF` returns). */
interface OpcodeTables {
  opcodes: unknown
  dynamicGasHandlers: unknown
  handlers: unknown
  opcodeMap: unknown
}

interface EvmInternals {
  common: { hardfork(): string; eips(): number[] }
  _customOpcodes?: object
  _opcodes: unknown
  _dynamicGasHandlers: unknown
  _handlers: unknown
  _opcodeMap: unknown
  getActiveOpcodes(): unknown
}

/** Tables made, by custom opcode list, then by hardfork and EIPs. */
const made = new WeakMap<object, Map<string, OpcodeTables>>()

function patch(proto: EvmInternals): void {
  const original = proto.getActiveOpcodes
  proto.getActiveOpcodes = function (this: EvmInternals) {
    const list = this._customOpcodes
    if (!enginePatches.active || list === undefined) return original.call(this)
    let byFork = made.get(list)
    if (byFork === undefined) made.set(list, (byFork = new Map()))
    const key = `${this.common.hardfork()} ${this.common.eips().join(',')}`
    const known = byFork.get(key)
    if (known === undefined) {
      const opcodes = original.call(this)
      byFork.set(key, { opcodes, dynamicGasHandlers: this._dynamicGasHandlers, handlers: this._handlers, opcodeMap: this._opcodeMap })
      return opcodes
    }
    this._opcodes = known.opcodes
    this._dynamicGasHandlers = known.dynamicGasHandlers
    this._handlers = known.handlers
    this._opcodeMap = known.opcodeMap
    return known.opcodes
  }
}

const evmProto: unknown = EVM.prototype
const isEvm = (p: unknown): p is EvmInternals => typeof p === 'object' && p !== null && typeof (p as Record<string, unknown>).getActiveOpcodes === 'function'

/**
 * What the method does, looked for in the engine's own text: property names survive bundling, a local's name may not
 * (the bundle calls `data` `data3`).
 */
const SETS = [
  'getOpcodesForHF(this.common,this._customOpcodes)',
  'this._opcodes=',
  '.opcodes;this._dynamicGasHandlers=',
  '.dynamicGasHandlers;this._handlers=',
  '.handlers;this._opcodeMap=',
  '.opcodeMap;return',
]

/** Whether EVMs with the same custom opcodes, hardfork and EIPs share their opcode tables. */
export let activeOpcodesPatched = false
if (enginePatches.installable && isEvm(evmProto) && sourceHasAll(sourceOf(evmProto.getActiveOpcodes), SETS)) {
  patch(evmProto)
  activeOpcodesPatched = true
}
