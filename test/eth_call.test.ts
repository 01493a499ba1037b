/**
 * eth_call (spec "Transaction call object", "State override entry", "Errors"; reference §5.1): the call object,
 * every block selector, state overrides applied for one call only, and the -32015 revert error for every
 * revert shape. Client behaviour (ethers, viem, web3.js) is in eth_call.clients.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { createHash } from 'node:crypto'
import { AbiCoder, getCreateAddress, Interface, keccak256 } from 'ethers'
import type { Provider } from '../src/index.js'
import { COW, COW1, deploy, fresh, rejects, send } from './helpers.js'
import { Caller, Env, Reverter, Storage } from './fixtures/index.js'

const env = new Interface(Env.abi as never)
const st = new Interface(Storage.abi as never)
const rv = new Interface(Reverter.abi as never)
const cl = new Interface(Caller.abi as never)
const coder = AbiCoder.defaultAbiCoder()
const ZERO = '0x' + '00'.repeat(20)
const EMPTY = '0x00000000000000000000000000000000000c0ffe'
const SHA256 = '0x0000000000000000000000000000000000000002'
/** Runtime code: SELFBALANCE PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN. */
const SELFBALANCE = '0x4760005260206000f3'
const mappingSlot = (k: number): string => keccak256(coder.encode(['uint256', 'uint256'], [k, 0]))
const word = (n: bigint | number): string => coder.encode(['uint256'], [n])

const call = (p: Provider, obj: Record<string, unknown>, ...rest: unknown[]) =>
  p.request({ method: 'eth_call', params: [obj, ...rest] }) as Promise<string>
const uint = async (p: Provider, obj: Record<string, unknown>, ...rest: unknown[]) => BigInt(await call(p, obj, ...rest))

describe('eth_call: the call object', async () => {
  const p = await fresh()
  const e = await deploy(p, Env)
  const r = await deploy(p, Reverter)

  it('data and its alias input; input wins when both are given (RSKj CallArgumentsParam)', async () => {
    const ok = rv.encodeFunctionData('ok')
    expect(await uint(p, { to: r, data: ok }, 'latest')).toBe(1n)
    expect(await uint(p, { to: r, input: ok }, 'latest')).toBe(1n)
    await expect(call(p, { to: r, data: ok, input: rv.encodeFunctionData('revertEmpty') }, 'latest')).rejects.toMatchObject({ code: -32015 })
  })

  it('from sets msg.sender and tx.origin; absent from is the zero address', async () => {
    expect(await call(p, { to: e, from: COW1, data: env.encodeFunctionData('sender') })).toBe(coder.encode(['address'], [COW1]))
    expect(await call(p, { to: e, from: COW1, data: env.encodeFunctionData('origin') })).toBe(coder.encode(['address'], [COW1]))
    expect(await call(p, { to: e, data: env.encodeFunctionData('sender') })).toBe(coder.encode(['address'], [ZERO]))
  })

  it('gas bounds the execution; the default is the call gas cap; too little gas answers 0x, not an error', async () => {
    const left = await uint(p, { to: e, data: env.encodeFunctionData('gasLeft'), gas: '0x186a0' })
    expect(left).toBeLessThan(100_000n - 21_000n)
    expect(left).toBeGreaterThan(70_000n)
    const dflt = await uint(p, { to: e, data: env.encodeFunctionData('gasLeft') })
    expect(dflt).toBeGreaterThan(9_900_000n)
    expect(dflt).toBeLessThan(10_000_000n)
    // Above the cap, the cap applies (RSKj rpc.callGasCap).
    expect(await uint(p, { to: e, data: env.encodeFunctionData('gasLeft'), gas: '0xffffffffff' })).toBe(dflt)
    expect(await call(p, { to: e, data: env.encodeFunctionData('gasLeft'), gas: '0x5300' })).toBe('0x')
  })

  it('gasPrice is tx.gasprice; value is transferred even from an account without funds', async () => {
    expect(await uint(p, { to: e, data: env.encodeFunctionData('gasPrice'), gasPrice: '0x3b9aca00' })).toBe(1_000_000_000n)
    // SELFBALANCE of a fresh account after the call's value arrived (code injected by a state override).
    const target = '0x00000000000000000000000000000000000ba1a2'
    const ov = { [target]: { code: SELFBALANCE } }
    expect(await uint(p, { to: target, from: COW, value: '0x2a' }, 'latest', ov)).toBe(42n)
    expect(await uint(p, { to: target, from: EMPTY, value: '0x2a' }, 'latest', ov)).toBe(42n)
    expect(await p.request({ method: 'eth_getBalance', params: [target, 'latest'] })).toBe('0x0')
    expect(await p.request({ method: 'eth_getBalance', params: [EMPTY, 'latest'] })).toBe('0x0')
  })

  it('without to, the data is run as init code and the runtime code comes back', async () => {
    expect(await call(p, { from: COW, data: Env.bytecode })).toBe(Env.deployedBytecode)
  })

  it('a call to an account without code answers 0x', async () => {
    expect(await call(p, { to: COW1, data: '0x1234' })).toBe('0x')
  })

  it('rejects bad call objects with -32602', async () => {
    await rejects(call(p, { to: '0x12' }), -32602, 'Invalid address: null, empty or invalid hex value.')
    await rejects(call(p, { to: e, data: '0xzz' }), -32602, 'Invalid data format: invalid hex value.')
    await rejects(call(p, { to: e, gas: 'lots' }), -32602, 'Invalid param lots: value must be a valid hex or string number.')
    await rejects(p.request({ method: 'eth_call', params: ['0x00'] }), -32602, /Invalid transaction call object/)
    await rejects(p.request({ method: 'eth_call', params: [] }), -32602, 'method parameters invalid')
  })
})

