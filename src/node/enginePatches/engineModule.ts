/**
 * The modules of @ethereumjs/evm's ESM build that the package does not export (its `exports` map names only the
 * index, and Node refuses deep imports past it): the interpreter and its memory. They are imported by file path.
 * The build bundles the engine (tsup.config.ts), and esbuild keys modules by resolved path, so these files are
 * bundled once, as the very modules the engine's index imports. Under Vitest, Node loads the engine from
 * node_modules and keys modules by file URL: again the same instances. `sameEngine` confirms it before anything is
 * patched; another copy of the engine (a second install, another bundler) answers false and is left alone.
 *
 * The path is relative to this file (src/node/enginePatches -> the repository's node_modules); the published
 * package never resolves it, its dist already holds the bundled engine.
 */
import { EVM } from '@ethereumjs/evm'
import * as evmModule from '../../../node_modules/@ethereumjs/evm/dist/esm/evm.js'
import * as interpreterModule from '../../../node_modules/@ethereumjs/evm/dist/esm/interpreter.js'
import * as memoryModule from '../../../node_modules/@ethereumjs/evm/dist/esm/memory.js'

/** Whether the modules below are the ones the engine in use runs. */
export const sameEngine: boolean = evmModule.EVM === EVM

/** The engine's `Interpreter` class, when it is the one in use. */
export const engineInterpreter = sameEngine ? interpreterModule.Interpreter : undefined

/** The engine's `Memory` class, when it is the one in use. */
export const engineMemory = sameEngine ? memoryModule.Memory : undefined

/** The engine's `defaultBlock` (the block of a message run without one), when it is the one in use. */
export const engineDefaultBlock = sameEngine ? evmModule.defaultBlock : undefined
