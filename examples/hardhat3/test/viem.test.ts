// hardhat-viem on the in-process rsksim network: a wallet client deploys without a gas limit (the plugin estimates it).
import { expect } from 'chai'
import { network } from 'hardhat'

const { viem } = await network.create('rsksim')

describe('rsksim/hardhat with hardhat-viem', () => {
  it('deploys and reads with viem clients', async () => {
    const [wallet] = await viem.getWalletClients()
    const publicClient = await viem.getPublicClient()
    expect(await publicClient.getChainId()).to.equal(33)
    // A contract returning 42, sent without a gas limit.
    const hash = await wallet!.sendTransaction({ data: '0x600a600c600039600a6000f3602a60005260206000f3' })
    const receipt = await publicClient.waitForTransactionReceipt({ hash })
    expect(receipt.status).to.equal('success')
    const { data } = await publicClient.call({ to: receipt.contractAddress! })
    expect(BigInt(data!)).to.equal(42n)
  })
})
