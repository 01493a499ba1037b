/**
 * The engine's view of an RSK block: an @ethereumjs Block carrying the header values the EVM reads (number,
 * timestamp, gas limit, coinbase, difficulty). Building one costs a Common copy and a params merge, so calls
 * against the same block share one, kept as long as the block record lives.
 */
import { createBlock, type Block } from '@ethereumjs/block'
import { Address } from '@ethereumjs/util'
import type { Common } from '@ethereumjs/common'
import type { RskHeader } from '../rsk/header/header.js'
import type { BlockRecord } from './types.js'

/** A fresh execution block for header values (used while a block is being built). */
export function executionBlockOf(common: Common, h: Pick<RskHeader, 'number' | 'timestamp' | 'gasLimit' | 'coinbase' | 'difficulty'>): Block {
  return createBlock(
    { header: { number: h.number, timestamp: h.timestamp, gasLimit: h.gasLimit, coinbase: new Address(h.coinbase), difficulty: h.difficulty } },
    { common, skipConsensusFormatValidation: true },
  )
}

const cache = new WeakMap<BlockRecord, Block>()

/** The execution block of a mined block, built once. */
export function executionBlock(common: Common, block: BlockRecord): Block {
  let b = cache.get(block)
  if (b === undefined) cache.set(block, (b = executionBlockOf(common, block.header)))
  return b
}
