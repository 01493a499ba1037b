/**
 * Signed legacy transactions decoded from raw bytes (src/rpc/codecs/rawTransaction.ts) built as copies of a template
 * instead of by @ethereumjs/tx's constructor (10.1.3, dist/esm/legacy/tx.js and util/internal.js `sharedConstructor`).
 *
 * Why: `createLegacyTxFromBytesArray` copies the Common, converts each field through `toBytes` and `bytesToBigInt`
 * (hex strings), and runs checks whose inputs rawTransaction.ts has already read: 33 µs of a transfer in a profile of
 * 1,000 warm transfers, the first cost of every raw transaction (docs/performance.md "Thirteenth round").
 *
 * How: the first transaction decoded for a Common is built by the engine (the template). Each one after it whose
 * fields pass every check the engine would make, written out below for the one shape copied (9 fields, a 20-byte
 * recipient, a signature with v 27/28 or the chain's EIP-155 v), is a new object with LegacyTx's prototype holding
 * the template's fixed fields (type, Common copy, options, keccak) and its own values, in the constructor's order,
 * frozen as the constructor does. Anything else (contract creations, an odd v, leading zeros, oversized values) is
 * built by the engine, which answers its own error. The copies share the template's Common copy, which nothing
 * writes after construction (rsksim's Common never changes hardfork or EIPs).
 *
 * The check is on the template, when it is built: its own fields in the engine's order, frozen, type 0, and a Common
 * past Spurious Dragon without EIP-7825's gas cap, or no copy is made. test/engine_patches.test.ts compares copies
 * with the engine's transactions on random fields, valid and not.
 */
import { LegacyTx } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { bytesToWord } from '../rlp.js'
import { enginePatches } from './switch.js'
import { copyOrBuild } from './copyTemplate.js'

/** The own fields of a 10.1.3 LegacyTx, in the order its class fields and constructor define them. */
const TX_FIELDS = 'type,cache,activeCapabilities,common,txOptions,to,nonce,gasLimit,value,data,v,r,s,gasPrice,keccakFunction'
const EIP155 = 155
const MAX_UINT256 = 2n ** 256n - 1n

/** The answer of the last template check (undefined before any): what test/fixtures/bundleProbe.ts reports. */
export let legacyTxTemplateRecognised: boolean | undefined

/** Whether an engine-built transaction has exactly the fields and the Common rules this copy assumes. */
export function legacyTemplateRecognised(tx: LegacyTx): boolean {
  const fields = tx as unknown as Record<string, unknown>
  return (legacyTxTemplateRecognised =
    enginePatches.installable &&
    Object.getPrototypeOf(tx) === LegacyTx.prototype &&
    Object.keys(fields).join() === TX_FIELDS &&
    Object.isFrozen(tx) &&
    tx.type === 0 &&
    tx.common.gteHardfork('spuriousDragon') &&
    !tx.common.isActivatedEIP(7825))
}

/**
 * The transaction of a raw legacy transaction's nine fields: a copy of the Common's template where the engine would
 * accept the fields and the patches are on, else what `build` (the engine's constructor, same options) gives.
 */
export const legacyTxFromFields = copyOrBuild<LegacyTx, Uint8Array[]>(legacyTemplateRecognised, copyLegacyTx)

/** Whether a field is an integer the engine reads without refusing it: no leading zero, at most `max` bytes. */
const canonical = (b: Uint8Array, max: number): boolean => b.length <= max && (b.length === 0 || b[0] !== 0)

/** The copy, or undefined where the engine might refuse the fields or read them otherwise (it then builds). */
function copyLegacyTx(template: LegacyTx, fields: Uint8Array[]): LegacyTx | undefined {
  if (fields.length !== 9) return undefined
  const [nonce, gasPrice, gasLimit, to, value, , v, r, s] = fields as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array]
  // createLegacyTxFromBytesArray's validateNoLeadingZeroes, sharedConstructor's valueOverflowCheck (value, r, s and
  // gas price below 2^256, gas limit below 2^64, nonce below 2^64 - 1), a recipient (no creation), a signature.
  if (!canonical(nonce, 8) || !canonical(gasPrice, 32) || !canonical(gasLimit, 8) || !canonical(value, 32)) return undefined
  if (!canonical(v, 1) || !canonical(r, 32) || !canonical(s, 32) || v.length === 0 || r.length === 0 || s.length === 0) return undefined
  if (to!.length !== 20 || (nonce.length === 8 && nonce.every((b) => b === 0xff))) return undefined
  const vNumber = v[0]!
  const doubled = Number(template.common.chainId()) * 2
  const eip155 = vNumber === doubled + 35 || vNumber === doubled + 36
  // LegacyTx's validateVAndExtractChainID: 27, 28, or the chain's EIP-155 values.
  if (!eip155 && vNumber !== 27 && vNumber !== 28) return undefined
  const gasPriceValue = bytesToWord(gasPrice)
  const gasLimitValue = bytesToWord(gasLimit)
  if (gasPriceValue * gasLimitValue > MAX_UINT256) return undefined
  const tx = new (LegacyTxCopy as unknown as LegacyTxCopyClass)(template, fields, eip155, gasPriceValue, gasLimitValue)
  Object.freeze(tx)
  return tx
}

type LegacyTxCopyClass = new (template: LegacyTx, fields: Uint8Array[], eip155: boolean, gasPrice: bigint, gasLimit: bigint) => LegacyTx

/** The transaction's fields in the engine's order, on an object whose prototype is LegacyTx's (set below). */
function LegacyTxCopy(this: Record<string, unknown>, template: LegacyTx, fields: Uint8Array[], eip155: boolean, gasPrice: bigint, gasLimit: bigint): void {
  const t = template as unknown as Record<string, unknown>
  this.type = t.type
  this.cache = {}
  this.activeCapabilities = eip155 ? [EIP155] : []
  this.common = t.common
  this.txOptions = t.txOptions
  this.to = new Address(fields[3]!)
  this.nonce = bytesToWord(fields[0]!)
  this.gasLimit = gasLimit
  this.value = bytesToWord(fields[4]!)
  this.data = fields[5]
  this.v = bytesToWord(fields[6]!)
  this.r = bytesToWord(fields[7]!)
  this.s = bytesToWord(fields[8]!)
  this.gasPrice = gasPrice
  this.keccakFunction = t.keccakFunction
}
LegacyTxCopy.prototype = LegacyTx.prototype
