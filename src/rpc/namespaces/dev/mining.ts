/**
 * Dev-chain mining, time and block settings under the peers' names (Anvil the model, Hardhat aliases, Ganache's
 * `miner_*`/`evm_setTime`). Units follow each name's owner: `evm_setIntervalMining` takes milliseconds (Hardhat),
 * `anvil_setIntervalMining` seconds (Anvil); `anvil_setBlockTimestampInterval` seconds, `hardhat_…` milliseconds
 * (what viem's test client sends in hardhat mode). Extensions: answered -32601 in hosted mode.
 */
import { bytesToHex } from '@ethereumjs/util'
import { ErrorCode, invalidParams, RpcError } from '../../../errors.js'
import { address, boolean, optional, quantity, txHash, type Codec } from '../../codecs/primitives.js'
import { method, noParams, type HandlerContext, type MethodSpec, type MethodTable } from '../../method.js'
import { Clock, MAX_TIMESTAMP } from '../../../node/miner/clock.js'
import { aliases, ok } from './names.js'
import { checkAfterHead, evmMethods, mineBlocks, mineRequest } from '../evm.js'
import { formatBlock } from '../../format/block.js'

/** Most blocks one evm_mine_detailed/anvil_mine_detailed request mines (Anvil sets no bound). */
const MAX_DETAILED_BLOCKS = 1000

/**
 * Most blocks one hardhat_mine/anvil_mine request mines. Each block is really built (0.07-0.1 ms here, and about
 * 1 KB kept), so the count is bounded: 100,000 took 6.8 s and about 90 MB (docs/performance.md, twenty-fourth
 * round). Hardhat answers any count at once by reserving blocks it builds only when read; RSK blocks chain each one's
 * hash into the next, so rsksim builds them.
 */
export const MAX_MINED_BLOCKS = 100_000

/** Blocks mined per turn of the node's queue: between turns (about 0.1 s each) other requests run. */
const BLOCKS_PER_TURN = 1_000n

const count: Codec<bigint> = (v) => {
  const n = quantity(v)
  if (n > BigInt(MAX_MINED_BLOCKS)) {
    throw invalidParams(`Invalid number of blocks: at most ${MAX_MINED_BLOCKS} per request (each block is built in full, about 0.1 ms each); mine more with several requests.`)
  }
  return n
}

/** Seconds or milliseconds as a JSON number or a quantity, at most 2^63 − 1. */
const duration: Codec<bigint> = (v) => {
  const n = quantity(v)
  if (n > MAX_TIMESTAMP) throw invalidParams('Invalid duration: at most 2^63 - 1.')
  return n
}

const timestamp: Codec<bigint> = (v) => {
  const n = quantity(v)
  if (n > MAX_TIMESTAMP) throw invalidParams('Invalid timestamp: at most 2^63 - 1.')
  return n
}

/**
 * `hardhat_mine` / `anvil_mine [blocks = 1, interval = 1]`: blocks whose timestamps are `interval` seconds apart,
 * mined in turns of BLOCKS_PER_TURN, each a task of the node's queue: a request for many blocks does not hold the node
 * for its whole time (other clients' requests run, and may mine, between turns), and each turn is written to the
 * database before the next. The answer comes after the last turn.
 */
const mine: MethodSpec = {
  ...method([optional(count), optional(duration)], async (ctx, blocks = 1n, interval) => {
    const { node } = ctx
    for (let from = 0n; from < blocks; from += BLOCKS_PER_TURN) {
      const to = from + BLOCKS_PER_TURN < blocks ? from + BLOCKS_PER_TURN : blocks
      await node.queue.run(async () => {
        if (node.closed) throw new RpcError(ErrorCode.Internal, `the node was closed after ${from} of the ${blocks} blocks asked for were mined`)
        for (let i = from; i < to; i++) {
          const parent = node.chain.head.header.timestamp
          await node.mine(i === 0n || interval === undefined ? undefined : parent + (interval === 0n ? 1n : interval))
        }
      })
      // A turn runs on promises alone; the event loop turns once before the next, so that requests arriving over a
      // socket (which the queue cannot see until they are read) are queued ahead of it.
      if (to < blocks) await new Promise<void>((resolve) => setImmediate(resolve))
    }
    return ok(ctx)
  }),
  queuesItself: true,
}

