#!/usr/bin/env node
/**
 * The `rsksim` bin (built to `dist/cli.js`). All logic is in `src/server/cliMain.ts`; this file only connects it to
 * the process: argv, stdout/stderr, the exit code, and SIGINT/SIGTERM, which close the server and exit 0.
 */
import { runCli } from './server/cliMain.js'

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
