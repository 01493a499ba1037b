/**
 * The engine patches of src/node/enginePatches: they are in effect (a changed engine layout would silently switch
 * them off), and the per-code jump analysis cache never serves one code's analysis to another code deployed at the
 * same address.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Interface, solidityPackedKeccak256, toBeHex } from 'ethers'
import { Account, Address, bigIntToBytes, bytesToBigInt, bytesToHex, createAddressFromString, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createVM, runTx } from '@ethereumjs/vm'
import { readFileSync } from 'node:fs'
import {
  commonPatched,
  engineMatchesPin,
  ENGINE_VERSIONS,
  executeCallPatched,
  generateAddressPatched,
  activeOpcodesPatched,
  interpreterPatched,
  memoryPatched,
  newInterpreterPatched,
  PINNED_ENGINE_VERSION,
  runInterpreterPatched,
  senderAddressPatched,
  senderCachePatched,
  addressHexPatched,
  runTransaction,
  runTxPatched,
  takesThisPath,
  withSenderCodeAllowed,
  setEnginePatches,
  enginePatches,
  creationNonceRuleFound,
  applyAccountRules,
  executingBlockFound,
  executingBlockNumber,
} from '../src/node/enginePatches/index.js'
import { createEVM } from '@ethereumjs/evm'
import { wordToBytes, writeWord } from '../src/node/enginePatches/fastOpcodes.js'
import { copyExecutionBlock, executionBlockFromTemplate, templateRecognised } from '../src/node/enginePatches/execBlock.js'
import { createBlock } from '@ethereumjs/block'
import { createLegacyTx, createLegacyTxFromBytesArray, type LegacyTx } from '@ethereumjs/tx'
import { legacyTxFromFields } from '../src/node/enginePatches/legacyTx.js'
import { TX_OPTIONS } from '../src/node/chain/txRecord.js'
import { executionBlockOf } from '../src/node/chain/execBlock.js'
import { createRskCommon } from '../src/node/chain/common.js'
import { NETWORKS } from '../src/options/index.js'
import { bytesToWord } from '../src/node/rlp.js'
import { Compute } from './fixtures/index.js'
import { deploy, fresh, send } from './helpers.js'
import { prng } from './fuzz/shapes.js'
import type { RskNode } from '../src/node/node.js'

/** Initcode that returns the 16 bytes after it as the runtime code. */
const INIT = '0x601080600b6000396000f3'
/** Jumps to pc 5 and returns 42. */
const RUNTIME_A = '600556fefe5b602a60005260206000f3'
/** Same length; jumps to pc 4 (pc 5 is no JUMPDEST here) and returns 7. */
const RUNTIME_B = '600456fe5b600760005260206000f300'

const rpc = (p: Awaited<ReturnType<typeof fresh>>, method: string, params: unknown[] = []) => p.request({ method, params })

/**
 * Whether the patches run in this process (off under `RSKSIM_ENGINE_PATCHES=off`, or with another engine release):
 * each test that switches them puts this back, so a run with the switch off tests the switch off throughout.
 */
const ACTIVE = enginePatches.active
afterEach(() => setEnginePatches(ACTIVE))

