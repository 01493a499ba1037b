/** Values shared by the Hardhat plugin's entry and its hook modules. */

/**
 * The URL of an in-process rsksim network. Hardhat's config schema wants a URL for an `http` network; this one is
 * never contacted (`.invalid` is reserved by RFC 2606, so a request that escaped the plugin would fail at DNS).
 */
export const IN_PROCESS_URL = 'http://rsksim.invalid/in-process'

/**
 * `web3_clientVersion` of an rsksim network inside Hardhat. hardhat-network-helpers only runs against a node whose
 * version starts with `hardhat`, `anvil` or `zksync` (case-insensitive, `network-helpers.ts`).
 */
export const HARDHAT_CLIENT_VERSION_PREFIX = 'HardhatNetwork/rsksim'
