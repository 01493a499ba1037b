/** rsksim's version: read once from its own package.json, so there is one place to change it. */
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * Finds rsksim's package.json by walking up from `fromUrl` (this module's URL by default) and returns its
 * `version`. Walking up works both from `src/` (tests) and from `dist/` (the built package).
 * Returns `'0.0.0-unknown'` when no package.json named `rsksim` is found.
 *
 * @example
 * ```ts
 * readPackageVersion() // '0.1.0'
 * ```
 */
export function readPackageVersion(fromUrl: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(fromUrl))
  for (;;) {
    try {
      const pkg: unknown = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
      if (typeof pkg === 'object' && pkg !== null && 'name' in pkg && pkg.name === 'rsksim' && 'version' in pkg) {
        if (typeof pkg.version === 'string') return pkg.version
      }
    } catch {
      // no (readable) package.json here: keep walking up
    }
    const parent = dirname(dir)
    if (parent === dir) return '0.0.0-unknown'
    dir = parent
  }
}

/** rsksim's version (`package.json` `version`). */
export const VERSION: string = readPackageVersion()
