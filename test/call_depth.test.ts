/**
 * RSK's call depth limit: 400 once RSKIP150 is active (RSKj `org/ethereum/vm/program/Program.java`, `getMaxDepth()`
 * answers 400 under RSKIP150, 1,024 before). `callToAddress`, `callToPrecompiledAddress` and `createContract` refuse
 * a new frame when the calling frame's `getCallDeep() == getMaxDepth()`, pushing 0; the transaction's own frame has
 * depth 0 (`ProgramInvokeImpl.callDeep` starts at 0) and each nested frame one more (`ProgramInvokeFactoryImpl`:
 * `program.getCallDeep() + 1`). So frames reach depth 400 and a frame at depth 400 cannot call or create: a contract
 * recursing 400 levels below the transaction runs, 401 levels reverts. The contracts below recurse L levels and
 * revert when a nested call or create answers 0, checked in eth_call, eth_sendTransaction, eth_estimateGas and
 * debug_traceTransaction.
 */
import { describe, expect, it } from 'vitest'
import type { Provider } from '../src/index.js'
import { COW, fresh, rejects, send, sendSigned } from './helpers.js'

const word = (n: number) => n.toString(16).padStart(64, '0')
const hex = (n: number) => n.toString(16).padStart(2, '0')

/**
 * Runtime that reads n (frames: levels + 1) from calldata and, unless n is 1, calls itself with n - 1 through `op` (all gas offered; RSK
 * gives a callee what it asks, capped to what is left, with no 63/64 rule) and reverts when the call answers 0.
 */
function recursiveRuntime(op: 'CALL' | 'CALLCODE' | 'DELEGATECALL' | 'STATICCALL'): string {
  const withValue = op === 'CALL' || op === 'CALLCODE'
  const opcode = { CALL: 'f1', CALLCODE: 'f2', DELEGATECALL: 'f4', STATICCALL: 'fa' }[op]
  // PUSH1 1 PUSH1 0 CALLDATALOAD SUB | DUP1 ISZERO PUSH1 done JUMPI | PUSH1 0 MSTORE
  // PUSH1 0 PUSH1 0 PUSH1 32 PUSH1 0 [PUSH1 0] ADDRESS GAS <op> PUSH1 done JUMPI PUSH1 0 DUP1 REVERT | done: JUMPDEST STOP
  const head = '6001600035038015'
  const body = (done: number) => `60${hex(done)}576000526000600060206000${withValue ? '6000' : ''}305a${opcode}60${hex(done)}57600080fd`
  const done = (head.length + body(0).length) / 2
  return head + body(done) + '5b00'
}

/** Creation code that deploys `runtime` (PUSH1 len DUP1 PUSH1 11 PUSH1 0 CODECOPY PUSH1 0 RETURN). */
const deployer = (runtime: string) => `0x60${hex(runtime.length / 2)}80600b6000396000f3${runtime}`

/**
 * Initcode followed by n (frames: levels + 1, 32 bytes): unless n is 1, it creates a copy of itself with n - 1 and reverts when CREATE
 * answers 0. CODESIZE PUSH1 0 PUSH1 0 CODECOPY | PUSH1 32 CODESIZE SUB MLOAD PUSH1 1 SWAP1 SUB | DUP1 ISZERO PUSH1 done
 * JUMPI | PUSH1 32 CODESIZE SUB MSTORE | CODESIZE PUSH1 0 PUSH1 0 CREATE PUSH1 done JUMPI PUSH1 0 DUP1 REVERT | done.
 */
const recursiveCreate = (n: number) => `0x386000600039602038035160019003801560265760203803523860006000f0602657600080fd5b00${word(n)}`

async function deployRuntime(p: Provider, runtime: string): Promise<string> {
  const r = await send(p, { data: deployer(runtime) })
  expect(r.status).toBe('0x1')
  return r.contractAddress
}

const callCount = (structLogs: { op: string }[], op: string) => structLogs.filter((l) => l.op === op).length

describe('call depth 400 (RSKIP150)', () => {
  for (const op of ['CALL', 'CALLCODE', 'DELEGATECALL', 'STATICCALL'] as const) {
    it(`${op}: 399 and 400 levels run, 401 reverts (eth_call, eth_estimateGas, eth_sendTransaction, debug_traceTransaction)`, async () => {
      const p = await fresh()
      const to = await deployRuntime(p, recursiveRuntime(op))
      const gas = '0x1e8480'
      for (const levels of [399, 400, 401]) {
        const call = { from: COW, to, gas, data: '0x' + word(levels + 1) }
        const ok = levels <= 400
        if (ok) {
          expect(await p.request({ method: 'eth_call', params: [call, 'latest'] })).toBe('0x')
          expect(BigInt((await p.request({ method: 'eth_estimateGas', params: [call] })) as string)).toBeGreaterThan(21_000n)
        } else {
          await rejects(p.request({ method: 'eth_call', params: [call, 'latest'] }), -32015, 'VM Exception while processing transaction: transaction reverted')
          await rejects(p.request({ method: 'eth_estimateGas', params: [call] }), -32015)
        }
        const sent = await sendSigned(p, { to, data: call.data, gas: '0x1e8480' })
        if (ok) expect(sent.error).toBeUndefined()
        else expect(sent.error?.code).toBe(-32015)
        const receipt = (await p.request({ method: 'eth_getTransactionReceipt', params: [sent.hash] })) as any
        expect(receipt.status).toBe(ok ? '0x1' : '0x0')
        const trace = (await p.request({ method: 'debug_traceTransaction', params: [sent.hash] })) as any
        expect(trace.reverted).toBe(!ok)
        // Each level is one call; at 401 levels the frame at depth 400 tries the 401st and is refused.
        expect(callCount(trace.structLogs, op)).toBe(levels)
      }
    }, 60_000)
  }

  it('CREATE: 399 and 400 nested creations run, 401 fail (eth_call, eth_sendTransaction, debug_traceTransaction)', async () => {
    // 401 creations at 32,000 gas each pass the default 10,000,000 block gas limit.
    const p = await fresh({ blockGasLimit: 20_000_000n, callGasCap: 20_000_000n })
    for (const levels of [399, 400, 401]) {
      const ok = levels <= 400
      const call = { from: COW, gas: '0x1312d00', data: recursiveCreate(levels + 1) }
      if (ok) expect(await p.request({ method: 'eth_call', params: [call, 'latest'] })).toBe('0x')
      else await rejects(p.request({ method: 'eth_call', params: [call, 'latest'] }), -32015)
      const sent = await sendSigned(p, { data: call.data, gas: '0x1312d00' })
      expect(sent.error?.code).toBe(ok ? undefined : -32015)
      const trace = (await p.request({ method: 'debug_traceTransaction', params: [sent.hash] })) as any
      expect(trace.reverted).toBe(!ok)
      expect(callCount(trace.structLogs, 'CREATE')).toBe(levels)
    }
  }, 60_000)
})
