/**
 * The RSK EVM rules that @ethereumjs cannot express with hardfork, EIP or parameter choices (reference §7.4, §7.5),
 * given to every EVM through the engine's supported `customOpcodes` option. Each entry reuses the engine's own
 * handler for the part that is the same and changes only what RSK does differently:
 *
 * - BASEFEE (0x48, RSKIP412) pushes the block's `minimumGasPrice` (RSKj `VM.doBASEFEE`); there is no EIP-1559.
 * - SSTORE (0x55) charges frontier-style: 20,000 set, 5,000 reset or clear, 15,000 refund (`VM.doSSTORE`).
 * - CALL/CALLCODE/DELEGATECALL/STATICCALL follow `VM.getMessageCall`: no EIP-150 63/64 cap, the callee gets
 *   min(remaining, requested + 2,300 stipend when value moves), and the stipend is charged to the caller like the
 *   rest of the callee's gas; CALL to an account that does not exist costs 25,000 even without value.
 * - CREATE/CREATE2 forward all remaining gas (`Program.createContract`); oversized initcode aborts the frame; an
 *   address an earlier transaction of the block deleted fails as a collision (RSKIP125, `deletedAccountsInBlock`).
 * - EXTCODESIZE of a precompile answers 2^256−1 (RSKIP90, `VM.doCODESIZE`).
 * - EXTCODEHASH (`VM.doEXTCODEHASH`) answers keccak256("") for a precompile, 0 only for an account that does not
 *   exist, and the code hash (keccak256("") without code) for any that does, empty or not; the engine answers 0 for
 *   an empty account (EIP-161's "dead"), which on RSK exists (no state clearing: enginePatches/accountRules.ts).
 * - SELFDESTRUCT costs 25,000 more when the beneficiary does not exist, whatever the balance (`VM.doSUICIDE`), and
 *   with no balance to move leaves a missing beneficiary missing (`Program.suicide`).
 *
 * @example
 * ```ts
 * const evm = await createEVM({ common, ...rskEvmOptions(common) })
 * ```
 */
import { EVMError, getOpcodesForHF, type EVMOpts } from '@ethereumjs/evm'
import type { Common } from '@ethereumjs/common'
import { Address, KECCAK256_NULL, bigIntToBytes, bytesToBigInt, bytesToHex, setLengthLeft } from '@ethereumjs/util'
import { rskPrecompiles, type BridgeReads } from './bridge.js'
import { ethereumPrecompilesAsRskj } from './ethereumPrecompiles.js'
import { secp256k1Precompiles } from './secp256k1Precompiles.js'
import { ENVIRONMENT_WORD, environmentPrecompile } from './environmentPrecompile.js'
import { blockHeaderPrecompile, type ChainBlocks } from './blockHeaderPrecompile.js'
import { hdWalletUtilsPrecompile } from './hdWalletUtils.js'
import { remascPrecompile } from '../remasc/remascContract.js'
import { minimumGasPriceOf } from '../../chain/common.js'
import { blockDeletionsOf, fastArithmetic, fastOpcodes, fastSstore, noteCallerDepth, raiseCreatorNonce, wordToBytes } from '../../enginePatches/index.js'
import type { ExecutionGuard } from '../../exec/guard.js'
import { storageAccess } from '../../state/storageAccess.js'
import { create2Address, createAddress } from '../../crypto.js'
import { noteGasRead } from './gasReads.js'

type CustomOpcode = NonNullable<EVMOpts['customOpcodes']>[number]
type AddOpcode = Extract<CustomOpcode, { logicFunction: unknown }>
type RunState = Parameters<AddOpcode['logicFunction']>[0]
type GasFunction = NonNullable<AddOpcode['gasFunction']>

