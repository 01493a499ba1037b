/**
 * The Bridge precompile at `0x0000000000000000000000000000000001000006` (reference §7.6) and `eth_bridgeState`
 * (§3.2), answering the read methods with the values of a fresh RSKj regtest node.
 *
 * Sources: `java/co/rsk/peg/BridgeMethods.java` (signatures, fixed gas costs), `java/co/rsk/peg/Bridge.java`
 * (execute / getGasForData / parseData), `java/co/rsk/peg/constants/BridgeRegTestConstants.java` and
 * `peg/federation/constants/FederationRegTestConstants.java`, `peg/feeperkb/constants/FeePerKbRegTestConstants.java`,
 * `peg/lockingcap/constants/LockingCapRegTestConstants.java`. The simulated Bitcoin side never moves: the BTC chain
 * stays at the regtest genesis (height 0, no checkpoints for regtest), the active federation is the genesis one,
 * there is no retiring or pending federation, no whitelist entry, no peg-out. Writes (registerBtcTransaction,
 * receiveHeaders, votes…) and peg-outs are not simulated: any selector outside the table below fails.
 *
 * @example
 * ```ts
 * const evm = await createEVM({ common, customPrecompiles: rskPrecompiles() })
 * regtestFederationAddress() // '2N…' (P2SH-P2WSH of the ERP redeem script)
 * ```
 */
import { concatBytes } from '@ethereumjs/util'
import { EVMError, type CustomPrecompile, type ExecResult, type PrecompileInput } from '@ethereumjs/evm'
import { sha256 } from '@noble/hashes/sha2.js'
import { failed } from './precompileCall.js'
import { ripemd160 } from '@noble/hashes/legacy.js'
import { abiSelector } from './nativeAbi.js'
import { base58Check } from '../base58.js'

export const BRIDGE_ADDRESS_HEX = '0x0000000000000000000000000000000001000006'

/** `BridgeRegTestConstants.DEFAULT_FEDERATION_PUBLIC_KEYS` (BTC, RSK and MST keys are the same on regtest). */
const FEDERATION_KEYS = [
  '0362634ab57dae9cb373a5d536e66a8c4f67468bbcfb063809bab643072d78a124',
  '03c5946b3fbae03a654237da863c9ed534e0878657175b132b8ca630f245df04db',
  '02cd53fc53a07f211641a677d250f6de99caf620e8e77071e811a28b3bcddf0be1',
]
/** `FederationRegTestConstants.erpFedPubKeysList` and `erpFedActivationDelay`. */
const ERP_KEYS = [
  '03b9fc46657cf72a1afa007ecf431de1cd27ff5cc8829fa625b66ca47b967e6b24',
  '029cecea902067992d52c38b28bf0bb2345bda9b21eca76b16a17c477a64e43301',
  '03284178e5fbcc63c54c3b38e3ef88adf2da6c526313650041b0ef955763634ebd',
  '03ab0e2cd7ed158687fc13b88019990860cdb72b1f5777b58513312550ea1584bc',
]
const ERP_CSV = 500n
/** Bitcoin regtest/testnet P2SH version byte (bitcoinj `RegTestParams.p2shHeader` = 196). */
const P2SH_VERSION = 0xc4

export const REGTEST_BRIDGE = {
  btcBlockchainBestChainHeight: 0,
  btcBlockchainInitialBlockHeight: 0,
  /** `genesisFederationCreationTime` 2016-01-01T00:00:00Z in seconds (RSKIP419, lovell, returns seconds). */
  federationCreationTime: 1_451_606_400n,
  /** `FederationSupportImpl.getGenesisFederation`: creation block number 1. */
  federationCreationBlockNumber: 1n,
  /** `FeePerKbRegTestConstants.genesisFeePerKb` = Coin.MILLICOIN, in satoshis. */
  feePerKb: 100_000n,
  /** `BridgeRegTestConstants.minimumPeginTxValue` (RSKIP219, iris), in satoshis. */
  minimumLockTxValue: 500_000n,
  /** `LockingCapRegTestConstants.initialValue` = 1000 BTC, in satoshis. */
  lockingCap: 100_000_000_000n,
} as const

