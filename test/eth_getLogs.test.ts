/**
 * How eth_getLogs, eth_newFilter (its history) and eth_getFilterLogs read `fromBlock`/`toBlock`, through
 * `provider.request`. Expected values follow RSKj's source (VETIVER-9.0.3), not rsksim's code:
 * `rskj-core/src/main/java/org/ethereum/rpc/LogFilter.java` (`fromFilterRequest`, `retrieveHistoricalData`,
 * `processBlocks`, `checkLimit`; line numbers below are that file's unless named) and `Web3Impl.getBlockByNumberOrStr`.
 * The chain: blocks 1-6 each hold one log of one contract, whose topic is the block's number; the head is block 6.
 */
import { describe, expect, it } from 'vitest'
import type { Provider } from '../src/index.js'
import { fresh, logInEachBlock, rejects, rq, send } from './helpers.js'

/** A provider whose blocks 1-6 each hold one log of `address` (block 1: its creation), and that address. */
async function sixLogs(options: Parameters<typeof fresh>[0] = {}): Promise<{ p: Provider; address: string }> {
  const p = await fresh(options)
  return { p, address: await logInEachBlock(p, 6) }
}

/** The numbers of the blocks whose logs eth_getLogs answers for the filter (address added). */
async function blocksOf(p: Provider, address: string, f: Record<string, unknown>): Promise<number[]> {
  const logs = await rq(p, 'eth_getLogs', [{ address, ...f }])
  return logs.map((l: any) => Number(l.blockNumber))
}

const NUMBER = '0x' + '0'.repeat(63)

