/**
 * Engine failures named as RSKj names them. RSKj's traces print the Java exception of a failed frame
 * (`org/ethereum/vm/program/Program.java` `ExceptionHelper`), so each @ethereumjs error string is mapped to the
 * exception class and message RSKj would have thrown for the same fault.
 */
import type { VmFailure } from './types.js'

const PROGRAM = 'org.ethereum.vm.program.Program$'

/** What the tracer saw of the frame's last opcode, used to fill RSKj's message templates. */
export interface FaultContext {
  op?: string | null
  opCode?: number
  opGas?: bigint
  gasLeft?: bigint
  /** Top of the stack at the last opcode (the JUMP destination for a bad jump). */
  stackTop?: bigint
  /** `0x` hash of the transaction, as RSKj appends `tx[…]`. */
  txHash: string
}

/** Maps an @ethereumjs `EVMError.error` string to RSKj's exception. Unknown faults keep the engine's text. */
export function toVmFailure(error: string, ctx: FaultContext): VmFailure {
  const tx = ctx.txHash
  switch (error) {
    case 'out of gas':
      return {
        javaClass: PROGRAM + 'OutOfGasException',
        message: `Not enough gas for '${ctx.op ?? 'STOP'}' operation executing: opGas[${ctx.opGas ?? 0n}], programGas[${ctx.gasLeft ?? 0n}], tx[${tx}]`,
      }
    case 'code store out of gas':
      return { javaClass: PROGRAM + 'OutOfGasException', message: `Not enough gas for 'No gas to return just created contract' cause spending, tx[${tx}]` }
    case 'invalid opcode':
      return {
        javaClass: PROGRAM + 'IllegalOperationException',
        message: `Invalid operation code: opcode[${(ctx.opCode ?? 0).toString(16).padStart(2, '0')}], tx[${tx}]`,
      }
    case 'invalid JUMP':
      return { javaClass: PROGRAM + 'BadJumpDestinationException', message: `Operation with pc isn't 'JUMPDEST': PC[${ctx.stackTop ?? 0n}], tx[${tx}]` }
    case 'static state change':
      return { javaClass: PROGRAM + 'StaticCallModificationException', message: `Attempt to call a state modifying opcode inside STATICCALL: tx[${tx}]` }
    case 'stack underflow':
      return { javaClass: PROGRAM + 'StackTooSmallException', message: `Stack underflow executing '${ctx.op ?? ''}', tx: ${tx}` }
    case 'create collision':
      return { javaClass: PROGRAM + 'AddressCollisionException', message: `Trying to create a contract with existing contract address, tx: ${tx}` }
    case 'code size to deposit exceeds maximum code size':
      return { javaClass: 'java.lang.RuntimeException', message: `Maximum contract size allowed 24576, tx: ${tx}` }
    case 'initcode exceeds max initcode size':
      return { javaClass: 'java.lang.RuntimeException', message: `Maximum initcode size allowed 49152, tx: ${tx}` }
    case 'invalid bytecode deployed':
      return { javaClass: 'java.lang.RuntimeException', message: `Contract code cannot start with 0xEF byte (RSKIP544/EIP-3541), tx: ${tx}` }
    default:
      return { javaClass: 'java.lang.RuntimeException', message: `${error}, tx: ${tx}` }
  }
}

/** RSKj names opcodes after its `OpCode` enum; these differ from @ethereumjs' names. */
const RSK_NAMES: Record<number, string> = { 0x20: 'SHA3', 0x44: 'DIFFICULTY', 0xff: 'SUICIDE' }

/** RSKj's name of opcode `code`; null where RSKj has no opcode (it prints `"op": null`). */
export function rskOpName(code: number, engineName: string): string | null {
  if (engineName === 'INVALID' || engineName.startsWith('UNKNOWN')) return null
  return RSK_NAMES[code] ?? engineName
}