/** GasCost.java values that have no engine parameter of the same meaning. */
const SET_SSTORE = 20_000n
const RESET_SSTORE = 5_000n
const REFUND_SSTORE = 15_000n
const NEW_ACCOUNT = 25_000n
export const STIPEND_CALL = 2_300n
const MAX_WORD = 2n ** 256n - 1n
const EMPTY_CODE_HASH = bytesToBigInt(KECCAK256_NULL)
const ADDRESS_MASK = (1n << 160n) - 1n
/** blake2f's address as a stack word (ethereumPrecompiles.ts). */
const BLAKE2F_WORD = 9n

/**
 * Addresses `PrecompiledContracts.getContractForAddress` knows at the latest upgrade (reference §7.6): 0x01–0x09
 * and the RSK natives (Bridge, REMASC, HDWalletUtils, BlockHeader, Environment, secp256k1 add/mul).
 */
const PRECOMPILES = new Set<bigint>([1n, 2n, 3n, 4n, 5n, 6n, 7n, 8n, 9n, 0x01000006n, 0x01000008n, 0x01000009n, 0x01000010n, 0x01000011n, 0x01000016n, 0x01000017n])

/** Whether `address` (a stack word) names an RSK precompile. */
export const isRskPrecompile = (address: bigint): boolean => PRECOMPILES.has(address & ADDRESS_MASK)

/**
 * Whether RSKj keeps, without an execution error, the failure `error` of a transaction or call sent straight to `to`
 * (no `to`: a deployment). `TransactionExecutor.call` runs a transaction to a precompile itself: a gas limit below
 * the intrinsic gas and the price fails it (`execError`: status failure, all its gas used), but the precompile's own
 * failure is only kept in the result (`result.setException`, never an `execError`), so the receipt's status reads
 * success; the gas used is the intrinsic gas and the price, and the value is not transferred (both as the engine
 * leaves them for a failed call). `eth_estimateGas` answers that gas (only a revert is an error there).
 */
export const failureKeptByRskj = (to: Uint8Array | undefined, error: string): boolean =>
  to !== undefined && error !== EVMError.errorMessages.OUT_OF_GAS && isRskPrecompile(bytesToBigInt(to))

const staticViolation = (): never => {
  throw new EVMError(EVMError.errorMessages.STATIC_STATE_CHANGE)
}

const addressOf = (word: bigint): Address => new Address(setLengthLeft(bigIntToBytes(word & ADDRESS_MASK), 20))

async function exists(runState: RunState, word: bigint): Promise<boolean> {
  return (await runState.stateManager.getAccount(addressOf(word))) !== undefined
}

/** The engine's empty-account test for the EIP-161 new-account charge (value moved to an empty account). */
async function emptyForEngine(runState: RunState, word: bigint): Promise<boolean> {
  const account = await runState.stateManager.getAccount(addressOf(word))
  return account === undefined || account.isEmpty()
}

/**
 * Gas of a call-family opcode as RSKj charges it. The engine's own gas handler still computes memory expansion,
 * the value-transfer charge and the static-call check; it runs with the requested gas set to 0 so that its EIP-150
 * cap (and its out-of-gas test against the requested amount) cannot apply, and the callee's gas is set here.
 */
