/**
 * Command-line flags of the `rsksim` bin, parsed with node:util `parseArgs` into `ServerOptions`.
 * Every flag maps to one `ProviderOptions` / `ServerOptions` member; defaults live in `src/options` and
 * `src/server/index.ts`, not here.
 */
import { parseArgs } from 'node:util'
import { NETWORKS, type ForkOptions, type GenesisAccount, type NetworkName } from '../options/index.js'
import type { ServerOptions } from './index.js'
import { isForkUrl } from '../node/fork/fork.js'

/** A bad command line: the CLI prints the message and exits with code 2. */
export class CliUsageError extends Error {
  override readonly name = 'CliUsageError'
}

/** What the command line asks for. */
export type CliCommand =
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'serve'; options: ServerOptions; quiet: boolean }

const FLAGS = {
  port: { type: 'string', short: 'p' },
  host: { type: 'string', short: 'h' },
  network: { type: 'string', short: 'n' },
  'api-key': { type: 'string', short: 'k', multiple: true },
  accounts: { type: 'string', short: 'a' },
  account: { type: 'string', multiple: true },
  balance: { type: 'string' },
  'block-gas-limit': { type: 'string', short: 'l' },
  'min-gas-price': { type: 'string', short: 'g' },
  'block-time': { type: 'string', short: 'b' },
  'no-mining': { type: 'boolean' },
  'genesis-timestamp': { type: 'string' },
  'max-batch-size': { type: 'string' },
  'logs-max-block-range': { type: 'string' },
  'logs-max-results': { type: 'string' },
  'filter-timeout': { type: 'string' },
  'call-gas-cap': { type: 'string' },
  'rpc-timeout': { type: 'string' },
  'client-version': { type: 'string' },
  state: { type: 'string' },
  'load-state': { type: 'string' },
  'dump-state': { type: 'string' },
  'state-interval': { type: 'string' },
  db: { type: 'string' },
  'state-history': { type: 'string' },
  'gas-estimation-cap': { type: 'string' },
  'max-response-size': { type: 'string' },
  'max-body-bytes': { type: 'string' },
  'no-keep-alive': { type: 'boolean' },
  'allow-host': { type: 'string', multiple: true },
  'allow-origin': { type: 'string', multiple: true },
  'max-connections': { type: 'string' },
  'idle-timeout': { type: 'string' },
  'max-pending-reply-bytes': { type: 'string' },
  hosted: { type: 'boolean' },
  'no-remasc': { type: 'boolean' },
  'no-tx-rate-limit': { type: 'boolean' },
  'fork-url': { type: 'string', short: 'f' },
  'fork-block-number': { type: 'string' },
  'fork-header': { type: 'string', multiple: true },
  'no-fork-cache': { type: 'boolean' },
  'fork-cache-dir': { type: 'string' },
  'fork-retries': { type: 'string' },
  'fork-timeout': { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean' },
  version: { type: 'boolean' },
} as const

/** The `--help` text. */
export const USAGE = `Usage: rsksim [options]

Simulates a Rootstock (RSK) JSON-RPC node over HTTP (POST /<API_KEY>).

Server:
  -p, --port <n>               TCP port (default 4444; 0 = any free port)
  -h, --host <addr>            interface to bind (default 127.0.0.1)
  -k, --api-key <key>          accept only POST /<key>; repeatable (default: any path)
      --max-body-bytes <n>     largest request body (default 5242880)
      --no-keep-alive          send "Connection: close" after every reply, as RSKj does
      --allow-host <name>      also accept this name in the Host header ("*" = any); repeatable
                               (default: IP addresses, localhost and the bound host only)
      --allow-origin <origin>  let pages of this origin call wallet methods ("*" = any); repeatable
                               (default: localhost pages and non-browser clients only)
      --max-connections <n>    most open connections (default 1000)
      --idle-timeout <ms>      close a connection idle this long (default 10000)
      --max-pending-reply-bytes <n>
                               most reply bytes not yet taken by clients, all connections together;
                               past it the clients that do not read are cut, 0 = off (default 268435456)
Chain:
  -n, --network <name>         regtest | mainnet | testnet | devnet (default regtest, chain id 33)
  -a, --accounts <n>           number of default "cow" accounts (default 10)
      --account <key,wei>      genesis account: 0x private key and balance in wei; repeatable,
                               replaces the default accounts (balance may be omitted)
      --balance <rbtc>         balance of each default account in RBTC (default 1000000000000)
  -l, --block-gas-limit <gas>  block gas limit (default 10000000)
  -g, --min-gas-price <wei>    minimum gas price of every block (default 0)
      --genesis-timestamp <s>  genesis timestamp in seconds (default 0, as RSKj regtest)
Mining:
  -b, --block-time <s>         mine a block every <s> seconds (default 0 = automine)
      --no-mining              no automine: transactions wait for evm_mine
Limits:
      --max-batch-size <n>     most requests per batch (default 50)
      --logs-max-block-range <n>  eth_getLogs block range limit, 0 = off (default 2000)
      --logs-max-results <n>   eth_getLogs result cap, 0 = off (default 10000)
      --filter-timeout <ms>    idle time before a polling filter is removed (default 300000)
      --call-gas-cap <gas>     gas of an eth_call that names none; an eth_simulateV1's, all calls (default 10000000)
      --rpc-timeout <ms>       longest a request may run, 0 = off (default 5000)
      --gas-estimation-cap <gas>  most gas eth_estimateGas simulates with (default 6800000)
      --max-response-size <n>  largest reply in bytes, 0 = off (default 10485760)
Database (the chain survives restarts; docs/persistence.md):
      --db <dir>               keep the chain in <dir> (LevelDB, created when missing); a restart on
                               the same <dir> resumes at the same head (with --fork-url, at the same fork)
      --state-history <n>      keep the state of the last <n> blocks only (older ones are released
                               from memory; reads there answer "State not found")
Fork (read a live network's state lazily and build on it; docs/forking.md):
  -f, --fork-url <url>         the remote's JSON-RPC URL (path segments that look like an API key are
                               never printed); chain id, network, gas limit and minimum gas price
                               come from it
      --fork-block-number <n>  the block to fork at (default: the remote's latest minus 4)
      --fork-header <k:v>      HTTP header sent to the remote; repeatable
      --no-fork-cache          do not keep what was read on disk (default: ~/.cache/rsksim/fork)
      --fork-cache-dir <dir>   keep it in <dir> instead
      --fork-retries <n>       retries of a failed request to the remote (default 5)
      --fork-timeout <ms>      time one request to the remote may take (default 30000)
State files (JSON, as provider.dumpState() writes them):
      --state <file>           load <file> at start if it exists, write it on exit
      --load-state <file>      load <file> at start
      --dump-state <file>      write the state to <file> on exit
      --state-interval <s>     also write it every <s> seconds
Other:
      --hosted                 behave as the hosted service: no keys held, eth_accounts is [],
                               every extension (anvil_*, hardhat_*, signing, …) answers -32601
      --client-version <text>  what web3_clientVersion answers (default RskJ/9.0.3/<os>/Node<n>/RSKSIM-<v>)
      --no-remasc              mine blocks without the REMASC system transaction (fees go to the coinbase)
      --no-tx-rate-limit       turn off RSKj's per-account transaction quota (account exceeds quota)
  -q, --quiet                  print only the "Listening on" line
      --help                   show this help
      --version                show the version
`

/** The --fork-* flags as `fork` options; undefined without --fork-url. */
function forkOptions(v: ReturnType<typeof parseFlags>): ForkOptions | undefined {
  const url = v['fork-url']
  const others = ['fork-block-number', 'fork-header', 'no-fork-cache', 'fork-cache-dir', 'fork-retries', 'fork-timeout'] as const
  if (url === undefined) {
    const stray = others.find((f) => v[f] !== undefined)
    if (stray !== undefined) throw new CliUsageError(`--${stray} needs --fork-url`)
    return undefined
  }
  if (!isForkUrl(url)) throw new CliUsageError('--fork-url: expected an http:// or https:// URL')
  if (v.network !== undefined) throw new CliUsageError('--fork-url and --network cannot be combined: the network is the remote\'s')
  const fork: ForkOptions = { url }
  if (v['fork-block-number'] !== undefined) fork.blockNumber = bigQuantity('fork-block-number', v['fork-block-number'])
  if (v['fork-header'] !== undefined) {
    fork.headers = {}
    for (const h of v['fork-header']) {
      const colon = h.indexOf(':')
      if (colon <= 0) throw new CliUsageError(`--fork-header: expected name:value, got "${h}"`)
      fork.headers[h.slice(0, colon).trim()] = h.slice(colon + 1).trim()
    }
  }
  if (v['no-fork-cache'] === true && v['fork-cache-dir'] !== undefined) throw new CliUsageError('--no-fork-cache and --fork-cache-dir cannot be combined')
  if (v['no-fork-cache'] === true) fork.cache = false
  if (v['fork-cache-dir'] !== undefined) fork.cache = v['fork-cache-dir']
  if (v['fork-retries'] !== undefined) fork.retries = integer('fork-retries', v['fork-retries'], 0, 100)
  if (v['fork-timeout'] !== undefined) fork.timeout = integer('fork-timeout', v['fork-timeout'], 1)
  return fork
}

function integer(flag: string, text: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(text)) throw new CliUsageError(`--${flag}: expected a whole number, got "${text}"`)
  const n = Number(text)
  if (n < min || n > max) throw new CliUsageError(`--${flag}: must be between ${min} and ${max}, got ${text}`)
  return n
}

