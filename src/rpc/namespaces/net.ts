/**
 * net_* (reference §3.2). The peer set is the node's `PeerScoring` (empty in a simulation), so net_peerCount,
 * net_peerList and sco_peerList always agree.
 */
import { noParams, type MethodTable } from '../method.js'
import { quantity } from '../format/hex.js'

export const netMethods: MethodTable = {
  net_version: noParams(({ node }) => node.options.network.networkId),
  net_listening: noParams(() => true),
  net_peerCount: noParams(({ node }) => quantity(node.peers.connectedPeers().length)),
  /** RSKj `Channel.toString`: `<node id> | <host>/<ip>:<port>`. */
  net_peerList: noParams(({ node }) => node.peers.connectedPeers().map((p) => `${p.nodeId} | ${p.host}/${p.ip}:${p.port}`)),
}