function callGas(engine: GasFunction, op: number): GasFunction {
  const hasValue = op === 0xf1 || op === 0xf2
  return async (runState, gas, common) => {
    const stack = runState.stack
    const items = stack.peek(hasValue ? 3 : 2)
    const requested = items[0]!
    const to = items[1]!
    const value = hasValue ? items[2]! : 0n
    // The Environment precompile answers its caller's depth, which it is not given, and blake2f cuts its input only
    // for a call from code (enginePatches/callDepth.ts, precompileCall.ts `cutOnlyFromCode`).
    const target = to & ADDRESS_MASK
    if (target === ENVIRONMENT_WORD || target === BLAKE2F_WORD) noteCallerDepth(runState)
    stack.pop()
    stack.push(0n)
    let charged: bigint
    try {
      charged = await engine(runState, gas, common)
    } finally {
      stack.pop()
      stack.push(requested)
    }
    if (op === 0xf1) {
      // Engine (EIP-161): +25,000 only when value moves to an empty account. RSKj: when the account does not exist.
      if (value !== 0n && (await emptyForEngine(runState, to))) charged -= NEW_ACCOUNT
      if (!(await exists(runState, to))) charged += NEW_ACCOUNT
    }
    const stipend = value !== 0n ? STIPEND_CALL : 0n
    const remaining = runState.interpreter.getGasLeft() - charged
    // Not enough for the base cost or the stipend: the returned charge exceeds the gas left and the engine traps.
    if (remaining < stipend) {
      noteGasRead()
      return charged + stipend
    }
    // What the gas held decides here (a capped callee, or a stipend held and handed back): estimate.ts searches.
    if (stipend !== 0n || requested + stipend >= remaining) noteGasRead()
    const calleeGas = requested + stipend < remaining ? requested + stipend : remaining
    // The engine adds the stipend to the caller and to the callee's limit itself (functions.ts CALL handler).
    runState.messageGasLimit = calleeGas - stipend
    return charged + stipend
  }
}

/**
 * CREATE/CREATE2: the engine's charge, then all remaining gas to the new frame. Initcode above 49,152 bytes aborts
 * the calling frame (RSKj `Program.validateInitcodeSize` throws); the engine would only push 0.
 */
function createGas(engine: GasFunction): GasFunction {
  return async (runState, gas, common) => {
    if (runState.stack.peek(3)[2]! > common.param('maxInitCodeSize')) {
      throw new EVMError(EVMError.errorMessages.INITCODE_SIZE_VIOLATION)
    }
    const charged = await engine(runState, gas, common)
    const left = runState.interpreter.getGasLeft() - charged
    if (left >= 0n) runState.messageGasLimit = left
    return charged
  }
}

/**
 * CREATE/CREATE2 to an address that an earlier transaction of the same block deleted: RSKj's `Program.createContract`
 * (RSKIP125) tests `deletedAccountsInBlock` after its depth and balance checks and after raising the creator's nonce,
 * and fails it as a collision: the gas the CREATE holds is spent and 0 is pushed, nothing is created. The engine has
 * no such set (the account is simply gone), so here the engine's handler runs unless the address is in the block's
 * deletions (enginePatches/blockDeletions.ts); the depth and balance failures stay the engine's, which answer as RSKj.
 */
function createLogic(engine: AddOpcode['logicFunction'], create2: boolean, stackLimit: number): AddOpcode['logicFunction'] {
  return async (runState, common) => {
    const block = blockDeletionsOf(runState)
    if (block === undefined) return engine(runState, common)
    const { deleted, creator } = block
    const [value, offset, length, salt] = runState.stack.peek(create2 ? 4 : 3) as [bigint, bigint, bigint, bigint?]
    if (creator.depth >= stackLimit || creator.contract.balance < value) return engine(runState, common)
    const target = create2
      ? create2Address(creator.address.bytes, setLengthLeft(bigIntToBytes(salt!), 32), length === 0n ? new Uint8Array(0) : runState.memory.read(Number(offset), Number(length)))
      : createAddress(creator.address.bytes, creator.contract.nonce)
    if (!deleted.has(bytesToHex(target))) return engine(runState, common)
    runState.stack.popN(create2 ? 4 : 3)
    await raiseCreatorNonce(runState, creator)
    runState.interpreter.useGas(runState.messageGasLimit ?? 0n, 'RSKIP125: an account deleted earlier in the block')
    runState.messageGasLimit = undefined
    runState.stack.push(0n)
  }
}

/**
 * Frontier SSTORE (RSKj `VM.doSSTORE`): no EIP-2200 net metering and no 2,300 sentry. A promise only when the state
 * must read the slot first (state/storageAccess.ts).
 */