function bigQuantity(flag: string, text: string): bigint {
  if (!/^(\d+|0x[0-9a-fA-F]+)$/.test(text)) throw new CliUsageError(`--${flag}: expected a decimal or 0x hex number, got "${text}"`)
  return BigInt(text)
}

/**
 * Parses a decimal amount of RBTC (up to 18 decimals) into wei.
 *
 * @example
 * ```ts
 * rbtcToWei('1.5') // 1500000000000000000n
 * ```
 */
export function rbtcToWei(text: string, flag = 'balance'): bigint {
  const m = /^(\d+)(?:\.(\d{1,18}))?$/.exec(text)
  if (m === null) throw new CliUsageError(`--${flag}: expected an amount of RBTC such as 100 or 0.5, got "${text}"`)
  const whole = m[1] ?? '0'
  const fraction = (m[2] ?? '').padEnd(18, '0')
  return BigInt(whole) * 10n ** 18n + BigInt(fraction)
}

function genesisAccount(text: string): GenesisAccount {
  const [rawKey = '', balance, ...rest] = text.split(',').map((s) => s.trim())
  const key = rawKey.startsWith('0x') || rawKey.startsWith('0X') ? rawKey.slice(2) : rawKey
  if (rest.length > 0 || !/^[0-9a-fA-F]{64}$/.test(key)) {
    throw new CliUsageError(`--account: expected <privateKey,balanceWei> with a 32-byte hex key, got "${text}"`)
  }
  const account: GenesisAccount = { secretKey: `0x${key.toLowerCase()}` }
  if (balance !== undefined && balance !== '') account.balance = bigQuantity('account', balance)
  return account
}