describe('eth_call: block selectors', async () => {
  const p = await fresh()
  const s = await deploy(p, Storage)
  const e = await deploy(p, Env)
  await send(p, { to: s, data: st.encodeFunctionData('set', [1, 10]) })
  const first = (await p.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as { number: string; hash: string }
  await send(p, { to: s, data: st.encodeFunctionData('set', [1, 20]) })
  const get1 = { to: s, data: st.encodeFunctionData('get', [1]) }

  it('reads the state of the selected block, by every form', async () => {
    const n = BigInt(first.number)
    expect(await uint(p, get1)).toBe(20n)
    for (const sel of ['latest', 'pending']) expect(await uint(p, get1, sel)).toBe(20n)
    const forms = [first.number, n.toString(), { blockHash: first.hash }, { blockNumber: first.number }, { blockNumber: n.toString() }]
    for (const sel of [...forms, { blockHash: first.hash, requireCanonical: true }, { blockHash: first.hash, requireCanonical: 'TRUE' }]) {
      expect(await uint(p, get1, sel)).toBe(10n)
    }
    expect(await call(p, get1, 'earliest')).toBe('0x') // no contract at genesis
  })

  it('runs in the context of the selected block (number, gas limit)', async () => {
    expect(await uint(p, { to: e, data: env.encodeFunctionData('blockNumber') }, first.number)).toBe(BigInt(first.number))
    expect(await uint(p, { to: e, data: env.encodeFunctionData('blockNumber') }, 'latest')).toBe(BigInt(first.number) + 1n)
    expect(await uint(p, { to: e, data: env.encodeFunctionData('chainId') })).toBe(33n)
  })

  it('answers RSKj errors for blocks it cannot use', async () => {
    await rejects(call(p, get1, '0x100'), -32602, 'Invalid block number 256')
    const unknown = '0x' + 'ab'.repeat(32)
    await rejects(call(p, get1, { blockHash: unknown }), -32600, `Block with hash ${unknown} not found`)
    // A hash where eth_call wants a number: ExecutionBlockRetriever reads 64 hex digits as a Java long
    // (Utils.hexadecimalStringToLong): RSKj's IllegalArgumentException, -32603 there, its text with -32602 here.
    await rejects(call(p, get1, unknown), -32602, `Invalid hexadecimal number: ${unknown} (a block hash is not a block number here: pass {"blockHash": "<hash>"}, EIP-1898)`)
    await rejects(call(p, get1, 'safe'), -32602, "Invalid block identifier 'safe'")
    await rejects(call(p, get1, 'Latest'), -32602, "Invalid block identifier 'Latest'")
    await rejects(call(p, get1, { foo: 1 }), -32602, 'Invalid block input')
  })
})

describe('eth_call: state overrides', async () => {
  const p = await fresh()
  const s = await deploy(p, Storage)
  const e = await deploy(p, Env)
  const c = await deploy(p, Caller)
  await send(p, { to: s, data: st.encodeFunctionData('set', [1, 42]) })
  await send(p, { to: s, data: st.encodeFunctionData('inc') })
  const get = (k: number) => ({ to: s, data: st.encodeFunctionData('get', [k]) })
  const counter = { to: s, data: st.encodeFunctionData('counter') }

  it('balance', async () => {
    const ov = { [e]: { balance: '0xde0b6b3a7640000' } }
    expect(await uint(p, { to: e, data: env.encodeFunctionData('selfBalance') }, 'latest', ov)).toBe(10n ** 18n)
    expect(await p.request({ method: 'eth_getBalance', params: [e, 'latest'] })).toBe('0x0')
  })

  it('nonce (seen through the address of a contract the account creates)', async () => {
    const child = await call(p, { to: c, data: cl.encodeFunctionData('create') }, 'latest', { [c]: { nonce: '0x7' } })
    expect(coder.decode(['address'], child)[0]).toBe(getCreateAddress({ from: c, nonce: 7 }))
    // Without the override: a contract a transaction deployed is at nonce 0 on RSK (RSKj TransactionExecutor.create
    // never raises it; Ethereum's EIP-161 starts it at 1).
    const plain = await call(p, { to: c, data: cl.encodeFunctionData('create') }, 'latest')
    expect(coder.decode(['address'], plain)[0]).toBe(getCreateAddress({ from: c, nonce: 0 }))
  })

  it('code', async () => {
    const ov = { [EMPTY]: { code: Env.deployedBytecode } }
    expect(await uint(p, { to: EMPTY, data: env.encodeFunctionData('chainId') }, 'latest', ov)).toBe(33n)
    expect(await p.request({ method: 'eth_getCode', params: [EMPTY, 'latest'] })).toBe('0x')
  })

  it('state replaces every slot; stateDiff patches some', async () => {
    const full = { [s]: { state: { [mappingSlot(2)]: word(7) } } }
    expect(await uint(p, get(1), 'latest', full)).toBe(0n)
    expect(await uint(p, get(2), 'latest', full)).toBe(7n)
    expect(await uint(p, counter, 'latest', full)).toBe(0n)
    const diff = { [s]: { stateDiff: { [mappingSlot(2)]: word(7), '0x1': '0x5' } } }
    expect(await uint(p, get(1), 'latest', diff)).toBe(42n)
    expect(await uint(p, get(2), 'latest', diff)).toBe(7n)
    expect(await uint(p, counter, 'latest', diff)).toBe(5n)
  })

  it('is applied for that call only, also on a historical block', async () => {
    expect(await uint(p, get(1), 'latest')).toBe(42n)
    expect(await uint(p, counter, 'latest')).toBe(1n)
    expect(await p.request({ method: 'eth_getStorageAt', params: [s, mappingSlot(2), 'latest'] })).toBe(word(0))
    const at = (await p.request({ method: 'eth_blockNumber' })) as string
    const older = '0x' + (BigInt(at) - 1n).toString(16)
    expect(await uint(p, counter, older, { [s]: { stateDiff: { '0x1': '0x9' } } })).toBe(9n)
    expect(await uint(p, counter, older)).toBe(0n)
    expect(await uint(p, get(1), older)).toBe(42n)
  })

  it('leaves no trace in the state that later transactions build on', async () => {
    await call(p, counter, 'latest', { [s]: { state: { '0x1': '0x63' } }, [COW]: { balance: '0x0', nonce: '0x99' } })
    const receipt = await send(p, { to: s, data: st.encodeFunctionData('inc') })
    expect(receipt.status).toBe('0x1')
    expect(await uint(p, counter)).toBe(2n)
    expect(await uint(p, get(1))).toBe(42n)
  })

  it('an empty map changes nothing', async () => {
    expect(await uint(p, get(1), 'latest', {})).toBe(42n)
  })

  it('refuses movePrecompileToAddress, state with stateDiff, and bad entries with clear errors', async () => {
    await rejects(call(p, get(1), 'latest', { [s]: { movePrecompileToAddress: COW1 } }), -32201, 'Move precompile to address is not supported yet')
    await rejects(
      call(p, get(1), 'latest', { [s]: { state: {}, stateDiff: {} } }),
      -32602,
      `Invalid state override for ${s}: state and stateDiff cannot be given together`,
    )
    for (const pre of ['0x0000000000000000000000000000000000000001', '0x0000000000000000000000000000000001000006']) {
      await rejects(call(p, get(1), 'latest', { [pre]: { balance: '0x1' } }), -32602, 'Precompiled contracts can not be overridden')
    }
    await rejects(call(p, get(1), 'latest', { '0x12': { balance: '0x1' } }), -32602, 'Invalid address: null, empty or invalid hex value.')
    await rejects(call(p, get(1), 'latest', { [s]: { balance: '-1' } }), -32602, `Invalid state override for ${s}: balance -1 is not a 0x hex number`)
    await rejects(call(p, get(1), 'latest', { [s]: { balance: true } }), -32602, 'Invalid param true: value must be a valid hex or string number.')
    await rejects(call(p, get(1), 'latest', { [s]: { code: 'xyz' } }), -32602, 'Invalid data format: invalid hex value.')
    await rejects(call(p, get(1), 'latest', { [s]: null }), -32602, `Invalid state override for ${s}: expected an object.`)
    await rejects(call(p, get(1), 'latest', []), -32602, /Invalid state override set/)
  })

  /**
   * The fields as RSKj reads them: `AccountOverrideParam.Deserializer` (org/ethereum/rpc/parameters/AccountOverrideParam.java)
   * takes each field's `asText()` into `HexNumberParam` (balance, nonce), `HexDataParam` (code, and the keys and values
   * of `state`/`stateDiff`: hex with or without `0x`, an odd count left-padded, so `10` is slot 0x10), then
   * `AccountOverride.fromAccountOverrideParam` (co/rsk/rpc/modules/eth/AccountOverride.java) reads the balance with
   * `HexUtils.stringHexToBigInteger` and the nonce with `HexUtils.jsonHexToLong` (a `0x` wanted: RSKj's
   * NumberFormatException is -32603, -32602 here) and the slots with `DataWord.valueOf` (at most 32 bytes).
   */
  it('reads the fields as RSKj\'s AccountOverrideParam and AccountOverride do', async () => {
    const now = await uint(p, counter)
    // stateDiff keys and values are hex without 0x too; a JSON number is its digits read as hex; `0x` is 0.
    expect(await uint(p, counter, 'latest', { [s]: { stateDiff: { '1': 16 } } })).toBe(0x16n)
    expect(await uint(p, counter, 'latest', { [s]: { stateDiff: { '01': '9' } } })).toBe(9n)
    expect(await uint(p, counter, 'latest', { [s]: { stateDiff: { '0x01': '0x' } } })).toBe(0n)
    expect(await uint(p, counter, 'latest', { [s]: { stateDiff: { '10': '0x7' } } })).toBe(now) // slot 0x10, not 10
    expect(await uint(p, { to: s, data: st.encodeFunctionData('get', [1]) }, 'latest', { [s]: { stateDiff: { '0x': '0x3' } } })).toBe(42n)
    await rejects(call(p, counter, 'latest', { [s]: { stateDiff: { '0x1': null } } }), -32602, 'Invalid data format: invalid hex value.')
    await rejects(call(p, counter, 'latest', { [s]: { stateDiff: { ['0x' + '00'.repeat(33)]: '0x1' } } }), -32602, `Invalid state override for ${s}: the storage key 0x${'00'.repeat(33)} is longer than 32 bytes`)
    // balance and nonce: 0x hex only (a decimal passes HexNumberParam, then stringHexToBigInteger/jsonHexToLong refuse it).
    const ov = (o: Record<string, unknown>) => ({ [e]: o })
    const selfBalance = { to: e, data: env.encodeFunctionData('selfBalance') }
    expect(await uint(p, selfBalance, 'latest', ov({ balance: '0xFF' }))).toBe(255n)
    for (const balance of ['100', 100, '0x', {}]) {
      const text = typeof balance === 'object' ? '' : String(balance)
      await rejects(call(p, selfBalance, 'latest', ov({ balance })), -32602, `Invalid state override for ${e}: balance ${text} is not a 0x hex number`)
    }
    for (const nonce of ['7', '0x', '0x8000000000000000']) {
      await rejects(call(p, selfBalance, 'latest', ov({ nonce })), -32602, `Invalid state override for ${e}: nonce ${nonce} is not a 0x hex number below 2^63`)
    }
    expect(coder.decode(['address'], await call(p, { to: c, data: cl.encodeFunctionData('create') }, 'latest', { [c]: { nonce: '0x7fffffffffffffff' } }))[0]).toBe(
      getCreateAddress({ from: c, nonce: 0x7fffffffffffffffn }),
    )
    // An entry that is not an object has no fields: it changes nothing; a `state` that is not an object is an empty map.
    expect(await uint(p, counter, 'latest', { [s]: 5 })).toBe(now)
    expect(await uint(p, counter, 'latest', { [s]: ['0x1'] })).toBe(now)
    expect(await uint(p, counter, 'latest', { [s]: { state: 'junk' } })).toBe(0n)
    expect(await uint(p, counter, 'latest', { [s]: { stateDiff: 'junk', balance: null, other: 1 } })).toBe(now)
  })

  /**
   * RSKj's `HexAddressParam` has no `equals`, so two keys that name one address in another case are two entries of its
   * `Map<HexAddressParam, AccountOverrideParam>` (org/ethereum/rpc/parameters/HexAddressParam.java), each made an
   * `AccountOverride` and applied in turn by `EthModule.applyStateOverride` (co/rsk/rpc/modules/eth/EthModule.java),
   * which checks each one by itself (`DefaultStateOverrideApplier.applyToRepository`: state with stateDiff).
   */
  it('two keys naming one address are two overrides, applied and checked one after the other', async () => {
    const lower = '0x' + e.slice(2).toLowerCase()
    const upper = '0x' + e.slice(2).toUpperCase()
    const selfBalance = { to: e, data: env.encodeFunctionData('selfBalance') }
    expect(await uint(p, selfBalance, 'latest', { [lower]: { balance: '0x2a' }, [upper]: { nonce: '0x7' } })).toBe(42n)
    const ls = '0x' + s.slice(2).toLowerCase()
    const us = '0x' + s.slice(2).toUpperCase()
    // The first clears the storage and sets the counter, the second patches another slot: the counter stays 5.
    expect(await uint(p, counter, 'latest', { [ls]: { state: { '0x1': '0x5' } }, [us]: { stateDiff: { [mappingSlot(2)]: word(7) } } })).toBe(5n)
    await rejects(
      call(p, counter, 'latest', { [ls]: { state: {}, stateDiff: {} }, [us]: { balance: '0x1' } }),
      -32602,
      `Invalid state override for ${ls}: state and stateDiff cannot be given together`,
    )
  })
})

describe('eth_call: reverts (-32015, data = raw revert bytes)', async () => {
  const p = await fresh()
  const r = await deploy(p, Reverter)
  const run = (fn: string) => call(p, { to: r, data: rv.encodeFunctionData(fn) }, 'latest')

  it('Error(string) gives "revert <reason>"', async () => {
    const err = await rejects(run('revertWithReason'), -32015, 'VM Exception while processing transaction: revert nope')
    expect(err.data).toBe(rv.encodeErrorResult('Error', ['nope']))
  })

  it('a custom error gives "transaction reverted" and its ABI-encoded data', async () => {
    const err = await rejects(run('revertCustom'), -32015, 'VM Exception while processing transaction: transaction reverted')
    const parsed = rv.parseError(err.data)
    expect(parsed?.name).toBe('Bad')
    expect(parsed?.args[0]).toBe(42n)
  })

  it('panics (division by zero, assert) give "transaction reverted" with Panic(code) data', async () => {
    const div = await rejects(run('revertPanic'), -32015, 'VM Exception while processing transaction: transaction reverted')
    expect(div.data).toBe(rv.encodeErrorResult('Panic', [0x12]))
    const as = await rejects(run('assertFail'), -32015, 'VM Exception while processing transaction: transaction reverted')
    expect(as.data).toBe(rv.encodeErrorResult('Panic', [0x01]))
  })

  it('an empty revert gives data 0x', async () => {
    const err = await rejects(run('revertEmpty'), -32015, 'VM Exception while processing transaction: transaction reverted')
    expect(err.data).toBe('0x')
  })

  it('a revert after a write keeps nothing', async () => {
    await rejects(call(p, { to: r, data: rv.encodeFunctionData('setAndRevert', [5]) }, 'latest'), -32015, 'VM Exception while processing transaction: revert reverted after set')
    expect(await uint(p, { to: r, data: rv.encodeFunctionData('value') })).toBe(0n)
  })

  it('the error object on the wire has code, message and data, in that order', async () => {
    const payload = { jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to: r, data: rv.encodeFunctionData('revertEmpty') }, 'latest'] }
    const res = await new Promise<any>((resolve) => p.sendAsync(payload, (_e: unknown, out: unknown) => resolve(out)))
    expect(JSON.stringify(res.error)).toBe('{"code":-32015,"message":"VM Exception while processing transaction: transaction reverted","data":"0x"}')
  })
})

