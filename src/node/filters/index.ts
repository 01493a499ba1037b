/**
 * The per-node filter manager, created on first use so that `RskNode` needs no field for it (it subscribes to
 * `node.events`, which already carries everything filters need).
 */
import type { RskNode } from '../node.js'
import { FilterManager } from './filters.js'
import { filterValuesOf } from './filterValues.js'

export {
  FilterManager,
  type PollFilter,
  type LogBlockEvent,
  type LogChanges,
  type LogCriteria,
  type LogEvent,
  type LogFilter,
  type LogScope,
  type RemoteHistoryEvent,
  type RemoteRange,
} from './filters.js'

const managers = new WeakMap<RskNode, FilterManager>()

/** The filter manager of `node`. */
export function filtersOf(node: RskNode): FilterManager {
  let m = managers.get(node)
  if (m === undefined) {
    m = new FilterManager(
      filterValuesOf(node),
      node.events,
      () => node.options.filterTimeout,
      () => node.chain.store.headNumber,
    )
    managers.set(node, m)
  }
  return m
}
