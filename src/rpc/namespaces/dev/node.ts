/**
 * Facts about the node and resetting it, under Anvil's and Hardhat's names. Extensions: -32601 in hosted mode.
 */
import { randomBytes } from 'node:crypto'
import { bytesToHex } from '@ethereumjs/util'
import { invalidParams } from '../../../errors.js'
import { optional, type Codec } from '../../codecs/primitives.js'
import { method, noParams, type HandlerContext, type MethodTable } from '../../method.js'
import { quantity } from '../../format/hex.js'
import { clientVersion } from '../web3.js'
import { aliases, ok } from './names.js'
import { FORK_FIRST_BACKOFF_MS } from '../../../node/fork/remote.js'
import { isForkUrl } from '../../../node/fork/fork.js'

/** The RSK network upgrade rsksim's EVM profile follows (reference §7.4). */
export const RSK_UPGRADE = 'vetiver900'

/** `{ forking: { jsonRpcUrl?, blockNumber? } }` of hardhat_reset/anvil_reset: where to fork again (docs/forking.md). */
interface ResetForking {
  url?: string
  blockNumber?: bigint
}

const resetOptions: Codec<ResetForking | null> = (v) => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalidParams('Invalid reset options: expected an object.')
  const forking = (v as { forking?: unknown }).forking
  if (forking === undefined || forking === null) return null
  if (typeof forking !== 'object' || Array.isArray(forking)) throw invalidParams('Invalid reset options: forking must be an object.')
  const { jsonRpcUrl, blockNumber } = forking as { jsonRpcUrl?: unknown; blockNumber?: unknown }
  const out: ResetForking = {}
  if (jsonRpcUrl !== undefined && jsonRpcUrl !== null) {
    if (!isForkUrl(jsonRpcUrl)) throw invalidParams('Invalid reset options: forking.jsonRpcUrl must be an http(s) URL.')
    out.url = jsonRpcUrl
  }
  // viem sends `Number(undefined)` (NaN in process, null over JSON) when no block is given.
  if (blockNumber !== undefined && blockNumber !== null && !Number.isNaN(blockNumber)) {
    const n = typeof blockNumber === 'number' && Number.isSafeInteger(blockNumber) && blockNumber >= 0 ? BigInt(blockNumber) : typeof blockNumber === 'string' && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(blockNumber) ? BigInt(blockNumber) : undefined
    if (n === undefined) throw invalidParams('Invalid reset options: forking.blockNumber must be a non-negative integer.')
    out.blockNumber = n
  }
  return out
}

/** Forks again where `forking` says (the current remote when it names no URL). */
async function refork(ctx: HandlerContext, forking: ResetForking): Promise<void> {
  const current = ctx.node.options.fork
  if (current === undefined) {
    if (forking.url === undefined && forking.blockNumber === undefined) return
    throw invalidParams('Invalid reset options: this rsksim was not started with a fork (fork.url, --fork-url), so it cannot reset to one')
  }
  const { keep: _keep, blockNumber: _n, ...config } = current
  await ctx.node.refork({ ...config, ...(forking.url !== undefined ? { url: forking.url } : {}), ...(forking.blockNumber !== undefined ? { blockNumber: forking.blockNumber } : {}) })
}

/** Identifies this node's chain between resets (Hardhat's `instanceId`). */
const instanceIds = new WeakMap<object, string>()
const instanceId = (ctx: HandlerContext): string => {
  let id = instanceIds.get(ctx.node.chain)
  if (id === undefined) instanceIds.set(ctx.node.chain, (id = bytesToHex(randomBytes(32))))
  return id
}

/** The fields Hardhat's hardhat_metadata and Anvil's anvil_metadata share, in their order; numbers are JSON numbers. */
function metadata(ctx: HandlerContext): Record<string, unknown> {
  const head = ctx.node.chain.head
  return {
    clientVersion: clientVersion(ctx.node),
    chainId: Number(ctx.node.chain.common.chainId()),
    instanceId: instanceId(ctx),
    latestBlockNumber: Number(head.number),
    latestBlockHash: head.hashHex,
  }
}

/** `forkedNetwork` as Hardhat and Anvil name it: the remote's chain id, the forked block's number and hash. */
function forkedNetwork({ node }: HandlerContext): { chainId: number; forkBlockNumber: number; forkBlockHash: string } | undefined {
  const fork = node.fork
  return fork === undefined ? undefined : { chainId: Number(fork.chainId), forkBlockNumber: Number(fork.number), forkBlockHash: fork.block.hashHex }
}

export const devNodeMethods: MethodTable = {
  ...aliases(['anvil_reset', 'hardhat_reset', 'ganache_reset'], method([optional(resetOptions)], async (ctx, forking) => {
    if (forking !== null && forking !== undefined) await refork(ctx, forking)
    await ctx.node.snapshots.reset(ctx.node)
    ctx.node.impersonation.clear()
    ctx.node.clock.pinned = undefined
    ctx.node.clock.interval = undefined
    instanceIds.delete(ctx.node.chain)
    return ok(ctx)
  })),
  /**
   * Anvil's `anvil_getGenesisTime`: the first block's timestamp in seconds, a JSON number as Anvil answers. That is
   * block 0's, or on a fork the forked block's (the first block rsksim holds: the remote's block 0 is not its own).
   */
  anvil_getGenesisTime: noParams(({ node }) => Number(node.chain.store.first.header.timestamp)),
  /** Anvil's `NodeInfo` (camelCase; U64 as hex, u64/u128 as numbers), with this node's RSK facts. */
  anvil_nodeInfo: noParams(({ node }) => {
    const head = node.chain.head
    return {
      currentBlockNumber: quantity(head.number),
      currentBlockTimestamp: Number(head.header.timestamp),
      currentBlockHash: head.hashHex,
      hardFork: RSK_UPGRADE,
      transactionOrder: 'fees',
      environment: {
        baseFee: 0,
        chainId: Number(node.chain.common.chainId()),
        gasLimit: Number(node.options.blockGasLimit),
        gasPrice: Number(node.options.minimumGasPrice),
      },
      forkConfig: node.fork === undefined ? {} : { forkUrl: node.fork.remote.url, forkBlockNumber: Number(node.fork.number), forkRetryBackoff: FORK_FIRST_BACKOFF_MS },
    }
  }),
  /** Hardhat's `hardhat_metadata` (EDR's shape): `forkedNetwork` only on a fork. */
  hardhat_metadata: noParams((ctx) => {
    const forked = forkedNetwork(ctx)
    return { ...metadata(ctx), ...(forked === undefined ? {} : { forkedNetwork: forked }) }
  }),
  /**
   * Anvil's `anvil_metadata`: Hardhat's fields, `forkedNetwork` (null without a fork) and `snapshots`, id → [head number,
   * head hash] when it was taken, ids as evm_snapshot answered them (RSKj's count from 1, Anvil's from 0). Anvil 1.7.1
   * also answers `clientSemver` and `clientCommitSha` of its build, optional in its type: not given.
   */
  anvil_metadata: noParams((ctx) => {
    const store = ctx.node.chain.store
    // Every kept snapshot's block is on the chain: a rollback or reorg below a snapshot drops it, a revert the later ones.
    const snapshots = Object.fromEntries(ctx.node.snapshots.entries().map(({ id, number }) => [quantity(id), [Number(number), store.byNumber(number)!.hashHex]]))
    return { ...metadata(ctx), forkedNetwork: forkedNetwork(ctx) ?? null, snapshots }
  }),
}
