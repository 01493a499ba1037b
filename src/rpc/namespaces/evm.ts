/**
 * evm_* (reference §3.3) with what Ganache and Hardhat users also expect: `evm_mine` takes an optional timestamp
 * (a number, a QUANTITY, or `{ timestamp, blocks }` as Ganache accepts), which must be after the head's (as Hardhat
 * and Anvil require; Ganache would mine a block earlier than its parent, which RSK never has).
 */
import { invalidParams } from '../../errors.js'
import { optional, show, type Codec } from '../codecs/primitives.js'
import { method, noParams, type MethodTable } from '../method.js'
import { quantity } from '../format/hex.js'
import { MAX_TIMESTAMP } from '../../node/miner/clock.js'
import type { RskNode } from '../../node/node.js'

/**
 * Seconds as RSKj's `evm_increaseTime` takes them: `0x` hex or a decimal string; a JSON number is read as decimal.
 * RSKj reads them into a Java long, so anything past 2^63 − 1 is refused here (-32602) before it reaches the clock.
 */
const seconds: Codec<bigint> = (v) => {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v)
  // 19 decimal digits or 16 hex digits hold every long; the length test comes before any conversion.
  if (typeof v === 'string' && v.length <= 20 && /^(0x[0-9a-fA-F]{1,16}|-?[0-9]{1,19})$/.test(v)) {
    const n = BigInt(v)
    if (n <= MAX_TIMESTAMP && n >= -MAX_TIMESTAMP) return n
  }
  throw invalidParams(`invalid number of seconds ${show(v)}: expected a whole number of at most 2^63 - 1`)
}

/**
 * Refuses a timestamp asked for the next block that is not after the head's (Hardhat's check and text; Anvil refuses
 * too): block timestamps rise, as RSKj's `MinerClock` keeps them. Also evm_setNextBlockTimestamp's (dev/mining.ts).
 */
export function checkAfterHead(node: RskNode, ts: bigint): void {
  const parent = node.chain.head.header.timestamp
  if (ts <= parent) throw invalidParams(`Timestamp ${ts} is lower than or equal to previous block's timestamp ${parent}`)
}

/** Snapshot id: `0x` hex (RSKj: non-hex → `invalid snapshot id <x>`). */
const snapshotId: Codec<number> = (v) => {
  if (typeof v === 'string' && /^0x[0-9a-fA-F]+$/.test(v)) return Number(BigInt(v))
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v
  throw invalidParams(`invalid snapshot id ${show(v)}`)
}

export interface MineRequest {
  timestamp?: bigint
  blocks: number
}

/** evm_mine's optional parameter: a timestamp, or `{ timestamp?, blocks? }` (Ganache's form). Also evm_mine_detailed's. */
export const mineRequest: Codec<MineRequest> = (v) => {
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const o = v as Record<string, unknown>
    const blocks = o.blocks === undefined ? 1 : Number(seconds(o.blocks))
    if (!(blocks >= 1 && blocks <= 10_000)) throw invalidParams('invalid blocks: expected 1 to 10000')
    return o.timestamp === undefined || o.timestamp === null ? { blocks } : { timestamp: seconds(o.timestamp), blocks }
  }
  return { timestamp: seconds(v), blocks: 1 }
}

/**
 * Mines as evm_mine asks: `req.blocks` blocks (default 1), the first at `req.timestamp` when given (after the head's);
 * answers how many were mined. Also evm_mine_detailed's (dev/mining.ts).
 */
export async function mineBlocks(node: RskNode, req: MineRequest | undefined): Promise<number> {
  if (req?.timestamp !== undefined && req.timestamp < 0n) throw invalidParams('invalid timestamp: must not be negative')
  if (req?.timestamp !== undefined) checkAfterHead(node, req.timestamp)
  const blocks = req?.blocks ?? 1
  for (let i = 0; i < blocks; i++) await node.mine(i === 0 ? req?.timestamp : undefined)
  return blocks
}

export const evmMethods: MethodTable = {
  evm_snapshot: noParams(async ({ node }) => quantity(await node.snapshots.take(node))),
  evm_revert: method([snapshotId], ({ node }, id) => node.snapshots.revert(node, id)),
  evm_reset: noParams(async ({ node }) => {
    await node.snapshots.reset(node)
    return null
  }),
  evm_mine: method([optional(mineRequest)], async ({ node }, req) => {
    await mineBlocks(node, req)
    return null
  }),
  evm_increaseTime: method([seconds], ({ node }, s) => {
    // The next block's time (now + offset) must stay a timestamp RSKj can hold (a long).
    if (node.clock.time() + node.clock.offset + s > MAX_TIMESTAMP) throw invalidParams('invalid number of seconds: the block time would pass 2^63 - 1')
    return quantity(node.clock.increase(s))
  }),
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
