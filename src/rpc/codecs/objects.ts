/**
 * Object parameters: the call object (eth_call, eth_estimateGas), the transaction object (eth_sendTransaction),
 * the state override map and the filter object. Fields RSKj does not know are ignored, as its
 * `CallArgumentsParam` does (reference §5.1).
 */
import { invalidParams, RpcError, ErrorCode } from '../../errors.js'
import { address, asText, blockHash, data, quantity, topic } from './primitives.js'
import { type BlockSelector, hexBlockId } from './block.js'
import { filterBound } from './rskjBlock.js'
import type { AccountOverride, CallRequest, StateOverrides } from '../../node/exec/call.js'
import { bytesToHex } from '@ethereumjs/util'

export interface CallObject {
  from?: Uint8Array
  to?: Uint8Array
  gas?: bigint
  gasLimit?: bigint
  gasPrice?: bigint
  value?: bigint
  nonce?: bigint
  chainId?: bigint
  data?: Uint8Array
}

/** A call object's fields as the executor takes them (exec/call.ts). */
export const callRequest = (c: CallObject): CallRequest => {
  const r: CallRequest = {}
  if (c.from !== undefined) r.from = c.from
  if (c.to !== undefined) r.to = c.to
  if (c.gas !== undefined) r.gas = c.gas
  if (c.gasPrice !== undefined) r.gasPrice = c.gasPrice
  if (c.value !== undefined) r.value = c.value
  if (c.data !== undefined) r.data = c.data
  return r
}

/** The gas a call runs with: its own, at most `cap` (RSKj `rpc.callGasCap`), or `cap` when it names none. */
export const callGas = (c: CallObject, cap: bigint): bigint => (c.gas === undefined || c.gas > cap ? cap : c.gas)

/** `v` as a plain JSON object, or -32602 naming `what`. */
export function asObject(v: unknown, what: string): Record<string, unknown> {
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>
  throw invalidParams(`Invalid ${what}: expected an object.`)
}

/** `codec(v)`, or undefined for an absent or null field. */
export const opt = <T>(v: unknown, codec: (x: unknown) => T): T | undefined => (v === undefined || v === null ? undefined : codec(v))

/** Transaction call object; `input` wins over `data` when both are present (RSKj). */
export const callObject = (v: unknown): CallObject => {
  const o = asObject(v, 'transaction call object')
  const input = opt(o.input, data) ?? opt(o.data, data)
  const out: CallObject = {}
  const from = opt(o.from, address)
  const to = opt(o.to, address)
  const gas = opt(o.gas, quantity)
  const gasLimit = opt(o.gasLimit, quantity)
  const gasPrice = opt(o.gasPrice, quantity)
  const value = opt(o.value, quantity)
  const nonce = opt(o.nonce, quantity)
  const chainId = opt(o.chainId, quantity)
  if (from !== undefined) out.from = from
  if (to !== undefined) out.to = to
  if (gas !== undefined) out.gas = gas
  if (gasLimit !== undefined) out.gasLimit = gasLimit
  if (gasPrice !== undefined) out.gasPrice = gasPrice
  if (value !== undefined) out.value = value
  if (nonce !== undefined) out.nonce = nonce
  if (chainId !== undefined) out.chainId = chainId
  if (input !== undefined) out.data = input
  return out
}

/** State override map of eth_call's third parameter (spec "State override entry"). */
export const stateOverrides = (v: unknown): StateOverrides => {
  const o = asObject(v, 'state override set')
  const out: StateOverrides = new Map()
  for (const [key, raw] of Object.entries(o)) {
    const addr = address(key)
    const e = asObject(raw, `state override for ${key}`)
    if (e.movePrecompileToAddress !== undefined && e.movePrecompileToAddress !== null) {
      throw new RpcError(ErrorCode.Unimplemented, 'Move precompile to address is not supported yet')
    }
    if (e.state != null && e.stateDiff != null) {
      throw invalidParams(`Invalid state override for ${key}: state and stateDiff cannot be given together`)
    }
    const override: AccountOverride = {}
    if (isPrecompile(addr) && ['balance', 'nonce', 'code', 'state', 'stateDiff'].some((f) => e[f] != null)) {
      // RSKj DefaultStateOverrideApplier.validateOperationOverPrecompiledContract.
      throw invalidParams('Precompiled contracts can not be overridden')
    }
    if (e.balance != null) override.balance = quantity(e.balance)
    if (e.nonce != null) override.nonce = quantity(e.nonce)
    if (e.code != null) override.code = data(e.code)
    if (e.state != null) override.state = slots(e.state, key)
    if (e.stateDiff != null) override.stateDiff = slots(e.stateDiff, key)
    out.set(bytesToHex(addr), { address: addr, override })
  }
  return out
}

/**
 * Precompiled-contract addresses active on every network profile (reference §7.6): 0x01–0x09 and RSK's
 * 0x…01000006 Bridge, …08 REMASC, …09 HDWalletUtils, …10 BlockHeader, …11 Environment, …16/…17 secp256k1.
 */
const RSK_PRECOMPILES = new Set([0x01000006, 0x01000008, 0x01000009, 0x01000010, 0x01000011, 0x01000016, 0x01000017])

