/**
 * The method table: every namespace merged, the `rsk_` aliases of `chain_` methods, and the methods the service
 * lists as unsupported. This list is data: docs/methods.md is checked against it by a test.
 */
import type { MethodTable } from './method.js'
import { web3Methods } from './namespaces/web3.js'
import { netMethods } from './namespaces/net.js'
import { ethInfoMethods } from './namespaces/eth/info.js'
import { ethStateMethods } from './namespaces/eth/state.js'
import { ethBlockMethods } from './namespaces/eth/blocks.js'
import { ethTransactionMethods } from './namespaces/eth/transactions.js'
import { ethCallMethods } from './namespaces/eth/calls.js'
import { ethLogMethods } from './namespaces/eth/logs.js'
import { evmMethods } from './namespaces/evm.js'
import { ethFilterMethods } from './namespaces/eth/filters.js'
import { ethProofMethods } from './namespaces/eth/proof.js'
import { ethBridgeMethods } from './namespaces/eth/bridge.js'
import { txpoolMethods } from './namespaces/txpool.js'
import { debugCallMethods, debugMethods } from './namespaces/debug.js'
import { traceMethods } from './namespaces/trace.js'
import { chainMethods } from './namespaces/chain.js'
import { personalMethods } from './namespaces/personal.js'
import { scoMethods } from './namespaces/sco.js'
import { mnrMethods } from './namespaces/mnr.js'
import { devErc20Methods } from './namespaces/dev/erc20.js'
import { devStateMethods } from './namespaces/dev/state.js'
import { devMiningMethods } from './namespaces/dev/mining.js'
import { devAccountMethods } from './namespaces/dev/accounts.js'
import { devNodeMethods } from './namespaces/dev/node.js'
import { devReorgMethods } from './namespaces/dev/reorg.js'
import { signingMethods } from './namespaces/signing.js'
import { rskjRegtestMethods } from './namespaces/rskjRegtest.js'
import { ethBlockReceiptsMethods } from './namespaces/eth/blockReceipts.js'
import { debugStorageMethods } from './namespaces/debugStorage.js'
import { txpoolFromMethods } from './namespaces/txpoolFrom.js'
import { devRpcUrlMethods } from './namespaces/dev/rpcUrl.js'
import { otsMethods } from './namespaces/ots.js'
import { ethSimulateMethods } from './namespaces/eth/simulate.js'
import { ethSyncMethods } from './namespaces/eth/sendRawTransactionSync.js'
import { ethAccessListMethods } from './namespaces/eth/createAccessList.js'
import { ethAccountMethods } from './namespaces/eth/account.js'
import { ethRawTransactionMethods } from './namespaces/eth/rawTransactions.js'
import { traceReplayMethods } from './namespaces/traceReplay.js'
import { debugRawMethods } from './namespaces/debugRaw.js'

/**
 * The test author's extensions: dev-chain methods under Anvil's, Hardhat's and Ganache's names, signing,
 * debug_traceCall, eth_getBlockReceipts, eth_simulateV1, Otterscan's ots_*, eth_sendRawTransactionSync and eth_createAccessList. They
 * are answered outside hosted mode only; with `hosted: true` each answers -32601 `method not found`, exactly as an
 * unknown name (the service has none of them).
 */
const EXTENSION_TABLES: MethodTable[] = [
  devStateMethods,
  devErc20Methods,
  devMiningMethods,
  devReorgMethods,
  devAccountMethods,
  devNodeMethods,
  signingMethods,
  debugCallMethods,
  ethBlockReceiptsMethods,
  rskjRegtestMethods,
  debugStorageMethods,
  txpoolFromMethods,
  devRpcUrlMethods,
  otsMethods,
  ethSimulateMethods,
  ethSyncMethods,
  ethAccessListMethods,
  ethAccountMethods,
  ethRawTransactionMethods,
  traceReplayMethods,
  debugRawMethods,
]
export const EXTENSIONS: ReadonlySet<string> = new Set(EXTENSION_TABLES.flatMap((t) => Object.keys(t)))
/** Among the extensions, the methods a default RSKj regtest node answers and the service does not list (rskjRegtest.ts). */
export const RSKJ_REGTEST: ReadonlySet<string> = new Set(Object.keys(rskjRegtestMethods))

export const METHODS: MethodTable = {
  ...web3Methods,
  ...netMethods,
  ...ethInfoMethods,
  ...ethStateMethods,
  ...ethBlockMethods,
  ...ethTransactionMethods,
  ...ethCallMethods,
  ...ethLogMethods,
  ...evmMethods,
  ...ethFilterMethods,
  ...ethProofMethods,
  ...ethBridgeMethods,
  ...txpoolMethods,
  ...debugMethods,
  ...traceMethods,
  ...chainMethods,
  ...personalMethods,
  ...scoMethods,
  ...mnrMethods,
  ...Object.assign({}, ...EXTENSION_TABLES),
}

/** Prefix aliases: `rsk_getRawBlockHeaderByHash` is `chain_getRawBlockHeaderByHash` (reference §3.6). */
for (const name of Object.keys(METHODS)) {
  if (name.startsWith('chain_')) METHODS['rsk_' + name.slice('chain_'.length)] = METHODS[name]!
}

/**
 * Listed by the spec as unsupported ("-"). RSKj answers the compilers and db_* with
 * `the method X does not exist/is not available` and shh_* with `method not found` (reference §3.2).
 */
export const UNSUPPORTED: Record<string, 'not available' | 'not found'> = {
  eth_getCompilers: 'not available',
  eth_compileLLL: 'not available',
  eth_compileSolidity: 'not available',
  eth_compileSerpent: 'not available',
  db_putString: 'not available',
  db_getString: 'not available',
  db_putHex: 'not available',
  db_getHex: 'not available',
  shh_post: 'not found',
  shh_version: 'not found',
  shh_newIdentity: 'not found',
  shh_hasIdentity: 'not found',
  shh_newGroup: 'not found',
  shh_addToGroup: 'not found',
  shh_newFilter: 'not found',
  shh_uninstallFilter: 'not found',
  shh_getFilterChanges: 'not found',
  shh_getMessages: 'not found',
  // Not in the spec: RSKj regtest has them but disabled (`reference.conf` rpc.modules.rsk.methods.disabled) or in no
  // configured module (`ext`, public methods of `Web3RskImpl`), and answers them so (`JsonRpcMethodFilter`).
  rsk_shutdown: 'not available',
  rsk_flush: 'not available',
  rsk_getStorageBytesAt: 'not available',
  ext_dumpState: 'not available',
  ext_dumpBlockchain: 'not available',
}
