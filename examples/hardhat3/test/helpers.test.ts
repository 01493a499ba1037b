// Hardhat's network helpers and hardhat-ethers against the in-process rsksim network.
import { expect } from 'chai'
import { network } from 'hardhat'

const { ethers, networkHelpers } = await network.create('rsksim')
const { loadFixture, time, mine, setBalance, impersonateAccount } = networkHelpers

// Runtime code `PUSH1 0x2a PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN` (returns 42), behind a constructor copying it.
const ANSWER_INITCODE = '0x600a600c600039600a6000f3602a60005260206000f3'

async function deployAnswer() {
  const [deployer] = await ethers.getSigners()
  const tx = await deployer!.sendTransaction({ data: ANSWER_INITCODE })
  const receipt = await tx.wait()
  return { address: receipt!.contractAddress!, deployer: deployer! }
}

describe('rsksim/hardhat', () => {
  it('loadFixture deploys through hardhat-ethers on chain 33', async () => {
    const { chainId } = await ethers.provider.getNetwork()
    expect(chainId).to.equal(33n)
    const { address } = await loadFixture(deployAnswer)
    expect(await ethers.provider.call({ to: address })).to.equal('0x' + '2a'.padStart(64, '0'))
  })

  it('loadFixture reverts to the deployed state', async () => {
    const { deployer } = await loadFixture(deployAnswer)
    const before = await ethers.provider.getTransactionCount(deployer.address)
    await (await deployer.sendTransaction({ to: deployer.address, value: 1n })).wait()
    const again = await loadFixture(deployAnswer)
    expect(await ethers.provider.getTransactionCount(again.deployer.address)).to.equal(before)
  })

  it('time.increase moves the next block timestamp', async () => {
    const start = await time.latest()
    await time.increase(3600)
    expect(await time.latest()).to.be.greaterThanOrEqual(start + 3600)
  })

  it('mine adds blocks', async () => {
    const start = await ethers.provider.getBlockNumber()
    await mine(5)
    expect(await ethers.provider.getBlockNumber()).to.equal(start + 5)
  })

  it('setBalance and impersonateAccount send from an account without a key', async () => {
    const stranger = '0x00000000000000000000000000000000000000aa'
    await setBalance(stranger, 10n ** 18n)
    expect(await ethers.provider.getBalance(stranger)).to.equal(10n ** 18n)
    await impersonateAccount(stranger)
    const signer = await ethers.getSigner(stranger)
    const to = '0x00000000000000000000000000000000000000bb'
    await (await signer.sendTransaction({ to, value: 1000n })).wait()
    expect(await ethers.provider.getBalance(to)).to.equal(1000n)
  })
})
