/**
 * eth_getLogs bounds as a real client sends them: ethers v6 `provider.getLogs` over HTTP (`startServer`). Expected
 * values follow RSKj's `LogFilter.retrieveHistoricalData`/`processBlocks` (test/eth_getLogs.test.ts has the rules with
 * their lines). The chain: blocks 1-6 each hold one log of one contract; the head is block 6.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { JsonRpcProvider, type Filter } from 'ethers'
import { startServer } from '../src/index.js'
import { logInEachBlock, NO_QUOTA } from './helpers.js'

describe('ethers v6 JsonRpcProvider.getLogs over HTTP', async () => {
  const server = await startServer({ port: 0, ...NO_QUOTA })
  const address = await logInEachBlock(server.provider, 6)
  const ethers = new JsonRpcProvider(server.url, undefined, { staticNetwork: true, cacheTimeout: -1 })
  afterAll(async () => {
    ethers.destroy()
    await server.close()
  })
  const blocks = async (f: Filter): Promise<number[]> => (await ethers.getLogs({ address, ...f })).map((l) => l.blockNumber)

  it('reads fromBlock/toBlock as RSKj does', async () => {
    expect(await ethers.getBlockNumber()).toBe(6)
    expect(await blocks({ fromBlock: 2, toBlock: 4 })).toEqual([2, 3, 4])
    // fromBlock > toBlock: toBlock's block alone (processBlocks' do-while).
    expect(await blocks({ fromBlock: 5, toBlock: 3 })).toEqual([3])
    // fromBlock latest: the best block alone, toBlock unused.
    expect(await blocks({ fromBlock: 'latest', toBlock: 0 })).toEqual([6])
    // toBlock a tag: the best block (ethers sends `earliest` as 0x0, so not that one).
    expect(await blocks({ fromBlock: 2, toBlock: 'pending' })).toEqual([2, 3, 4, 5, 6])
    // fromBlock pending: nothing.
    expect(await blocks({ fromBlock: 'pending' })).toEqual([])
  })

  it('refuses safe and finalized with -32602 (RSKj: -32603)', async () => {
    for (const tag of ['safe', 'finalized']) {
      const err = await ethers.getLogs({ address, fromBlock: 2, toBlock: tag }).then(
        () => expect.fail('answered'),
        (e: any) => e,
      )
      // An invalid-params error is HTTP 400 (as RSKj's), which ethers reports as a SERVER_ERROR with the body.
      expect(JSON.parse(err.info.responseBody).error).toEqual({ code: -32602, message: `invalid blocknumber ${tag}` })
    }
  })
})