export function isPrecompile(a: Uint8Array): boolean {
  for (let i = 0; i < 16; i++) if (a[i] !== 0) return false
  const low = ((a[16]! << 24) | (a[17]! << 16) | (a[18]! << 8) | a[19]!) >>> 0
  return (low >= 1 && low <= 9) || RSK_PRECOMPILES.has(low)
}

function slots(v: unknown, who: string): Map<bigint, bigint> {
  const o = asObject(v, `storage override for ${who}`)
  const m = new Map<bigint, bigint>()
  for (const [k, val] of Object.entries(o)) m.set(quantity(k), quantity(val))
  return m
}

export interface FilterObject {
  fromBlock?: BlockSelector
  toBlock?: BlockSelector
  blockHash?: Uint8Array
  /** Any of these addresses (empty = any). */
  addresses: Uint8Array[]
  /** Per position: null = anything, else any of the listed topics. */
  topics: (Uint8Array[] | null)[]
}

/**
 * Most addresses, and most topics per position, in one filter. RSKj sets no bound; rsksim does, because an
 * installed filter keeps its criteria for minutes and each address costs every block's log matching
 * (documented in docs/compatibility.md).
 */
export const MAX_FILTER_ADDRESSES = 1_000
export const MAX_FILTER_TOPICS = 1_000

/**
 * Filter options of eth_getLogs / eth_newFilter (spec "Filter options"), read as RSKj's `FilterRequestParam.Deserializer`
 * reads them: every key present is read, JSON `null` included, as the text of its value (`asText`), in its order
 * (`fromBlock`, `toBlock`, `address`, `blockHash`, `topics`), before `LogFilter.validateFilterRequestParameters` refuses
 * a `blockHash` with a bound. A bound is `filterBound`'s; a `null` `address` or `topics` is none (`getAddressParam`,
 * `getTopicArray`), a `topics` that is not an array is one topic, at the first position; in a position's list a `null`
 * is left out (`LogFilter.fromFilterRequest` keeps its strings), and a list left empty is any topic. `blockhash` (the
 * spec's other spelling) is read as `blockHash`, a `null` one as none.
 */
export const filterObject = (v: unknown): FilterObject => readFilter(v, true)

/**
 * The options of a `logs` subscription (RSKj `EthSubscribeLogsParams`, which keeps the bounds as text and uses only
 * `address` and `topics`): as eth_getLogs reads them, but for a `null` key, which is none, bounds read as block
 * selectors (`hexBlockId`), and topics that must be an array of `null`s, topics and lists of topics.
 */
export const subscriptionFilterObject = (v: unknown): FilterObject => readFilter(v, false)

function readFilter(v: unknown, request: boolean): FilterObject {
  const o = asObject(v, 'filter')
  const given = (key: string): boolean => (request ? o[key] !== undefined : o[key] != null)
  const out: FilterObject = { addresses: [], topics: [] }
  if (given('fromBlock')) out.fromBlock = request ? filterBound(o.fromBlock) : hexBlockId(o.fromBlock)
  if (given('toBlock')) out.toBlock = request ? filterBound(o.toBlock) : hexBlockId(o.toBlock)
  if (Array.isArray(o.address) && o.address.length > MAX_FILTER_ADDRESSES) {
    throw invalidParams(`Invalid address: at most ${MAX_FILTER_ADDRESSES} addresses in one filter.`)
  }
  if (o.address != null) out.addresses = Array.isArray(o.address) ? o.address.map(address) : [address(o.address)]
  const hashRaw = given('blockHash') ? o.blockHash : o.blockhash ?? undefined
  if (hashRaw !== undefined) out.blockHash = request ? blockHash(asText(hashRaw)) : topicLike(hashRaw, 'block hash')
  if (o.topics != null) out.topics = request ? requestTopics(o.topics) : subscriptionTopics(o.topics)
  if (out.blockHash !== undefined && (out.fromBlock !== undefined || out.toBlock !== undefined)) {
    throw invalidParams('Cannot specify both blockHash and fromBlock/toBlock')
  }
  return out
}

function checkTopicCounts(positions: unknown[]): void {
  if (positions.length > 4) throw invalidParams('Invalid topics: at most 4 positions.')
  if (positions.some((t) => Array.isArray(t) && t.length > MAX_FILTER_TOPICS)) {
    throw invalidParams(`Invalid topics: at most ${MAX_FILTER_TOPICS} topics per position.`)
  }
}

/** eth_getLogs/eth_newFilter topics (`FilterRequestParam.Deserializer.getTopicArray`, `LogFilter.fromFilterRequest`). */
function requestTopics(v: unknown): (Uint8Array[] | null)[] {
  if (!Array.isArray(v)) return [[topic(asText(v))]]
  checkTopicCounts(v)
  return v.map((t) => {
    if (t === null) return null
    if (!Array.isArray(t)) return [topic(asText(t))]
    const list = t.filter((x) => x !== null).map((x) => topic(asText(x)))
    return list.length === 0 ? null : list
  })
}

function subscriptionTopics(v: unknown): (Uint8Array[] | null)[] {
  if (!Array.isArray(v)) throw invalidParams('Invalid topics: expected an array.')
  checkTopicCounts(v)
  return v.map((t) => (t === null ? null : Array.isArray(t) ? (t.length === 0 ? null : t.map(topic)) : [topic(t)]))
}

const topicLike = (v: unknown, what: string): Uint8Array => {
  try {
    return topic(v)
  } catch {
    throw invalidParams(`Invalid ${what}: incorrect length.`)
  }
}
