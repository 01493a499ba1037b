/**
 * sco_* peer scoring (reference §3.9; RSKj `org/ethereum/rpc/Web3Impl.java` sco_*, `co/rsk/scoring/*`). RSKj
 * disables the module by default; the spec lists it as supported, so it is on (design §1).
 */
import { jsonText, type Codec } from '../codecs/primitives.js'
import { invalidParams } from '../../errors.js'
import { method, noParams, type MethodTable } from '../method.js'
import { InvalidInetAddressError, parseAddress } from '../../node/peers/inet.js'

/** Jackson reads a `String` parameter from any scalar (null stays null); the text is validated by the handler. */
const text: Codec<string | null> = (v) => (v === null ? null : typeof v === 'string' ? v : jsonText(v))

/** `invalid banned address <s>` (-32602) for what `InetAddressUtils` refuses. */
function banning(address: string | null, f: (s: string) => void): null {
  try {
    if (address === null) throw new InvalidInetAddressError('null address')
    f(address)
  } catch (e) {
    if (e instanceof InvalidInetAddressError) throw invalidParams(`invalid banned address ${address}`)
    throw e
  }
  return null
}

export const scoMethods: MethodTable = {
  /** Bans an IPv4/IPv6 address or a CIDR block (`"192.168.51.1/16"`); answers null. */
  sco_banAddress: method([text], ({ node }, address) => banning(address, (s) => node.peers.ban(s))),

  /** Lifts a ban (no error when it was not banned); answers null. */
  sco_unbanAddress: method([text], ({ node }, address) => banning(address, (s) => node.peers.unban(s))),

  /** Banned addresses, then banned blocks, as RSKj prints them (`getHostAddress`, `<address>/<bits>`). */
  sco_bannedAddresses: noParams(({ node }) => node.peers.bannedAddresses()),

  /** Scoring records of known peers: none in a simulated node. */
  sco_peerList: noParams(({ node }) => node.peers.peerList()),

  /** Sums over zero peers: every counter 0. */
  sco_reputationSummary: noParams(({ node }) => node.peers.reputationSummary()),

  /**
   * Clears the scoring of a peer, named by IP address or else by hex node id; answers the peer list. Other text is
   * -32602 `invalid node id <x>` (RSKj's `NodeID.ofHexString` fails with -32603; this method is not in the spec,
   * so the clearer parameter error is kept).
   */
  sco_clearPeerScoring: method([text], ({ node }, id) => {
    if (id !== null && parseAddress(id) === undefined && !/^(0x)?([0-9a-fA-F]{2})*$/.test(id)) {
      throw invalidParams(`invalid node id ${id}`)
    }
    node.peers.clear(id ?? '')
    return node.peers.peerList()
  }),
}
