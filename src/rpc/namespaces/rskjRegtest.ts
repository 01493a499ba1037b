/**
 * Methods a default RSKj regtest node answers that the service's spec does not list. RSKj serves every public
 * method of `Web3RskImpl` (`rpc/netty/JsonRpcWeb3ServerHandler.java` builds the server over `service.getClass()`),
 * filtered by the modules `reference.conf` enables (`rpc.modules`). Compared with that list (the `Web3*Module`
 * interfaces, `org/ethereum/rpc/Web3.java` and `Web3Impl`'s own public `eth_getBlocksByNumber`), rsksim lacked
 * the three below and `debug_accountTransactionQuota` (debug.ts, over src/node/pool/txQuota.ts). They are answered
 * outside hosted mode only (src/rpc/methods.ts); the hosted service does not list them. `rsk_shutdown`,
 * `rsk_flush`, `rsk_getStorageBytesAt` (disabled in `reference.conf`) and the unconfigured `ext_*` methods answer
 * as RSKj answers disabled methods (`UNSUPPORTED`). There is no `rsk_getStorageAt` method in RSKj.
 */
import { bytesToHex } from '@ethereumjs/util'
import { invalidParams } from '../../errors.js'
import { JAVA_DECIMAL, jsonText, type Codec } from '../codecs/primitives.js'
import { method, noParams, type MethodTable } from '../method.js'
import { quantity } from '../format/hex.js'
import { blockTraces } from './trace.js'
import { hashText, javaHex } from '../codecs/rskjText.js'
import { debugRegtestMethods } from './debug.js'

/**
 * `HexUtils.stringNumberAsBigInt` (HexUtils.java 61-67): after a lower-case `0x` Java's `BigInteger` of hex digits
 * (sign allowed), else a decimal `BigInteger` (so `0X1` is refused); Jackson turns a JSON integer into its decimal
 * text (a bigint where no double holds it: src/rpc/requestJson.ts). Then `.longValue()` (Web3Impl.java 704) keeps the
 * low 64 bits, signed: 18446744073709551617 (2^64 + 1) is block 1. Anything else is `invalid blocknumber <x>`, as
 * `Web3Impl.eth_getBlocksByNumber` says.
 */
const blockNumberText: Codec<bigint> = (v) => {
  const text = (typeof v === 'number' && Number.isSafeInteger(v)) || typeof v === 'bigint' ? String(v) : v
  if (typeof text === 'string') {
    const n = text.startsWith('0x') ? javaHex(text, 64) : JAVA_DECIMAL.test(text) ? BigInt.asIntN(64, BigInt(text)) : undefined
    if (n !== undefined) return n
  }
  throw invalidParams(`invalid blocknumber ${typeof v === 'string' ? v : jsonText(v)}`)
}

/**
 * `TraceGetRequest`: exactly one position, read by `getTracePositionsAsListOfIntegers` (TraceGetRequest.java 71-80)
 * as `HexUtils.stringHexToBigInteger(p).intValue()`: a lower-case `0x`, Java's `BigInteger` digits with an optional
 * sign, and the low 32 bits as a signed int, so `0x100000000` is position 0.
 */
const tracePositions: Codec<number> = (v) => {
  if (v === undefined || v === null || (Array.isArray(v) && v.length === 0)) throw invalidParams("'positions' cannot be null or empty")
  // `List<String> positions` (Web3TraceModule.java): jsonrpc4j reads every parameter with ACCEPT_SINGLE_VALUE_AS_ARRAY
  // (JsonRpcBasicServer.convertJsonToParameters), so Jackson's CollectionDeserializer takes a scalar as a list of it.
  // An object is no String (RSKj: a Jackson mapping error, -32700).
  if (typeof v === 'object' && !Array.isArray(v)) throw invalidParams("'positions' must be an array of hex numbers")
  const list: unknown[] = Array.isArray(v) ? v : [v]
  if (list.length > 1) throw invalidParams("'positions' accepts only one index")
  const p = list[0]
  const n = typeof p === 'string' ? javaHex(p, 32) : undefined
  // RSKj's `HexUtils.stringHexToBigInteger` throws a NumberFormatException (-32603) here; rsksim answers -32602.
  if (n === undefined) throw invalidParams(`invalid position ${jsonText(p)}`)
  return Number(n)
}

/** `TraceGetRequest`'s first check (TraceGetRequest.java 35-37), before the positions': then a transaction hash. */
const traceGetHash: Codec<Uint8Array> = (v) => {
  if (v === null || v === '') throw invalidParams("'transactionHash' cannot be null or empty")
  return hashText(v)
}

/** The modules rsksim answers in the default mode, each at RSKj's version "1.0" (`reference.conf` `rpc.modules`). */
const MODULES = ['eth', 'net', 'rpc', 'web3', 'evm', 'sco', 'txpool', 'personal', 'debug', 'trace', 'rsk', 'mnr']

/**
 * `Web3Impl.rpc_modules` fills a `java.util.HashMap`, so its JSON lists the keys in HashMap order: by bucket
 * (`String.hashCode`, spread as `h ^ (h >>> 16)`, masked to the table size, 16 for up to 12 keys), then insertion.
 */
function javaHashMapOrder(keys: readonly string[]): string[] {
  const bucket = (k: string): number => {
    let h = 0
    for (let i = 0; i < k.length; i++) h = (Math.imul(h, 31) + k.charCodeAt(i)) | 0
    return (h ^ (h >>> 16)) & 15
  }
  return keys.map((k, i) => ({ k, i, b: bucket(k) })).sort((x, y) => x.b - y.b || x.i - y.i).map((e) => e.k)
}

const RPC_MODULES: Readonly<Record<string, string>> = Object.fromEntries(javaHashMapOrder(MODULES).map((m) => [m, '1.0']))

export const rskjRegtestMethods: MethodTable = {
  /**
   * Every block at that height with `hash`, `totalDifficulty` and `inMainChain` (`Web3Impl.eth_getBlocksByNumber`,
   * `BlockInformationResult`). rsksim keeps only its main chain, so the answer has at most one entry; a height
   * without a block (negative, or above the head) answers `[]`.
   */
  eth_getBlocksByNumber: method([blockNumberText], ({ node }, n) => {
    const block = n >= 0n ? node.chain.store.byNumber(n) : undefined
    return block === undefined ? [] : [{ hash: block.hashHex, totalDifficulty: quantity(block.totalDifficulty), inMainChain: true }]
  }),

  /** The enabled modules and their versions (`Web3Impl.rpc_modules`). */
  rpc_modules: noParams(() => ({ ...RPC_MODULES })),

  /**
   * `TraceModuleImpl.traceGet`: the trace at `positions[0]` of the whole block's trace list (not of the
   * transaction's own traces: RSKj indexes the block's list). Unknown transaction → null. A position past the end
   * is an `IndexOutOfBoundsException` (-32603) in RSKj; rsksim answers -32602.
   */
  trace_get: method([traceGetHash, tracePositions], async ({ node }, hash, position) => {
    const loc = node.chain.store.getTx(bytesToHex(hash))
    if (loc === undefined) return null
    const traces = await blockTraces(node, loc.block)
    // `traces.get(i)` (TraceModuleImpl.java 200): an IndexOutOfBoundsException for a negative or past-the-end i.
    if (position < 0 || position >= traces.length) throw invalidParams(`position ${position} is out of range: the block has ${traces.length} traces`)
    return traces[position]
  }),

  ...debugRegtestMethods,
}
