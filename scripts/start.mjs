// `npm start`: serve from dist/, building the JavaScript first only when a source file is newer than dist/cli.js.
// Type declarations are not rebuilt here (they take ~20 s and `node` does not read them): `npm run build` makes them.
import { spawnSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

function newestMtime(dir) {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs)
  }
  return newest
}

function mtime(path) {
  try {
    return statSync(path).mtimeMs
  } catch {
    return 0
  }
}

const built = mtime(join(root, 'dist/cli.js'))
const sources = Math.max(newestMtime(join(root, 'src')), mtime(join(root, 'tsup.config.ts')), mtime(join(root, 'package.json')))
if (built < sources) {
  const { build } = await import('tsup')
  // clean: false keeps the declarations an earlier `npm run build` wrote.
  await build({ dts: false, clean: false, silent: true })
}
const run = spawnSync(process.execPath, [join(root, 'dist/cli.js'), ...process.argv.slice(2)], { stdio: 'inherit' })
process.exitCode = run.status ?? 1
