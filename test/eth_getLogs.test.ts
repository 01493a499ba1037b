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

  it('a range of logsMaxBlockRange blocks is within the limit, one more block is over it (the spec\'s count, not RSKj\'s to - from)', async () => {
    const { p, address } = await sixLogs({ logsMaxBlockRange: 3, logsMaxResults: 0 })
    // Spec "Limits": "a block range of 2,000 blocks": the blocks of the range are counted. RSKj's checkLimit
    // (L343-351) refuses `to - from > max` only, so with max 3 it also takes blocks 1-4 (docs/compatibility.md).
    expect(await blocksOf(p, address, { fromBlock: '0x1', toBlock: '0x3' })).toEqual([1, 2, 3])
    expect(await blocksOf(p, address, { fromBlock: '0x4' })).toEqual([4, 5, 6])
    await rejects(rq(p, 'eth_getLogs', [{ address, fromBlock: '0x1', toBlock: '0x4' }]), -32012, 'Cannot query more than 3 blocks at once')
    await rejects(rq(p, 'eth_newFilter', [{ address, fromBlock: '0x3' }]), -32012, 'Cannot query more than 3 blocks at once')
  })
})

describe('the filter object as RSKj reads it (FilterRequestParam.Deserializer, BlockIdentifierParam)', () => {
  // rskj-core/src/main/java/org/ethereum/rpc/parameters/FilterRequestParam.java `Deserializer.deserialize` (L132-141): each key
  // the object has (`JsonNode.has`, true for an explicit null) is read as `asText()` of its value (`"null"` for JSON
  // null, `""` for an object or an array), in the order fromBlock, toBlock, address, blockHash, topics; the -32602
  // texts are BlockIdentifierParam's (`Invalid block identifier …`) and HashParam32's. Before any block is read.
  const topicOf = (n: number) => '0x' + n.toString(16).padStart(64, '0')

  it('a bound that is not a tag, decimal digits or 0x and hex digits is -32602 Invalid block identifier; JSON null is such a bound', async () => {
    const { p, address } = await sixLogs()
    const refused = async (f: Record<string, unknown>, text: string) => {
      await rejects(rq(p, 'eth_getLogs', [{ address, ...f }]), -32602, text)
      await rejects(rq(p, 'eth_newFilter', [{ address, ...f }]), -32602, text)
    }
    // BlockIdentifierParam L42-46: BlockTag.fromString (any case), Utils.isDecimalString `^\\d+$`,
    // Utils.isHexadecimalString `^0x[\\da-fA-F]+$` (a lowercase x).
    await refused({ fromBlock: null }, "Invalid block identifier 'null'")
    await refused({ fromBlock: '0x1', toBlock: null }, "Invalid block identifier 'null'")
    await refused({ fromBlock: '0X1' }, "Invalid block identifier '0X1'")
    await refused({ toBlock: '0x' }, "Invalid block identifier '0x'")
    await refused({ fromBlock: '0xzz' }, "Invalid block identifier '0xzz'")
    await refused({ fromBlock: 'bogus' }, "Invalid block identifier 'bogus'")
    // A sign is no hex digit: refused here, before LogFilter's Long.parseLong (which would read it) is reached.
    await refused({ fromBlock: '0x-1' }, "Invalid block identifier '0x-1'")
    await refused({ toBlock: '0x+1' }, "Invalid block identifier '0x+1'")
    await refused({ fromBlock: true }, "Invalid block identifier 'true'")
    // L38-40: an empty text (an empty string, or an object's or an array's asText).
    await refused({ fromBlock: '' }, 'Invalid block identifier: empty or null.')
    await refused({ toBlock: {} }, 'Invalid block identifier: empty or null.')
    await refused({ fromBlock: [] }, 'Invalid block identifier: empty or null.')
  })

  it('decimal digits pass the parameter, then fail as a number (RSKj -32603, rsksim -32602), 64 of them too; hex takes any leading zeros', async () => {
    const { p, address } = await sixLogs()
    // Web3Impl.getBlockByNumberOrStr → HexUtils.jsonHexToLong: no `0x`, NumberFormatException (docs/compatibility.md).
    const digits = '1'.repeat(64)
    await rejects(rq(p, 'eth_getLogs', [{ address, fromBlock: digits }]), -32602, `invalid blocknumber ${digits}`)
    await rejects(rq(p, 'eth_getLogs', [{ address, fromBlock: '0x1', toBlock: '0'.repeat(63) + '4' }]), -32602, `invalid blocknumber ${'0'.repeat(63)}4`)
    // Long.parseLong(hex, 16) reads any number of leading zeros.
    expect(await blocksOf(p, address, { fromBlock: '0x' + '0'.repeat(100) + '3', toBlock: '0x' + '0'.repeat(80) + '4' })).toEqual([3, 4])
    await rejects(rq(p, 'eth_getLogs', [{ address, fromBlock: '0x' + '0'.repeat(80) + '8' + '0'.repeat(15) }]), -32602, `invalid blocknumber 0x${'0'.repeat(80)}8${'0'.repeat(15)}`)
  })

  it('the keys are read in RSKj\'s order before blockHash with a bound is refused; a null blockHash is a bad hash', async () => {
    const { p, address } = await sixLogs()
    const b3 = await rq(p, 'eth_getBlockByNumber', ['0x3', false])
    // A bad bound is found while reading, before LogFilter.validateFilterRequestParameters (L224-228).
    await rejects(rq(p, 'eth_getLogs', [{ blockHash: b3.hash, fromBlock: 'bogus' }]), -32602, "Invalid block identifier 'bogus'")
    await rejects(rq(p, 'eth_getLogs', [{ blockHash: '0x1234', toBlock: '0x1' }]), -32602, 'Invalid block hash: incorrect length.')
    await rejects(rq(p, 'eth_getLogs', [{ blockHash: b3.hash, toBlock: '0x1' }]), -32602, 'Cannot specify both blockHash and fromBlock/toBlock')
    // HashParam32: the text `null` has the wrong length; 64 characters that are not hex are a bad hex value.
    await rejects(rq(p, 'eth_getLogs', [{ address, blockHash: null }]), -32602, 'Invalid block hash: incorrect length.')
    await rejects(rq(p, 'eth_newFilter', [{ address, blockHash: '0x' + 'zz'.repeat(32) }]), -32602, 'Invalid block hash format: invalid hex value')
    expect(await blocksOf(p, address, { blockHash: b3.hash })).toEqual([3])
  })

  it('topics: a single value is the first position; in a list, null is left out and a list left empty is any topic', async () => {
    const { p, address } = await sixLogs()
    // getTopicArray: not an array → one TopicParam at position 0; in a position's array a null stays null, and
    // parseTopicArrayToObjectArray makes a one-element array its element (null: any topic) and a longer one a list,
    // whose strings LogFilter.fromFilterRequest L166-173 keeps (nulls dropped; none left: Topic[0], any topic).
    const all = [1, 2, 3, 4, 5, 6]
    expect(await blocksOf(p, address, { fromBlock: '0x1', topics: topicOf(3) })).toEqual([3])
    expect(await blocksOf(p, address, { fromBlock: '0x1', topics: [[topicOf(3), null, topicOf(5)]] })).toEqual([3, 5])
    expect(await blocksOf(p, address, { fromBlock: '0x1', topics: [[null]] })).toEqual(all)
    expect(await blocksOf(p, address, { fromBlock: '0x1', topics: [[null, null]] })).toEqual(all)
    expect(await blocksOf(p, address, { fromBlock: '0x1', topics: null })).toEqual(all)
    // TopicParam of the value's text: an object's is empty.
    await rejects(rq(p, 'eth_getLogs', [{ address, topics: {} }]), -32602, 'Invalid topic: incorrect length.')
    await rejects(rq(p, 'eth_getLogs', [{ address, topics: [[topicOf(3), 5]] }]), -32602, 'Invalid topic: incorrect length.')
    // A null address is none (getAddressParam).
    expect(await blocksOf(p, address, { fromBlock: '0x5', address: null })).toEqual([5, 6])
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
