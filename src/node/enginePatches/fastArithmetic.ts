/**
 * Faster handlers for the two-operand arithmetic, comparison and bitwise opcodes and the jumps (ADD, MUL, SUB, DIV,
 * MOD, LT, GT, EQ, AND, OR, XOR, SHL, SHR, JUMP, JUMPI), given to the EVM through its public `customOpcodes` option
 * as fastOpcodes.ts gives its own. Same results, same gas (the engine's base fees; none of these has dynamic gas),
 * same errors as the engine's (@ethereumjs/evm 10.1.3 opcodes/functions.js).
 *
 * What the engine's cost, per opcode: `stack.popN(2)` allocates an array for the two operands, ADD/SUB/MUL reduce
 * with `mod(x, 2^256)` (a BigInt division), and JUMP/JUMPI build a BigInt of the code size to compare the
 * destination with. Here the operands are popped one by one, a sum or difference is brought back into range by one
 * subtraction or addition (both operands are below 2^256, as every stack word is), a product by a mask, and a jump
 * reads the destination table the engine's own `jumpIsValid` reads (`runState.validJumps`, checked at load by
 * interpreter.ts). Whatever the engine would refuse (fewer than two operands, a jump to a place that is not a
 * JUMPDEST) is handed, with the stack as it was, to the engine's handler, which throws its own error and message.
 *
 * Like fastOpcodes.ts, none is given to an EVM unless the engine patches are on when it is created and the
 * interpreter's fields were found (fastOpcodesApply); test/engine_differential.test.ts runs random programs drawn
 * from these opcodes with the patches on and off.
 */
import type { Common } from '@ethereumjs/common'
import type { EVMOpts } from '@ethereumjs/evm'
import { fastOpcodesApply } from './fastOpcodes.js'

type CustomOpcode = NonNullable<EVMOpts['customOpcodes']>[number]
type AddOpcode = Extract<CustomOpcode, { logicFunction: unknown }>
type RunState = Parameters<AddOpcode['logicFunction']>[0]
type Handler = AddOpcode['logicFunction']

const TWO_POW256 = 1n << 256n
const MAX_WORD = TWO_POW256 - 1n
/** Largest destination handled with Number arithmetic: larger ones are past any code, so the engine refuses them. */
const SAFE = BigInt(Number.MAX_SAFE_INTEGER)

/**
 * The fast handlers for EVMs of `common`; empty when the engine patches are off for it (fastOpcodes.ts). `baseFee`
 * and `engine` give an opcode's fee and handler in the engine's table for `common` (rsk/evm/evmProfile.ts).
 */
export function fastArithmetic(common: Common, baseFee: (op: number) => number, engine: (op: number) => Handler): AddOpcode[] {
  if (!fastOpcodesApply(common)) return []
  const add = (op: number, opcodeName: string, logicFunction: Handler): AddOpcode => ({ opcode: op, opcodeName, baseFee: baseFee(op), logicFunction })

  // Each handler written out (not built by one shared helper): V8 then optimizes each for its own operation.
  const ADD = engine(0x01)
  const MUL = engine(0x02)
  const SUB = engine(0x03)
  const DIV = engine(0x04)
  const MOD = engine(0x06)
  const LT = engine(0x10)
  const GT = engine(0x11)
  const EQ = engine(0x14)
  const AND = engine(0x16)
  const OR = engine(0x17)
  const XOR = engine(0x18)
  const SHL = engine(0x1b)
  const SHR = engine(0x1c)
  const JUMP = engine(0x56)
  const JUMPI = engine(0x57)
  return [
    add(0x01, 'ADD', (rs, c) => {
      const s = rs.stack
      if (s.length < 2) return ADD(rs, c)
      const r = s.pop() + s.pop()
      s.push(r >= TWO_POW256 ? r - TWO_POW256 : r)
    }),
    add(0x02, 'MUL', (rs, c) => {
      const s = rs.stack
      if (s.length < 2) return MUL(rs, c)
      s.push((s.pop() * s.pop()) & MAX_WORD)
    }),
    add(0x03, 'SUB', (rs, c) => {
      const s = rs.stack
      if (s.length < 2) return SUB(rs, c)
      const r = s.pop() - s.pop()
      s.push(r < 0n ? r + TWO_POW256 : r)
    }),
    add(0x04, 'DIV', (rs, c) => {
      const s = rs.stack
      if (s.length < 2) return DIV(rs, c)
      const a = s.pop()
      const b = s.pop()
      s.push(b === 0n ? 0n : a / b)
    }),
    add(0x06, 'MOD', (rs, c) => {
      const s = rs.stack
      if (s.length < 2) return MOD(rs, c)
      const a = s.pop()
      const b = s.pop()
      s.push(b === 0n ? 0n : a % b)
    }),
    add(0x10, 'LT', (rs, c) => {
      const s = rs.stack
      if (s.length < 2) return LT(rs, c)
      s.push(s.pop() < s.pop() ? 1n : 0n)
    }),
    add(0x11, 'GT', (rs, c) => {
      const s = rs.stack
      if (s.length < 2) return GT(rs, c)
      s.push(s.pop() > s.pop() ? 1n : 0n)
    }),
    add(0x14, 'EQ', (rs, c) => {
      const s = rs.stack
      if (s.length < 2) return EQ(rs, c)
      s.push(s.pop() === s.pop() ? 1n : 0n)
    }),
    add(0x16, 'AND', (rs, c) => {
      const s = rs.stack
      if (s.length < 2) return AND(rs, c)
      s.push(s.pop() & s.pop())
    }),
    add(0x17, 'OR', (rs, c) => {
      const s = rs.stack
      if (s.length < 2) return OR(rs, c)
      s.push(s.pop() | s.pop())
    }),
    add(0x18, 'XOR', (rs, c) => {
      const s = rs.stack
      if (s.length < 2) return XOR(rs, c)
      s.push(s.pop() ^ s.pop())
    }),
    add(0x1b, 'SHL', (rs, c) => {
      const s = rs.stack
      if (s.length < 2) return SHL(rs, c)
      const shift = s.pop()
      const value = s.pop()
      s.push(shift > 256n ? 0n : (value << shift) & MAX_WORD)
    }),
    add(0x1c, 'SHR', (rs, c) => {
      const s = rs.stack
      if (s.length < 2) return SHR(rs, c)
      const shift = s.pop()
      const value = s.pop()
      s.push(shift > 256n ? 0n : value >> shift)
    }),
    add(0x56, 'JUMP', (rs, c) => {
      const s = rs.stack
      if (s.length < 1) return JUMP(rs, c)
      const dest = s.pop()
      if (!jumpTo(rs, dest)) {
        s.push(dest)
        return JUMP(rs, c)
      }
    }),
    add(0x57, 'JUMPI', (rs, c) => {
      const s = rs.stack
      if (s.length < 2) return JUMPI(rs, c)
      const dest = s.pop()
      const cond = s.pop()
      if (cond !== 0n && !jumpTo(rs, dest)) {
        s.push(cond)
        s.push(dest)
        return JUMPI(rs, c)
      }
    }),
  ]
}

/**
 * Moves the program counter to `dest` when the engine would (`dest` within the code and a JUMPDEST there, its
 * `jumpIsValid`); false, with nothing changed, when it would refuse.
 */
function jumpTo(rs: RunState, dest: bigint): boolean {
  if (dest > SAFE) return false
  const at = Number(dest)
  if (at > rs.env.code.length || rs.validJumps[at] !== 1) return false
  rs.programCounter = at
  return true
}
