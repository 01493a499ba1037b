/**
 * Block parameters of the eth methods RSKj reads through a parameter class, read as RSKj reads them: first the class
 * Jackson builds (org/ethereum/rpc/parameters/BlockRefParam.java, BlockIdentifierParam.java), then the reader the
 * method hands the identifier to, `Web3InformationRetriever.getBlock` (`retrieverBlockId`, rskjText.ts: the state
 * reads and the …ByNumber methods) or `ExecutionBlockRetriever.retrieveExecutionBlock` (`executionBlockId`: eth_call,
 * eth_estimateGas). docs/modules/proofs-calls.md "Block parameters" lists what each method takes.
 */
import { invalidParams } from '../../errors.js'
import { asText, blockHash, JAVA_LONG_MAX, hexNumberText, show, tokenText, type Codec } from './primitives.js'
import { retrieverBlockId } from './rskjText.js'
import type { BlockSelector, BlockTag } from './block.js'

/** `Utils.isDecimalString` and `Utils.isHexadecimalString` (org/ethereum/util/Utils.java): `\d+`, `0x[\da-fA-F]+`. */
const DECIMAL = /^[0-9]+$/
const HEX_NUMBER = /^0x[0-9a-fA-F]+$/
const TAGS = ['pending', 'latest', 'earliest', 'finalized', 'safe']

/**
 * `BlockIdentifierParam`'s check of the text Jackson's `getText()` gives it (a JSON number or boolean: its text; an
 * object or array: its first token, `{` or `[`): a tag of `BlockTag` in any case, a decimal or a `0x` number, else
 * -32602 `Invalid block identifier '<x>'` (`Invalid block identifier: empty or null.` for `""` and null).
 */
function identifierText(v: unknown): string {
  // JSON null never reaches the constructor in RSKj (Jackson gives a null parameter: a NullPointerException, -32603);
  // here it gets the constructor's text for null.
  const text = tokenText(v)
  if (text === undefined || text === '') throw invalidParams('Invalid block identifier: empty or null.')
  if (!TAGS.includes(text.toLowerCase()) && !DECIMAL.test(text) && !HEX_NUMBER.test(text)) throw invalidParams(`Invalid block identifier '${show(text)}'`)
  return text
}

/**
 * `ExecutionBlockRetriever.retrieveExecutionBlock` (co/rsk/rpc/ExecutionBlockRetriever.java): the three tags in lower
 * case only; a `0x` or decimal number as a Java long (`Utils.hexadecimalStringToLong`, `decimalStringToLong`: past
 * 2^63 − 1 an IllegalArgumentException, -32603 in RSKj, -32602 with its text here, docs/compatibility.md); anything
 * else (`safe`, `LATEST`) -32602 `Unsupported block specifier '<x>'…`. A block hash is such a hex number (too big).
 */
function executionBlockId(text: string): BlockSelector {
  if (text === 'earliest' || text === 'latest' || text === 'pending') return { kind: 'tag', tag: text }
  const hex = HEX_NUMBER.test(text)
  if (hex || DECIMAL.test(text)) {
    const number = javaLong(text, hex)
    if (number === undefined) {
      // RSKj's own text, then what the number most likely is: ethers passes a block hash given as `blockTag` on.
      const hint = hex && text.length === 66 ? ' (a block hash is not a block number here: pass {"blockHash": "<hash>"}, EIP-1898)' : ''
      throw invalidParams(`Invalid ${hex ? 'hexadecimal' : 'decimal'} number: ${show(text)}${hint}`)
    }
    return { kind: 'number', number, text }
  }
  throw invalidParams(
    `Unsupported block specifier '${show(text)}'. Can only be either 'earliest', 'latest', 'pending' or a specific block number (either hex - prepending '0x' or decimal).`,
  )
}

/** `BlockIdentifierParam`, then `read` (the method's reader) on its text. */
function blockIdentifierParam(read: (text: string) => BlockSelector): Codec<BlockSelector> {
  return (v) => read(identifierText(v))
}

/**
 * `BlockRefParam` (BlockRefParam.java): a string that is `earliest`, `latest` or `pending` (exact case), a decimal or a
 * `0x` number (else `Invalid block identifier '<x>'`); or an EIP-1898 map; anything else `Invalid input`. A map's
 * entries are checked in their order: `requireCanonical` a string `true`/`false` in any case (a JSON boolean is
 * accepted, as EIP-1898 writes it: RSKj's `Map<String, String>` meets a ClassCastException, -32603), `blockHash` a
 * `BlockHashParam`, `blockNumber` a `HexNumberParam`. `blockHash` wins (its block found, the method reads it by number,
 * `Web3Impl.toInvokeByBlockHash`): its selector; else the identifier text (or the map's `blockNumber`) the method's
 * reader is to take.
 */
