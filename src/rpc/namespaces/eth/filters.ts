/** eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter, eth_getFilterChanges, eth_getFilterLogs, eth_uninstallFilter. */
import type { MethodTable } from '../../method.js'

export const ethFilterMethods: MethodTable = {}