describe('engine patches', () => {
  it('are applied exactly when the installed engine is the pinned release', () => {
    // Against the installed engine, every patch is in; in a copy whose pin differs, every patch is out.
    for (const flag of [interpreterPatched, memoryPatched, runInterpreterPatched, executeCallPatched, generateAddressPatched, activeOpcodesPatched, newInterpreterPatched, commonPatched, senderCachePatched, senderAddressPatched, addressHexPatched, runTxPatched]) {
      expect(flag).toBe(engineMatchesPin)
    }
    expect(engineMatchesPin).toBe(Object.values(ENGINE_VERSIONS).every((v) => v === PINNED_ENGINE_VERSION))
  })

  it('EVMs a chain makes for views share its opcode tables (activeOpcodes.ts); with the switch off each builds its own', async () => {
    const p = await fresh()
    const { chain } = (p as unknown as { node: RskNode }).node
    const tables = (vm: { evm: unknown }) => {
      const evm = vm.evm as { _opcodeMap: unknown; _opcodes: unknown; _handlers: unknown; _dynamicGasHandlers: unknown }
      return [evm._opcodeMap, evm._opcodes, evm._handlers, evm._dynamicGasHandlers]
    }
    const a = tables(await chain.vmOver(chain.state))
    const b = tables(await chain.vmOver(chain.state))
    // The chain's own EVM was made first, with the same custom opcode list: its tables are the ones handed on. Sharing
    // is the patch itself, so with the patches off (RSKSIM_ENGINE_PATCHES=off) each EVM has tables of its own.
    const own = tables(chain.vm)
    const shared = activeOpcodesPatched && ACTIVE
    for (let i = 0; i < 4; i++) expect([i, b[i] === a[i], a[i] === own[i]]).toEqual([i, shared, shared])
    try {
      setEnginePatches(false)
      const c = tables(await chain.vmOver(chain.state))
      for (let i = 0; i < 4; i++) expect([i, c[i] === a[i]]).toEqual([i, false])
      // Built the engine's way, they hold the same opcodes.
      expect(Object.keys(c[0] as object)).toEqual(Object.keys(a[0] as object))
    } finally {
      setEnginePatches(ACTIVE)
    }
    await p.disconnect()
  })

  it("RSK's account rules (accountRules.ts) take effect on a new EVM exactly when the engine is the pinned release, switch off or on", async () => {
    expect(creationNonceRuleFound).toBe(engineMatchesPin)
    try {
      setEnginePatches(false)
      const evm = await createEVM()
      expect(applyAccountRules(evm)).toEqual({ stateClearingOff: engineMatchesPin, creationNonceZero: engineMatchesPin })
      // Applied once: a second call neither wraps again nor changes the answer.
      const cleanup = (evm as unknown as { journal: { cleanup: unknown } }).journal.cleanup
      expect(applyAccountRules(evm)).toEqual({ stateClearingOff: engineMatchesPin, creationNonceZero: engineMatchesPin })
      expect((evm as unknown as { journal: { cleanup: unknown } }).journal.cleanup).toBe(cleanup)
    } finally {
      setEnginePatches(ACTIVE)
    }
  })

  it("the number of the block an EVM executes (executingBlock.ts, for BlockHeader) is the block runCall was given", async () => {
    expect(executingBlockFound).toBe(true)
    const common = createRskCommon(NETWORKS.regtest)
    const evm = await createEVM({ common })
    expect(executingBlockNumber(evm)).toBeUndefined()
    const block = executionBlockOf(common, { number: 77n, timestamp: 1n, gasLimit: 6_800_000n, coinbase: new Uint8Array(20), difficulty: 1n })
    await evm.runCall({ block, to: createAddressFromString('0x' + '11'.repeat(20)), gasLimit: 100_000n })
    expect(executingBlockNumber(evm)).toBe(77n)
    expect(executingBlockNumber({})).toBeUndefined()
  })

  it("newInterpreter builds what the engine's Interpreter constructor builds, but for a 1 KB memory", async () => {
    const { engineInterpreter } = await import('../src/node/enginePatches/engineModule.js')
    const { newInterpreter, INITIAL_MEMORY } = await import('../src/node/enginePatches/newInterpreter.js')
    const { createEVM } = await import('@ethereumjs/evm')
    if (!newInterpreterPatched) return
    const evm = await createEVM()
    const env = { gasRefund: 7n, initialLogs: [[Uint8Array.of(1), [], Uint8Array.of(2)]], address: 'a', depth: 1 }
    const args = [evm, { sm: 1 }, { chain: 1 }, env, 12_345n, { journal: 1 }, { logger: 1 }, { profiler: 1 }] as const
    const Interpreter = engineInterpreter as unknown as new (...a: unknown[]) => Record<string, any>
    const theirs = new Interpreter(...args)
    const ours = newInterpreter(...(args as unknown as Parameters<typeof newInterpreter>)) as Record<string, any>
    expect(Object.getPrototypeOf(ours)).toBe(Object.getPrototypeOf(theirs))
    expect(Object.keys(ours)).toEqual(Object.keys(theirs))
    expect(Object.keys(ours._runState)).toEqual(Object.keys(theirs._runState))
    for (const [k, v] of Object.entries(theirs._runState)) {
      if (k === 'interpreter') expect(ours._runState.interpreter).toBe(ours)
      else if (k === 'memory') {
        expect(Object.getPrototypeOf(ours._runState.memory)).toBe(Object.getPrototypeOf(v))
        expect(ours._runState.memory._store).toEqual(new Uint8Array(INITIAL_MEMORY))
      } else expect([k, ours._runState[k]]).toEqual([k, v])
    }
    for (const k of Object.keys(theirs)) if (k !== '_runState') expect([k, ours[k]]).toEqual([k, theirs[k]])
    expect(ours._result.logs).not.toBe(env.initialLogs)
  })

  it('gives every frame a zeroed first memory that no other frame shares, across slabs', async () => {
    const { newInterpreter, INITIAL_MEMORY } = await import('../src/node/enginePatches/newInterpreter.js')
    const { createEVM } = await import('@ethereumjs/evm')
    if (!newInterpreterPatched) return
    const evm = await createEVM()
    const args = [evm, {}, {}, { gasRefund: 0n }, 1n, {}, {}, {}] as unknown as Parameters<typeof newInterpreter>
    const memories: Uint8Array[] = []
    // More frames than one slab holds (64), each written all over as soon as it is made.
    for (let i = 0; i < 200; i++) {
      const store = (newInterpreter(...args) as { _runState: { memory: { _store: Uint8Array } } })._runState.memory._store
      expect(store.length).toBe(INITIAL_MEMORY)
      expect(store.every((b) => b === 0)).toBe(true)
      store.fill((i % 255) + 1)
      memories.push(store)
    }
    // Nothing written later reached an earlier frame's memory.
    memories.forEach((m, i) => expect(m.every((b) => b === (i % 255) + 1)).toBe(true))
  })

  it('package.json pins the engine packages exactly (no range a new release could slip under)', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as Record<string, Record<string, string> | undefined>
    const engine = Object.entries({ ...pkg.dependencies, ...pkg.devDependencies }).filter(([n]) => n.startsWith('@ethereumjs/'))
    expect(engine.length).toBeGreaterThan(5)
    for (const [name, range] of engine) expect({ name, range }).toEqual({ name, range: expect.stringMatching(/^\d+\.\d+\.\d+$/) })
  })

  it('a contract redeployed at the same address after evm_revert runs with its own jump destinations', async () => {
    const p = await fresh()
    const snap = await rpc(p, 'evm_snapshot')
    const a = await send(p, { data: INIT + RUNTIME_A })
    expect(BigInt((await rpc(p, 'eth_call', [{ to: a.contractAddress }, 'latest'])) as string)).toBe(42n)
    await rpc(p, 'evm_revert', [snap])
    const b = await send(p, { data: INIT + RUNTIME_B })
    expect(b.contractAddress).toBe(a.contractAddress)
    expect(BigInt((await rpc(p, 'eth_call', [{ to: b.contractAddress }, 'latest'])) as string)).toBe(7n)
  })
})