const hex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, 'hex'))
const compare = (a: Uint8Array, b: Uint8Array): number => Buffer.compare(a, b)

/** Members sorted by public key (`Federation` sorts members; bitcoinj `createRedeemScript` sorts keys). */
const sortedKeys = (keys: string[]): Uint8Array[] => keys.map(hex).sort(compare)
/** Genesis federation keys sorted as the federation orders its members (also used by REMASC). */
export const FEDERATION_SORTED = sortedKeys(FEDERATION_KEYS)

/** Script number as bitcoinj `Utils.signedLongToByteArrayLE` (minimal little-endian with sign bit). */
function scriptNumber(n: bigint): Uint8Array {
  const out: number[] = []
  for (let v = n; v > 0n; v >>= 8n) out.push(Number(v & 0xffn))
  if (out.length > 0 && (out[out.length - 1]! & 0x80) !== 0) out.push(0)
  return Uint8Array.from(out)
}

/** `ScriptBuilder.createRedeemScript(m, keys)`: OP_m <keys> OP_n OP_CHECKMULTISIG (m, n ≤ 16 here). */
function multisig(threshold: number, keys: Uint8Array[]): Uint8Array {
  return concatBytes(Uint8Array.of(0x50 + threshold), ...keys.map((k) => concatBytes(Uint8Array.of(k.length), k)), Uint8Array.of(0x50 + keys.length, 0xae))
}

/** `P2shErpRedeemScriptBuilder`: OP_NOTIF <default> OP_ELSE <csv> OP_CSV OP_DROP <emergency> OP_ENDIF. */
export function regtestRedeemScript(): Uint8Array {
  const csv = scriptNumber(ERP_CSV)
  const erp = sortedKeys(ERP_KEYS)
  return concatBytes(
    Uint8Array.of(0x64),
    multisig(Math.floor(FEDERATION_SORTED.length / 2) + 1, FEDERATION_SORTED),
    Uint8Array.of(0x67, csv.length),
    csv,
    Uint8Array.of(0xb2, 0x75),
    multisig(Math.floor(erp.length / 2) + 1, erp),
    Uint8Array.of(0x68),
  )
}

/** P2SH-P2WSH address of a witness script (bitcoinj `ScriptBuilder.createP2SHP2WSHOutputScript`). */
export function p2shP2wshAddress(witnessScript: Uint8Array, version = P2SH_VERSION): string {
  const program = concatBytes(Uint8Array.of(0x00, 0x20), sha256(witnessScript))
  return base58Check(concatBytes(Uint8Array.of(version), ripemd160(sha256(program))))
}

let federationAddress: string | undefined
/** The genesis federation's address on regtest (`genesisFederationType = P2SH_P2WSH_ERP_FEDERATION`). */
export function regtestFederationAddress(): string {
  return (federationAddress ??= p2shP2wshAddress(regtestRedeemScript()))
}

// ---- ABI -------------------------------------------------------------------------------------------------------

const word = (n: bigint): Uint8Array => hex(BigInt.asUintN(256, n).toString(16).padStart(64, '0'))
function dynamic(b: Uint8Array): Uint8Array {
  const padded = new Uint8Array(Math.ceil(b.length / 32) * 32)
  padded.set(b)
  return concatBytes(word(32n), word(BigInt(b.length)), padded)
}
const abiString = (s: string): Uint8Array => dynamic(new TextEncoder().encode(s))

/** Reads the dynamic (`string`/`bytes`) argument at head slot `slot`; undefined when malformed. */
function readDynamic(args: Uint8Array, slot: number): Uint8Array | undefined {
  const at = (o: number): bigint | undefined => (o + 32 <= args.length ? BigInt('0x' + Buffer.from(args.subarray(o, o + 32)).toString('hex')) : undefined)
  const offset = at(slot * 32)
  if (offset === undefined || offset > BigInt(args.length)) return undefined
  const length = at(Number(offset))
  if (length === undefined || Number(offset) + 32 + Number(length) > args.length) return undefined
  return args.subarray(Number(offset) + 32, Number(offset) + 32 + Number(length))
}

