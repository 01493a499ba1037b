/**
 * What the Otterscan searches (ots_searchTransactions*, ots_getContractCreator) need of each mined transaction: the
 * addresses its call tree mentions and the contracts it created. Both come from the call-tree tracer (`traceCalls`,
 * one replay per block), so a block is replayed once and its summaries kept, by block hash: a block's content never
 * changes under its hash, and a rolled-back or reorganised block has another hash.
 */
import { bytesToHex } from '@ethereumjs/util'
import type { Chain } from '../chain/chain.js'
import type { BlockRecord } from '../chain/types.js'
import { traceCalls, type CallFrame } from '../exec/tracers/index.js'
import { RecentMap } from '../recentMap.js'

/** One transaction as the searches see it; addresses are lowercase `0x` hex. */
export interface TxSummary {
  index: number
  /**
   * Addresses that mention the transaction as Anvil 1.7.1 counts them (`otterscan/api.rs` `mentions_address`): the
   * sender and recipient of every call frame (any call type, reverted or not), the creator and the new address of
   * every creation. A SELFDESTRUCT's beneficiary is not one (Anvil does not count it).
   */
  mentions: Set<string>
  /** Contracts this transaction created, in the order their creations started, each with its direct creator. */
  creates: { address: string; creator: string }[]
}

/**
 * Summaries kept per chain. 4,096 blocks: a search page over a busy dev chain reads them again at once, and each
 * summary is a few addresses (the replay it saves costs the block's execution).
 */
const kept = new WeakMap<Chain, RecentMap<string, TxSummary[]>>()

function summarise(index: number, top: CallFrame): TxSummary {
  const mentions = new Set<string>()
  const creates: TxSummary['creates'] = []
  const visit = (f: CallFrame): void => {
    if (f.type === 'call') {
      mentions.add(bytesToHex(f.from))
      mentions.add(bytesToHex(f.to!))
    } else if (f.type === 'create') {
      mentions.add(bytesToHex(f.from))
      if (f.created !== undefined) {
        const address = bytesToHex(f.created)
        mentions.add(address)
        // A creation that failed leaves no contract: it is not the creator of anything at that address.
        if (!f.reverted && f.failure === undefined) creates.push({ address, creator: bytesToHex(f.from) })
      }
    }
    for (const c of f.calls) visit(c)
  }
  visit(top)
  return { index, mentions, creates }
}

/** The summaries of `block`'s transactions, in block order (the REMASC system transaction's last). */
export async function txSummaries(chain: Chain, block: BlockRecord): Promise<TxSummary[]> {
  let memo = kept.get(chain)
  if (memo === undefined) kept.set(chain, (memo = new RecentMap(4096)))
  const hit = memo.get(block.hashHex)
  if (hit !== undefined) return hit
  // A block with only the REMASC transaction is not replayed: its trace comes from its receipt (remascTrace.ts).
  const traces = await traceCalls(chain, block)
  const out = traces.map((t) => summarise(t.index, t.top))
  memo.set(block.hashHex, out)
  return out
}