/** evm_setNextBlockTimestamp: the block after it follows the wall clock again. */
const setNextBlockTimestamp = method([timestamp], (ctx, ts) => {
  checkAfterHead(ctx.node, ts)
  ctx.node.clock.pinned = ts
  return ok(ctx)
})

function setAutomine(ctx: HandlerContext, enabled: boolean): true | null {
  ctx.node.options.mining.auto = enabled
  ctx.node.miningEnabled = true
  return ok(ctx)
}

function setIntervalMining(ctx: HandlerContext, ms: bigint): true | null {
  if (ms > 2n ** 31n - 1n) throw invalidParams('Invalid interval: at most 2147483647 ms.')
  ctx.node.options.mining.interval = Number(ms)
  ctx.node.setInterval(Number(ms))
  return ok(ctx)
}

/** anvil_dropTransaction answers the hash it dropped or null; hardhat_dropTransaction true/false. */
const dropTransaction = method([txHash], (ctx, hash) => {
  const hex = bytesToHex(hash)
  const t = ctx.node.pool.get(hex)
  if (t !== undefined) ctx.node.pool.drop(t)
  if (ctx.method.startsWith('anvil_')) return t === undefined ? null : hex
  return t !== undefined
})

export const devMiningMethods: MethodTable = {
  ...aliases(['anvil_mine', 'hardhat_mine'], mine),
  ...aliases(['evm_setAutomine'], method([boolean], setAutomine)),
  ...aliases(['anvil_setAutomine'], method([boolean], setAutomine)),
  ...aliases(['anvil_getAutomine', 'hardhat_getAutomine'], noParams(({ node }) => node.automine)),
  // Ganache: miner_start resumes mining (automine and interval), miner_stop pauses it; both answer true.
  miner_start: method([optional(quantity)], ({ node }) => {
    node.miningEnabled = true
    return true
  }),
  miner_stop: noParams(({ node }) => {
    node.miningEnabled = false
    return true
  }),
  evm_setIntervalMining: method([duration], (ctx, ms) => setIntervalMining(ctx, ms)),
  anvil_setIntervalMining: method([duration], (ctx, s) => setIntervalMining(ctx, s * 1000n)),
  evm_setNextBlockTimestamp: setNextBlockTimestamp,
  ...aliases(['anvil_setNextBlockTimestamp'], setNextBlockTimestamp),
  /** Ganache: sets the clock to `timestamp` (seconds); answers the offset from the wall clock in seconds. */
  ...aliases(['evm_setTime', 'anvil_setTime'], method([timestamp], ({ node }, ts) => {
    node.clock.drift = ts - Clock.now()
    // The clock reads ts now: an evm_increaseTime offset and a pinned next time end, as in Anvil 1.7.1 and Ganache
    // (the next block is at ts).
    node.clock.offset = 0n
    node.clock.pinned = undefined
    return Number(node.clock.drift)
  })),
  anvil_setBlockTimestampInterval: method([duration], (ctx, s) => {
    ctx.node.clock.interval = s
    return ok(ctx)
  }),
  hardhat_setBlockTimestampInterval: method([duration], (ctx, ms) => {
    ctx.node.clock.interval = ms / 1000n
    return ok(ctx)
  }),
  ...aliases(['anvil_removeBlockTimestampInterval', 'hardhat_removeBlockTimestampInterval'], noParams((ctx) => {
    const had = ctx.node.clock.interval !== undefined
    ctx.node.clock.interval = undefined
    return had
  })),
  ...aliases(['anvil_dropTransaction', 'hardhat_dropTransaction', 'ganache_dropTransaction'], dropTransaction),
  anvil_dropAllTransactions: noParams(({ node }) => {
    node.pool.clear()
    return null
  }),
  /** Anvil: drops every pooled transaction of `sender`, pending or queued; answers null. */
  anvil_removePoolTransactions: method([address], ({ node }, sender) => {
    const hex = bytesToHex(sender)
    for (const t of node.pool.save()) if (t.fromHex === hex) node.pool.remove(t)
    return null
  }),
  /** Anvil: the interval of interval mining in seconds, null when blocks are not mined on an interval. */
  anvil_getIntervalMining: noParams(({ node }) => (node.options.mining.interval > 0 ? node.options.mining.interval / 1000 : null)),
  /**
   * Anvil's `anvil_rollback([depth = 1])`: the newest `depth` blocks removed, the head back to the block below them
   * with its state (src/node/snapshots/snapshots.ts `rollback`); answers null.
   */
  anvil_rollback: method([optional(quantity)], async ({ node }, depth = 1n) => {
    await node.snapshots.rollback(node, depth)
    return null
  }),
  /**
   * Anvil's `evm_mine_detailed` (also `anvil_mine_detailed`): mines as evm_mine does, with its parameter, and answers
   * the mined blocks, oldest first, each as eth_getBlockByNumber(n, true) formats it. Anvil adds to each transaction its
   * `output` (return data) and, when it failed, `revertReason`; rsksim keeps no return data of mined transactions.
   */
  ...aliases(['evm_mine_detailed', 'anvil_mine_detailed'], method([optional(mineRequest)], async ({ node, method: name }, req) => {
    // Checked before mining: a reply past the server's size limit (maxResponseSize, 10 MiB) would answer -32011 for
    // blocks already mined. 1,000 empty blocks are 2.5 MB of JSON (measured); the pool's transactions fill the first block only.
    if ((req?.blocks ?? 1) > MAX_DETAILED_BLOCKS) {
      throw invalidParams(`${name} mines at most ${MAX_DETAILED_BLOCKS} blocks per request (its reply holds each block); use evm_mine or anvil_mine for more`)
    }
    const count = await mineBlocks(node, req)
    // evm_mine runs as one task of the node's queue: the newest `count` blocks are the ones it mined.
    const { store } = node.chain
    const first = store.headNumber - BigInt(count) + 1n
    return Array.from({ length: count }, (_, i) => formatBlock(store.byNumber(first + BigInt(i))!, true))
  })),
  // Anvil's names of methods it answers under their evm_ names too (the evm_ ones are the service's: evm.ts).
  anvil_snapshot: evmMethods.evm_snapshot!,
  anvil_revert: evmMethods.evm_revert!,
  /** Anvil answers the total offset as a JSON number (the service's evm_increaseTime, a QUANTITY). */
  anvil_increaseTime: {
    ...evmMethods.evm_increaseTime!,
    handler: (ctx, ...args) => Number(BigInt(evmMethods.evm_increaseTime!.handler(ctx, ...args) as string)),
  },
  ...aliases(['anvil_setCoinbase', 'hardhat_setCoinbase', 'ganache_setCoinbase'], method([address], (ctx, addr) => {
    ctx.node.setCoinbase(addr)
    return ok(ctx)
  })),
  ...aliases(['anvil_setMinGasPrice', 'hardhat_setMinGasPrice', 'ganache_setMinGasPrice'], method([quantity], (ctx, price) => {
    ctx.node.setMinimumGasPrice(price)
    return ok(ctx)
  })),
  ...aliases(['evm_setBlockGasLimit', 'anvil_setBlockGasLimit'], method([quantity], (ctx, gas) => {
    if (gas === 0n) throw invalidParams('Invalid gas limit: must be greater than 0.')
    ctx.node.setBlockGasLimit(gas)
    return true
  })),
  /** RSK blocks have no base fee: the price floor is the block's minimumGasPrice. */
  ...aliases(['anvil_setNextBlockBaseFeePerGas', 'hardhat_setNextBlockBaseFeePerGas', 'ganache_setNextBlockBaseFeePerGas'], method([quantity], () => {
    throw invalidParams("RSK blocks have no base fee (no EIP-1559): set the blocks' minimum gas price with anvil_setMinGasPrice instead")
  })),
  ...aliases(['anvil_setLoggingEnabled', 'hardhat_setLoggingEnabled', 'ganache_setLoggingEnabled'], method([boolean], (ctx, on) => {
    ctx.node.consoleLogging = on
    return ok(ctx)
  })),
}
