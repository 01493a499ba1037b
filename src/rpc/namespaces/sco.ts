/** sco_*. */
import type { MethodTable } from '../method.js'

export const scoMethods: MethodTable = {}
