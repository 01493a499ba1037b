import { describe, expect, it } from 'vitest'
import { AbiCoder, Interface } from 'ethers'
import { createEVM } from '@ethereumjs/evm'
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createAddressFromString, hexToBytes, bytesToHex } from '@ethereumjs/util'
import { artifacts, Token, Reverter, Env, type Artifact, type ContractName } from './fixtures/index.js'

const expected: Record<ContractName, string[]> = {
  Token: [
    'name()', 'symbol()', 'decimals()', 'totalSupply()', 'balanceOf(address)',
    'transfer(address,uint256)', 'approve(address,uint256)', 'allowance(address,address)',
    'transferFrom(address,address,uint256)',
  ],
  Reverter: [
    'revertWithReason()', 'revertCustom()', 'revertPanic()', 'revertEmpty()', 'assertFail()',
    'ok()', 'setAndRevert(uint256)', 'set(uint256)', 'value()',
  ],
  Events: ['emitOne(uint256)', 'emitMany(uint256)'],
  Stale: ['one(uint256)', 'two(uint256)', 'raw()'],
  StaleCaller: ['catchOne(address,uint256)', 'catchTwo(address,uint256)', 'passTwo(address,uint256)', 'catchRaw(address)', 'passRaw(address)'],
  Storage: ['set(uint256,uint256)', 'get(uint256)', 'clear(uint256)', 'slots(uint256)', 'counter()', 'inc()'],
  Caller: [
    'callTarget(address,uint256)', 'delegate(address,uint256)', 'peek(address)', 'create()',
    'create2(bytes32)', 'tryRevert(address)', 'pay(address)', 'destroy(address)',
  ],
  Target: ['setValue(uint256)', 'value()'],
  Child: ['id()'],
  Compute: ['keccakLoop(uint256)', 'arithLoop(uint256)', 'storageLoop(uint256)'],
  ConsoleUser: ['counter()', 'run(uint256)', 'peek(uint256)'],
  DeadConsoleUser: ['counter()', 'run(uint256)', 'peek(uint256)'],
  Env: [
    'blockNumber()', 'timestamp()', 'coinbase()', 'gasLimit()', 'baseFee()', 'chainId()',
    'difficulty()', 'selfBalance()', 'gasLeft()', 'sender()', 'origin()', 'gasPrice()',
    'codehash(address)', 'codesize(address)',
  ],
}

/** Opcodes of a bytecode, skipping PUSH immediates. */
function opcodes(code: string): number[] {
  const b = hexToBytes(code as `0x${string}`)
  const ops: number[] = []
  for (let i = 0; i < b.length; i++) {
    const op = b[i]!
    ops.push(op)
    if (op >= 0x60 && op <= 0x7f) i += op - 0x5f
  }
  return ops
}

