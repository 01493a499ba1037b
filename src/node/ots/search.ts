/**
 * The block scans behind Otterscan's address history (ots_searchTransactionsBefore/After) and contract creator
 * (ots_getContractCreator). rsksim keeps no address index: like Anvil it walks blocks, and a block's call trees come
 * from `txSummaries` (one replay per block with transactions, then kept). A request runs in the node's queue, so each
 * scan is bounded by `MAX_SCANNED_BLOCKS` (and, as every request, by the `rpcTimeout` deadline): docs/extensions.md.
 */
import type { Chain } from '../chain/chain.js'
import type { BlockRecord, TxLocation } from '../chain/types.js'
import { txSummaries } from './txSummaries.js'

/** Most blocks one search request walks. Measured: docs/extensions.md#otterscan. */
export const MAX_SCANNED_BLOCKS = 10_000

/** What a search found: transactions newest first, and whether it reached each end of the searchable range. */
export interface SearchPage {
  found: TxLocation[]
  /** The scan reached the head (the newest end). */
  reachedHead: boolean
  /** The scan reached the lowest searchable block (the oldest end). */
  reachedBottom: boolean
  /** The scan stopped at MAX_SCANNED_BLOCKS; `next` is the first block it did not look at. */
  bounded?: { next: bigint }
}

/**
 * Walks blocks `from`, `from + step`, … while they lie within [bottom, head], collecting the transactions that mention
 * `address`. As Otterscan asks (docs/custom-jsonrpc.md of otterscan/otterscan), a page ends with the block in which
 * the count reached `pageSize`: that block's matches are all given, so a page may hold more than `pageSize`.
 */
export async function searchBlocks(chain: Chain, address: string, from: bigint, step: 1n | -1n, bottom: bigint, pageSize: number): Promise<SearchPage> {
  const store = chain.store
  const head = store.headNumber
  const found: TxLocation[] = []
  let n = from
  let scanned = 0
  for (; n >= bottom && n <= head && found.length < pageSize; n += step) {
    if (scanned === MAX_SCANNED_BLOCKS) break
    scanned++
    chain.guard.check()
    const block = store.byNumber(n)!
    const matches = (await txSummaries(chain, block)).filter((s) => s.mentions.has(address))
    // Newest first within the block too, whichever way the scan goes; the caller orders the blocks.
    for (const s of matches.reverse()) found.push({ block, index: s.index })
  }
  const done = n < bottom || n > head
  const page: SearchPage = {
    found,
    reachedHead: step === 1n ? n > head : from >= head,
    reachedBottom: step === -1n ? n < bottom : from <= bottom,
  }
  if (!done && found.length < pageSize) page.bounded = { next: n }
  return page
}

/**
 * The transaction that created the contract at `address` and its direct creator, the newest creation first (an
 * address CREATE2 reused after a SELFDESTRUCT was created more than once), among blocks [bottom, head]. Walks at most
 * MAX_SCANNED_BLOCKS blocks down from the head; `bounded` when it stopped there without finding one.
 */
export async function findCreator(
  chain: Chain,
  address: string,
  bottom: bigint,
): Promise<{ block: BlockRecord; index: number; creator: string } | { bounded: bigint } | undefined> {
  const store = chain.store
  let scanned = 0
  for (let n = store.headNumber; n >= bottom; n--) {
    if (scanned++ === MAX_SCANNED_BLOCKS) return { bounded: n }
    chain.guard.check()
    const block = store.byNumber(n)!
    const summaries = await txSummaries(chain, block)
    for (let i = summaries.length - 1; i >= 0; i--) {
      const s = summaries[i]!
      const c = s.creates.findLast((x) => x.address === address)
      if (c !== undefined) return { block, index: s.index, creator: c.creator }
    }
  }
  return undefined
}
