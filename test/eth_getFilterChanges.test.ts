/**
 * Which blocks mined after a log filter was made are its events: what eth_getFilterChanges reports and
 * eth_getFilterLogs answers, through `provider.request`. Expected values follow RSKj's source (VETIVER-9.0.3), not
 * rsksim's code, in `rskj-core/src/main/java/org/ethereum/rpc/` (line numbers are LogFilter.java's unless named):
 *
 * - `LogFilter.fromFilterRequest` L187-198: an omitted bound is `latest` (a `blockHash` filter has none, so both are);
 *   `fromLatestBlock`, `toLatestBlock`: the bound is the word `latest` (any case).
 * - `LogFilter.newBlockReceived` L112-119: from `latest`, the event list is cleared and the new block's matches added;
 *   else to `latest`, the new block's matches are added (whatever its number); else nothing.
 * - `Filter.getNewEvents` L46-54 (eth_getFilterChanges, `Web3Impl` L1038-1058): the events after those returned;
 *   `Filter.getEvents` L63-67 (eth_getFilterLogs, `Web3Impl` L1062-1076): every event the filter holds.
 *
 * The chain: blocks 1-6 each hold one log of one contract, whose topic is the block's number; each block mined here
 * holds one more (`logBlock`).
 */
import { describe, expect, it } from 'vitest'
import type { Provider } from '../src/index.js'
import { fresh, logInEachBlock, rq, send } from './helpers.js'

/** A provider whose blocks 1-6 each hold one log of `address`, and that address. */
async function sixLogs(): Promise<{ p: Provider; address: string }> {
  const p = await fresh()
  return { p, address: await logInEachBlock(p, 6) }
}

/** Mines the next block with one log of `address` (its topic: the block's number). */
const logBlock = (p: Provider, address: string) => send(p, { to: address })

const blocks = (logs: any[]): number[] => logs.map((l) => Number(l.blockNumber))
const changes = async (p: Provider, id: string) => blocks(await rq(p, 'eth_getFilterChanges', [id]))
const filterLogs = async (p: Provider, id: string) => blocks(await rq(p, 'eth_getFilterLogs', [id]))