describe('eth_getLogs bounds (LogFilter.retrieveHistoricalData, processBlocks)', () => {
  it('the setup: one log in each of blocks 1-6, head 6', async () => {
    const { p, address } = await sixLogs()
    expect(await rq(p, 'eth_blockNumber')).toBe('0x6')
    expect(await blocksOf(p, address, { fromBlock: '0x1', toBlock: '0x6' })).toEqual([1, 2, 3, 4, 5, 6])
    expect(await blocksOf(p, address, { fromBlock: '0x3', toBlock: '0x5' })).toEqual([3, 4, 5])
  })

  it('fromBlock > toBlock scans toBlock\'s block alone', async () => {
    const { p, address } = await sixLogs()
    // L270-306: from toBlock's block down, `do { … } while (blockNumber >= fromBlock)`: the body runs once for
    // toBlock's block before the test fails; L309 reverses into chain order.
    expect(await blocksOf(p, address, { fromBlock: '0x5', toBlock: '0x3' })).toEqual([3])
    expect(await blocksOf(p, address, { fromBlock: '0x6', toBlock: '0x1' })).toEqual([1])
  })

  it('toBlock a tag, or a number past the head, is the best block', async () => {
    const { p, address } = await sixLogs()
    // L237: a tag is not read (isBlockWord, L339-341, any case); Web3Impl.getBlockByNumberOrStr L642-643 answers
    // null past the head; L245: null is the best block. L239-241: fromBlock `earliest` is block 0.
    expect(await blocksOf(p, address, { fromBlock: '0x2', toBlock: 'earliest' })).toEqual([2, 3, 4, 5, 6])
    expect(await blocksOf(p, address, { fromBlock: '0x2', toBlock: 'EARLIEST' })).toEqual([2, 3, 4, 5, 6])
    expect(await blocksOf(p, address, { fromBlock: '0x2', toBlock: 'pending' })).toEqual([2, 3, 4, 5, 6])
    expect(await blocksOf(p, address, { fromBlock: '0x4', toBlock: 'latest' })).toEqual([4, 5, 6])
    expect(await blocksOf(p, address, { fromBlock: '0x4' })).toEqual([4, 5, 6])
    expect(await blocksOf(p, address, { fromBlock: '0x2', toBlock: '0x99' })).toEqual([2, 3, 4, 5, 6])
    expect(await blocksOf(p, address, { fromBlock: 'earliest', toBlock: 'earliest' })).toEqual([1, 2, 3, 4, 5, 6])
  })

  it('fromBlock latest (or omitted) scans the best block only, whatever toBlock is', async () => {
    const { p, address } = await sixLogs()
    // L188-195: both bounds default to `latest`; L248-250: fromBlock `latest` → onBlock(best block), toBlock unused.
    expect(await blocksOf(p, address, {})).toEqual([6])
    expect(await blocksOf(p, address, { fromBlock: 'latest', toBlock: '0x0' })).toEqual([6])
    expect(await blocksOf(p, address, { fromBlock: 'latest', toBlock: '0x3' })).toEqual([6])
    expect(await blocksOf(p, address, { fromBlock: 'latest', toBlock: 'earliest' })).toEqual([6])
    expect(await blocksOf(p, address, { fromBlock: 'Latest', toBlock: '0x99' })).toEqual([6])
    expect(await blocksOf(p, address, { toBlock: '0x2' })).toEqual([6])
  })

  it('fromBlock pending, or a number past the head, has no logs', async () => {
    const { p, address } = await sixLogs()
    // L236: `pending` is not read, a number past the head is a null block (Web3Impl L642-643); L243 and L248 both
    // fail, so nothing is scanned.
    expect(await blocksOf(p, address, { fromBlock: 'pending' })).toEqual([])
    expect(await blocksOf(p, address, { fromBlock: 'pending', toBlock: 'latest' })).toEqual([])
    expect(await blocksOf(p, address, { fromBlock: 'pending', toBlock: '0x2' })).toEqual([])
    expect(await blocksOf(p, address, { fromBlock: '0x7' })).toEqual([])
    expect(await blocksOf(p, address, { fromBlock: '0x7', toBlock: '0x2' })).toEqual([])
  })

  it('safe, finalized and numbers past a Java long are refused with -32602 (RSKj: -32603); 64 hex digits are a number', async () => {
    const { p, address } = await sixLogs()
    // Neither is a block word (L339-341), so Web3Impl.getBlockByNumberOrStr reads them with HexUtils.jsonHexToLong
    // (Long.parseLong(hex, 16)): NumberFormatException, -32603 `Internal server error` in RSKj (RskErrorResolver);
    // rsksim answers -32602 (docs/compatibility.md). Both bounds are read first (L236-237), so a toBlock is refused
    // even after fromBlock `latest`, which does not use it.
    const bad = async (f: Record<string, unknown>, text: string) => rejects(rq(p, 'eth_getLogs', [{ address, ...f }]), -32602, `invalid blocknumber ${text}`)
    await bad({ fromBlock: 'safe' }, 'safe')
    await bad({ fromBlock: 'FINALIZED', toBlock: '0x1' }, 'finalized')
    await bad({ fromBlock: '0x1', toBlock: 'finalized' }, 'finalized')
    await bad({ fromBlock: 'latest', toBlock: 'safe' }, 'safe')
    await bad({ fromBlock: 'pending', toBlock: 'safe' }, 'safe')
    await bad({ fromBlock: '0x8000000000000000' }, '0x8000000000000000')
    await bad({ fromBlock: '0x1', toBlock: '0x10000000000000000' }, '0x10000000000000000')
    // A block hash is 64 hex digits: a number past a Java long, not a block.
    const b3 = await rq(p, 'eth_getBlockByNumber', ['0x3', false])
    expect(BigInt(b3.hash) > 2n ** 63n).toBe(true)
    await bad({ fromBlock: b3.hash }, b3.hash)
    // Long.parseLong takes leading zeros: 64 digits of a small value are that number.
    expect(await blocksOf(p, address, { fromBlock: NUMBER + '3', toBlock: NUMBER + '4' })).toEqual([3, 4])
    expect(await blocksOf(p, address, { fromBlock: '0x7fffffffffffffff' })).toEqual([])
    // The same refusals for a new filter, which reads its bounds the same way (Web3Impl.newFilter → fromFilterRequest).
    await rejects(rq(p, 'eth_newFilter', [{ fromBlock: 'safe' }]), -32602, 'invalid blocknumber safe')
    await rejects(rq(p, 'eth_newFilter', [{ toBlock: 'finalized' }]), -32602, 'invalid blocknumber finalized')
  })

  it('the block range limit counts the blocks scanned: toBlock as resolved, and one block where fromBlock > toBlock', async () => {
    const { p, address } = await sixLogs({ logsMaxBlockRange: 2, logsMaxResults: 0 })
    // L264, L343-351: checkLimit(from, to) with to = the best block for a tag (L245): 6 - 0 > 2.
    await rejects(rq(p, 'eth_getLogs', [{ address, fromBlock: '0x0', toBlock: 'earliest' }]), -32012, 'Cannot query more than 2 blocks at once')
    await rejects(rq(p, 'eth_newFilter', [{ address, fromBlock: '0x1', toBlock: 'pending' }]), -32012, 'Cannot query more than 2 blocks at once')
    // to - from is negative where fromBlock > toBlock: never over the limit.
    expect(await blocksOf(p, address, { fromBlock: '0x6', toBlock: '0x1' })).toEqual([1])
    expect(await blocksOf(p, address, { fromBlock: 'latest', toBlock: '0x0' })).toEqual([6])
  })
})

