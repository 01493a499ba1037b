/**
 * RSK's BlockHeader precompile (0x01000010, RSKIP119; RSKj `co/rsk/pcc/blockheader/BlockHeaderContract` and its
 * methods, a native contract: `co/rsk/pcc/NativeContract`, `NativeMethod`). It answers fields of an ancestor of the
 * block being executed:
 *
 * - **Which block.** Every method takes a block depth (`int256`): depth 0 is the parent of the block being executed,
 *   depth d its d-th ancestor (`BlockAccessor.getBlock` → `IndexedBlockStore.getBlockAtDepthStartingAt(d, parent)`).
 *   The block being executed is the one NUMBER reads: the block being mined for a transaction, the selected block
 *   for `eth_call`/`eth_estimateGas` (so at `latest` depth 0 is the block before the head, as RSKj's
 *   `ReversibleTransactionExecutor` runs on the selected block), the replayed block for traces. A depth of 4,000 or
 *   more (`BlockHeaderContract.MAX_DEPTH`), or one outside Java's `short` range, answers empty bytes; so does a
 *   depth the chain does not reach: past depth 0 the store answers nothing when the parent's number is not above
 *   the depth, so genesis is reachable only as depth 0 from block 1. A negative depth (within `short`) fails.
 * - **Answers** are ABI `bytes` as RSKj writes them (nativeAbi.ts: empty bytes take one zero word, 96 bytes in all):
 *   `getCoinbaseAddress` the 20-byte coinbase, `getBlockHash` the 32-byte hash, `getMergedMiningTags` the bytes of
 *   the Bitcoin coinbase after the last `RSKBLOCK:` tag and the 32-byte hash that follows it (empty without a tag),
 *   `getMinGasPrice`, `getGasUsed`, `getDifficulty`, `getDifficultyWithUncles` (difficulty plus the uncles',
 *   `Block.getCumulativeDifficulty`) and `getCumulativeWork` (the total difficulty,
 *   `BlockStore.getTotalDifficultyForHash`) as Java's `BigInteger.toByteArray()` (minimal, a leading 0x00 when the
 *   top bit is set, 0 as one zero byte), `getGasLimit` the gas-limit bytes the header stores, `getBitcoinHeader`
 *   the Bitcoin header, `getUncleCoinbaseAddress(depth, index)` the coinbase of uncle `index` (empty past the
 *   uncles or outside `short`, a failure when negative). The last two RSKIP536 methods are active at the latest
 *   upgrade (reed810; mainnet 8,804,200), which rsksim runs.
 * - **Arguments** are decoded as RSKj's `CallTransaction.Function.decode` (nativeAbi.ts): 32-byte signed words after
 *   the selector; a method given only its selector reads 0s, a partial word fails; bytes after them are ignored.
 * - **Price** 4,000 + 2 per byte of the call's data, selector included (`BlockHeaderContractMethod.getGas` over
 *   `NativeMethod.getGas`). Data RSKj cannot parse (fewer than 4 bytes, an unknown selector, a partial argument) is
 *   priced 0 (`NativeContract.getGasForData`) and fails. A failure costs the price (precompileCall.ts). Value may
 *   be sent with the call, as to any RSKj native contract.
 */
import type { CustomPrecompile, ExecResult, PrecompileInput } from '@ethereumjs/evm'
import { executingBlockNumber } from '../../enginePatches/index.js'
import type { BlockRecord } from '../../chain/types.js'
import { gasLimitBytesFor, javaSignedBytes } from '../header/headerFields.js'
import { RSK_TAG, lastIndexOf } from '../mergedMining/coinbase.js'
import { failed, rskjPrecompile } from './precompileCall.js'
import { abiSelector, nativeAbiBytes, parseNativeCall } from './nativeAbi.js'

const BLOCK_HEADER = '0x0000000000000000000000000000000001000010'
/** `BlockHeaderContract.MAX_DEPTH` (REMASC's mainnet maturity). */
const MAX_DEPTH = 4000n
const SHORT_MIN = -32768n
const SHORT_MAX = 32767n
/** `RskMiningConstants.BLOCK_HEADER_HASH_SIZE`: the hash for merged mining after the tag. */
const TAGGED_HASH = 32

/**
 * What the precompile reads of the chain (closures given by src/node/chain/chain.ts, so that the EVMs of calls and
 * replays read the same chain).
 */
export interface ChainBlocks {
  /** Block `n` of the chain: rsksim's, or on a fork the remote's below the forked block; undefined when none. */
  at?: (n: bigint) => Promise<BlockRecord | undefined>
  /** On a fork: the coinbase of uncle `index` of one of the remote's blocks (blocks mined here have no uncles). */
  uncleCoinbase?: (block: BlockRecord, index: number) => Promise<Uint8Array | undefined>
}

/** A method's answer: bytes, or undefined for a failure (RSKj throws). */
type Answer = Uint8Array | undefined

interface Method {
  selector: Uint8Array
  /** Arguments after the selector (each an int256). */
  args: number
  answer: (block: BlockRecord, args: bigint[], blocks: ChainBlocks) => Answer | Promise<Answer>
}


