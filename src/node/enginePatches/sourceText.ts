/**
 * Engine source text as the patches compare it: without whitespace. The patches recognise the engine's methods by
 * pieces of their text (`Function.prototype.toString`); the build bundles the engine with its whitespace removed
 * (bundle.ts `bundleOptions`), so a piece written as the engine's own file spells it (`a = b`) must also be found in
 * the bundle (`a=b`). Names and punctuation are kept by the build, so comparing without whitespace finds exactly the
 * same pieces in both.
 */

/** `text` without its whitespace. */
export const withoutSpace = (text: string): string => text.replace(/\s+/g, '')

/** `f`'s source text without whitespace ('' for what is not a function). */
export const sourceOf = (f: unknown): string => (typeof f === 'function' ? withoutSpace(f.toString()) : '')

/** Whether every piece occurs in `source` (a `sourceOf` text), whitespace aside. */
export const sourceHasAll = (source: string, pieces: readonly string[]): boolean => pieces.every((p) => source.includes(withoutSpace(p)))
