/** trace_transaction, trace_block, trace_filter. */
import type { MethodTable } from '../method.js'

export const traceMethods: MethodTable = {}
