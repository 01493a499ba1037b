/**
 * `runInterpreter`'s lazily merged run state (src/node/enginePatches/runInterpreter.ts): the patch is in effect and
 * `execResult.runState` still holds the engine's merge of run state, result and environment.
 */
import { describe, expect, it } from 'vitest'
import { createEVM } from '@ethereumjs/evm'
import { Address, hexToBytes } from '@ethereumjs/util'
import { engineMatchesPin, enginePatches, runInterpreterPatched, setEnginePatches } from '../src/node/enginePatches/index.js'

describe('runInterpreter patch', () => {
  it('is applied exactly when the installed engine is the pinned release', () => {
    expect(runInterpreterPatched).toBe(engineMatchesPin)
  })

  it('execResult.runState merges run state, result and environment', async () => {
    const evm = await createEVM()
    const to = new Address(hexToBytes('0x00000000000000000000000000000000000000aa'))
    // PUSH1 42 PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
    await evm.stateManager.putCode(to, hexToBytes('0x602a60005260206000f3'))
    const { execResult } = await evm.runCall({ to, gasLimit: 100_000n })
    const runState = execResult.runState as unknown as Record<string, unknown>
    // The engine's key order: the interpreter's result, then runState, then the run's figures.
    const keys = Object.keys(execResult)
    expect(keys.slice(keys.indexOf('runState'))).toEqual(['runState', 'exceptionError', 'gas', 'executionGasUsed', 'gasRefund', 'stateGasSpilled'])
    expect(runState.programCounter).toBe(10)
    expect(runState.address).toEqual(to)
    expect(runState.returnValue).toEqual(execResult.returnValue)
    expect(runState.gasLeft).toBe(execResult.gas)
    // Same object on every read, and spreads see it as the engine's plain property.
    expect(execResult.runState).toBe(execResult.runState)
    expect({ ...execResult }.runState).toBe(execResult.runState)
  })

  it("answers the engine's own result, key for key in its order, for a return, a revert, a failure and a deployment", async () => {
    const to = new Address(hexToBytes('0x00000000000000000000000000000000000000aa'))
    const cases: Array<[string, string, boolean]> = [
      ['return', '0x602a60005260206000f3', false],
      ['revert', '0x602a60005260206000fd', false], // … REVERT
      ['invalid opcode', '0xfe', false],
      // initcode returning one byte of code: a CREATE message, which carries createdAddresses
      ['deployment', '0x6001600c60003960016000f3fe', true],
    ]
    const was = enginePatches.active
    try {
      for (const [name, code, create] of cases) {
        const results = []
        for (const on of [true, false]) {
          setEnginePatches(on && engineMatchesPin)
          const evm = await createEVM()
          await evm.stateManager.putCode(to, hexToBytes(code as `0x${string}`))
          const { execResult } = await evm.runCall(create ? { data: hexToBytes(code as `0x${string}`), gasLimit: 100_000n } : { to, gasLimit: 100_000n })
          const { runState, ...rest } = execResult as unknown as Record<string, unknown>
          expect(runState, name).toBeTypeOf('object')
          results.push({ keys: Object.keys(execResult), rest })
        }
        expect(results[0], name).toEqual(results[1])
      }
    } finally {
      setEnginePatches(was)
    }
  })
})
