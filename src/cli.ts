#!/usr/bin/env node
/**
 * The `rsksim` bin (built to `dist/cli.js`). All logic is in `src/server/cliMain.ts`; this file only connects it to
 * the process: argv, stdout/stderr, the exit code, and SIGINT/SIGTERM, which close the server and exit 0.
 *
 * On Node 22.1 and later it first turns on Node's module compile cache (`module.enableCompileCache`, as the
 * TypeScript compiler's CLI does), so that a second start reads the compiled bundle from the cache instead of
 * compiling it again (docs/performance.md, sixteenth round). The cache is Node's own, in its default directory
 * under the system's temporary one; `NODE_DISABLE_COMPILE_CACHE=1` turns it off. Node 20 has no such cache: the
 * call is skipped. The rest of the CLI is imported after it, so that the cache covers it.
 */
import module from 'node:module'

;(module as { enableCompileCache?: () => unknown }).enableCompileCache?.()
const { runCli } = await import('./server/cliMain.js')

const result = await runCli(process.argv.slice(2), process)
if (result.kind === 'exit') {
  // exitCode rather than exit(): lets stdout drain when it is a pipe.
  process.exitCode = result.exitCode
} else {
  const { server } = result
  const stop = (): void => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}
