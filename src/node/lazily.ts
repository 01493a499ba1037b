/**
 * A value made at its first use instead of at import (a module, a native context, a checked binding): `lazily(make)`
 * answers a function that calls `make` once, at its first call, and answers the same value after, undefined
 * included. Used where loading or building at import would cost every process's start (docs/performance.md,
 * twenty-second and twenty-third rounds).
 */
export function lazily<T>(make: () => T): () => T {
  let made = false
  let value: T
  return () => {
    if (!made) {
      value = make()
      made = true
    }
    return value
  }
}