/** `getMergedMiningTags`: what follows the last RSK tag and its hash in the Bitcoin coinbase; empty without a tag. */
function mergedMiningTags(coinbase: Uint8Array): Answer {
  const at = lastIndexOf(coinbase, RSK_TAG)
  if (at < 0) return new Uint8Array(0)
  const from = at + RSK_TAG.length + TAGGED_HASH
  // `Arrays.copyOfRange` with its start past the end throws (a tag with fewer than 32 bytes after it).
  return from > coinbase.length ? undefined : coinbase.slice(from)
}

/** `getUncleCoinbaseAddress`: the uncle index is read as the depth is (outside `short`: empty; negative: failure). */
async function uncleCoinbase(block: BlockRecord, index: bigint, blocks: ChainBlocks): Promise<Answer> {
  if (index < SHORT_MIN || index > SHORT_MAX) return new Uint8Array(0)
  if (index < 0n) return undefined
  if (index >= BigInt(block.header.uncleCount) || blocks.uncleCoinbase === undefined) return new Uint8Array(0)
  return (await blocks.uncleCoinbase(block, Number(index))) ?? new Uint8Array(0)
}

/** `BlockHeaderContract.getMethods`, in RSKj's order. */
const METHODS: readonly Method[] = [
  { selector: abiSelector('getCoinbaseAddress(int256)'), args: 1, answer: (b) => b.header.coinbase },
  { selector: abiSelector('getBlockHash(int256)'), args: 1, answer: (b) => b.hash },
  { selector: abiSelector('getMergedMiningTags(int256)'), args: 1, answer: (b) => mergedMiningTags(b.header.bitcoinMergedMiningCoinbaseTransaction) },
  { selector: abiSelector('getMinGasPrice(int256)'), args: 1, answer: (b) => javaSignedBytes(b.header.minimumGasPrice) },
  { selector: abiSelector('getGasLimit(int256)'), args: 1, answer: (b) => b.header.gasLimitBytes ?? gasLimitBytesFor(b.number, b.header.gasLimit) },
  { selector: abiSelector('getGasUsed(int256)'), args: 1, answer: (b) => javaSignedBytes(b.header.gasUsed) },
  { selector: abiSelector('getDifficulty(int256)'), args: 1, answer: (b) => javaSignedBytes(b.header.difficulty) },
  { selector: abiSelector('getBitcoinHeader(int256)'), args: 1, answer: (b) => b.header.bitcoinMergedMiningHeader },
  { selector: abiSelector('getUncleCoinbaseAddress(int256,int256)'), args: 2, answer: (b, args, blocks) => uncleCoinbase(b, args[1]!, blocks) },
  { selector: abiSelector('getDifficultyWithUncles(int256)'), args: 1, answer: (b) => javaSignedBytes(b.cumulativeDifficulty ?? b.header.difficulty) },
  { selector: abiSelector('getCumulativeWork(int256)'), args: 1, answer: (b) => javaSignedBytes(b.totalDifficulty) },
]

/** The method and its int256 arguments (nativeAbi.ts `parseNativeCall`). */
function parse(data: Uint8Array): { method: Method; args: bigint[] } | undefined {
  return parseNativeCall(data, METHODS, (m) => (m.args === 1 ? ['int256'] : ['int256', 'int256'])) as { method: Method; args: bigint[] } | undefined
}

/** `BlockHeaderContractMethod.getGas`: 4,000 + `NativeMethod.getGas` (2 per byte of data). Unparsable: 0. */
function price(data: Uint8Array): bigint {
  return parse(data) === undefined ? 0n : 4_000n + 2n * BigInt(data.length)
}

/**
 * `BlockAccessor.getBlock` over `getBlockAtDepthStartingAt(depth, parent hash)`: the parent at depth 0, else block
 * parent − depth when the parent's number is above the depth. `executing` is the number of the block being executed.
 */
async function blockAtDepth(executing: bigint, depth: bigint, blocks: ChainBlocks): Promise<BlockRecord | undefined> {
  if (depth >= MAX_DEPTH || blocks.at === undefined) return undefined
  const parent = executing - 1n
  if (parent < 0n) return undefined
  if (depth !== 0n && parent <= depth) return undefined
  return blocks.at(parent - depth)
}

async function run(input: PrecompileInput, blocks: ChainBlocks): Promise<ExecResult> {
  const parsed = parse(input.data)
  const executing = executingBlockNumber(input._EVM)
  if (parsed === undefined || executing === undefined) return failed(0n)
  const gas = price(input.data)
  const depth = parsed.args[0]!
  // `shortValueExact` throws outside a Java short: the method answers empty bytes.
  if (depth < SHORT_MIN || depth > SHORT_MAX) return { returnValue: nativeAbiBytes(new Uint8Array(0)), executionGasUsed: gas }
  if (depth < 0n) return failed(gas)
  const block = await blockAtDepth(executing, depth, blocks)
  const answer = block === undefined ? new Uint8Array(0) : await parsed.method.answer(block, parsed.args, blocks)
  return answer === undefined ? failed(gas) : { returnValue: nativeAbiBytes(answer), executionGasUsed: gas }
}

/** The BlockHeader precompile reading `blocks`, for `createEVM({ customPrecompiles })`. */
export function blockHeaderPrecompile(blocks: ChainBlocks): CustomPrecompile[] {
  return [{ address: BLOCK_HEADER, function: rskjPrecompile((input) => run(input, blocks), { price }) }]
}