describe("addresses' hex (src/node/enginePatches/addressHex.ts)", () => {
  it('is the lowercase 0x hex of the bytes, patches on and off', () => {
    const r = prng(31)
    const samples = [new Uint8Array(20), new Uint8Array(20).fill(0xff)]
    for (let k = 0; k < 200; k++) samples.push(Uint8Array.from({ length: 20 }, () => Math.floor(r() * 256)))
    try {
      for (const on of [true, false]) {
        setEnginePatches(on)
        for (const bytes of samples) expect(new Address(bytes).toString()).toBe('0x' + Buffer.from(bytes).toString('hex'))
      }
    } finally {
      setEnginePatches(ACTIVE)
    }
  })
})

describe('execution blocks copied from a template (src/node/enginePatches/execBlock.ts)', () => {
  /** Every own field of a header or block, as the engine's JSON and raw forms and the fields the EVM reads show them. */
  const view = (b: ReturnType<typeof createBlock>) => ({
    json: b.toJSON(),
    raw: b.header.raw(),
    hash: b.header.hash(),
    prevRandao: b.header.mixHash,
    coinbase: b.header.coinbase.toString(),
    common: [b.common.hardfork(), b.common.eips(), b.header.common.hardfork()],
    frozen: [Object.isFrozen(b), Object.isFrozen(b.header)],
    keys: [Object.keys(b), Object.keys(b.header)],
  })

  it("equal createBlock's blocks field by field, hash included, for random header values", () => {
    const common = createRskCommon(NETWORKS.regtest)
    const r = prng(47)
    const rand = (bits: number) => bytesToBigInt(Uint8Array.from({ length: bits / 8 }, () => Math.floor(r() * 256)))
    const template = createBlock({ header: { number: 1n } }, { common, skipConsensusFormatValidation: true })
    expect(templateRecognised(template)).toBe(engineMatchesPin)
    // A release whose header has a field more (or whose blocks are not frozen) is not copied.
    const other = createBlock({}, { common, skipConsensusFormatValidation: true, freeze: false })
    expect(templateRecognised(other)).toBe(false)
    Object.assign(other.header, { slotIndex: 0n })
    Object.freeze(other.header)
    Object.freeze(other)
    expect(templateRecognised(other)).toBe(false)
    for (let k = 0; k < 100; k++) {
      const values = { number: rand(64), timestamp: rand(64), gasLimit: rand(32), coinbase: new Address(Uint8Array.from({ length: 20 }, () => Math.floor(r() * 256))), difficulty: rand(k % 2 ? 8 : 256) }
      const copy = copyExecutionBlock(template, values)
      const built = createBlock({ header: values }, { common, skipConsensusFormatValidation: true })
      expect(view(copy)).toEqual(view(built))
      // A copy hashes its own header, never the template's cached hash, and shares none of its arrays.
      expect(copy.header.hash()).not.toEqual(template.header.hash())
      expect([copy.transactions, copy.uncleHeaders]).not.toContain(template.transactions)
      expect([copy.transactions, copy.uncleHeaders]).not.toContain(template.uncleHeaders)
    }
  })

  it('are built by createBlock when the patches are off, and by executionBlockOf with the same values either way', () => {
    const values = { number: 9n, timestamp: 1_700_000_000n, gasLimit: 6_800_000n, coinbase: new Uint8Array(20).fill(3), difficulty: 1n }
    const results = []
    try {
      for (const on of [true, false]) {
        setEnginePatches(on)
        const common = createRskCommon(NETWORKS.regtest)
        executionBlockOf(common, { ...values, number: 1n })
        results.push(view(executionBlockOf(common, values)))
        // The Common's template exists (the first block above): with the patches off, the block is the one built.
        const builtBlock = createBlock({}, { common, skipConsensusFormatValidation: true })
        if (!on) expect(executionBlockFromTemplate(common, { ...values, coinbase: new Address(values.coinbase) }, () => builtBlock)).toBe(builtBlock)
      }
    } finally {
      setEnginePatches(ACTIVE)
    }
    expect(results[0]).toEqual(results[1])
  })
})