describe('eth_call and eth_estimateGas: a gas limit below what RSKj subtracts before running', async () => {
  // RSKj's TransactionExecutor subtracts the intrinsic gas (and a precompile's price) from a local call's gas limit
  // where no code runs, with GasCost.subtract; its InvalidGasException is not caught (RSKj's own test,
  // EthModuleGasEstimationDSLTest testEstimateGas_basicTests, expects it for 20,999 gas to an account and an estimate
  // with 1,000), so RSKj answers a bare -32603; rsksim answers -32602 saying why (docs/compatibility.md). Where code
  // runs, the program spends the intrinsic gas and fails out of gas: "0x", in both.
  const p = await fresh()
  const r = await deploy(p, Reverter)
  const gas = (n: number) => '0x' + n.toString(16)
  const wire = (params: unknown[], method = 'eth_call') =>
    new Promise<any>((resolve) => p.sendAsync({ jsonrpc: '2.0', id: 1, method, params }, (_e: unknown, out: unknown) => resolve(out)))

  const NO_CODE = (limit: number, intrinsic: number) =>
    `Invalid gas: ${limit} is less than this call's intrinsic gas (${intrinsic}), which RSKj takes from the gas limit before anything runs`

  it('a call to an account without code: 20,999 gas is refused (-32602, saying why), 21,000 answers 0x', async () => {
    await rejects(call(p, { to: EMPTY, gas: gas(20_999) }, 'latest'), -32602, NO_CODE(20_999, 21_000))
    expect(await call(p, { to: EMPTY, gas: gas(21_000) }, 'latest')).toBe('0x')
    expect(JSON.stringify((await wire([{ to: EMPTY, gas: gas(20_999) }, 'latest'])).error)).toBe(JSON.stringify({ code: -32602, message: NO_CODE(20_999, 21_000) }))
  })

  it('eth_estimateGas with 1,000 gas to an account: refused the same way', async () => {
    await rejects(p.request({ method: 'eth_estimateGas', params: [{ to: EMPTY, gas: gas(1_000) }] }), -32602, NO_CODE(1_000, 21_000))
  })

  it('a contract below the intrinsic gas runs out of gas: 0x, as any failure other than a revert', async () => {
    const data = rv.encodeFunctionData('ok') // 4 non-zero bytes: 21,064 gas before any code runs
    expect(await call(p, { to: r, data, gas: gas(21_063) }, 'latest')).toBe('0x')
    expect(BigInt(await call(p, { to: r, data, gas: gas(30_000) }, 'latest'))).toBe(1n)
  })

  it('code given by a state override runs, so 20,999 gas to it answers 0x', async () => {
    expect(await call(p, { to: EMPTY, gas: gas(20_999) }, 'latest', { [EMPTY]: { code: SELFBALANCE } })).toBe('0x')
  })

  it('a deployment without code: 52,999 gas is refused, 53,000 answers 0x; with init code, below 53,000 is 0x', async () => {
    await rejects(call(p, { gas: gas(52_999) }, 'latest'), -32602, NO_CODE(52_999, 53_000))
    expect(await call(p, { gas: gas(53_000) }, 'latest')).toBe('0x')
    expect(await call(p, { data: '0x00', gas: gas(52_000) }, 'latest')).toBe('0x')
  })

  it("a precompile: below the intrinsic gas plus its price is refused (sha256 of 32 bytes: 21,512 + 72)", async () => {
    const data = '0x' + 'ab'.repeat(32)
    const digest = '0x' + createHash('sha256').update(Buffer.from('ab'.repeat(32), 'hex')).digest('hex')
    expect(await call(p, { to: SHA256, data, gas: gas(21_584) }, 'latest')).toBe(digest)
    const PRICE = (limit: number) => `Invalid gas: ${limit} is less than this call's intrinsic gas (21512) plus the precompile's price, which RSKj takes from the gas limit before the precompile runs`
    await rejects(call(p, { to: SHA256, data, gas: gas(21_583) }, 'latest'), -32602, PRICE(21_583))
    await rejects(call(p, { to: SHA256, data, gas: gas(21_000) }, 'latest'), -32602, PRICE(21_000))
    // The estimate is the same 21,584, and a bound below it fails the same way.
    expect(await p.request({ method: 'eth_estimateGas', params: [{ to: SHA256, data }] })).toBe(gas(21_584))
    await rejects(p.request({ method: 'eth_estimateGas', params: [{ to: SHA256, data, gas: gas(21_583) }] }), -32602, PRICE(21_583))
  })
})
