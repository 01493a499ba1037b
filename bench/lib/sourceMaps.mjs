// Profile frames mapped back to their sources through dist's source maps (node:module SourceMap): the bundle is
// built without whitespace (src/node/enginePatches/bundle.ts), so a line of dist says little by itself.
import { existsSync, readFileSync } from 'node:fs'
import { SourceMap } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** Source maps of dist files, loaded once. */
const maps = new Map()
function mapOf(file) {
  if (!maps.has(file)) maps.set(file, existsSync(file + '.map') ? new SourceMap(JSON.parse(readFileSync(file + '.map', 'utf8'))) : null)
  return maps.get(file)
}

/**
 * A profile frame's original place (`{ url, lineNumber, columnNumber }`, 0-based, as CPU and heap profiles give them):
 * `{ url, line }` with the url of the source file when the frame is in `repoDir`'s dist, else the frame's own.
 */
export function originalPlace(frame, repoDir) {
  if (!frame.url.startsWith('file://')) return { url: frame.url, line: frame.lineNumber }
  const file = fileURLToPath(frame.url)
  const map = file.startsWith(path.join(repoDir, 'dist')) ? mapOf(file) : null
  const entry = map?.findEntry(frame.lineNumber, frame.columnNumber)
  if (!entry?.originalSource) return { url: frame.url, line: frame.lineNumber }
  const source = entry.originalSource.startsWith('file://') ? fileURLToPath(entry.originalSource) : path.resolve(path.dirname(file), entry.originalSource)
  return { url: 'file://' + source, line: entry.originalLine }
}
