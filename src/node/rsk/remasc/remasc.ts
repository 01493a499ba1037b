/**
 * REMASC, the RSK native contract at `0x0000000000000000000000000000000001000008` that holds every block's fees
 * and pays them out after maturity (reference §2.2, §2.3, §7.1, §7.6).
 *
 * - At inclusion each transaction's fee (gasPrice × gasUsed) goes to REMASC, not to the coinbase (RSKj
 *   `TransactionExecutor.finalization`): `routeFee` moves what the engine credited to the coinbase.
 * - Every block ends with the unsigned REMASC system transaction (`co/rsk/remasc/RemascTransaction.java`), which
 *   runs `Remasc.processMinersFees` (`co/rsk/remasc/Remasc.java`): from block maturity + 1 it adds the paid fees of
 *   block N − maturity to `rewardBalance`; from maturity + syntheticSpan it takes rewardBalance / syntheticSpan
 *   and pays 1/rskLabsDivisor to RSK Labs, 1/federationDivisor of the rest to the federators (split evenly, the
 *   remainder to the last) and the rest to the coinbase of block N − maturity, each payment with a
 *   `mining_fee_topic` log (`RemascFeesPayer`).
 * - Simplified: the simulator never has uncles, so there are no siblings, no broken selection rule and no burn.
 *   The federation is the regtest genesis federation on every network. Contract state lives in storage words at
 *   the keys RSKj uses (`RemascStorageProvider`), as numbers in 32-byte words.
 */
import { Account, Address, bytesToBigInt, hexToBytes } from '@ethereumjs/util'
import type { Common } from '@ethereumjs/common'
import type { LiveState } from '../../state/liveState.js'
import { unpaddedBytes } from '../../rlp.js'
import type { NetworkName } from '../../../options/index.js'
import type { BlockStore } from '../../chain/store.js'
import type { BlockRecord, ReceiptRecord } from '../../chain/types.js'
import type { Chain } from '../../chain/chain.js'
import { REMASC } from './remascTx.js'
import { dataWord, remascReceipt, type RemascPayment } from './remascReceipt.js'

export { REMASC_ADDRESS_HEX, remascTransaction } from './remascTx.js'
export { MINING_FEE_TOPIC } from './remascReceipt.js'

/** `resources/remasc.json` per network (regtest: maturity 10, syntheticSpan 5). */
export interface RemascConfig {
  maturity: bigint
  syntheticSpan: bigint
  rskLabsDivisor: bigint
  federationDivisor: bigint
  /** `rskLabsAddressRskip218` (RSKIP218 is active from iris on every network). */
  rskLabsAddress: string
}

const DIVISORS = { rskLabsDivisor: 5n, federationDivisor: 100n }
export const REMASC_CONFIGS: Record<NetworkName, RemascConfig> = {
  regtest: { ...DIVISORS, maturity: 10n, syntheticSpan: 5n, rskLabsAddress: '0xdabadabadabadabadabadabadabadabadaba0001' },
  devnet: { ...DIVISORS, maturity: 20n, syntheticSpan: 10n, rskLabsAddress: '0xdabadabadabadabadabadabadabadabadaba0002' },
  testnet: { ...DIVISORS, maturity: 50n, syntheticSpan: 10n, rskLabsAddress: '0xdabadabadabadabadabadabadabadabadaba0003' },
  mainnet: { ...DIVISORS, maturity: 4000n, syntheticSpan: 10n, rskLabsAddress: '0xdcb12179ba4697350f66224c959bdd9c282818df' },
}

/** `Constants.getMinimumPayableGas` and `getFederatorMinimumPayableGas` (RSKIP85). */
const MINIMUM_PAYABLE_GAS = 200_000n
const FEDERATOR_MINIMUM_PAYABLE_GAS = 50_000n

const KEYS = {
  rewardBalance: dataWord('rewardBalance'),
  siblings: dataWord('siblings'),
  brokenSelectionRule: dataWord('brokenSelectionRule'),
  federationBalance: dataWord('federationBalance'),
}
const WORD_KEYS = Object.values(KEYS)

