/** The start-up text of the `rsksim` CLI, laid out as Ganache prints its own. */
import type { ResolvedOptions } from '../options/index.js'

const WEI_PER_RBTC = 10n ** 18n
const RULE = '=================='

/**
 * Formats a wei amount as RBTC in plain decimal, without trailing zeros.
 *
 * @example
 * ```ts
 * formatRbtc(10n ** 30n)           // '1000000000000'
 * formatRbtc(1500000000000000000n) // '1.5'
 * ```
 */
export function formatRbtc(wei: bigint): string {
  const whole = wei / WEI_PER_RBTC
  const fraction = (wei % WEI_PER_RBTC).toString().padStart(18, '0').replace(/0+$/, '')
  return fraction === '' ? whole.toString() : `${whole}.${fraction}`
}

/** What the banner shows. */
export interface BannerInput {
  version: string
  /** The server's base URL. */
  url: string
  /** API keys, each printed as its own URL. */
  apiKeys?: readonly string[]
  accounts: readonly { address: string; secretKey: string; balance: bigint }[]
  options: Pick<ResolvedOptions, 'network' | 'blockGasLimit' | 'minimumGasPrice' | 'mining' | 'hosted'>
  /** The forked network: its URL as safe to print, and the forked block. */
  fork?: { url: string; number: bigint; hash: string }
  /** The database the chain is kept in, and the head it resumed at (undefined: a new chain was written there). */
  database?: { where: string; resumedAt?: { number: bigint; hash: string } }
}

function section(title: string, lines: readonly string[]): string[] {
  return ['', title, RULE, ...lines]
}

function miningText(mining: ResolvedOptions['mining']): string {
  if (mining.interval > 0) return `a block every ${mining.interval / 1000} s`
  return mining.auto ? 'automine (one block per transaction)' : 'off (mine with evm_mine)'
}

/**
 * The "Listening on" line(s): the base URL, or one URL per API key.
 *
 * @example
 * ```ts
 * listeningLines('http://127.0.0.1:4444', ['k1']) // ['Listening on http://127.0.0.1:4444/k1']
 * ```
 */
export function listeningLines(url: string, apiKeys?: readonly string[]): string[] {
  if (apiKeys === undefined || apiKeys.length === 0) return [`Listening on ${url}`]
  return apiKeys.map((key) => `Listening on ${url}/${encodeURIComponent(key)}`)
}

/**
 * The full start-up text: version, network, accounts with balances, private keys, gas settings, mining mode and
 * the URL to call.
 *
 * @example
 * ```ts
 * process.stdout.write(formatBanner({ version: '0.1.0', url: server.url, accounts: provider.initialAccounts,
 *   options: provider.options }))
 * ```
 */
export function formatBanner(input: BannerInput): string {
  const { network, blockGasLimit, minimumGasPrice, mining, hosted } = input.options
  const lines: string[] = [`rsksim v${input.version}`]
  lines.push(...section('Network', [`${network.name} (chain id ${network.chainId}, network id ${network.networkId})`]))
  if (input.fork !== undefined) lines.push(...section('Fork', [`${input.fork.url} at block ${input.fork.number} (${input.fork.hash})`]))
  if (input.database !== undefined) {
    const { where, resumedAt } = input.database
    lines.push(...section('Database', [resumedAt === undefined ? `${where}: a new chain` : `${where}: resumed at block ${resumedAt.number} (${resumedAt.hash})`]))
  }
  const accounts = input.accounts.map((a, i) => `(${i}) ${a.address} (${formatRbtc(a.balance)} RBTC)`)
  if (hosted) accounts.push('Hosted mode: the node holds no keys (eth_accounts is []); sign transactions locally.')
  lines.push(...section('Available Accounts', accounts))
  lines.push(...section('Private Keys', input.accounts.map((a, i) => `(${i}) ${a.secretKey}`)))
  lines.push(...section('Block Gas Limit', [blockGasLimit.toString()]))
  lines.push(...section('Minimum Gas Price', [`${minimumGasPrice} wei`]))
  lines.push(...section('Mining', [miningText(mining)]))
  lines.push('', ...listeningLines(input.url, input.apiKeys))
  // JSON-RPC over WebSocket on the same port (src/server/ws.ts); hosted mode refuses the upgrade.
  const ws = input.url.replace(/^http/, 'ws')
  if (!hosted) lines.push(`WebSocket on ${ws}${input.apiKeys !== undefined && input.apiKeys.length > 0 ? '/<API_KEY>' : ''}`)
  return `${lines.join('\n')}\n`
}
