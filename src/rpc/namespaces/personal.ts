/** personal_*. */
import type { MethodTable } from '../method.js'

export const personalMethods: MethodTable = {}