describe('decoded legacy transactions copied from a template (src/node/enginePatches/legacyTx.ts)', () => {
  // These compare the patch with the engine: on here (where the engine is the pinned release) whatever the process's
  // setting, which afterEach puts back.
  beforeEach(() => setEnginePatches(true))
  const view = (tx: LegacyTx) => ({
    keys: Object.keys(tx),
    json: tx.toJSON(),
    serialized: tx.serialize(),
    hash: tx.isSigned() ? tx.hash() : 'unsigned',
    message: tx.getMessageToSign(),
    eip155: tx.supports(155),
    signed: tx.isSigned(),
    chainId: tx.common.chainId(),
    hardfork: tx.common.hardfork(),
    frozen: Object.isFrozen(tx),
    prototype: Object.getPrototypeOf(tx) === Object.getPrototypeOf(createLegacyTx({})),
  })
  const attempt = (f: () => LegacyTx) => {
    try {
      return { tx: f() }
    } catch (e) {
      return { error: (e as Error).message }
    }
  }

  it("equal the engine's transactions on random fields, and fields the engine refuses are refused alike", () => {
    const common = createRskCommon(NETWORKS.regtest)
    const r = prng(53)
    const byte = () => Math.floor(r() * 256)
    const bytes = (n: number) => Uint8Array.from({ length: n }, byte)
    const word = (max: number) => {
      const b = bytes(Math.floor(r() * (max + 1)))
      if (b.length > 0 && b[0] === 0) b[0] = 1
      return b
    }
    const engine = (fields: Uint8Array[]) => createLegacyTxFromBytesArray(fields, { common, ...TX_OPTIONS })
    const seed = createLegacyTx({ to: new Uint8Array(20), v: 27n, r: 1n, s: 1n }, { common }).raw()
    const first = legacyTxFromFields(common, seed, () => engine(seed))
    let copies = 0
    let refused = 0
    for (let k = 0; k < 600; k++) {
      const key = bytes(32)
      key[0] = 1
      const signed = createLegacyTx({ nonce: bytesToBigInt(word(8)), gasPrice: bytesToBigInt(word(12)), gasLimit: bytesToBigInt(word(8)), to: bytes(20), value: bytesToBigInt(word(32)), data: bytes(Math.floor(r() * 80)) }, { common }).sign(key)
      const fields = signed.raw()
      // One field in four broken in a way the engine checks (or an unusual but valid v).
      switch (k % 12) {
        case 0: fields[0] = Uint8Array.of(0, ...fields[0]!); break // a leading zero
        case 1: fields[0] = new Uint8Array(8).fill(0xff); break // nonce 2^64 - 1
        case 2: fields[2] = word(9).length === 9 ? word(9) : bytes(9).map((b, i) => (i === 0 ? 1 : b)); break // gas limit past 2^64 - 1
        case 3: fields[6] = Uint8Array.of([27, 28, 35, 36, 37, 0, 101, 102, 103, 255][Math.floor(r() * 10)]!); break
        case 4: fields[3] = new Uint8Array(0); break // a creation: built by the engine
        case 5: fields[1] = bytes(32).map((b, i) => (i === 0 ? 0xff : b)); fields[2] = new Uint8Array(8).fill(0xff); break // gas price x gas limit past 2^256
        case 6: fields[7] = new Uint8Array(0); break // no r
        case 7: fields[4] = bytes(33).map((b, i) => (i === 0 ? 1 : b)); break // value past 2^256 - 1
        default: break
      }
      const expected = attempt(() => engine(fields))
      const got = attempt(() => legacyTxFromFields(common, fields, () => engine(fields)))
      if ('error' in expected) {
        refused++
        expect(got).toEqual(expected)
        continue
      }
      expect('tx' in got).toBe(true)
      expect(view(got.tx!)).toEqual(view(expected.tx!))
      // A copy shares the first transaction's Common; every unbroken transaction (k % 12 >= 8) must be one.
      if (got.tx!.common === first.common) copies++
      else if (engineMatchesPin) expect(k % 12).toBeLessThan(8)
    }
    expect(copies).toBeGreaterThanOrEqual(engineMatchesPin ? 200 : 0)
    expect(refused).toBeGreaterThan(100)
  })

  it('are built by the engine with the patches off', () => {
    const common = createRskCommon(NETWORKS.regtest)
    const build = (fields: Uint8Array[]) => () => createLegacyTxFromBytesArray(fields, { common, ...TX_OPTIONS })
    const key = new Uint8Array(32).fill(7)
    const fields = (nonce: bigint) => createLegacyTx({ nonce, gasPrice: 1n, gasLimit: 21_000n, to: new Uint8Array(20).fill(1) }, { common }).sign(key).raw()
    const first = legacyTxFromFields(common, fields(0n), build(fields(0n)))
    try {
      setEnginePatches(false)
      expect(legacyTxFromFields(common, fields(1n), build(fields(1n))).common).not.toBe(first.common)
    } finally {
      setEnginePatches(true)
    }
    expect(legacyTxFromFields(common, fields(2n), build(fields(2n))).common).toBe(engineMatchesPin ? first.common : expect.anything())
  })
})

