/**
 * eth_simulateV1's payload (execution-apis `EthSimulatePayload`): `blockStateCalls` (each with optional
 * `blockOverrides`, `stateOverrides` in eth_call's form, and `calls` in eth_call's call object form), and the flags
 * `validation`, `traceTransfers`, `returnFullTransactions` (false when absent). Decoded to the domain shapes of
 * src/node/exec/simulate.ts.
 */
import { bytesToHex, toChecksumAddress } from '@ethereumjs/util'
import { invalidParams, RpcError } from '../../errors.js'
import { address, boolean, quantity } from './primitives.js'
import { asObject, callObject, callRequest, isPrecompile, opt, stateOverrides } from './objects.js'
import { MAX_SIMULATE_BLOCKS, type SimulatedBlockInput, type SimulatedCallInput } from '../../node/exec/simulate.js'

/**
 * Most calls in one request, all blocks together. The spec lets clients set limits (-38026); geth's are 5,000 calls a
 * block and 10,000 a request (simulate.go `maxSimulateCallsPerBlock`, `maxSimulateTotalCalls`). rsksim runs a request while every other waits in the node's queue, and answers every call's logs in one
 * reply: 1,000 calls bound both well above what a simulation of a user's transactions needs (viem's `simulateCalls`
 * sends one block of the user's calls, plus a few probes).
 */
const MAX_SIMULATE_CALLS = 1_000

/** The spec's code for a limit a client set (execute.yaml: -38026 "Client adjustable limit exceeded"). */
export const CLIENT_LIMIT_EXCEEDED = -38026

export interface SimulatePayload {
  blocks: SimulatedBlockInput[]
  validation: boolean
  traceTransfers: boolean
  returnFullTransactions: boolean
}

/**
 * Block override fields the spec has and an RSK block does not: refused rather than ignored, so that a simulation
 * never answers as if it had used them. RSK blocks have no base fee (the minimum gas price plays its part, and is
 * what BASEFEE answers), no prevRandao (DIFFICULTY answers the block's difficulty), no blobs, withdrawals or beacon root.
 */
const NOT_ON_RSK: Record<string, string> = {
  baseFeePerGas: 'RSK blocks have no base fee (BASEFEE answers the minimum gas price, which a simulated block takes from the node)',
  prevRandao: 'RSK blocks have no prevRandao',
  blobBaseFee: 'RSK blocks carry no blobs',
  withdrawals: 'RSK blocks have no withdrawals',
  beaconRoot: 'RSK blocks have no beacon root',
}


export const simulatePayload = (v: unknown): SimulatePayload => {
  const o = asObject(v, 'eth_simulateV1 payload')
  if (!Array.isArray(o.blockStateCalls)) throw invalidParams('Invalid eth_simulateV1 payload: blockStateCalls must be an array.')
  const raw = o.blockStateCalls as unknown[]
  // geth's texts (internal/ethapi/api.go `SimulateV1`).
  if (raw.length === 0) throw invalidParams('empty input')
  if (raw.length > MAX_SIMULATE_BLOCKS) throw new RpcError(CLIENT_LIMIT_EXCEEDED, 'too many blocks')
  let calls = 0
  const blocks = raw.map((b, i) => {
    const block = simBlock(b, i)
    calls += block.calls.length
    if (calls > MAX_SIMULATE_CALLS) throw new RpcError(CLIENT_LIMIT_EXCEEDED, `too many calls: ${calls} > ${MAX_SIMULATE_CALLS}`)
    return block
  })
  return {
    blocks,
    validation: opt(o.validation, boolean) ?? false,
    traceTransfers: opt(o.traceTransfers, boolean) ?? false,
    returnFullTransactions: opt(o.returnFullTransactions, boolean) ?? false,
  }
}