/**
 * RSK addresses of the federators' RSK keys (RSKIP415), in federation order: of `FEDERATION_SORTED`'s keys
 * (src/node/rsk/evm/bridge.ts; RSK keys are the BTC keys on regtest), keccak256 of the uncompressed point, last 20
 * bytes. Written out rather than derived at import, where decompressing the three points cost about 8 ms of a
 * process's start (docs/performance.md, twenty-second round); test/remasc.test.ts derives them from the keys with
 * ethers' `computeAddress` and checks each is paid.
 */
const FEDERATORS: Address[] = [
  '0x6b045752f4d650a510a353bbf7e52988331e7f5b', // 02cd53fc…0be1
  '0x85845342b0d5260d516d6da5280a7df9a96d1925', // 0362634a…a124
  '0x138161cda86b55c0de1bc3a0adef974633c85fbe', // 03c5946b…04db
].map((a) => new Address(hexToBytes(a as `0x${string}`)))

/**
 * Moves a transaction's fee, which the engine paid to `coinbase`, to REMASC; a promise only while one of the two
 * accounts is still to be read (LiveState `preload`), else done at once.
 */
export function routeFee(state: LiveState, coinbase: Uint8Array, fee: bigint): Promise<void> | undefined {
  if (fee === 0n) return undefined
  const miner = new Address(coinbase)
  const reading = state.preload([miner, REMASC])
  if (reading !== undefined) return reading.then(() => moveFee(state, miner, fee))
  moveFee(state, miner, fee)
  return undefined
}

function moveFee(state: LiveState, miner: Address, fee: bigint): void {
  const account = state.accountNow(miner)!
  account.balance -= fee
  state.putAccountNow(miner, account)
  addBalance(state, REMASC, fee)
}

function addBalance(state: LiveState, address: Address, amount: bigint): void {
  const existing = state.accountNow(address)
  // Zero payments are the rule on a chain whose gas price is 0; they only create a missing account.
  if (existing !== undefined && amount === 0n) return
  const account = existing ?? new Account()
  account.balance += amount
  state.putAccountNow(address, account)
}

/** REMASC's storage words (`processMinersFees` preloads them). */
function readWord(state: LiveState, key: Uint8Array): bigint {
  return bytesToBigInt(state.storageNow(REMASC, key))
}

function writeWord(state: LiveState, key: Uint8Array, value: bigint): void {
  state.putStorageNow(REMASC, key, unpaddedBytes(value))
}

export interface RemascContext {
  state: LiveState
  store: BlockStore
  /** On a fork, the remote's blocks below the forked one (whose fees REMASC pays out after maturity). */
  remoteBlocks?: (n: bigint) => Promise<BlockRecord | undefined>
  config: RemascConfig
  /** Number of the block being built. */
  number: bigint
  minimumGasPrice: bigint
  /** Gas used by the block's transactions before REMASC (its receipt's cumulativeGasUsed). */
  cumulativeGasUsed: bigint
  common: Common
}

/** The context of block `number` of `chain`, built on `state` (the chain's own, or a pending block's copy). */
export function remascContext(
  chain: Pick<Chain, 'store' | 'remoteBlocks' | 'common'>,
  state: LiveState,
  config: RemascConfig,
  minimumGasPrice: bigint,
  number: bigint,
  cumulativeGasUsed: bigint,
): RemascContext {
  return { state, store: chain.store, ...(chain.remoteBlocks !== undefined ? { remoteBlocks: chain.remoteBlocks } : {}), config, number, minimumGasPrice, cumulativeGasUsed, common: chain.common }
}

/**
 * Runs `processMinersFees` for the block being built; returns the REMASC transaction's receipt. What it reads is read
 * first (LiveState `preload`: at a chain's first blocks, or on a fork from the remote), then it runs without a promise:
 * REMASC's account and words, and when the block pays out, every account it may pay (RSK Labs, the federators, the
 * paid block's coinbase), paid or not.
 */
export async function processMinersFees(ctx: RemascContext): Promise<ReceiptRecord> {
  const { state } = ctx
  const { candidate, processing, payees } = await plan(ctx)
  let reading = state.preload([REMASC])
  if (reading !== undefined) await reading
  // RSKj's first write (the siblings list, below) would create the account; its words are read once it exists.
  if (state.accountNow(REMASC) === undefined) state.putAccountNow(REMASC, new Account())
  reading = state.preload(payees, REMASC, WORD_KEYS)
  if (reading !== undefined) await reading
  return payMinersFees(ctx, candidate, processing)
}

