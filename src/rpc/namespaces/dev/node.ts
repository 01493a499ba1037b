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

/** The RSK network upgrade rsksim's EVM profile follows (reference §7.4). */
export const RSK_UPGRADE = 'vetiver900'

/** `{ forking: { jsonRpcUrl, blockNumber } }` of hardhat_reset/anvil_reset: only a reset without a fork URL is served. */
const resetOptions: Codec<null> = (v) => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalidParams('Invalid reset options: expected an object.')
  const forking = (v as { forking?: { jsonRpcUrl?: unknown } }).forking
  if (forking !== undefined && forking !== null && forking.jsonRpcUrl !== undefined && forking.jsonRpcUrl !== null) {
    throw invalidParams('Invalid reset options: this rsksim cannot fork a remote node, so forking.jsonRpcUrl must be absent')
  }
  return null
}

/** Identifies this node's chain between resets (Hardhat's `instanceId`). */
const instanceIds = new WeakMap<object, string>()
const instanceId = (ctx: HandlerContext): string => {
  let id = instanceIds.get(ctx.node.chain)
  if (id === undefined) instanceIds.set(ctx.node.chain, (id = bytesToHex(randomBytes(32))))
  return id
}

export const devNodeMethods: MethodTable = {
  ...aliases(['anvil_reset', 'hardhat_reset', 'ganache_reset'], method([optional(resetOptions)], async (ctx) => {
    await ctx.node.snapshots.reset(ctx.node)
    ctx.node.impersonation.clear()
    ctx.node.clock.pinned = undefined
    ctx.node.clock.interval = undefined
    instanceIds.delete(ctx.node.chain)
    return ok(ctx)
  })),
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
      forkConfig: {},
    }
  }),
  /** Hardhat's `hardhat_metadata`. */
  hardhat_metadata: noParams((ctx) => {
    const head = ctx.node.chain.head
    return {
      clientVersion: clientVersion(ctx.node),
      chainId: Number(ctx.node.chain.common.chainId()),
      instanceId: instanceId(ctx),
      latestBlockNumber: Number(head.number),
      latestBlockHash: head.hashHex,
    }
  }),
}