function simBlock(v: unknown, i: number): SimulatedBlockInput {
  const o = asObject(v, `blockStateCalls[${i}]`)
  const out: SimulatedBlockInput = { calls: [] }
  if (o.blockOverrides != null) {
    const b = asObject(o.blockOverrides, `blockStateCalls[${i}].blockOverrides`)
    for (const [field, why] of Object.entries(NOT_ON_RSK)) {
      if (b[field] != null) throw invalidParams(`Invalid blockStateCalls[${i}].blockOverrides: ${field} cannot be overridden: ${why}.`)
    }
    const number = opt(b.number, quantity)
    const time = opt(b.time, quantity)
    const gasLimit = opt(b.gasLimit, quantity)
    const feeRecipient = opt(b.feeRecipient, address)
    if (number !== undefined) out.number = number
    if (time !== undefined) out.time = time
    if (gasLimit !== undefined) out.gasLimit = gasLimit
    if (feeRecipient !== undefined) out.feeRecipient = feeRecipient
  }
  if (o.stateOverrides != null) {
    const { rest, refusal } = moves(o.stateOverrides)
    out.stateOverrides = stateOverrides(rest)
    if (refusal !== undefined) out.refusedOverride = refusal
  }
  if (o.calls != null) {
    if (!Array.isArray(o.calls)) throw invalidParams(`Invalid blockStateCalls[${i}].calls: expected an array.`)
    out.calls = (o.calls as unknown[]).map((c, j) => simCall(c, `blockStateCalls[${i}].calls[${j}]`))
  }
  return out
}

/**
 * `movePrecompileToAddress` (execution-apis `AccountOverride`), refused as geth refuses a move it cannot make: when
 * the block's overrides are applied (simulate.go `processBlock` → override.go `Apply`), after the blocks' numbers and
 * times are checked and the blocks before have run, so an earlier refusal wins; a plain error, -32000, the first
 * moved address in sorted order, EIP-55. On an account that is no precompile, geth's `account X is not a precompile`;
 * on a precompile, refused too: rsksim's EVM keeps RSK's precompiles (Ethereum's 1-9 and RSK's 0x…01000006 and the
 * others) at their addresses, and RSKj refuses to override them (objects.ts `stateOverrides`), so the simulation does
 * not answer as if one had moved. eth_call's own refusal (RSKj's -32201) is left as it is. Answers the overrides
 * without the moves (for eth_call's decoder) and the refusal's text, if any.
 */
function moves(overrides: unknown): { rest: unknown; refusal?: string } {
  if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides)) return { rest: overrides }
  const rest: Record<string, unknown> = {}
  const moved: Uint8Array[] = []
  for (const [key, o] of Object.entries(overrides as Record<string, unknown>)) {
    if (typeof o !== 'object' || o === null || (o as Record<string, unknown>).movePrecompileToAddress == null) {
      rest[key] = o
      continue
    }
    const { movePrecompileToAddress: to, ...others } = o as Record<string, unknown>
    // The destination as geth decodes it (an address), though the move is refused.
    address(to)
    moved.push(address(key))
    rest[key] = others
  }
  const first = moved.sort((a, b) => Buffer.compare(a, b))[0]
  if (first === undefined) return { rest }
  const name = toChecksumAddress(bytesToHex(first))
  return { rest, refusal: isPrecompile(first) ? `account ${name} cannot be moved: rsksim keeps RSK's precompiles at their addresses` : `account ${name} is not a precompile` }
}

/** A nonce is a transaction's (geth decodes it as a 64-bit `hexutil.Uint64`: -32602 beyond). */
const MAX_UINT64 = 2n ** 64n - 1n

function simCall(v: unknown, what: string): SimulatedCallInput {
  const c = callObject(v)
  if (c.nonce !== undefined && c.nonce > MAX_UINT64) throw invalidParams(`Invalid ${what}.nonce: more than 64 bits.`)
  return { ...callRequest(c), ...(c.nonce !== undefined ? { nonce: c.nonce } : {}) }
}
