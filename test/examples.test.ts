/** The programs in examples/ run here, so they stay true. */
import { describe, expect, it } from 'vitest'
import { main as ethersInProcess } from '../examples/ethers-in-process.js'
import { main as viemOverHttp } from '../examples/viem-over-http.js'
import { main as forkANetwork } from '../examples/fork-a-network.js'

describe('examples', () => {
  it('ethers-in-process deploys a token and transfers', async () => {
    const { balance, transferred } = await ethersInProcess()
    expect(transferred).toBe(10n ** 18n)
    expect(balance).toBe(999n * 10n ** 18n)
  })

  it('viem-over-http reads chain id 33 and RSK block fields', async () => {
    const { url, chainId, blockNumber, mergedMining } = await viemOverHttp()
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/my-key$/)
    expect(chainId).toBe(33)
    expect(blockNumber).toBe(0n)
    expect(mergedMining).toMatch(/^0x[0-9a-f]{64}$/)
  })

  it('fork-a-network transfers a remote token on the fork and leaves the remote as it was', async () => {
    const { forkedAt, onFork, onRemote, remoteHolder } = await forkANetwork()
    expect(forkedAt).toBe(1)
    expect(onFork).toBe(5n * 10n ** 18n)
    expect(onRemote).toBe(0n)
    expect(remoteHolder).toBe(995n * 10n ** 18n)
  })
})
