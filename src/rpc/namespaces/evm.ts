/**
 * evm_* (reference §3.3) with what Ganache and Hardhat users also expect: `evm_mine` takes an optional timestamp
 * (a number, a QUANTITY, or `{ timestamp, blocks }` as Ganache accepts).
 */
import { invalidParams } from '../../errors.js'
import { optional, type Codec } from '../codecs/primitives.js'
import { method, noParams, type MethodTable } from '../method.js'
import { quantity } from '../format/hex.js'

/** Seconds as RSKj's `evm_increaseTime` takes them: `0x` hex or a decimal string; a JSON number is read as decimal. */
const seconds: Codec<bigint> = (v) => {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v)
  if (typeof v === 'string' && /^(0x[0-9a-fA-F]+|-?[0-9]+)$/.test(v)) return BigInt(v)
  throw invalidParams(`invalid number of seconds ${JSON.stringify(v)}`)
}

/** Snapshot id: `0x` hex (RSKj: non-hex → `invalid snapshot id <x>`). */
const snapshotId: Codec<number> = (v) => {
  if (typeof v === 'string' && /^0x[0-9a-fA-F]+$/.test(v)) return Number(BigInt(v))
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v
  throw invalidParams(`invalid snapshot id ${typeof v === 'string' ? v : JSON.stringify(v)}`)
}

interface MineRequest {
  timestamp?: bigint
  blocks: number
}

const mineRequest: Codec<MineRequest> = (v) => {
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const o = v as Record<string, unknown>
    const blocks = o.blocks === undefined ? 1 : Number(seconds(o.blocks))
    if (!(blocks >= 1 && blocks <= 10_000)) throw invalidParams('invalid blocks: expected 1 to 10000')
    return o.timestamp === undefined || o.timestamp === null ? { blocks } : { timestamp: seconds(o.timestamp), blocks }
  }
  return { timestamp: seconds(v), blocks: 1 }
}

export const evmMethods: MethodTable = {
  evm_snapshot: noParams(({ node }) => quantity(node.snapshots.take(node))),
  evm_revert: method([snapshotId], ({ node }, id) => node.snapshots.revert(node, id)),
  evm_reset: noParams(async ({ node }) => {
    await node.snapshots.reset(node)
    return null
  }),
  evm_mine: method([optional(mineRequest)], async ({ node }, req) => {
    for (let i = 0; i < (req?.blocks ?? 1); i++) await node.mine(i === 0 ? req?.timestamp : undefined)
    return null
  }),
  evm_increaseTime: method([seconds], ({ node }, s) => quantity(node.clock.increase(s))),
  evm_startMining: noParams(async ({ node }) => {
    node.miningEnabled = true
    if (node.automine && node.pool.pendingCount > 0) await node.mine()
    return null
  }),
  evm_stopMining: noParams(({ node }) => {
    node.miningEnabled = false
    return null
  }),
}