describe('log filters and the blocks mined after them (LogFilter.newBlockReceived)', () => {
  it('a numeric toBlock, even one past the head, takes no new block', async () => {
    const { p, address } = await sixLogs()
    // L198: `0x9` is not `latest`, so L116 never adds; the history is blocks 2 to the best block (L245).
    const pastHead = await rq(p, 'eth_newFilter', [{ address, fromBlock: '0x2', toBlock: '0x9' }])
    const atHead = await rq(p, 'eth_newFilter', [{ address, fromBlock: '0x2', toBlock: '0x6' }])
    expect(await changes(p, pastHead)).toEqual([2, 3, 4, 5, 6])
    await logBlock(p, address)
    await logBlock(p, address)
    expect(await changes(p, pastHead)).toEqual([])
    expect(await filterLogs(p, pastHead)).toEqual([2, 3, 4, 5, 6])
    expect(await changes(p, atHead)).toEqual([2, 3, 4, 5, 6])
    expect(await filterLogs(p, atHead)).toEqual([2, 3, 4, 5, 6])
  })

  it('a toBlock tag other than latest (earliest, pending) takes no new block', async () => {
    const { p, address } = await sixLogs()
    // L198: only `latest` sets toLatestBlock; L245: any tag is the best block for the history.
    const earliest = await rq(p, 'eth_newFilter', [{ address, fromBlock: '0x2', toBlock: 'earliest' }])
    const pending = await rq(p, 'eth_newFilter', [{ address, fromBlock: '0x4', toBlock: 'pending' }])
    const pendingBoth = await rq(p, 'eth_newFilter', [{ address, fromBlock: 'pending', toBlock: 'pending' }])
    await logBlock(p, address)
    expect(await filterLogs(p, earliest)).toEqual([2, 3, 4, 5, 6])
    expect(await changes(p, earliest)).toEqual([2, 3, 4, 5, 6])
    expect(await changes(p, pending)).toEqual([4, 5, 6])
    expect(await filterLogs(p, pending)).toEqual([4, 5, 6])
    // L236, L248: no history either.
    expect(await changes(p, pendingBoth)).toEqual([])
    expect(await filterLogs(p, pendingBoth)).toEqual([])
  })

  it('toBlock latest (or omitted) takes every new block, below a fromBlock past the head too', async () => {
    const { p, address } = await sixLogs()
    // L236 reads `0x9` as no block (past the head), so there is no history; L116-117 adds every new block.
    const pastHead = await rq(p, 'eth_newFilter', [{ address, fromBlock: '0x9' }])
    const pastHeadToLatest = await rq(p, 'eth_newFilter', [{ address, fromBlock: '0x9', toBlock: 'LATEST' }])
    const history = await rq(p, 'eth_newFilter', [{ address, fromBlock: '0x4' }])
    await logBlock(p, address)
    await logBlock(p, address)
    expect(await changes(p, pastHead)).toEqual([7, 8])
    expect(await filterLogs(p, pastHead)).toEqual([7, 8])
    expect(await changes(p, pastHeadToLatest)).toEqual([7, 8])
    await logBlock(p, address)
    expect(await changes(p, pastHead)).toEqual([9])
    expect(await filterLogs(p, pastHead)).toEqual([7, 8, 9])
    expect(await changes(p, history)).toEqual([4, 5, 6, 7, 8, 9])
    expect(await filterLogs(p, history)).toEqual([4, 5, 6, 7, 8, 9])
  })

  it('from pending to latest: no history, then every new block, which eth_getFilterLogs answers', async () => {
    const { p, address } = await sixLogs()
    // L236: `pending` is a word, so no history (L243, L248 fail); L198: toBlock latest (omitted: L193-195) adds
    // every new block (L116-117); getEvents answers them all.
    const omitted = await rq(p, 'eth_newFilter', [{ address, fromBlock: 'pending' }])
    const latest = await rq(p, 'eth_newFilter', [{ address, fromBlock: 'pending', toBlock: 'latest' }])
    expect(await filterLogs(p, omitted)).toEqual([])
    await logBlock(p, address)
    await logBlock(p, address)
    expect(await filterLogs(p, omitted)).toEqual([7, 8])
    expect(await filterLogs(p, latest)).toEqual([7, 8])
    expect(await changes(p, omitted)).toEqual([7, 8])
    expect(await filterLogs(p, omitted)).toEqual([7, 8])
  })

  it('a blockHash filter is a filter from latest: its block first, then the new blocks', async () => {
    const { p, address } = await sixLogs()
    const b3 = await rq(p, 'eth_getBlockByNumber', ['0x3', false])
    // L230-234: the history is that block's matches; L188-190: fromBlock, absent, is `latest`, so L113-115 takes each
    // new block (clearing the events first) and getEvents answers the last one's.
    const id = await rq(p, 'eth_newFilter', [{ address, blockHash: b3.hash }])
    expect(await filterLogs(p, id)).toEqual([3])
    expect(await changes(p, id)).toEqual([3])
    await logBlock(p, address)
    expect(await changes(p, id)).toEqual([7])
    expect(await filterLogs(p, id)).toEqual([7])
    await logBlock(p, address)
    await logBlock(p, address)
    expect(await filterLogs(p, id)).toEqual([9])
    // RSKj's poll would hold block 9's log alone (L114 clears block 8's); rsksim reports both (spec "Events" 3,
    // docs/modules/filters-txpool.md).
    expect(await changes(p, id)).toEqual([8, 9])
  })

  it('after evm_revert, a filter with a numeric toBlock does not take the blocks mined again in its range', async () => {
    const p = await fresh()
    const address = await logInEachBlock(p, 4)
    const snap = await rq(p, 'evm_snapshot')
    await logBlock(p, address)
    await logBlock(p, address)
    // History: blocks 2-6 (L243-247); no new block is ever added (L116: toBlock is not latest).
    const bounded = await rq(p, 'eth_newFilter', [{ address, fromBlock: '0x2', toBlock: '0x6' }])
    const following = await rq(p, 'eth_newFilter', [{ address, fromBlock: '0x2' }])
    expect(await changes(p, bounded)).toEqual([2, 3, 4, 5, 6])
    expect(await changes(p, following)).toEqual([2, 3, 4, 5, 6])
    expect(await rq(p, 'evm_revert', [snap])).toBe(true)
    // Blocks 5 and 6, returned before, come back removed (rsksim's evm_revert: spec "Events" 2).
    const removed = await rq(p, 'eth_getFilterChanges', [bounded])
    expect(removed.map((l: any) => [Number(l.blockNumber), l.removed])).toEqual([
      [5, true],
      [6, true],
    ])
    await logBlock(p, address)
    await logBlock(p, address)
    expect(await changes(p, bounded)).toEqual([])
    expect(await filterLogs(p, bounded)).toEqual([2, 3, 4])
    // toBlock omitted: the new blocks 5 and 6 are its events.
    const again = await rq(p, 'eth_getFilterChanges', [following])
    expect(again.map((l: any) => [Number(l.blockNumber), l.removed])).toEqual([
      [5, true],
      [6, true],
      [5, false],
      [6, false],
    ])
    expect(await filterLogs(p, following)).toEqual([2, 3, 4, 5, 6])
  })
})
