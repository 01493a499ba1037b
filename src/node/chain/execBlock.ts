/**
 * The engine's view of an RSK block: an @ethereumjs Block carrying the header values the EVM reads (number,
 * timestamp, gas limit, coinbase, difficulty). Building one with `createBlock` costs a Common copy, conversions and
 * checks of every header field (11-16 µs measured alone), so where the engine patches run each block after a
 * Common's first is a copy of that first one (src/node/enginePatches/execBlock.ts, 0.4 µs); where they do not,
 * blocks built again with the same values share one. Calls against the same mined block share one either way, kept
 * as long as the block record lives.
 */
import { createBlock, type Block } from '@ethereumjs/block'
import { Address } from '@ethereumjs/util'
import type { Common } from '@ethereumjs/common'
import type { RskHeader } from '../rsk/header/header.js'
import type { BlockRecord } from './types.js'
import { RecentMap } from '../recentMap.js'
import { binKey } from '../binKey.js'
import { executionBlockFromTemplate, type ExecutionValues } from '../enginePatches/execBlock.js'

/**
 * Execution blocks built lately by `createBlock`, per Common, by their values: only where no copy is made (patches
 * off). A test that reverts to a snapshot and mines again builds blocks with the numbers and, while blocks come
 * faster than one a second (each then one second after its parent: clock.ts), the timestamps of those it reverted:
 * each fixture cycle would build the same blocks anew. A copy costs less than this memo's key (0.4 against 11-16 µs
 * for createBlock, measured alone). A Block is frozen, and the engine only reads it.
 */
const recent = new WeakMap<Common, RecentMap<string, Block>>()

/** The execution block for header values (used while a block is being built, and to replay one). */
export function executionBlockOf(common: Common, h: Pick<RskHeader, 'number' | 'timestamp' | 'gasLimit' | 'coinbase' | 'difficulty'>): Block {
  const values = { number: h.number, timestamp: h.timestamp, gasLimit: h.gasLimit, coinbase: new Address(h.coinbase), difficulty: h.difficulty }
  return executionBlockFromTemplate(common, values, () => built(common, values))
}

/** `createBlock`'s block for `values`, shared with the last ones built with the same values. */
function built(common: Common, values: ExecutionValues): Block {
  let blocks = recent.get(common)
  if (blocks === undefined) recent.set(common, (blocks = new RecentMap(16)))
  const key = `${values.number}:${values.timestamp}:${values.gasLimit}:${values.difficulty}:${binKey(values.coinbase.bytes)}`
  let block = blocks.get(key)
  if (block === undefined) blocks.set(key, (block = createBlock({ header: values }, { common, skipConsensusFormatValidation: true })))
  return block
}

const cache = new WeakMap<BlockRecord, Block>()

/** The execution block of a mined block, built once. */
export function executionBlock(common: Common, block: BlockRecord): Block {
  let b = cache.get(block)
  if (b === undefined) cache.set(block, (b = executionBlockOf(common, block.header)))
  return b
}
