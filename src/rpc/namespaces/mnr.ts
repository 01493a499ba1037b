/** mnr_getWork, mnr_submitBitcoinBlock*, and eth_getWork / eth_submitWork / eth_submitHashrate / eth_netHashrate. */
import type { MethodTable } from '../method.js'

export const mnrMethods: MethodTable = {}