describe('fast MLOAD/MSTORE/KECCAK256 (src/node/enginePatches/fastOpcodes.ts)', () => {
  it('convert words like the engine does', () => {
    const words = [0n, 1n, 255n, 256n, 2n ** 48n - 1n, 2n ** 48n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 64n - 1n, 2n ** 64n, 2n ** 128n + 7n, 2n ** 255n, 2n ** 256n - 1n]
    for (const w of words) {
      const bytes = wordToBytes(w)
      expect(bytes).toEqual(setLengthLeft(bigIntToBytes(w), 32))
      expect(bytesToWord(bytes)).toBe(w)
      expect(bytesToWord(bytes.subarray(3))).toBe(bytesToBigInt(bytes.subarray(3)))
    }
  })

  it('write words of every bit length at an offset like the engine, leaving the bytes around them', () => {
    const r = prng(53)
    for (let bits = 1; bits <= 256; bits++) {
      let w = 1n
      for (let i = 1; i < bits; i++) w = (w << 1n) | (r() < 0.5 ? 1n : 0n)
      const out = new Uint8Array(40).fill(0xee)
      writeWord(out, 5, w)
      expect([bits, out.subarray(5, 37)]).toEqual([bits, setLengthLeft(bigIntToBytes(w), 32)])
      expect([...out.subarray(0, 5), ...out.subarray(37)]).toEqual(new Array(8).fill(0xee))
    }
  })

  it('read big-endian bytes of every length up to 40 like util bytesToBigInt, leading zeros or not', () => {
    const r = prng(97)
    for (let n = 0; n <= 40; n++) {
      for (let k = 0; k < 20; k++) {
        // Some leading zero bytes now and then, a subarray of a larger buffer now and then.
        const zeros = k % 3 === 0 ? Math.floor(r() * (n + 1)) : 0
        const backing = new Uint8Array(n + 8)
        const bytes = k % 2 === 0 ? backing.subarray(5, 5 + n) : new Uint8Array(n)
        for (let i = zeros; i < n; i++) bytes[i] = Math.floor(r() * 256)
        backing.fill(0xff, 0, 5)
        backing.fill(0xff, 5 + n)
        expect(bytesToWord(bytes), `${n} bytes, ${zeros} zeros`).toBe(bytesToBigInt(bytes))
      }
    }
  })

  it('a keccak loop returns the hash chain the EVM semantics define', async () => {
    const p = await fresh()
    const compute = await deploy(p, Compute)
    const iface = new Interface(Compute.abi as never)
    let h = toBeHex(5n, 32)
    for (let i = 0; i < 5; i++) h = solidityPackedKeccak256(['bytes32', 'uint256'], [h, i])
    const data = iface.encodeFunctionData('keccakLoop', [5])
    expect(await p.request({ method: 'eth_call', params: [{ to: compute, data }, 'latest'] })).toBe(h)
  })
})