const readWord = (args: Uint8Array, slot: number): bigint | undefined =>
  args.length >= (slot + 1) * 32 ? BigInt.asIntN(256, BigInt('0x' + Buffer.from(args.subarray(slot * 32, slot * 32 + 32)).toString('hex'))) : undefined

/** Thrown by a method on arguments RSKj would fail on (`VMException` / `BridgeIllegalArgumentException`). */
class BridgeFailure extends Error {}

const btcTxHash = (args: Uint8Array): void => {
  const s = readDynamic(args, 0)
  // `Sha256Hash.wrap(String)`: 64 hex characters.
  if (s === undefined || !/^[0-9a-fA-F]{64}$/.test(new TextDecoder().decode(s))) throw new BridgeFailure('invalid btc tx hash')
}

interface BridgeMethod {
  cost: bigint
  run: (args: Uint8Array) => Uint8Array
}

/** The read methods served, by canonical signature, with `BridgeMethods` fixed costs. */
const METHODS: Record<string, BridgeMethod> = {
  'getBtcBlockchainBestChainHeight()': { cost: 19_000n, run: () => word(BigInt(REGTEST_BRIDGE.btcBlockchainBestChainHeight)) },
  'getBtcBlockchainInitialBlockHeight()': { cost: 20_000n, run: () => word(BigInt(REGTEST_BRIDGE.btcBlockchainInitialBlockHeight)) },
  'getFederationAddress()': { cost: 11_000n, run: () => abiString(regtestFederationAddress()) },
  'getFederationSize()': { cost: 10_000n, run: () => word(BigInt(FEDERATION_SORTED.length)) },
  'getFederationThreshold()': { cost: 11_000n, run: () => word(BigInt(Math.floor(FEDERATION_SORTED.length / 2) + 1)) },
  'getFederationCreationTime()': { cost: 10_000n, run: () => word(REGTEST_BRIDGE.federationCreationTime) },
  'getFederationCreationBlockNumber()': { cost: 10_000n, run: () => word(REGTEST_BRIDGE.federationCreationBlockNumber) },
  'getFederatorPublicKeyOfType(int256,string)': {
    cost: 10_000n,
    run: (args) => {
      const index = readWord(args, 0)
      const type = readDynamic(args, 1)
      // `FederationMember.KeyType.byValue`: btc, rsk or mst; the index must name a member.
      if (index === undefined || type === undefined || !['btc', 'rsk', 'mst'].includes(new TextDecoder().decode(type))) throw new BridgeFailure('bad key type')
      if (index < 0n || index >= BigInt(FEDERATION_SORTED.length)) throw new BridgeFailure('index out of bounds')
      return dynamic(FEDERATION_SORTED[Number(index)]!)
    },
  },
  'getActivePowpegRedeemScript()': { cost: 30_000n, run: () => dynamic(regtestRedeemScript()) },
  'getFeePerKb()': { cost: 2_000n, run: () => word(REGTEST_BRIDGE.feePerKb) },
  'getMinimumLockTxValue()': { cost: 2_000n, run: () => word(REGTEST_BRIDGE.minimumLockTxValue) },
  'getLockingCap()': { cost: 3_000n, run: () => word(REGTEST_BRIDGE.lockingCap) },
  'getLockWhitelistSize()': { cost: 16_000n, run: () => word(0n) },
  // `FederationChangeResponseCode.FEDERATION_NON_EXISTENT` = -1; no retiring federation → empty address.
  'getRetiringFederationSize()': { cost: 3_000n, run: () => word(-1n) },
  'getRetiringFederationThreshold()': { cost: 3_000n, run: () => word(-1n) },
  'getRetiringFederationAddress()': { cost: 3_000n, run: () => abiString('') },
  'getPendingFederationSize()': { cost: 3_000n, run: () => word(-1n) },
  'getQueuedPegoutsCount()': { cost: 3_000n, run: () => word(0n) },
  'isBtcTxHashAlreadyProcessed(string)': { cost: 23_000n, run: (a) => (btcTxHash(a), word(0n)) },
  'getBtcTxHashProcessedHeight(string)': { cost: 22_000n, run: (a) => (btcTxHash(a), word(-1n)) },
}

