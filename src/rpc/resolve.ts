/**
 * Turning block selectors into blocks, with the error each family of methods answers (reference §1.4, §2.7).
 */
import { bytesToHex } from '@ethereumjs/util'
import { blockHashNotFound, blockNotFound, invalidParams, RpcError, ErrorCode } from '../errors.js'
import type { RskNode } from '../node/node.js'
import type { BlockRecord } from '../node/chain/types.js'
import type { BlockSelector } from './codecs/block.js'

/** The five methods the spec marks PARTIALLY refuse `pending` (spec "Limits"). */
export function refusePending(method: string): RpcError {
  return new RpcError(ErrorCode.Unimplemented, `The method don't support 'pending' as a parameter yet (${method})`)
}

/**
 * `earliest` is block 0: its selector as the number's, so that it is looked up (and, when the chain has no block 0, as
 * on a fork, answered) as `0x0` is.
 */
function earliestAsNumber(sel: BlockSelector): BlockSelector {
  return sel.kind === 'tag' && sel.tag === 'earliest' ? { kind: 'number', number: 0n } : sel
}

/**
 * Block for state reads at the chain's own blocks; an unknown number or hash is -32600. `pending` reads the head: only
 * eth_getTransactionCount asks for it so (the head's nonce, then the pool's), as every read of the pending state
 * goes through `readBlock`.
 */
export function stateBlock(node: RskNode, given: BlockSelector): BlockRecord {
  const store = node.chain.store
  const sel = earliestAsNumber(given)
  switch (sel.kind) {
    case 'tag':
      if (sel.tag === 'latest' || sel.tag === 'pending') return store.head
      throw invalidParams(`Invalid block identifier '${sel.tag}'`)
    case 'number': {
      const b = store.byNumber(sel.number)
      if (b === undefined) throw blockNotFound(sel.text ?? '0x' + sel.number.toString(16))
      return b
    }
    case 'hash': {
      const b = store.getByHash(bytesToHex(sel.hash))
      if (b === undefined) throw hashNotFound(sel)
      return b
    }
  }
}

/**
 * RSKj's -32600 for a block hash it does not have: `Block with hash <h> not found` for an EIP-1898 `{blockHash}`
 * (`Web3Impl.toInvokeByBlockHash`), `Block <id> not found` for a hash given as the identifier itself
 * (`Web3InformationRetriever.getInformationProvider`); the hash as the request wrote it.
 */
function hashNotFound(sel: BlockSelector & { kind: 'hash' }): RpcError {
  const shown = sel.text ?? bytesToHex(sel.hash)
  return sel.fromMap || sel.text === undefined ? blockHashNotFound(shown) : blockNotFound(shown)
}

/** The identifier RSKj's `Block <id> not found` quotes: as the request wrote it (`Web3InformationRetriever`). */
export function blockIdText(sel: BlockSelector): string {
  return sel.kind === 'tag' ? sel.tag : (sel.text ?? (sel.kind === 'number' ? '0x' + sel.number.toString(16) : bytesToHex(sel.hash)))
}

/**
 * Block for the reads and executions that serve `pending` as RSKj does (eth_getBalance, eth_getStorageAt, eth_call,
 * eth_estimateGas): the pending block, built for this request (src/node/miner/pending.ts); any other selector as
 * `stateBlock`.
 */
export function readBlock(node: RskNode, sel: BlockSelector): BlockRecord | Promise<BlockRecord> {
  return sel.kind === 'tag' && sel.tag === 'pending' ? node.miner.pending() : stateBlock(node, sel)
}

/**
 * The block a call runs at (eth_call, eth_estimateGas, debug_traceCall): a number above the head answers -32602
 * `Invalid block number <n>` (reference §1.4), `safe`/`finalized` RSKj's -32602, `pending` the pending block.
 */
export function callBlock(node: RskNode, sel: BlockSelector): BlockRecord | Promise<BlockRecord> {
  if (sel.kind === 'number' && sel.number > node.chain.store.headNumber) throw invalidParams(`Invalid block number ${sel.number}`)
  if (sel.kind === 'tag' && (sel.tag === 'safe' || sel.tag === 'finalized')) {
    throw invalidParams(
      `Unsupported block specifier '${sel.tag}'. Can only be either 'earliest', 'latest', 'pending' or a specific block number (either hex - prepending '0x' or decimal).`,
    )
  }
  return readBlock(node, sel)
}

/**
 * Block for block-returning methods (eth_getBlockByNumber and kin): `pending` refused as the spec's five methods
 * refuse it (the methods that serve it answer the pending block through `blockOrPending`, or answer it their own way
 * first), `safe`/`finalized` refused as RSKj does, unknown → undefined (the method answers null).
 */
export function blockById(node: RskNode, given: BlockSelector, method: string): BlockRecord | undefined {
  const store = node.chain.store
  const sel = earliestAsNumber(given)
  switch (sel.kind) {
    case 'tag':
      if (sel.tag === 'latest') return store.head
      if (sel.tag === 'pending') throw refusePending(method)
      throw invalidParams(`invalid blocknumber ${sel.tag}`)
    case 'number':
      return store.byNumber(sel.number)
    case 'hash':
      return store.getByHash(bytesToHex(sel.hash))
  }
}

/**
 * Block for the methods that answer `pending` with the pending block itself, as RSKj's `Web3InformationRetriever.getBlock`
 * does (chain_getRawBlockHeaderByNumber, debug_traceBlockByNumber, and the extensions that answer a block:
 * docs/extensions.md "`pending` in the extensions"): the complete pending block of this request
 * (src/node/miner/pendingSeal.ts); any other selector as `blockById`.
 */
export function blockOrPending(node: RskNode, sel: BlockSelector, method: string): BlockRecord | undefined | Promise<BlockRecord> {
  return sel.kind === 'tag' && sel.tag === 'pending' ? node.miner.pendingSealed() : blockById(node, sel, method)
}