function stateFiles(path?: string, load?: string, dump?: string, interval?: string): ServerOptions['state'] {
  if (path === undefined && load === undefined && dump === undefined && interval === undefined) return undefined
  for (const [flag, v] of [['state', path], ['load-state', load], ['dump-state', dump]] as const) {
    if (v === '') throw new CliUsageError(`--${flag}: expected a file name`)
  }
  if (path !== undefined && (load !== undefined || dump !== undefined)) throw new CliUsageError('--state cannot be combined with --load-state or --dump-state')
  const out: NonNullable<ServerOptions['state']> = {}
  if (path !== undefined) out.path = path
  if (load !== undefined) out.load = load
  if (dump !== undefined) out.dump = dump
  if (interval !== undefined) {
    if (path === undefined && dump === undefined) throw new CliUsageError('--state-interval needs --state or --dump-state')
    out.interval = integer('state-interval', interval, 1)
  }
  return out
}

function parseFlags(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], options: FLAGS, strict: true, allowPositionals: false }).values
  } catch (e) {
    throw new CliUsageError(e instanceof Error ? e.message : String(e))
  }
}

function isNetwork(name: string): name is NetworkName {
  return Object.hasOwn(NETWORKS, name)
}

/**
 * Parses the rsksim command line (without `node` and the script path).
 * Throws `CliUsageError` on an unknown flag, a missing value or a bad value.
 *
 * @example
 * ```ts
 * parseCli(['--port', '0', '-k', 'secret'])
 * // { kind: 'serve', quiet: false, options: { port: 0, apiKeys: ['secret'] } }
 * ```
 */