const BY_SELECTOR = new Map<string, BridgeMethod>(
  Object.entries(METHODS).map(([sig, m]) => [Buffer.from(abiSelector(sig)).toString('hex'), m]),
)

/** `BridgeMethods.RELEASE_BTC` cost: charged for empty data (a peg-out request) and for unknown selectors. */
const RELEASE_BTC_COST = 23_000n

/**
 * Runs the Bridge. As in RSKj after RSKIP197, a failure (unknown selector, bad arguments) consumes only the
 * method's cost, leaves no return data and makes the CALL return 0; at the top level it is a failed execution
 * that is not a REVERT, so eth_call answers `0x` as RSKj does (reference §5.1).
 */
export function runBridge(input: PrecompileInput): ExecResult {
  const c = bridgeCall(input)
  if (!('method' in c)) return c
  try {
    return { returnValue: c.method.run(input.data.subarray(4)), executionGasUsed: c.cost }
  } catch (e) {
    if (e instanceof BridgeFailure) return failed(c.cost)
    throw e
  }
}

/** The method called and its cost, or the result when the call ends before running one (out of gas, no method). */
function bridgeCall(input: PrecompileInput): { method: BridgeMethod; cost: bigint } | ExecResult {
  const data = input.data
  const selector = data.length >= 4 ? Buffer.from(data.subarray(0, 4)).toString('hex') : undefined
  const method = selector === undefined ? undefined : BY_SELECTOR.get(selector)
  // `Bridge.getGasForData`: method cost + 2 per data byte; unknown data costs RELEASE_BTC's.
  const cost = method === undefined ? RELEASE_BTC_COST : method.cost + 2n * BigInt(data.length)
  if (input.gasLimit < cost) {
    return { returnValue: new Uint8Array(), executionGasUsed: input.gasLimit, exceptionError: new EVMError(EVMError.errorMessages.OUT_OF_GAS) }
  }
  // Empty data is `releaseBtc()`: peg-outs are not simulated, the value simply stays at the Bridge.
  if (data.length === 0) return { returnValue: new Uint8Array(), executionGasUsed: cost }
  if (method === undefined) return failed(cost)
  return { method, cost }
}


/**
 * Where the Bridge's read methods are answered from on a fork: the forked network's Bridge at the forked block
 * (`eth_call`, src/node/fork), since its state is RSK storage that cannot be read value by value. `call` is unset
 * on a chain that is not a fork. The methods served, their costs and failures stay those of the table above.
 */
export interface BridgeReads {
  call?: (data: Uint8Array) => Promise<Uint8Array>
}

/** On a fork: the method's cost here, its answer from the forked network's Bridge (empty answer = a failure). */
async function runForkedBridge(input: PrecompileInput, call: (data: Uint8Array) => Promise<Uint8Array>): Promise<ExecResult> {
  const c = bridgeCall(input)
  if (!('method' in c)) return c
  const returnValue = await call(input.data)
  return returnValue.length === 0 ? failed(c.cost) : { returnValue, executionGasUsed: c.cost }
}

/** The RSK precompiles rsksim provides beyond Ethereum's, for `createEVM({ customPrecompiles })`. */
export function rskPrecompiles(reads?: BridgeReads): CustomPrecompile[] {
  const bridge = (input: PrecompileInput): ExecResult | Promise<ExecResult> => (reads?.call === undefined ? runBridge(input) : runForkedBridge(input, reads.call))
  return [{ address: BRIDGE_ADDRESS_HEX, function: bridge }]
}

/** `eth_bridgeState` (RSKj `BridgeState.stateToMap`, a HashMap: `btcBlockchainBestChainHeight` iterates first). */
export function bridgeState(): { btcBlockchainBestChainHeight: number; rskTxsWaitingForSignatures: string[] } {
  return { btcBlockchainBestChainHeight: REGTEST_BRIDGE.btcBlockchainBestChainHeight, rskTxsWaitingForSignatures: [] }
}
