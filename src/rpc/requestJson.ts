/**
 * A request body's JSON as RSKj's Jackson reads it where `JSON.parse` cannot: an integer literal a double does not hold
 * exactly (`"value": 1234567890123456789`, which `JSON.parse` makes 1234567890123456800) is kept as a bigint of its
 * digits, as Jackson keeps a `LongNode` or `BigIntegerNode` whose `asText()` is those digits (primitives.ts `asText`,
 * `tokenText`, `scalarText` read bigints). Without it, eth_sendTransaction's JSON-number `value` (read as RSKj reads it,
 * callArgumentsParam.ts) would move another amount than the one sent. Only a body with a run of 16 digits is looked at
 * again (a value, after `:`, `,` or `[`), so other requests cost one regular-expression test.
 */

/** The marker a lossy literal is written as before the second parse; a string no client sends. */
const MARK = `\u0000rsksim-integer-${Math.random().toString(36).slice(2)}:`
/** The marker as it opens a JSON string (its NUL escaped): a literal and `"` close it. */
const MARK_JSON = JSON.stringify(MARK).slice(0, -1)

/** `JSON.parse(text)` (throws as it does), with integer literals no double holds exactly as bigints. */
export function parseRequestJson(text: string): unknown {
  const value: unknown = JSON.parse(text)
  if (!/[:,[]\s*-?[0-9]{16}/.test(text)) return value
  const rewritten = markLossyIntegers(text)
  if (rewritten === undefined) return value
  const marked: unknown = JSON.parse(rewritten)
  const out = unmark(marked)
  // A request id stays what it was (a number): the reply echoes it, and a bigint is no JSON-RPC id.
  for (const request of Array.isArray(out) ? out : [out]) {
    if (request !== null && typeof request === 'object' && typeof (request as { id?: unknown }).id === 'bigint') {
      ;(request as { id: unknown }).id = Number((request as { id: bigint }).id)
    }
  }
  return out
}

/** The text with each integer literal outside strings that a double does not hold exactly written as a marked string; undefined when there is none. */
function markLossyIntegers(text: string): string | undefined {
  const parts: string[] = []
  let from = 0
  let i = 0
  const n = text.length
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // A string: skip to its closing quote (the text is valid JSON: JSON.parse read it).
      i++
      while (i < n && text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c ? 2 : 1
      i++
      continue
    }
    if (c === 0x2d || isDigit(c)) {
      const start = i
      // An integer literal is a sign and digits only; a fraction or an exponent makes it a double.
      let integer = true
      i++
      for (let d = text.charCodeAt(i); i < n && isNumberChar(d); d = text.charCodeAt(++i)) integer &&= isDigit(d)
      // Fewer than 16 characters is at most 15 digits, which a double holds exactly.
      if (integer && i - start >= 16) {
        const literal = text.slice(start, i)
        if (String(Number(literal)) !== literal) {
          parts.push(text.slice(from, start), MARK_JSON, literal, '"')
          from = i
        }
      }
      continue
    }
    i++
  }
  if (parts.length === 0) return undefined
  parts.push(text.slice(from))
  return parts.join('')
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39

/** The parsed value with the marked strings turned into bigints (iteratively: a deep body must not overflow the stack). */
function unmark(root: unknown): unknown {
  const fix = (v: unknown): unknown => (typeof v === 'string' && v.startsWith(MARK) ? BigInt(v.slice(MARK.length)) : v)
  const stack: unknown[] = [root]
  while (stack.length > 0) {
    const v = stack.pop()
    if (v === null || typeof v !== 'object') continue
    if (Array.isArray(v)) {
      for (let k = 0; k < v.length; k++) {
        v[k] = fix(v[k])
        stack.push(v[k])
      }
    } else {
      const o = v as Record<string, unknown>
      for (const k of Object.keys(o)) {
        const fixed = fix(o[k])
        // Defined, not assigned: an own `__proto__` key (JSON.parse makes one) must not set the prototype.
        if (fixed !== o[k]) Object.defineProperty(o, k, { value: fixed, writable: true, enumerable: true, configurable: true })
        stack.push(fixed)
      }
    }
  }
  return fix(root)
}

/** A character of a JSON number literal after its first: a digit, `.`, `e`, `E`, `+` or `-`. */
function isNumberChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d
}
