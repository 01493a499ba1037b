/**
 * Execution blocks (src/node/chain/execBlock.ts) copied from a template block instead of built by @ethereumjs/block's
 * constructors (10.1.3, dist/esm/block/block.js and header/header.js).
 *
 * Why: the engine reads an execution block's header (number, timestamp, gas limit, coinbase, difficulty) and nothing
 * else of it, yet `createBlock` copies the Common, converts and validates each of the header's 26 fields and
 * allocates its empty bloom and roots: 11-16 µs a block against 0.4 µs for a copy, measured alone with rsksim's
 * Common (docs/performance.md "Thirteenth round"). A block mined automatically builds one each time.
 *
 * How: one block is built by `createBlock` per Common (the template); each execution block after it is a new
 * `Block` and `BlockHeader` (their prototypes, their constructors not run) holding the template's own fields, with
 * the five values of the block being built and a header hash cache of its own, frozen as the constructors do. The
 * fixed fields (zero roots, empty bloom, extra data, the header's copy of the Common) are the template's, shared:
 * nothing writes a frozen block's fields, and the Common of rsksim never changes hardfork or EIPs once built.
 *
 * The check is on the template, when it is built (the first execution block of a Common): its own fields, and its
 * header's, must be exactly the ones listed below, as 10.1.3 sets them, or no copy is made and `createBlock` builds
 * every block as before.
 * test/engine_patches.test.ts compares copies with `createBlock`'s blocks field by field, and their header hashes.
 */
import { Block, BlockHeader } from '@ethereumjs/block'
import type { Address } from '@ethereumjs/util'
import { enginePatches } from './switch.js'
import { copyOrBuild } from './copyTemplate.js'

/** The values an execution block carries from the RSK header being built or replayed. */
export interface ExecutionValues {
  number: bigint
  timestamp: bigint
  gasLimit: bigint
  coinbase: Address
  difficulty: bigint
}

/** The own fields of a 10.1.3 header and block, in the order the constructors set them. */
const HEADER_FIELDS = [
  'cache', 'common', 'keccakFunction', 'parentHash', 'uncleHash', 'coinbase', 'stateRoot', 'transactionsTrie', 'receiptTrie', 'logsBloom',
  'difficulty', 'number', 'gasLimit', 'gasUsed', 'timestamp', 'extraData', 'mixHash', 'nonce', 'baseFeePerGas', 'withdrawalsRoot',
  'blobGasUsed', 'excessBlobGas', 'parentBeaconBlockRoot', 'requestsHash', 'blockAccessListHash', 'slotNumber',
].join()
const BLOCK_FIELDS = ['transactions', 'uncleHeaders', 'cache', 'header', 'common', 'keccakFunction', 'sha256Function', 'withdrawals'].join()

/** The answer of the last template check (undefined before any): what test/fixtures/bundleProbe.ts reports. */
export let execBlockTemplateRecognised: boolean | undefined

/** Whether a block built by `createBlock` has exactly the fields this copy writes (and nothing it would miss). */
export function templateRecognised(template: Block): boolean {
  const header = template.header as unknown as Record<string, unknown>
  const block = template as unknown as Record<string, unknown>
  return (execBlockTemplateRecognised =
    enginePatches.installable &&
    Object.getPrototypeOf(template) === Block.prototype &&
    Object.getPrototypeOf(template.header) === BlockHeader.prototype &&
    Object.keys(header).join() === HEADER_FIELDS &&
    Object.keys(block).join() === BLOCK_FIELDS &&
    template.transactions.length === 0 &&
    template.uncleHeaders.length === 0 &&
    template.withdrawals === undefined &&
    Object.isFrozen(template) &&
    Object.isFrozen(template.header))
}

/**
 * The execution block for header values `v`: a copy of the Common's template where the patches run, else what
 * `build` (`createBlock`) gives.
 */
export const executionBlockFromTemplate = copyOrBuild<Block, ExecutionValues>(templateRecognised, copyExecutionBlock)

/** A block like `template` with the header values `v`. */
export function copyExecutionBlock(template: Block, v: ExecutionValues): Block {
  const header = new (HeaderCopy as unknown as HeaderCopyClass)(template.header, v)
  Object.freeze(header)
  const block = new (BlockCopy as unknown as BlockCopyClass)(template, header)
  Object.freeze(block)
  return block
}

type HeaderCopyClass = new (t: BlockHeader, v: ExecutionValues) => BlockHeader
type BlockCopyClass = new (t: Block, header: BlockHeader) => Block

/**
 * The header's fields in the constructor's order, on an object whose prototype is BlockHeader's (HeaderCopy's
 * prototype is set to it below), so every copy has one hidden class with its fields inside the object. In the
 * transfers workload's profile, Object.assign onto `Object.create(BlockHeader.prototype)` took ~18 µs per block.
 */
function HeaderCopy(this: Record<string, unknown>, template: BlockHeader, v: ExecutionValues): void {
  const t = template as unknown as Record<string, unknown>
  this.cache = { hash: undefined }
  this.common = t.common
  this.keccakFunction = t.keccakFunction
  this.parentHash = t.parentHash
  this.uncleHash = t.uncleHash
  this.coinbase = v.coinbase
  this.stateRoot = t.stateRoot
  this.transactionsTrie = t.transactionsTrie
  this.receiptTrie = t.receiptTrie
  this.logsBloom = t.logsBloom
  this.difficulty = v.difficulty
  this.number = v.number
  this.gasLimit = v.gasLimit
  this.gasUsed = t.gasUsed
  this.timestamp = v.timestamp
  this.extraData = t.extraData
  this.mixHash = t.mixHash
  this.nonce = t.nonce
  this.baseFeePerGas = t.baseFeePerGas
  this.withdrawalsRoot = t.withdrawalsRoot
  this.blobGasUsed = t.blobGasUsed
  this.excessBlobGas = t.excessBlobGas
  this.parentBeaconBlockRoot = t.parentBeaconBlockRoot
  this.requestsHash = t.requestsHash
  this.blockAccessListHash = t.blockAccessListHash
  this.slotNumber = t.slotNumber
}
HeaderCopy.prototype = BlockHeader.prototype

/** The block's fields in the constructor's order: no transactions, no uncles, a cache of its own. */
function BlockCopy(this: Record<string, unknown>, template: Block, header: BlockHeader): void {
  const t = template as unknown as Record<string, unknown>
  this.transactions = []
  this.uncleHeaders = []
  this.cache = {}
  this.header = header
  this.common = t.common
  this.keccakFunction = t.keccakFunction
  this.sha256Function = t.sha256Function
  this.withdrawals = t.withdrawals
}
BlockCopy.prototype = Block.prototype
