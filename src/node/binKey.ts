/**
 * Byte strings as Map keys: one character per byte, so a key is as long as its bytes and two keys are equal exactly
 * when their bytes are (hashes, addresses, slots, raw transactions, signatures).
 */

/** One character per byte: a cheap, collision-free Map key for a byte string. */
export function binKey(bytes: Uint8Array): string {
  const s: string = Reflect.apply(String.fromCharCode, null, bytes)
  return s
}