function sstoreGas(common: Common): GasFunction {
  const storage = storageAccess(common)
  const charge = (runState: RunState, gas: bigint, value: bigint, current: Uint8Array): bigint => {
    const currentZero = current.every((b) => b === 0)
    if (currentZero && value !== 0n) return gas + SET_SSTORE
    if (!currentZero && value === 0n) {
      runState.interpreter.refundGas(REFUND_SSTORE, 'RSK SSTORE clear')
      return gas + RESET_SSTORE
    }
    return gas + RESET_SSTORE
  }
  // Either synchronous or asynchronous: both of the engine's step loops await what a gas function returns.
  return ((runState: RunState, gas: bigint): bigint | Promise<bigint> => {
    if (runState.interpreter.isStatic()) staticViolation()
    const [key, value] = runState.stack.peek(2) as [bigint, bigint]
    const current = storage.load(runState, wordToBytes(key))
    return current instanceof Promise ? current.then((c) => charge(runState, gas, value, c)) : charge(runState, gas, value, current)
  }) as GasFunction
}

/** SELFDESTRUCT: RSKj charges 25,000 when the beneficiary does not exist (engine: value to an empty account). */
function selfdestructGas(engine: GasFunction): GasFunction {
  return async (runState, gas, common) => {
    const to = runState.stack.peek(1)[0]!
    const balance = await runState.interpreter.getExternalBalance(runState.interpreter.getAddress())
    let charged = await engine(runState, gas, common)
    if (balance > 0n && (await emptyForEngine(runState, to))) charged -= NEW_ACCOUNT
    if (!(await exists(runState, to))) charged += NEW_ACCOUNT
    return charged
  }
}

/**
 * SELFDESTRUCT moves the balance only when there is one (RSKj `Program.suicide`): with none, a missing beneficiary is
 * not created. The engine writes the beneficiary's account whatever the balance; Ethereum's state clearing used to
 * remove it again, RSK has none (enginePatches/accountRules.ts), so here it is removed after the engine's handler.
 */
function selfdestructLogic(engine: AddOpcode['logicFunction']): AddOpcode['logicFunction'] {
  return async (runState, common) => {
    const to = addressOf(runState.stack.peek(1)[0]!)
    const self = runState.interpreter.getAddress()
    const keepsMissing =
      !to.equals(self) && (await runState.interpreter.getExternalBalance(self)) === 0n && (await runState.stateManager.getAccount(to)) === undefined
    if (!keepsMissing) return engine(runState, common)
    try {
      await engine(runState, common)
    } finally {
      // The engine's handler ends the frame by throwing; the state keeps the deletion in the frame's checkpoint.
      await runState.stateManager.deleteAccount(to)
    }
  }
}

