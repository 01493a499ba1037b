/**
 * `JSON.stringify` that writes a bigint as the JSON integer literal of its digits (`1234567890123456789`, no quotes),
 * where `JSON.stringify` throws. A request body keeps an integer literal no double holds as a bigint
 * (src/rpc/requestJson.ts `parseRequestJson`, as RSKj's Jackson keeps a `LongNode`/`BigIntegerNode`), and an in-process
 * caller may pass one: whatever writes a request's params again (the fork's remote client sends them on and keys its
 * cache with them, src/node/fork/remote.ts) must write the literal the client wrote, so the remote reads the same number.
 *
 * `JSON.stringify` runs first, with no replacer: a value without a bigint (nearly every one) costs what it costs today.
 * Only when it throws is the value written again, each bigint as a marked string whose quotes and mark are then cut.
 * Node 20 has no `JSON.rawJSON`, which would write the digits directly.
 */

/** The mark a bigint's digits are written after, as a JSON string; no client sends it (a NUL and a random part). */
const MARK = `\u0000rsksim-bigint-${Math.random().toString(36).slice(2)}:`
/** The marked digits as they stand in the text (the NUL escaped), with their quotes. */
const MARKED = new RegExp(`${JSON.stringify(MARK).slice(0, -1).replace(/\\/g, '\\\\')}(-?[0-9]+)"`, 'g')

const marked = (_key: string, v: unknown): unknown => (typeof v === 'bigint' ? `${MARK}${v.toString()}` : v)

/**
 * `JSON.stringify(value)`, each bigint written as its digits (throws as `JSON.stringify` does for a cycle or a depth
 * past the stack).
 *
 * @example
 * ```ts
 * stringifyJson([{ value: 1234567890123456789n, gas: 21000 }, '0x5']) // '[{"value":1234567890123456789,"gas":21000},"0x5"]'
 * ```
 */
export function stringifyJson(value: unknown): string {
  try {
    return JSON.stringify(value)
  } catch (e) {
    // A bigint throws a TypeError (so does a cycle, which the second write throws again).
    if (!(e instanceof TypeError)) throw e
    return JSON.stringify(value, marked).replace(MARKED, '$1')
  }
}
