/**
 * eth_call's state overrides (third parameter, `Map<HexAddressParam, AccountOverrideParam>`, co/rsk/rpc/Web3EthModule.java)
 * read as RSKj reads them, in its three steps:
 *
 * 1. When the parameters are read (`accountOverrideParams`): each key by `HexAddressParam`'s constructor (Jackson's key
 *    deserializer for a class with a `String` constructor), each value by `AccountOverrideParam.Deserializer`
 *    (org/ethereum/rpc/parameters/AccountOverrideParam.java), which reads the value as a tree and takes, in order,
 *    `balance` and `nonce` as `HexNumberParam`, `code` as `HexDataParam`, `state` and `stateDiff` as maps of
 *    `HexDataParam` to `HexDataParam`, `movePrecompileToAddress` as `HexAddressParam`, each of the field's
 *    `JsonNode.asText()` (absent or `null`: none; other keys ignored). A value that is not an object has none of these
 *    fields: an override that changes nothing; a `state`/`stateDiff` that is not an object is an empty map.
 * 2. `Web3Impl.eth_call`, before the block is read (`accountOverrides`): `AccountOverride.fromAccountOverrideParam`
 *    (co/rsk/rpc/modules/eth/AccountOverride.java) reads `balance` with `HexUtils.stringHexToBigInteger` and `nonce` with
 *    `HexUtils.jsonHexToLong` (both want a `0x` and hex digits; the nonce a Java long) and the slots as `DataWord`s (at
 *    most 32 bytes, left-padded).
 * 3. `EthModule.applyStateOverride`, once the block is read (`checkOverrides`): for each account in order, a precompile
 *    may have no change (`DefaultStateOverrideApplier.validateOperationOverPrecompiledContract`), then `state` and
 *    `stateDiff` together are refused (`applyToRepository`).
 *
 * RSKj answers a bad key -32700 `JSON parse error` (Jackson's key deserializer wraps the constructor's exception), so too a
 * field of step 1 its class refuses (`MapDeserializer` wraps what the value's deserializer throws,
 * `ContainerDeserializerBase.wrapAndThrow`; rsksim: -32602 with the class's text), and the
 * failures of steps 2 and 3 that are not its own parameter errors -32603 (NumberFormatException, IllegalArgumentException,
 * IllegalStateException, a null value's NullPointerException); rsksim answers -32602 saying what is wrong
 * (docs/compatibility.md).
 */
import { bytesToBigInt, bytesToHex } from '@ethereumjs/util'
import { invalidParams, RpcError, ErrorCode } from '../../errors.js'
import type { AccountOverride, StateOverrides } from '../../node/exec/call.js'
import { nodeText } from './callArgumentsParam.js'
import { isPrecompile } from './objects.js'
import { address, asText, data, hexNumberText, type Codec } from './primitives.js'

/** One entry as step 1 leaves it: the numbers as their text, the rest read. `fields` null for a JSON `null` value. */
export interface AccountOverrideParam {
  key: string
  address: Uint8Array
  fields: {
    balance?: string
    nonce?: string
    code?: Uint8Array
    state?: [Uint8Array, Uint8Array][]
    stateDiff?: [Uint8Array, Uint8Array][]
    movePrecompileToAddress?: Uint8Array
  } | null
}

/** `getDataMap`: none for absent or `null`; each entry of an object (none of anything else) as two `HexDataParam`s. */
function dataMap(v: unknown): [Uint8Array, Uint8Array][] | undefined {
  if (v === undefined || v === null) return undefined
  if (typeof v !== 'object' || Array.isArray(v)) return []
  return Object.entries(v as Record<string, unknown>).map(([k, value]) => [data(k), data(asText(value))])
}

/** Step 1: the map as Jackson reads it, entry by entry in their order. Anything but a JSON object is refused. */
export const accountOverrideParams: Codec<AccountOverrideParam[]> = (v) => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalidParams('Invalid state override set: expected an object.')
  return Object.entries(v as Record<string, unknown>).map(([key, value]): AccountOverrideParam => {
    const addr = address(key)
    if (value === null) return { key, address: addr, fields: null }
    const o: Record<string, unknown> = typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
    const text = (name: string): string | undefined => nodeText(o[name])
    const fields: NonNullable<AccountOverrideParam['fields']> = {}
    const balance = text('balance')
    if (balance !== undefined) fields.balance = hexNumberText(balance)
    const nonce = text('nonce')
    if (nonce !== undefined) fields.nonce = hexNumberText(nonce)
    const code = text('code')
    if (code !== undefined) fields.code = data(code)
    const state = dataMap(o.state)
    if (state !== undefined) fields.state = state
    const stateDiff = dataMap(o.stateDiff)
    if (stateDiff !== undefined) fields.stateDiff = stateDiff
    const move = text('movePrecompileToAddress')
    if (move !== undefined) fields.movePrecompileToAddress = address(move)
    return { key, address: addr, fields }
  })
}

