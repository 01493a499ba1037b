import { defineConfig } from 'hardhat/config'
import hardhatEthers from '@nomicfoundation/hardhat-ethers'
import hardhatMocha from '@nomicfoundation/hardhat-mocha'
import hardhatNetworkHelpers from '@nomicfoundation/hardhat-network-helpers'
import hardhatViem from '@nomicfoundation/hardhat-viem'
import rsksim, { rsksimNetwork } from 'rsksim/hardhat'

export default defineConfig({
  plugins: [hardhatEthers, hardhatViem, hardhatMocha, hardhatNetworkHelpers, rsksim],
  // An rsksim chain inside the Hardhat process (regtest, chain id 33, the ten funded "cow" accounts).
  networks: { rsksim: rsksimNetwork({ network: 'regtest' }) },
})
