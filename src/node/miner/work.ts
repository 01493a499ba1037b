/**
 * Work handed to merged miners (RSKj `MinerServerImpl`): the current block template, the last 20 templates kept
 * so a late submission can still be matched (`Cannot publish block, could not find hash … in the cache`), the
 * `notify` flag, and the hash rates miners report.
 */
import { bytesToHex, equalsBytes } from '@ethereumjs/util'
import type { Miner, Template } from './miner.js'
import type { BlockStore } from '../chain/store.js'

/** RSKj keeps the last 20 templates. */
const KEPT_TEMPLATES = 20

/** Most miners whose reported hash rate is kept (eth_submitHashrate). */
export const MAX_HASHRATE_CLIENTS = 1_000

export class Work {
  private readonly templates = new Map<string, Template>()
  private current?: Template
  /** Parent and fees of the work last served, for `notify`. */
  private lastServed?: { parent: Uint8Array; fees: bigint }
  private readonly hashrates = new Map<string, bigint>()

  constructor(
    private readonly miner: Miner,
    private readonly store: BlockStore,
  ) {}

  /**
   * The template to work on: rebuilt when the head moved or the pending set changed. `notify` is true the first
   * time new work is served after the parent changed or fees rose by more than 10 % (RSKj `getWork`).
   */
  async get(pendingHashes: string[]): Promise<{ template: Template; notify: boolean }> {
    const head = this.store.head
    const cur = this.current
    const stale = cur === undefined || !equalsBytes(cur.parentHash, head.hash) || !sameSet(cur.txHashes, pendingHashes)
    const template = stale ? this.remember(await this.miner.template()) : cur
    const last = this.lastServed
    const notify = last === undefined || !equalsBytes(last.parent, template.parentHash) || template.paidFees * 10n > last.fees * 11n
    if (notify) this.lastServed = { parent: template.parentHash, fees: template.paidFees }
    return { template, notify }
  }

  /** A template served earlier, by its hash for merged mining. */
  find(hashForMergedMining: Uint8Array): Template | undefined {
    return this.templates.get(bytesToHex(hashForMergedMining))
  }

  /** Forgets a mined template. */
  forget(t: Template): void {
    this.templates.delete(bytesToHex(t.hashForMergedMining))
    if (this.current === t) this.current = undefined
  }

  /**
   * `eth_submitHashrate`: the last rate each client reported. At most `MAX_HASHRATE_CLIENTS` are kept; a new
   * client beyond them replaces the one that reported least recently (geth keeps them with an expiry instead).
   */
  reportHashrate(clientId: string, rate: bigint): void {
    this.hashrates.delete(clientId)
    this.hashrates.set(clientId, rate)
    if (this.hashrates.size > MAX_HASHRATE_CLIENTS) this.hashrates.delete(this.hashrates.keys().next().value!)
  }

  /** Sum of the reported rates (`eth_hashrate`, `eth_netHashrate`). */
  get hashrate(): bigint {
    let sum = 0n
    for (const r of this.hashrates.values()) sum += r
    return sum
  }

  private remember(t: Template): Template {
    this.templates.set(bytesToHex(t.hashForMergedMining), t)
    while (this.templates.size > KEPT_TEMPLATES) this.templates.delete(this.templates.keys().next().value!)
    this.current = t
    return t
  }
}

function sameSet(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false
  const s = new Set(a)
  return b.every((x) => s.has(x))
}
