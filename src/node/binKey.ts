/**
 * Byte strings as Map keys: one character per byte, so a key is as long as its bytes and two keys are equal exactly
 * when their bytes are (hashes, addresses, slots, raw transactions, signatures).
 */

type Latin1Slice = (this: Uint8Array, start: number, end: number) => string

/**
 * Node's latin1 decoder (what `buf.toString('latin1')` calls), which takes any Uint8Array: one character per byte,
 * U+0000-U+00FF, the same string as `String.fromCharCode(...bytes)`. It costs 75-145 ns for 20-170 bytes here against
 * 190-870 ns through `Reflect.apply`, which first copies the bytes into an argument list of 8 bytes per byte
 * (microbenchmark; docs/performance.md, tenth round). Checked at load on every byte value; where it is missing or
 * answers otherwise, `Reflect.apply` is used.
 */
const latin1Slice = (Buffer.prototype as unknown as { latin1Slice?: Latin1Slice }).latin1Slice
const ALL_BYTES = Uint8Array.from({ length: 256 }, (_, i) => i)
const viaApply = (bytes: Uint8Array): string => Reflect.apply(String.fromCharCode, null, bytes) as string
const latin1Works = ((): boolean => {
  try {
    return typeof latin1Slice === 'function' && latin1Slice.call(ALL_BYTES, 0, 256) === viaApply(ALL_BYTES)
  } catch {
    return false
  }
})()

/** One character per byte: a cheap, collision-free Map key for a byte string. */
export const binKey: (bytes: Uint8Array) => string = latin1Works ? (bytes) => latin1Slice!.call(bytes, 0, bytes.length) : viaApply
