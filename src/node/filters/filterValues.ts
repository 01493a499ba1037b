/**
 * The filter values (addresses, and topics of every position) that a node's log filters (eth_newFilter) and `logs`
 * subscriptions hold together. Each value costs about 400 bytes of matchers, and one filter or subscription may name
 * 5,000 (1,000 addresses, 4 positions of 1,000 topics: about 2 MB), so without a node-wide bound 2,110 such
 * subscriptions over three WebSocket connections ran the node out of memory (V8's heap limit, ~4 GB), and one such
 * filter was measured at 1,165 KB, so the 1,000 filters allowed could hold about 1.2 GB. 100,000 values are about 40 MB.
 */
export const MAX_FILTER_VALUES = 100_000

/** A filter or subscription was asked for while the others hold too many values (rpc/ answers -32000 with this text). */
export class TooManyFilterValues extends Error {
  override readonly name = 'TooManyFilterValues'
  constructor(held: number, asked: number) {
    super(
      `too many filter values held by filters and subscriptions (${held} of ${MAX_FILTER_VALUES} in use, this one names ${asked}): uninstall or unsubscribe some, or name fewer addresses and topics`,
    )
  }
}

/** The count of one node's held values. */
export class FilterValues {
  private held = 0

  /** Holds `n` more values, or throws TooManyFilterValues when that would pass the bound. */
  take(n: number): void {
    if (n === 0) return
    if (this.held + n > MAX_FILTER_VALUES) throw new TooManyFilterValues(this.held, n)
    this.held += n
  }

  /** Gives back `n` values a filter or subscription held. */
  give(n: number): void {
    this.held -= n
  }
}

const perNode = new WeakMap<object, FilterValues>()

/** The held values of `node` (any per-node key: the RskNode). */
export function filterValuesOf(node: object): FilterValues {
  let v = perNode.get(node)
  if (v === undefined) perNode.set(node, (v = new FilterValues()))
  return v
}
