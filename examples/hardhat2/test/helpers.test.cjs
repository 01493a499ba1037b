// Hardhat 2 with hardhat-ethers and the network helpers over HTTP against rsksim.
const { expect } = require('chai')
const { ethers } = require('hardhat')
const { loadFixture, mine, setBalance } = require('@nomicfoundation/hardhat-network-helpers')

async function funded() {
  const stranger = '0x00000000000000000000000000000000000000aa'
  await setBalance(stranger, 10n ** 18n)
  return { stranger }
}

describe('Hardhat 2 on rsksim', () => {
  it('is chain 33', async () => {
    expect((await ethers.provider.getNetwork()).chainId).to.equal(33n)
  })

  it('loadFixture, setBalance and mine', async () => {
    const { stranger } = await loadFixture(funded)
    expect(await ethers.provider.getBalance(stranger)).to.equal(10n ** 18n)
    const start = await ethers.provider.getBlockNumber()
    await mine(3)
    expect(await ethers.provider.getBlockNumber()).to.equal(start + 3)
  })
})