describe("the engine's runTx for legacy transactions (src/node/enginePatches/runTx.ts)", () => {
  // These compare the patch with the engine: on here (where the engine is the pinned release) whatever the process's
  // setting, which afterEach puts back.
  beforeEach(() => setEnginePatches(true))
  const KEY = new Uint8Array(32).fill(7)
  const CONTRACT = createAddressFromString('0x00000000000000000000000000000000000c0de5')
  const COINBASE = createAddressFromString('0x00000000000000000000000000000000000000cb')
  // SSTORE(0, 1), SSTORE(0, 0) (a refund), LOG1 with topic 0xaa, then SELFDESTRUCT to the coinbase.
  const CODE = hexToBytes('0x6001600055600060005560aa60006000a141ff')

  /** A VM on Istanbul (the rules rsksim's chains run) with a funded sender and the contract above. */
  async function world(balance: bigint, nonce = 0n) {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Istanbul })
    const vm = await createVM({ common })
    const sender = createLegacyTx({ gasLimit: 21_000n, gasPrice: 1n }, { common }).sign(KEY).getSenderAddress()
    await vm.stateManager.putAccount(sender, new Account(nonce, balance))
    await vm.stateManager.putAccount(CONTRACT, new Account(0n, 5n))
    await vm.stateManager.putCode(CONTRACT, CODE)
    const block = createBlock({ header: { number: 1n, coinbase: COINBASE, gasLimit: 10_000_000n } }, { common })
    return { vm, common, block }
  }

  const tx = (common: Common, fields: { nonce?: bigint; gasLimit?: bigint; value?: bigint; to?: Address }) =>
    createLegacyTx({ to: CONTRACT, gasPrice: 10n, gasLimit: 100_000n, ...fields }, { common }).sign(KEY)

  /** What a run leaves: the result's fields, the state root, or the error's text. */
  async function outcome(lean: boolean, balance: bigint, fields: Parameters<typeof tx>[1], senderNonce = 0n) {
    const { vm, common, block } = await world(balance, senderNonce)
    const t = tx(common, fields)
    expect(takesThisPath(vm, t)).toBe(runTxPatched)
    try {
      const r = lean ? await runTransaction(vm, t, block, 1_000n) : await runTx(vm, { tx: t, block, blockGasUsed: 1_000n, skipHardForkValidation: true, skipBlockGasLimitValidation: true })
      const { totalGasSpent, amountSpent, minerValue, gasRefund, blockGasSpent, receipt } = r
      return {
        totalGasSpent, amountSpent, minerValue, gasRefund, blockGasSpent, receipt,
        bloom: bytesToHex(r.bloom.bitvector),
        error: r.execResult.exceptionError?.error,
        root: bytesToHex(await vm.stateManager.getStateRoot()),
        contract: await vm.stateManager.getAccount(CONTRACT),
      }
    } catch (e) {
      return { thrown: (e as Error).message, root: bytesToHex(await vm.stateManager.getStateRoot()) }
    }
  }

  it('gives what the engine gives: results, state root, and the texts of refused transactions', async () => {
    const cases: [bigint, Parameters<typeof tx>[1], bigint?][] = [
      [10n ** 18n, {}], // refund, log, self-destruct
      [10n ** 18n, { gasLimit: 21_050n }], // out of gas in the call
      [10n ** 18n, { value: 3n, to: COINBASE }], // a plain value transfer
      [10n ** 18n, { nonce: 1n }], // wrong nonce
      [999_999n, {}], // short of the upfront cost
      [10n ** 18n, { gasLimit: 20_000n }], // below the intrinsic gas
      [10n ** 18n, { nonce: 4n }, 4n], // a later nonce that is right
    ]
    const seen = new Set<string>()
    for (const [balance, fields, senderNonce] of cases) {
      const engine = await outcome(false, balance, fields, senderNonce)
      expect(await outcome(true, balance, fields, senderNonce)).toEqual(engine)
      const thrown = 'thrown' in engine ? engine.thrown : undefined
      seen.add(thrown !== undefined ? thrown.split(' ').slice(0, 4).join(' ') : `status ${'receipt' in engine ? String((engine.receipt as { status?: number }).status) : '?'}`)
    }
    // The cases reach every kind of outcome (a change that made them all alike would not pass unnoticed).
    expect([...seen].sort()).toEqual([
      'INTRINSIC_GAS_TOO_LOW: tx gas limit',
      'sender doesn\'t have enough',
      'status 0',
      'status 1',
      'the tx doesn\'t have',
    ])
  })

  it("takes the node's mined transactions when the patches are on", async () => {
    const p = await fresh()
    const node = (p as unknown as { node: RskNode }).node
    const hash = await rpc(p, 'eth_sendTransaction', [{ from: ((await rpc(p, 'eth_accounts')) as string[])[0], to: CONTRACT.toString(), value: '0x1' }])
    const mined = node.chain.store.head.transactions[0]!
    expect(mined.hashHex).toBe(hash)
    const tx = mined.tx
    expect(takesThisPath(node.chain.vm, tx)).toBe(runTxPatched)
    expect(runTxPatched).toBe(engineMatchesPin)
    await p.disconnect()
  })

  it('leaves to the engine what it does not copy: switched off, typed rules, a sender with code', async () => {
    const { vm, common, block } = await world(10n ** 18n)
    const t = tx(common, {})
    expect(takesThisPath(vm, t)).toBe(runTxPatched)
    setEnginePatches(false)
    expect(takesThisPath(vm, t)).toBe(false)
    setEnginePatches(true)
    const berlin = await createVM({ common: new Common({ chain: Mainnet, hardfork: Hardfork.Berlin }) })
    expect(takesThisPath(berlin, tx(berlin.common, {}))).toBe(false)
    // EIP-3607: a sender with code is refused with the engine's text.
    await vm.stateManager.putCode(t.getSenderAddress(), Uint8Array.of(0))
    await expect(runTransaction(vm, t, block, 0n)).rejects.toThrow(/^invalid sender address, address is not EOA \(EIP-3607\) \(vm hf=istanbul -> block number=1 /)
  })

  it('runs a sender with code only when asked (contractSender.ts, eth_simulateV1), its code kept, on both paths', async () => {
    for (const on of [true, false]) {
      setEnginePatches(on)
      const { vm, common, block } = await world(10n ** 18n)
      const t = tx(common, {})
      const sender = t.getSenderAddress()
      await vm.stateManager.putCode(sender, Uint8Array.of(0))
      const codeHash = (await vm.stateManager.getAccount(sender))!.codeHash
      const result = await runTransaction(vm, t, block, 0n, true)
      expect([result.execResult.exceptionError, result.totalGasSpent > 21_000n]).toEqual([undefined, true])
      const after = (await vm.stateManager.getAccount(sender))!
      expect([after.nonce, bytesToHex(after.codeHash), bytesToHex(await vm.stateManager.getCode(sender))]).toEqual([1n, bytesToHex(codeHash), '0x00'])
      // The state manager's own methods are back: the next transaction, not asked, is refused.
      expect(Object.prototype.hasOwnProperty.call(vm.stateManager, 'getAccount')).toBe(false)
      await expect(runTransaction(vm, tx(common, { nonce: 1n }), block, 21_000n)).rejects.toThrow(/^invalid sender address, address is not EOA \(EIP-3607\)/)
      // Checked at use: an engine that read the sender's account and never wrote it back is an error, not a silent state.
      await expect(withSenderCodeAllowed(vm, sender, async () => void (await vm.stateManager.getAccount(sender)))).rejects.toThrow(/did not write back the account of a sender with code/)
    }
  })
})
