/** eth_bridgeState (reference §3.2; RSKj `EthModule.bridgeState`, `co/rsk/peg/BridgeState.stateToMap`). */
import { noParams, type MethodTable } from '../../method.js'
import { bridgeState } from '../../../node/rsk/evm/bridge.js'

export const ethBridgeMethods: MethodTable = {
  /**
   * `{btcBlockchainBestChainHeight, rskTxsWaitingForSignatures}`: the height is a JSON number, the hashes would be
   * hex without `0x`. The simulated Bitcoin side stays at the regtest genesis: height 0, nothing to sign.
   */
  eth_bridgeState: noParams(() => bridgeState()),
}
