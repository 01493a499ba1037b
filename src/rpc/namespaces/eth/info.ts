/** eth_* methods about the node itself (reference §3.2). */
import { noParams, type MethodTable } from '../../method.js'
import { quantity } from '../../format/hex.js'

/** Highest RSK capability (`EthVersion`): 62. */
const PROTOCOL_VERSION = '0x3e'

export const ethInfoMethods: MethodTable = {
  /** One byte as DATA: `0x21` regtest, `0x1e` mainnet, `0x1f` testnet. */
  eth_chainId: noParams(({ node }) => '0x' + node.options.network.chainId.toString(16).padStart(2, '0')),
  eth_protocolVersion: noParams(() => PROTOCOL_VERSION),
  eth_syncing: noParams(() => false),
  eth_coinbase: noParams(({ node }) => node.coinbaseHex),
  eth_mining: noParams(({ node }) => node.miningEnabled),
  /** Sum of the hash rates miners reported with eth_submitHashrate. */
  eth_hashrate: noParams(({ node }) => quantity(node.work.hashrate)),
  /** Best block `minimumGasPrice` × 1.1 (`rpc.gasPriceMultiplier`), as RSKj when blocks are not full. */
  eth_gasPrice: noParams(({ node }) => quantity((node.chain.head.header.minimumGasPrice * 11n) / 10n)),
  eth_accounts: noParams(({ node }) => node.accounts.list()),
  eth_blockNumber: noParams(({ node }) => quantity(node.chain.store.headNumber)),
}
