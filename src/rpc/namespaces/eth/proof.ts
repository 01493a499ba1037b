/** eth_getProof. */
import type { MethodTable } from '../../method.js'

export const ethProofMethods: MethodTable = {}