function blockRef(v: unknown): Extract<BlockSelector, { kind: 'hash' }> | string {
  if (typeof v === 'string') {
    if (v !== 'earliest' && v !== 'latest' && v !== 'pending' && !DECIMAL.test(v) && !HEX_NUMBER.test(v)) {
      throw invalidParams(`Invalid block identifier '${show(v)}'`)
    }
    return v
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw invalidParams('Invalid input')
  const map = v as Record<string, unknown>
  if (!('blockHash' in map) && !('blockNumber' in map)) throw invalidParams('Invalid block input')
  for (const [key, value] of Object.entries(map)) {
    if (key === 'requireCanonical') {
      if (typeof value !== 'boolean' && (typeof value !== 'string' || !/^(true|false)$/i.test(value))) {
        throw invalidParams('Invalid input: requireCanonical must be a String "true" or "false"')
      }
    } else if (key === 'blockHash') blockHash(value)
    else if (key === 'blockNumber') hexNumberText(value)
  }
  if (map.blockHash !== undefined) {
    const rc = map.requireCanonical
    const requireCanonical = rc === true || (typeof rc === 'string' && rc.toLowerCase() === 'true')
    return { kind: 'hash', hash: blockHash(map.blockHash), requireCanonical, fromMap: true, text: String(map.blockHash) }
  }
  return hexNumberText(map.blockNumber)
}

/** `BlockRefParam`, then `read` (the method's reader) on the identifier text it leaves. */
function blockRefParam(read: (text: string) => BlockSelector): Codec<BlockSelector> {
  return (v) => {
    const ref = blockRef(v)
    return typeof ref === 'string' ? read(ref) : ref
  }
}

/** The state reads' `BlockRefParam` (eth_getBalance, eth_getStorageAt, eth_getTransactionCount, eth_getCode). */
export const stateBlockRef = blockRefParam(retrieverBlockId)

/**
 * eth_call's `BlockRefParam`, as the parameters are read: a `{blockHash}` selector or the identifier text, which
 * `callBlockId` reads once `Web3Impl.eth_call` has read the state overrides.
 */
export const callBlockRef: Codec<Extract<BlockSelector, { kind: 'hash' }> | string> = blockRef

/** eth_call's block: `Web3Impl.eth_call` makes a `BlockIdentifierParam` of the identifier, then executes there. */
export const callBlockId = (ref: Extract<BlockSelector, { kind: 'hash' }> | string): BlockSelector =>
  typeof ref === 'string' ? executionBlockId(identifierText(ref)) : ref

/** eth_estimateGas's `BlockIdentifierParam`. */
export const estimateBlockId = blockIdentifierParam(executionBlockId)

/** The …ByNumber methods' `BlockIdentifierParam` (eth_getBlockByNumber and kin): `Web3InformationRetriever.getBlock`. */
export const numberBlockId = blockIdentifierParam(retrieverBlockId)

/**
 * The `BlockIdentifierParam` of the …ByNumber methods with a second parameter (eth_getBlockByNumber,
 * eth_getTransactionByBlockNumberAndIndex, eth_getUncleByBlockNumberAndIndex), its check only: the method reads the
 * text with `retrieverBlockId` (`Web3InformationRetriever.getBlock`) once jsonrpc4j has read the second parameter too,
 * so a bad index or Boolean wins over a text `getBlock` refuses (`1`, `safe`).
 */
export const numberBlockIdText: Codec<string> = identifierText

/**
 * A log filter bound (`fromBlock`/`toBlock` of eth_getLogs and eth_newFilter) as RSKj reads it.
 * `FilterRequestParam.Deserializer` passes the JSON value's text (`asText`; a bound given as JSON `null` is the text
 * `null`, not an omitted bound) to `BlockIdentifierParam` (`identifierText`). `LogFilter` reads what is not a tag with
 * `HexUtils.jsonHexToLong` (`Long.parseLong(hex, 16)`): decimal digits (64 of them too: not a block hash) and hex past a
 * Java long throw NumberFormatException there, RSKj's -32603 `Internal server error`, which rsksim answers -32602
 * `invalid blocknumber <text>` (docs/compatibility.md); hex digits are a number however many leading zeros they have.
 * `safe`/`finalized` parse, and are refused where the bound is read (logs.ts `logBound`).
 */
export const filterBound: Codec<BlockSelector> = (v) => {
  const text = identifierText(asText(v))
  const tag = text.toLowerCase()
  if (TAGS.includes(tag)) return { kind: 'tag', tag: tag as BlockTag }
  // identifierText let through decimal digits or a `0x` number: only the latter is read, as a long.
  const number = DECIMAL.test(text) ? undefined : javaLong(text, true)
  if (number === undefined) throw invalidParams(`invalid blocknumber ${show(text)}`)
  return { kind: 'number', number }
}

/**
 * `text`'s `0x` hex or decimal digits as Java reads them into a `long` (`Long.parseLong`, `Utils.hexadecimalStringToLong`);
 * undefined past 2^63 − 1. Significant digits only: leading zeros are a small number, and a long run never becomes a
 * BigInt.
 */
function javaLong(text: string, hex: boolean): bigint | undefined {
  const digits = (hex ? text.slice(2) : text).replace(/^0+/, '')
  if (digits.length > (hex ? 16 : 19)) return undefined
  const n = digits === '' ? 0n : BigInt(hex ? '0x' + digits : digits)
  return n > JAVA_LONG_MAX ? undefined : n
}
