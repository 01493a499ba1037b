/**
 * The engine classes the patches change but @ethereumjs/evm does not export: the interpreter, its memory and stack.
 *
 * They are found at load from the engine itself, not by a file path into node_modules (which breaks when a package
 * manager hoists differently, under Yarn Plug'n'Play, and is a second copy when the engine is bundled): a throwaway
 * EVM runs one byte of code through a custom opcode (the engine's public `customOpcodes` option), and that opcode
 * reads the classes off the run state it is handed (`runState.interpreter`, `runState.memory`, `runState.stack`,
 * public fields of the engine's `RunState` type). So they are always the classes of the engine in use, bundled or not.
 * If the probe fails (a changed engine), they are undefined and nothing is patched.
 */
import { createEVM } from '@ethereumjs/evm'
import { enginePatches } from './switch.js'

/** An opcode the engine leaves unassigned (0x0c), used only by the probe EVM. */
const PROBE_OPCODE = 0x0c

interface Found {
  interpreter?: Function
  memory?: Function
  stack?: Function
}

async function probe(): Promise<Found> {
  const found: Found = {}
  try {
    const evm = await createEVM({
      customOpcodes: [
        {
          opcode: PROBE_OPCODE,
          opcodeName: 'RSKSIM_PROBE',
          baseFee: 0,
          logicFunction: (runState) => {
            found.interpreter = runState.interpreter.constructor
            found.memory = runState.memory.constructor
            found.stack = runState.stack.constructor
          },
        },
      ],
    })
    await evm.runCode({ code: Uint8Array.of(PROBE_OPCODE), gasLimit: 1_000n })
  } catch {
    return {}
  }
  return found
}

const found: Found = enginePatches.installable ? await probe() : {}

/** The engine's `Interpreter` class, when found. */
export const engineInterpreter: Function | undefined = found.interpreter

/** The engine's `Memory` class, when found. */
export const engineMemory: Function | undefined = found.memory

/** The engine's `Stack` class, when found. */
export const engineStack: Function | undefined = found.stack
