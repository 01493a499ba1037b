/**
 * The mechanism of the two copy patches (execBlock.ts, legacyTx.ts): the first object built by the engine for a
 * Common is kept as a template, checked once (`recognise`); each later one is a copy of it (`copy`, which may decline
 * inputs it cannot copy exactly) while the patches run and the template was recognised, else the engine builds it.
 */
import { enginePatches } from './switch.js'

/** A function answering a copy of the Common's template for `input`, or what `build` gives. */
export type CopyOrBuild<T, I> = (common: object, input: I, build: () => T) => T

export function copyOrBuild<T, I>(recognise: (template: T) => boolean, copy: (template: T, input: I) => T | undefined): CopyOrBuild<T, I> {
  const templates = new WeakMap<object, { template: T; recognised: boolean }>()
  return (common, input, build) => {
    const known = templates.get(common)
    if (known === undefined) {
      const template = build()
      templates.set(common, { template, recognised: recognise(template) })
      return template
    }
    return (known.recognised && enginePatches.active ? copy(known.template, input) : undefined) ?? build()
  }
}
