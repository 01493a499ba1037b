/**
 * The engine's view of an RSK block: an @ethereumjs Block carrying the header values the EVM reads (number,
 * timestamp, gas limit, coinbase, difficulty). Building one costs a Common copy and a params merge (8-12 µs alone,
 * 25-35 µs per block inside a fixture workload's profile), so calls against the same block share one, kept as long
 * as the block record lives, and blocks built again with the same values share one too. A new one is a copy of the
 * Common's first (src/node/enginePatches/execBlock.ts) where the engine patches run, else built by `createBlock`.
 */
import { createBlock, type Block } from '@ethereumjs/block'
import { Address } from '@ethereumjs/util'
import type { Common } from '@ethereumjs/common'
import type { RskHeader } from '../rsk/header/header.js'
import type { BlockRecord } from './types.js'
import { RecentMap } from '../recentMap.js'
import { binKey } from '../binKey.js'
import { copyExecutionBlock, templateRecognised, type ExecutionValues } from '../enginePatches/execBlock.js'

/**
 * Execution blocks built lately, per Common, by their values. A test that reverts to a snapshot and mines again
 * builds blocks with the numbers and, while blocks come faster than one a second (each then one second after its
 * parent: clock.ts), the timestamps of those it reverted: each fixture cycle would build the same blocks anew. A
 * Block is frozen, and the engine only reads it.
 */
const recent = new WeakMap<Common, RecentMap<string, Block>>()

/** The execution block for header values (used while a block is being built, and to replay one). */
export function executionBlockOf(common: Common, h: Pick<RskHeader, 'number' | 'timestamp' | 'gasLimit' | 'coinbase' | 'difficulty'>): Block {
  let blocks = recent.get(common)
  if (blocks === undefined) recent.set(common, (blocks = new RecentMap(16)))
  const key = `${h.number}:${h.timestamp}:${h.gasLimit}:${h.difficulty}:${binKey(h.coinbase)}`
  let block = blocks.get(key)
  if (block === undefined) {
    const values = { number: h.number, timestamp: h.timestamp, gasLimit: h.gasLimit, coinbase: new Address(h.coinbase), difficulty: h.difficulty }
    let template = templates.get(common)
    if (template === undefined) templates.set(common, (template = { block: (block = build(common, values)), recognised: templateRecognised(block) }))
    else block = copyExecutionBlock(template.block, template.recognised, values) ?? build(common, values)
    blocks.set(key, block)
  }
  return block
}

/** The first execution block built for each Common, which the next ones copy, and whether it can be copied. */
const templates = new WeakMap<Common, { block: Block; recognised: boolean }>()

function build(common: Common, header: ExecutionValues): Block {
  return createBlock({ header }, { common, skipConsensusFormatValidation: true })
}

const cache = new WeakMap<BlockRecord, Block>()

/** The execution block of a mined block, built once. */
export function executionBlock(common: Common, block: BlockRecord): Block {
  let b = cache.get(block)
  if (b === undefined) cache.set(block, (b = executionBlockOf(common, block.header)))
  return b
}
