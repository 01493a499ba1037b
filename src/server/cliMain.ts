/**
 * The logic of the `rsksim` bin, as a function that tests can call in process: parse the flags, start the server,
 * print the banner. `src/cli.ts` only wires it to `process` (argv, stdout, signals, exit code).
 */
import { formatBanner, listeningLines } from './banner.js'
import { CliUsageError, parseCli, USAGE } from './cliArgs.js'
import { startServer, type RsksimServer } from './index.js'
import { VERSION } from '../version.js'

/** Where the CLI writes; `process` fits, and so does any object with two `write(string)` methods. */
export interface CliIo {
  stdout: { write(chunk: string): unknown }
  stderr: { write(chunk: string): unknown }
}

/** How `runCli` ended: a server now serving, or an exit code (0 for --help/--version, 2 bad flags, 1 start failure). */
export type CliResult = { kind: 'serving'; server: RsksimServer } | { kind: 'exit'; exitCode: number }

/** Exit code for a bad command line (like most Unix tools). */
export const EXIT_USAGE = 2
/** Exit code when the server cannot start (e.g. the port is in use). */
export const EXIT_START_FAILED = 1

/**
 * Runs the rsksim command line: `argv` without `node` and the script path. Resolves to the running server (the
 * caller closes it), or to an exit code after printing help, the version or an error.
 *
 * @example
 * ```ts
 * const result = await runCli(['--port', '0', '--quiet'], process)
 * if (result.kind === 'serving') {
 *   console.log(result.server.url)
 *   await result.server.close()
 * }
 * ```
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<CliResult> {
  let command
  try {
    command = parseCli(argv)
  } catch (e) {
    if (!(e instanceof CliUsageError)) throw e
    io.stderr.write(`rsksim: ${e.message}\nRun "rsksim --help" for the list of options.\n`)
    return { kind: 'exit', exitCode: EXIT_USAGE }
  }
  const version = VERSION
  if (command.kind === 'help') {
    io.stdout.write(`rsksim v${version}\n\n${USAGE}`)
    return { kind: 'exit', exitCode: 0 }
  }
  if (command.kind === 'version') {
    io.stdout.write(`${version}\n`)
    return { kind: 'exit', exitCode: 0 }
  }

  let server: RsksimServer
  try {
    server = await startServer(command.options)
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e)
    io.stderr.write(`${message.startsWith('rsksim:') ? message : `rsksim: ${message}`}\n`)
    return { kind: 'exit', exitCode: EXIT_START_FAILED }
  }

  const apiKeys = command.options.apiKeys
  if (command.quiet) {
    io.stdout.write(`${listeningLines(server.baseUrl, apiKeys).join('\n')}\n`)
  } else {
    const { initialAccounts, options } = server.provider
    const fork = server.provider.node.fork
    const forked = fork === undefined ? {} : { fork: { url: fork.remote.url, number: fork.number, hash: fork.block.hashHex } }
    const database = server.provider.node.database
    io.stdout.write(formatBanner({ version, url: server.baseUrl, accounts: initialAccounts, options, ...forked, ...(database !== undefined ? { database } : {}), ...(apiKeys ? { apiKeys } : {}) }))
    // console.log of contracts, as Hardhat's and Anvil's nodes print it (--quiet silences it).
    server.provider.on('console', ({ message, transactionHash }) => {
      io.stdout.write(`console.log${transactionHash === null ? ' (eth_call)' : ` (${transactionHash})`}: ${message}
`)
    })
  }
  return { kind: 'serving', server }
}
