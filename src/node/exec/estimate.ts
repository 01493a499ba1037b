/**
 * `eth_estimateGas`. RSKj runs the transaction once and derives an estimate (reference §5.2). rsksim runs once at
 * the upper bound, then tries the peak gas that run held (gas used before refunds), unless that run never acted on its
 * gas (no GAS opcode, no capped or value-carrying call: src/node/rsk/evm/gasReads.ts), when the peak is the answer
 * without trying it. Under RSK's call rules there is
 * no EIP-150 63/64 withholding (a callee gets the gas it asks for, capped to what is left: src/node/rsk/evm/evmProfile.ts),
 * so the peak usually suffices; where it does not (code that reads GAS and asks for, or branches on, an amount), it
 * searches upward until the transaction succeeds, so that a transaction sent with the estimate always succeeds
 * (docs/compatibility.md).
 */
import { EstimateFailed, ExecutionReverted } from '../errors.js'
import type { Chain } from '../chain/chain.js'
import type { BlockRecord } from '../chain/types.js'
import { execute, type CallRequest, type CallOutcome } from './call.js'
import { gasReads } from '../rsk/evm/gasReads.js'

/** Most binary-search steps after the first probe. */
const MAX_STEPS = 20

export async function estimateGas(chain: Chain, block: BlockRecord, req: CallRequest, upperBound: bigint): Promise<bigint> {
  const limit = req.gas ?? upperBound
  const from = req.from ?? new Uint8Array(20)
  const balance = await chain.balanceAt(from, block)
  const price = req.gasPrice ?? 0n
  if (balance < (req.value ?? 0n) + (req.gas !== undefined ? price * req.gas : 0n)) {
    throw new EstimateFailed('insufficient funds for transfer')
  }
  const readsBefore = gasReads()
  const first = await execute(chain, block, req, limit)
  fail(first, limit)
  let lo = first.gasPeak
  // Code that never acted on the gas it held (gasReads.ts) takes the same path with the peak as its limit, and the
  // peak is the most it held at any point: it succeeds there, so a second run would only confirm it.
  if (gasReads() === readsBefore) return lo
  if (succeeded(await execute(chain, block, req, lo))) return lo
  // What the peak lacks is small (gas a contract checks for with GAS before it spends it): a bound a little above
  // the peak nearly always succeeds, and searching below it ends exact within MAX_STEPS, where a search up to a
  // 10,000,000 bound would stop about 10 gas above the minimum.
  let hi = limit
  const near = lo + lo / 16n + 10_000n
  if (near < hi && succeeded(await execute(chain, block, req, near))) hi = near
  for (let step = 0; step < MAX_STEPS && hi - lo > 1n; step++) {
    const mid = (lo + hi) / 2n
    if (succeeded(await execute(chain, block, req, mid))) hi = mid
    else lo = mid
  }
  return hi
}

const succeeded = (o: CallOutcome): boolean => o.error === undefined

function fail(o: CallOutcome, limit: bigint): void {
  if (o.error === undefined) return
  if (o.error === 'revert') throw new ExecutionReverted(o.returnValue)
  if (o.error === 'out of gas') throw new EstimateFailed(`gas required exceeds allowance (${limit})`)
  throw new EstimateFailed(o.error)
}