/** The custom opcodes of the RSK profile for `common` (see the file comment). */
export function rskOpcodes(common: Common): CustomOpcode[] {
  const { opcodeMap } = getOpcodesForHF(common)
  const engine = (op: number) => {
    const entry = opcodeMap[op]
    if (entry === undefined) throw new Error(`engine has no opcode 0x${op.toString(16)}`)
    return entry
  }
  const fee = (op: number) => Number(engine(op).opcodeInfo.fee)
  const wrapped = (op: number, gasFunction: GasFunction): AddOpcode => ({
    opcode: op,
    opcodeName: engine(op).opcodeInfo.name,
    baseFee: fee(op),
    gasFunction,
    logicFunction: engine(op).opHandler,
  })
  const extcodesize = engine(0x3b).opHandler
  return [
    // Not RSK rules: the engine's handlers with cheaper word conversions and operand handling (fastOpcodes.ts and
    // fastArithmetic.ts list them; SSTORE's logic is given below, with RSK's SSTORE gas).
    ...fastOpcodes(common, fee),
    ...fastArithmetic(common, fee, (op) => engine(op).opHandler as AddOpcode['logicFunction']),
    {
      opcode: 0x48,
      opcodeName: 'BASEFEE',
      baseFee: 2,
      // Read at each use: anvil_setMinGasPrice changes it for the blocks that follow.
      logicFunction: (runState: RunState) => runState.stack.push(minimumGasPriceOf(common)),
    },
    { ...wrapped(0x55, sstoreGas(common)), logicFunction: fastSstore(common) ?? engine(0x55).opHandler },
    // GAS: the engine's, counted (gasReads.ts).
    {
      opcode: 0x5a,
      opcodeName: 'GAS',
      baseFee: fee(0x5a),
      logicFunction: (runState: RunState, c: Common) => {
        noteGasRead()
        return engine(0x5a).opHandler(runState, c)
      },
    },
    ...[0xf1, 0xf2, 0xf4, 0xfa].map((op) => wrapped(op, callGas(engine(op).gasHandler as GasFunction, op))),
    ...[0xf0, 0xf5].map((op) => ({
      ...wrapped(op, createGas(engine(op).gasHandler as GasFunction)),
      logicFunction: createLogic(engine(op).opHandler, op === 0xf5, Number(common.param('stackLimit'))),
    })),
    { ...wrapped(0xff, selfdestructGas(engine(0xff).gasHandler as GasFunction)), logicFunction: selfdestructLogic(engine(0xff).opHandler) },
    {
      ...wrapped(0x3f, engine(0x3f).gasHandler as GasFunction),
      logicFunction: async (runState: RunState) => {
        const word = runState.stack.pop()
        if (isRskPrecompile(word)) return runState.stack.push(EMPTY_CODE_HASH)
        const account = await runState.stateManager.getAccount(addressOf(word))
        runState.stack.push(account === undefined ? 0n : bytesToBigInt(account.codeHash))
      },
    },
    {
      ...wrapped(0x3b, engine(0x3b).gasHandler as GasFunction),
      logicFunction: async (runState: RunState, c: Common) => {
        if (!isRskPrecompile(runState.stack.peek(1)[0]!)) return extcodesize(runState, c)
        runState.stack.pop()
        runState.stack.push(MAX_WORD)
      },
    },
  ]
}

/**
 * EVM options every EVM of the node is created with: the RSK opcodes, the RSK precompiles (the Bridge, secp256k1
 * addition and multiplication, Environment, BlockHeader, HDWalletUtils, REMASC's contract for users), and Ethereum's failing precompiles under RSKj's rules
 * (ethereumPrecompiles.ts). With a `guard`, JUMPDEST also checks the node's execution deadline
 * (src/node/exec/guard.ts); its gas (1) and effect (none) are the engine's. `bridge`: on a fork, where the Bridge's
 * read methods are answered from. `blocks`: the chain's blocks, which BlockHeader reads (without them it answers
 * empty bytes, as for a depth the chain does not reach).
 */
export function rskEvmOptions(
  common: Common,
  guard?: ExecutionGuard,
  bridge?: BridgeReads,
  blocks: ChainBlocks = {},
): Pick<EVMOpts, 'customOpcodes' | 'customPrecompiles' | 'allowUnlimitedInitCodeSize'> {
  const opcodes = rskOpcodes(common)
  if (guard !== undefined) opcodes.push({ opcode: 0x5b, opcodeName: 'JUMPDEST', baseFee: 1, logicFunction: guard.tick })
  return {
    customOpcodes: opcodes,
    // RSKIP438's initcode limit is RSKj's where RSKj applies it, not the engine's: a transaction over it is refused by
    // pool admission (src/node/pool/admission.ts), and CREATE/CREATE2 over it abort their frame (createGas above).
    // A local call (eth_call, eth_estimateGas) creating with more skips it, as RSKj's TransactionExecutor.init does
    // for local calls; the engine's own check would fail it there.
    allowUnlimitedInitCodeSize: true,
    customPrecompiles: [...ethereumPrecompilesAsRskj(common), ...rskPrecompiles(bridge), ...secp256k1Precompiles(), ...environmentPrecompile(), ...blockHeaderPrecompile(blocks), ...hdWalletUtilsPrecompile(), ...remascPrecompile()],
  }
}