/** `DataWord.valueOf(bytes)`: at most 32 bytes (RSKj: IllegalArgumentException `A DataWord must be 32 bytes long`). */
function dataWord(bytes: Uint8Array, key: string, what: string): bigint {
  if (bytes.length > 32) throw invalidParams(`Invalid state override for ${key}: the storage ${what} ${bytesToHex(bytes)} is longer than 32 bytes`)
  return bytes.length === 0 ? 0n : bytesToBigInt(bytes)
}

/**
 * Step 2, `fromAccountOverrideParam` for each entry in order. `balance`: `0x` and at least one hex digit
 * (`stringHexToBigInteger`: a NumberFormatException for a decimal, for text without `0x` and for `0x` alone); `nonce`:
 * the same, at most 2^63 − 1 (`jsonHexToLong`, `Long.parseLong(hex, 16)`). `movePrecompileToAddress`, which the spec marks
 * unsupported, is -32201 `Move precompile to address is not supported yet` (RSKj 7.2–8.1's text; 9.x moves it).
 */
export function accountOverrides(params: readonly AccountOverrideParam[]): StateOverrides {
  const out: StateOverrides = new Map()
  for (const { key, address: addr, fields } of params) {
    // RSKj: `fromAccountOverrideParam(null)`, a NullPointerException (-32603).
    if (fields === null) throw invalidParams(`Invalid state override for ${key}: expected an object.`)
    const override: AccountOverride = {}
    if (fields.balance !== undefined) {
      if (!/^0x[0-9a-fA-F]+$/.test(fields.balance)) throw invalidParams(`Invalid state override for ${key}: balance ${fields.balance} is not a 0x hex number`)
      override.balance = BigInt(fields.balance)
    }
    if (fields.nonce !== undefined) {
      const n = /^0x[0-9a-fA-F]+$/.test(fields.nonce) ? BigInt(fields.nonce) : undefined
      if (n === undefined || n >= 2n ** 63n) throw invalidParams(`Invalid state override for ${key}: nonce ${fields.nonce} is not a 0x hex number below 2^63`)
      override.nonce = n
    }
    if (fields.code !== undefined) override.code = fields.code
    const slots = (entries: [Uint8Array, Uint8Array][]): Map<bigint, bigint> =>
      new Map(entries.map(([k, value]) => [dataWord(k, key, 'key'), dataWord(value, key, 'value')]))
    if (fields.state !== undefined) override.state = slots(fields.state)
    if (fields.stateDiff !== undefined) override.stateDiff = slots(fields.stateDiff)
    if (fields.movePrecompileToAddress !== undefined) throw new RpcError(ErrorCode.Unimplemented, 'Move precompile to address is not supported yet')
    // Keyed by the key as written: two keys naming one address (in another case) are two `HexAddressParam`s, which
    // have no `equals`, so RSKj's map keeps both and `applyStateOverride` applies them one after the other.
    out.set(key, { address: addr, override })
  }
  return out
}

/**
 * Step 3, once the block is read (`EthModule.applyStateOverride`), for each account in order (`params`, as step 1 read
 * them; `overrides`, step 2's): a precompile may be given no change (`Precompiled contracts can not be overridden`,
 * 0x01–0x09 and the RSK precompiles of reference §7.6), then `state` and `stateDiff` together are refused (RSKj:
 * IllegalStateException, -32603).
 */
export function checkOverrides(params: readonly AccountOverrideParam[], overrides: StateOverrides): void {
  for (const { key, address: addr } of params) {
    const override = overrides.get(key)?.override ?? {}
    const changes = override.balance !== undefined || override.nonce !== undefined || override.code !== undefined || override.state !== undefined || override.stateDiff !== undefined
    if (changes && isPrecompile(addr)) throw invalidParams('Precompiled contracts can not be overridden')
    if (override.state !== undefined && override.stateDiff !== undefined) {
      throw invalidParams(`Invalid state override for ${key}: state and stateDiff cannot be given together`)
    }
  }
}
