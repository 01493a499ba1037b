/** eth_bridgeState. */
import type { MethodTable } from '../../method.js'

export const ethBridgeMethods: MethodTable = {}