describe('compiled fixtures', () => {
  it('has every artifact with non-empty bytecode and the expected ABI', () => {
    expect(Object.keys(artifacts).sort()).toEqual(Object.keys(expected).sort())
    for (const [name, fns] of Object.entries(expected) as [ContractName, string[]][]) {
      const a: Artifact = artifacts[name]
      expect(a.bytecode, name).toMatch(/^0x[0-9a-f]{20,}$/)
      expect(a.deployedBytecode, name).toMatch(/^0x[0-9a-f]{20,}$/)
      const iface = new Interface(a.abi as any)
      for (const sig of fns) expect(iface.getFunction(sig), `${name}.${sig}`).not.toBeNull()
    }
    const ev = new Interface(artifacts.Events.abi as any)
    for (const e of ['Value(uint256,uint256)', 'Pair(address,address,uint256)', 'Anon(uint256)', 'Plain(string)']) {
      expect(ev.getEvent(e), e).not.toBeNull()
    }
    expect(ev.getEvent('Anon')!.anonymous).toBe(true)
    const tok = new Interface(Token.abi as any)
    expect(tok.getEvent('Transfer(address,address,uint256)')).not.toBeNull()
    expect(tok.getEvent('Approval(address,address,uint256)')).not.toBeNull()
    expect(new Interface(Reverter.abi as any).getError('Bad(uint256)')).not.toBeNull()
  })

  it('Env is compiled for london: uses DIFFICULTY (0x44), no PUSH0', () => {
    const ops = opcodes(Env.deployedBytecode)
    expect(ops).toContain(0x44)
    expect(ops).toContain(0x47) // SELFBALANCE
    expect(ops).toContain(0x48) // BASEFEE
    expect(ops).toContain(0x3f) // EXTCODEHASH
    expect(ops).not.toContain(0x5f)
  })

  it('Token deploys and mints; Reverter reverts with Error(string)', async () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun })
    const evm = await createEVM({ common })
    const caller = createAddressFromString('0x1000000000000000000000000000000000000001')
    const coder = AbiCoder.defaultAbiCoder()
    const supply = 1_000_000n * 10n ** 18n

    const deploy = await evm.runCall({
      caller,
      origin: caller,
      data: hexToBytes((Token.bytecode + coder.encode(['uint256'], [supply]).slice(2)) as `0x${string}`),
      gasLimit: 5_000_000n,
    })
    expect(deploy.execResult.exceptionError).toBeUndefined()
    const token = deploy.createdAddress!
    expect(token).toBeDefined()
    const code = await evm.stateManager.getCode(token)
    expect(bytesToHex(code)).toBe(Token.deployedBytecode)

    const iface = new Interface(Token.abi as any)
    const bal = await evm.runCall({
      caller,
      to: token,
      data: hexToBytes(iface.encodeFunctionData('balanceOf', [caller.toString()]) as `0x${string}`),
      gasLimit: 1_000_000n,
    })
    expect(bal.execResult.exceptionError).toBeUndefined()
    const [minted] = iface.decodeFunctionResult('balanceOf', bytesToHex(bal.execResult.returnValue))
    expect(minted).toBe(supply)

    const rdeploy = await evm.runCall({ caller, data: hexToBytes(Reverter.bytecode), gasLimit: 5_000_000n })
    expect(rdeploy.execResult.exceptionError).toBeUndefined()
    const riface = new Interface(Reverter.abi as any)
    const r = await evm.runCall({
      caller,
      to: rdeploy.createdAddress!,
      data: hexToBytes(riface.encodeFunctionData('revertWithReason') as `0x${string}`),
      gasLimit: 1_000_000n,
    })
    expect(r.execResult.exceptionError?.error).toBe('revert')
    const ret = bytesToHex(r.execResult.returnValue)
    expect(ret.startsWith('0x08c379a0')).toBe(true)
    expect(coder.decode(['string'], '0x' + ret.slice(10))[0]).toBe('nope')

    // The other revert shapes.
    const call = async (fn: string) => {
      const res = await evm.runCall({
        caller,
        to: rdeploy.createdAddress!,
        data: hexToBytes(riface.encodeFunctionData(fn) as `0x${string}`),
        gasLimit: 1_000_000n,
      })
      return { err: res.execResult.exceptionError?.error, ret: bytesToHex(res.execResult.returnValue) }
    }
    const panic = (code: number) => '0x4e487b71' + code.toString(16).padStart(64, '0')
    expect(await call('revertCustom')).toEqual({ err: 'revert', ret: riface.encodeErrorResult('Bad', [42]) })
    expect(await call('revertPanic')).toEqual({ err: 'revert', ret: panic(0x12) })
    expect(await call('assertFail')).toEqual({ err: 'revert', ret: panic(0x01) })
    expect(await call('revertEmpty')).toEqual({ err: 'revert', ret: '0x' })
    expect(await call('ok')).toEqual({ err: undefined, ret: coder.encode(['uint256'], [1]) })
  })
})
