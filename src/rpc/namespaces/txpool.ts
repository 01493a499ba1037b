/** txpool_content, txpool_inspect, txpool_status. */
import type { MethodTable } from '../method.js'

export const txpoolMethods: MethodTable = {}