export function parseCli(argv: readonly string[]): CliCommand {
  const v = parseFlags(argv)
  if (v.help === true) return { kind: 'help' }
  if (v.version === true) return { kind: 'version' }

  const options: ServerOptions = {}
  if (v.port !== undefined) options.port = integer('port', v.port, 0, 65535)
  if (v.host !== undefined) {
    if (v.host === '') throw new CliUsageError('--host: must not be empty')
    options.host = v.host
  }
  if (v.network !== undefined) {
    if (!isNetwork(v.network)) throw new CliUsageError(`--network: expected one of ${Object.keys(NETWORKS).join(', ')}, got "${v.network}"`)
    options.network = v.network
  }
  if (v['api-key'] !== undefined) {
    for (const key of v['api-key']) {
      if (key === '' || key.includes('/')) throw new CliUsageError(`--api-key: must be non-empty and contain no "/", got "${key}"`)
    }
    options.apiKeys = v['api-key']
  }
  if (v.accounts !== undefined) options.accountCount = integer('accounts', v.accounts, 1)
  if (v.account !== undefined) {
    if (v.accounts !== undefined) throw new CliUsageError('--accounts and --account cannot be combined')
    options.accounts = v.account.map(genesisAccount)
  }
  if (v.balance !== undefined) options.defaultBalance = rbtcToWei(v.balance)
  if (v['block-gas-limit'] !== undefined) options.blockGasLimit = bigQuantity('block-gas-limit', v['block-gas-limit'])
  if (v['min-gas-price'] !== undefined) options.minimumGasPrice = bigQuantity('min-gas-price', v['min-gas-price'])
  if (v['genesis-timestamp'] !== undefined) options.genesisTimestamp = bigQuantity('genesis-timestamp', v['genesis-timestamp'])
  if (v['call-gas-cap'] !== undefined) options.callGasCap = bigQuantity('call-gas-cap', v['call-gas-cap'])
  const state = stateFiles(v.state, v['load-state'], v['dump-state'], v['state-interval'])
  if (state !== undefined) options.state = state
  if (v['state-history'] !== undefined) options.stateHistory = integer('state-history', v['state-history'], 1)
  if (v.db !== undefined) {
    if (v.db === '') throw new CliUsageError('--db: needs a directory')
    options.database = { path: v.db }
  }
  if (v['client-version'] !== undefined) {
    if (v['client-version'] === '') throw new CliUsageError('--client-version: must not be empty')
    options.clientVersion = v['client-version']
  }
  if (v['rpc-timeout'] !== undefined) options.rpcTimeout = integer('rpc-timeout', v['rpc-timeout'], 0)
  if (v['gas-estimation-cap'] !== undefined) options.gasEstimationCap = bigQuantity('gas-estimation-cap', v['gas-estimation-cap'])
  if (v['max-response-size'] !== undefined) options.maxResponseSize = integer('max-response-size', v['max-response-size'], 0)
  if (v['max-batch-size'] !== undefined) options.maxBatchSize = integer('max-batch-size', v['max-batch-size'], 1)
  if (v['logs-max-block-range'] !== undefined) options.logsMaxBlockRange = integer('logs-max-block-range', v['logs-max-block-range'], 0)
  if (v['logs-max-results'] !== undefined) options.logsMaxResults = integer('logs-max-results', v['logs-max-results'], 0)
  if (v['filter-timeout'] !== undefined) options.filterTimeout = integer('filter-timeout', v['filter-timeout'], 1)
  if (v['max-body-bytes'] !== undefined) options.maxBodyBytes = integer('max-body-bytes', v['max-body-bytes'], 1)
  if (v['no-keep-alive'] === true) options.keepAlive = false
  if (v['allow-host'] !== undefined) options.allowedHosts = v['allow-host'].includes('*') ? '*' : v['allow-host']
  if (v['allow-origin'] !== undefined) options.allowedOrigins = v['allow-origin'].includes('*') ? '*' : v['allow-origin']
  if (v['max-connections'] !== undefined) options.maxConnections = integer('max-connections', v['max-connections'], 1)
  if (v['idle-timeout'] !== undefined) options.idleTimeout = integer('idle-timeout', v['idle-timeout'], 1)
  if (v['max-pending-reply-bytes'] !== undefined) options.maxPendingReplyBytes = integer('max-pending-reply-bytes', v['max-pending-reply-bytes'], 0)
  if (v.hosted === true) options.hosted = true
  if (v['no-remasc'] === true) options.remasc = false
  if (v['no-tx-rate-limit'] === true) options.accountTxRateLimit = false
  const fork = forkOptions(v)
  if (fork !== undefined) options.fork = fork

  const blockTime = v['block-time']
  if (blockTime !== undefined) {
    if (!/^\d+(\.\d+)?$/.test(blockTime)) throw new CliUsageError(`--block-time: expected seconds such as 1 or 0.5, got "${blockTime}"`)
    const interval = Math.round(Number(blockTime) * 1000)
    if (interval > 0 && v['no-mining'] === true) throw new CliUsageError('--block-time and --no-mining cannot be combined')
    if (interval > 0) options.mining = { auto: false, interval }
  }
  if (v['no-mining'] === true) options.mining = { auto: false, interval: 0 }

  return { kind: 'serve', options, quiet: v.quiet === true }
}