/**
 * What `processMinersFees` may read and write for block `ctx.number` (the prestate tracer's touched set): REMASC's
 * account and storage words, and the accounts it may pay.
 */
export async function remascAccesses(ctx: RemascContext): Promise<{ accounts: Address[]; words: readonly Uint8Array[] }> {
  return { accounts: [REMASC, ...(await plan(ctx)).payees], words: WORD_KEYS }
}

/** Block `candidate` (number − maturity), whose fees are booked now, if any, and who may be paid. */
async function plan(ctx: RemascContext): Promise<{ candidate: bigint; processing: BlockRecord | undefined; payees: Address[] }> {
  const { config, number } = ctx
  const candidate = number - config.maturity
  const processing = candidate >= 1n ? (ctx.store.byNumber(candidate) ?? (await ctx.remoteBlocks?.(candidate))) : undefined
  return { candidate, processing, payees: processing !== undefined && candidate - config.syntheticSpan >= 0n ? payees(config, processing) : [] }
}

/** The accounts a block that pays out may pay. */
function payees(config: RemascConfig, processing: BlockRecord): Address[] {
  return [rskLabsAddress(config), ...FEDERATORS, new Address(processing.header.coinbase)]
}

const rskLabsAddresses = new WeakMap<RemascConfig, Address>()
function rskLabsAddress(config: RemascConfig): Address {
  let a = rskLabsAddresses.get(config)
  if (a === undefined) rskLabsAddresses.set(config, (a = new Address(hexToBytes(config.rskLabsAddress as `0x${string}`))))
  return a
}

/** `processMinersFees` over what it read (`processing`: block `candidate`, whose fees are booked now, if any). */
function payMinersFees(ctx: RemascContext, candidate: bigint, processing: BlockRecord | undefined): ReceiptRecord {
  const { state, config } = ctx
  // Every payment is logged with the paid block's hash (remascReceipt.ts builds the logs).
  const payments: RemascPayment[] = []
  const pay = (value: bigint, to: Address) => {
    // A zero payment changes nothing of REMASC's (which exists, above); it may still create the payee's account.
    if (value !== 0n) addBalance(state, REMASC, -value)
    addBalance(state, to, value)
    payments.push({ to: to.bytes, value })
  }
  // RemascStorageProvider.save writes the (always empty) siblings list on every execution.
  writeWord(state, KEYS.siblings, 0xc0n)
  if (processing !== undefined) {
    let reward = readWord(state, KEYS.rewardBalance) + processing.header.paidFees
    if (candidate - config.syntheticSpan >= 0n) {
      writeWord(state, KEYS.brokenSelectionRule, 0n)
      let synthetic = reward / config.syntheticSpan
      if (synthetic >= ctx.minimumGasPrice * MINIMUM_PAYABLE_GAS) {
        reward -= synthetic
        const toLabs = synthetic / config.rskLabsDivisor
        pay(toLabs, rskLabsAddress(config))
        synthetic -= toLabs
        synthetic -= payFederation(ctx, synthetic, pay)
        pay(synthetic, new Address(processing.header.coinbase))
      }
    }
    writeWord(state, KEYS.rewardBalance, reward)
  }
  const previous = ctx.store.head.transactions.at(-1)?.system === 'remasc' ? ctx.store.head.receipts.at(-1) : undefined
  return remascReceipt(ctx.cumulativeGasUsed, previous, processing?.hash, payments)
}

/** `Remasc.payToFederation`: returns the federation's share taken from the reward (paid now or kept). */
function payFederation(ctx: RemascContext, synthetic: bigint, pay: (value: bigint, to: Address) => void): bigint {
  const share = synthetic / ctx.config.federationDivisor
  const total = readWord(ctx.state, KEYS.federationBalance) + share
  const n = BigInt(FEDERATORS.length)
  const each = total / n
  const rest = total % n
  if (each < ctx.minimumGasPrice * FEDERATOR_MINIMUM_PAYABLE_GAS) {
    writeWord(ctx.state, KEYS.federationBalance, total)
    return share
  }
  writeWord(ctx.state, KEYS.federationBalance, 0n)
  for (let k = 0; k < FEDERATORS.length; k++) {
    pay(k === FEDERATORS.length - 1 && rest > 0n ? each + rest : each, FEDERATORS[k]!)
  }
  return share
}
