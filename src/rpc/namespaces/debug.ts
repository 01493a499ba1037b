/** debug_traceTransaction, debug_traceBlockByHash, debug_traceBlockByNumber, debug_wireProtocolQueueSize. */
import type { MethodTable } from '../method.js'

export const debugMethods: MethodTable = {}
