/**
 * `eth_createAccessList(call, block = "latest", stateOverrides?)`, geth's (`internal/ethapi`: `CreateAccessList`,
 * whose block defaults to `latest`), which Anvil and Hardhat answer. RSKj has none: an extension, -32601 in hosted
 * mode. The call runs as eth_call runs it (the same call object, block forms and `pending`, `callGasCap`, state
 * overrides; nothing kept) while the accounts and slots it touches are recorded (src/node/exec/accessList.ts).
 *
 * The answer is geth's `{ accessList, error?, gasUsed }`: `gasUsed` is the gas the call used, refunds deducted (what
 * its receipt would show mined from the same state); on RSK a list has no gas effect (no typed transactions, no
 * warm/cold pricing), so it is the gas with or without it. A call that fails is answered the list it built and
 * `error` (geth's `execution reverted` for a revert, the engine's name of any other failure), as geth and the
 * execution-apis spec answer it; Anvil 1.7.1 answers a revert with its eth_call error instead.
 */
import { bytesToBigInt, bytesToHex, setLengthLeft, bigIntToBytes } from '@ethereumjs/util'
import { invalidParams } from '../../../errors.js'
import { address, hash32, optional, type Codec } from '../../codecs/primitives.js'
import { blockRef, LATEST } from '../../codecs/block.js'
import { callGas, callObject, callRequest, stateOverrides, type CallObject } from '../../codecs/objects.js'
import { method, type MethodTable } from '../../method.js'
import { quantity } from '../../format/hex.js'
import { callBlock } from '../../resolve.js'
import { accessListOf, type AccessListEntry } from '../../../node/exec/accessList.js'

const slotHex = (k: bigint): string => bytesToHex(setLengthLeft(bigIntToBytes(k), 32))

/** The call object's own `accessList` (EIP-2930's form: `[{ address, storageKeys: [32-byte keys] }]`), which starts the list. */
function givenList(v: unknown): AccessListEntry[] {
  if (v === undefined || v === null) return []
  if (!Array.isArray(v)) throw invalidParams('Invalid accessList: expected an array of { address, storageKeys }.')
  return v.map((e, i) => {
    if (typeof e !== 'object' || e === null || Array.isArray(e)) throw invalidParams(`Invalid accessList[${i}]: expected { address, storageKeys }.`)
    const o = e as Record<string, unknown>
    const keys = o.storageKeys ?? []
    if (!Array.isArray(keys)) throw invalidParams(`Invalid accessList[${i}].storageKeys: expected an array of 32-byte keys.`)
    return { address: address(o.address), storageKeys: keys.map((k) => bytesToBigInt(hash32('storage key')(k))) }
  })
}

/** eth_createAccessList's first parameter: the call object, and its `accessList`. */
const callWithList: Codec<{ call: CallObject; given: AccessListEntry[] }> = (v) => {
  const call = callObject(v)
  return { call, given: givenList((v as Record<string, unknown>).accessList) }
}

export const ethAccessListMethods: MethodTable = {
  eth_createAccessList: method([callWithList, optional(blockRef), optional(stateOverrides)], async ({ node }, { call, given }, sel, overrides) => {
    const block = await callBlock(node, sel ?? LATEST)
    try {
      const { accessList, outcome } = await accessListOf(node.chain, block, callRequest(call), callGas(call, node.options.callGasCap), overrides, given)
      return {
        accessList: accessList.map((e) => ({ address: bytesToHex(e.address), storageKeys: e.storageKeys.map(slotHex) })),
        ...(outcome.error !== undefined ? { error: outcome.error === 'revert' ? 'execution reverted' : outcome.error } : {}),
        gasUsed: quantity(outcome.gasUsed),
      }
    } finally {
      // console.log lines of the call are not reported (as for eth_estimateGas): the caller asked for a list.
      node.reportCallConsole(false)
    }
  }),
}
