/**
 * The node's peers and their scoring (RSKj `co/rsk/scoring/PeerScoringManager.java`, reference §3.2 and §3.9).
 *
 * A simulated node has no peers: the peer list is empty, so `net_peerCount` is `0x0`, `net_peerList` and
 * `sco_peerList` are `[]`, and `sco_reputationSummary` sums zero peers. The ban list is real state: addresses and
 * CIDR blocks can be banned and unbanned, and are listed as RSKj lists them (addresses first, then blocks).
 *
 * @example
 * ```ts
 * const peers = new PeerScoring()
 * peers.ban('10.0.0.1'); peers.ban('192.168.0.0/16')
 * peers.bannedAddresses() // ['10.0.0.1', '192.168.0.0/16']
 * ```
 */
import { parseBan, type Ban } from './inet.js'

/** One entry of `sco_peerList` (RSKj `PeerScoringInformation`, fields in its declaration order). */
export interface PeerScoringInformation {
  id: string
  type: 'node' | 'address'
  goodReputation: boolean
  successfulHandshakes: number
  failedHandshakes: number
  invalidNetworks: number
  repeatedMessages: number
  validBlocks: number
  score: number
  invalidBlocks: number
  validTransactions: number
  invalidTransactions: number
  invalidMessages: number
  unexpectedMessages: number
  timeoutMessages: number
  invalidHeader: number
  punishments: number
  punishedUntil: number
}

/**
 * `sco_reputationSummary` (RSKj `PeerScoringReputationSummary`). Jackson writes a bean's properties in the order
 * of its fields, which differs from the constructor's argument order; the keys below follow the fields.
 */
export interface ReputationSummary {
  count: number
  successfulHandshakes: number
  failedHandshakes: number
  invalidHeader: number
  validBlocks: number
  invalidBlocks: number
  validTransactions: number
  invalidTransactions: number
  invalidNetworks: number
  invalidMessages: number
  repeatedMessages: number
  timeoutMessages: number
  unexpectedMessages: number
  peersTotalScore: number
  punishments: number
  goodReputationCount: number
  badReputationCount: number
}

/** A connected peer as `net_peerList` prints it (`<node id> | <host>/<ip>:<port>`). */
export interface Peer {
  nodeId: string
  host: string
  ip: string
  port: number
}

export class PeerScoring {
  private readonly addresses = new Map<string, Ban>()
  private readonly blocks = new Map<string, Ban>()
  /** Connected peers: always empty in a simulated node. */
  private readonly peers: Peer[] = []

  /** Bans an address or CIDR block; throws `InvalidInetAddressError` on bad input. */
  ban(text: string): void {
    const ban = parseBan(text)
    ;(ban.kind === 'address' ? this.addresses : this.blocks).set(ban.text, ban)
  }

  /** Lifts a ban; unknown entries are ignored (RSKj removes from a set). Throws on bad input. */
  unban(text: string): void {
    const ban = parseBan(text)
    ;(ban.kind === 'address' ? this.addresses : this.blocks).delete(ban.text)
  }

  /** `sco_bannedAddresses`: addresses first, then blocks (`PeerScoringManager.getBannedAddresses`). */
  bannedAddresses(): string[] {
    return [...this.addresses.keys(), ...this.blocks.keys()]
  }

  connectedPeers(): readonly Peer[] {
    return this.peers
  }

  /** `sco_peerList`: scoring records by node id, then by address; none without peers. */
  peerList(): PeerScoringInformation[] {
    return []
  }

  /** `sco_clearPeerScoring`: forgets the scoring of a peer; with no peers there is nothing to clear. */
  clear(_id: string): void {}

  /** `sco_reputationSummary` (`PeerScoringReporterUtil.buildReputationSummary`): sums over `peerList()`. */
  reputationSummary(): ReputationSummary {
    const list = this.peerList()
    const sum = (f: (p: PeerScoringInformation) => number): number => list.reduce((acc, p) => acc + f(p), 0)
    return {
      count: list.length,
      successfulHandshakes: sum((p) => p.successfulHandshakes),
      failedHandshakes: sum((p) => p.failedHandshakes),
      invalidHeader: sum((p) => p.invalidHeader),
      validBlocks: sum((p) => p.validBlocks),
      invalidBlocks: sum((p) => p.invalidBlocks),
      validTransactions: sum((p) => p.validTransactions),
      invalidTransactions: sum((p) => p.invalidTransactions),
      invalidNetworks: sum((p) => p.invalidNetworks),
      invalidMessages: sum((p) => p.invalidMessages),
      repeatedMessages: sum((p) => p.repeatedMessages),
      timeoutMessages: sum((p) => p.timeoutMessages),
      unexpectedMessages: sum((p) => p.unexpectedMessages),
      peersTotalScore: sum((p) => p.score),
      punishments: sum((p) => p.punishments),
      goodReputationCount: sum((p) => (p.goodReputation ? 1 : 0)),
      badReputationCount: sum((p) => (p.goodReputation ? 0 : 1)),
    }
  }
}
