/** chain_getRawBlockHeaderByHash/ByNumber, chain_getRawTransactionReceiptByHash, chain_getTransactionReceiptNodesByHash, chain_protocolVersion (rsk_ aliases are added by methods.ts). */
import type { MethodTable } from '../method.js'

export const chainMethods: MethodTable = {}
