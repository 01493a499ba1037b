/**
 * Hardhat 3 plugin (`rsksim/hardhat`): a network that runs rsksim in the Hardhat process.
 *
 * Hardhat 3 has two network types, `http` and `edr-simulated` (its own EVM). An rsksim network is an `http` network
 * whose requests never leave the process: the plugin's `network.onRequest` hook answers them from an rsksim
 * `Provider` created for each connection (a fresh chain per `network.connect()`, as Hardhat does for its own
 * simulated network), so the URL is never contacted. Hardhat's network helpers accept a node whose
 * `web3_clientVersion` starts with `hardhat`, `anvil` or `zksync` (hardhat-network-helpers
 * `network-helpers.ts`): the plugin passes `clientVersion: 'HardhatNetwork/rsksim/<version>'`.
 *
 * This module imports nothing from Hardhat (rsksim does not depend on it): the shapes below are the few members of
 * Hardhat's plugin and config types the plugin uses; see docs/integrations.md.
 *
 * @example
 * ```ts
 * // hardhat.config.ts
 * import { defineConfig } from 'hardhat/config'
 * import hardhatEthers from '@nomicfoundation/hardhat-ethers'
 * import rsksim, { rsksimNetwork } from 'rsksim/hardhat'
 * export default defineConfig({
 *   plugins: [hardhatEthers, rsksim],
 *   networks: { rsksim: rsksimNetwork({ network: 'regtest' }) },
 * })
 * // test: const { ethers } = await network.create('rsksim')
 * ```
 */
import type { ProviderOptions } from '../../options/index.js'
import { IN_PROCESS_URL } from './shared.js'

/** Options of an rsksim network in a Hardhat config: every `createProvider` option (network, accounts, mining, …). */
export type RsksimNetworkOptions = ProviderOptions

/** The Hardhat network config entry `rsksimNetwork()` returns (an `http` network Hardhat never contacts). */
export interface RsksimHardhatNetworkConfig {
  type: 'http'
  chainType: 'l1'
  url: string
  /** Estimate `gas` for transactions sent without it, as Hardhat does on its own networks. */
  gas: 'auto'
  rsksim: RsksimNetworkOptions
}

/**
 * A network entry for `networks` in hardhat.config.ts that runs rsksim in process.
 *
 * @example
 * ```ts
 * networks: { rsksim: rsksimNetwork({ network: 'regtest', mining: { auto: true } }) }
 * ```
 */
export function rsksimNetwork(options: RsksimNetworkOptions = {}): RsksimHardhatNetworkConfig {
  return { type: 'http', chainType: 'l1', url: IN_PROCESS_URL, gas: 'auto', rsksim: options }
}

/**
 * A hook module as Hardhat 3 loads it: a default-exported factory of the category's handlers. `object` (not a
 * narrower type) so that the plugin is assignable to Hardhat's `HardhatPlugin` in a user's type-checked config.
 */
export type HookModule = () => Promise<{ default: () => Promise<object> }>

/** The members of Hardhat 3's `HardhatPlugin` this plugin fills (hardhat/types/plugins). */
export interface RsksimHardhatPlugin {
  id: string
  npmPackage: string
  hookHandlers: { config: HookModule; network: HookModule }
}

const rsksimPlugin: RsksimHardhatPlugin = {
  id: 'rsksim',
  npmPackage: 'rsksim',
  hookHandlers: {
    config: () => import('./configHooks.js'),
    network: () => import('./networkHooks.js'),
  },
}

export default rsksimPlugin
