// hardhat-ethers on the in-process rsksim network: RSK's chain id, the funded accounts, and a deployment sent without
// a gas limit (the plugin estimates it, as Hardhat does on its own networks).
import { expect } from 'chai'
import { network } from 'hardhat'

const { ethers } = await network.create('rsksim')

describe('rsksim/hardhat network', () => {
  it('answers as RSK regtest: chain id 33, RSK block fields', async () => {
    expect((await ethers.provider.getNetwork()).chainId).to.equal(33n)
    const block = (await ethers.provider.send('eth_getBlockByNumber', ['latest', false])) as Record<string, string>
    expect(block.hashForMergedMining).to.match(/^0x[0-9a-f]{64}$/)
  })

  it('deploys without a gas limit through eth_sendTransaction', async () => {
    const [deployer] = await ethers.getSigners()
    // A contract returning 42. Without the plugin's estimate the node would use the service's 90,000 default.
    const hash = (await ethers.provider.send('eth_sendTransaction', [
      { from: deployer!.address, data: '0x600a600c600039600a6000f3602a60005260206000f3' },
    ])) as string
    const receipt = await ethers.provider.getTransactionReceipt(hash)
    expect(receipt!.status).to.equal(1)
    const tx = await ethers.provider.getTransaction(hash)
    const estimate = BigInt(await ethers.provider.send('eth_estimateGas', [{ from: deployer!.address, data: '0x600a600c600039600a6000f3602a60005260206000f3' }]))
    expect(tx!.gasLimit).to.equal(estimate)
    expect(await ethers.provider.call({ to: receipt!.contractAddress! })).to.equal('0x' + '2a'.padStart(64, '0'))
  })
})
