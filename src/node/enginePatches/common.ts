/**
 * Two fast paths of RskCommon (src/node/chain/common.ts) that read Common's protected fields (written against
 * @ethereumjs/common 10.1.3): `_activatedEIPsCache` for an O(1) `isActivatedEIP`, and `_params` to skip a
 * parameter merge that would change nothing. Both answer `undefined` when the patches are off or the fields are not
 * where they were, and RskCommon then does what the engine does.
 */
import { Common } from '@ethereumjs/common'
import { enginePatches } from './switch.js'

interface CommonInternals {
  _activatedEIPsCache: readonly number[]
  _params: Record<string, Record<string, unknown> | undefined>
}

const source = Common.toString()
const fieldsFound = enginePatches.installable && source.includes('_activatedEIPsCache') && source.includes('_params')

/** Whether the two Common fast paths can run. */
export const commonPatched = fieldsFound

/**
 * Common's own array of active EIPs, for RskCommon's O(1) `isActivatedEIP` (a Set rebuilt whenever Common assigns a
 * new array: it never mutates one in place, see `setHardfork`/`setEIPs`). The interpreter asks `isActivatedEIP` on
 * every step (EIPs 6800 and 7864), and Common answers with `Array.includes`: about a sixth of a pure-arithmetic
 * loop. Undefined when the patches are off or the field is not there: RskCommon then asks Common itself.
 */
export function activatedEipsArray(common: Common): readonly number[] | undefined {
  return fieldsFound && enginePatches.active ? (common as unknown as CommonInternals)._activatedEIPsCache : undefined
}

/** Whether every value of `params` is already in `common`'s parameters (so merging them would change nothing). */
export function paramsAlreadyMerged(common: Common, params: Record<string, Record<string, unknown>>): boolean {
  if (!fieldsFound || !enginePatches.active) return false
  const have = (common as unknown as CommonInternals)._params
  for (const [eip, values] of Object.entries(params)) {
    const current = have[eip]
    if (current === undefined) return false
    for (const [k, v] of Object.entries(values)) if (current[k] !== v) return false
  }
  return true
}