describe('log filters read their bounds as eth_getLogs does', () => {
  it('eth_newFilter collects the history eth_getLogs answers; eth_getFilterLogs answers it too', async () => {
    const { p, address } = await sixLogs()
    const blocks = (logs: any[]) => logs.map((l) => Number(l.blockNumber))
    // Web3Impl.newFilter → LogFilter.fromFilterRequest → retrieveHistoricalData: the events at creation, which the
    // first eth_getFilterChanges returns (Filter.getNewEvents) and eth_getFilterLogs too (Filter.getEvents).
    const down = await rq(p, 'eth_newFilter', [{ address, fromBlock: '0x5', toBlock: '0x3' }])
    expect(blocks(await rq(p, 'eth_getFilterLogs', [down]))).toEqual([3])
    expect(blocks(await rq(p, 'eth_getFilterChanges', [down]))).toEqual([3])
    const toEarliest = await rq(p, 'eth_newFilter', [{ address, fromBlock: '0x2', toBlock: 'earliest' }])
    expect(blocks(await rq(p, 'eth_getFilterChanges', [toEarliest]))).toEqual([2, 3, 4, 5, 6])
    expect(blocks(await rq(p, 'eth_getFilterLogs', [toEarliest]))).toEqual([2, 3, 4, 5, 6])
    const pastHead = await rq(p, 'eth_newFilter', [{ address, fromBlock: '0x2', toBlock: '0x99' }])
    expect(blocks(await rq(p, 'eth_getFilterChanges', [pastHead]))).toEqual([2, 3, 4, 5, 6])
    // L248: `pending` collects nothing.
    const pending = await rq(p, 'eth_newFilter', [{ address, fromBlock: 'pending' }])
    expect(await rq(p, 'eth_getFilterLogs', [pending])).toEqual([])
    expect(await rq(p, 'eth_getFilterChanges', [pending])).toEqual([])
  })

  it('a filter from latest ignores toBlock: eth_getFilterLogs answers the best block\'s logs, its polls each new block\'s', async () => {
    const { p, address } = await sixLogs()
    const blocks = (logs: any[]) => logs.map((l) => Number(l.blockNumber))
    const id = await rq(p, 'eth_newFilter', [{ address, fromBlock: 'latest', toBlock: '0x0' }])
    // L248-250: the best block's events (Filter.getEvents).
    expect(blocks(await rq(p, 'eth_getFilterLogs', [id]))).toEqual([6])
    // rsksim does not report the best block at creation (docs/modules/filters-txpool.md, difference 1).
    expect(await rq(p, 'eth_getFilterChanges', [id])).toEqual([])
    // L112-115 newBlockReceived: fromLatestBlock → the new block's events, toBlock not looked at.
    await send(p, { to: address })
    expect(blocks(await rq(p, 'eth_getFilterChanges', [id]))).toEqual([7])
    expect(blocks(await rq(p, 'eth_getFilterLogs', [id]))).toEqual([7])
  })
})
