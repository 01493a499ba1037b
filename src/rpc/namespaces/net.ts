/** net_* (reference §3.2): a simulated node has no peers. */
import { noParams, type MethodTable } from '../method.js'

export const netMethods: MethodTable = {
  net_version: noParams(({ node }) => node.options.network.networkId),
  net_listening: noParams(() => true),
  net_peerCount: noParams(() => '0x0'),
  net_peerList: noParams(() => []),
}
