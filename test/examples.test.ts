/** The programs in examples/ run here, so they stay true. */
import { describe, expect, it } from 'vitest'
import { main as ethersInProcess } from '../examples/ethers-in-process.js'
import { main as viemOverHttp } from '../examples/viem-over-http.js'

describe('examples', () => {
  it('ethers-in-process deploys a token and transfers', async () => {
    const { balance, transferred } = await ethersInProcess()
    expect(transferred).toBe(10n ** 18n)
    expect(balance).toBe(999n * 10n ** 18n)
  })

  it('viem-over-http reads chain id 33 and RSK block fields', async () => {
    const { chainId, blockNumber, mergedMining } = await viemOverHttp()
    expect(chainId).toBe(33)
    expect(blockNumber).toBe(0n)
    expect(mergedMining).toMatch(/^0x[0-9a-f]{64}$/)
  })
})
