/** Fills every default of `ProviderOptions` and checks the values a user gave. */
import { hexToBytes, isHexString } from '@ethereumjs/util'
import { cowKey } from '../node/accounts.js'
import { isPrivateKey } from '../node/crypto.js'
import { DEFAULTS, NETWORKS, type ForkOptions, type ProviderOptions, type ResolvedFork, type ResolvedOptions } from './index.js'
import { ForkCache } from '../node/fork/cache.js'
import { isForkUrl } from '../node/fork/fork.js'

export function resolveOptions(options: ProviderOptions = {}): ResolvedOptions {
  const network = NETWORKS[options.network ?? DEFAULTS.network]
  if (network === undefined) {
    throw new TypeError(`rsksim: unknown network "${String(options.network)}" (use regtest, mainnet, testnet or devnet)`)
  }
  const defaultBalance = options.defaultBalance ?? DEFAULTS.defaultBalance
  const accounts =
    options.accounts !== undefined
      ? options.accounts.map((a, i) => ({ secretKey: parseKey(a.secretKey, i), balance: parseBalance(a.balance ?? defaultBalance, i) }))
      : Array.from({ length: positiveInt(options.accountCount ?? DEFAULTS.accountCount, 'accountCount', 0) }, (_, i) => ({
          secretKey: cowKey(i),
          balance: defaultBalance,
        }))
  const mining = options.mining ?? {}
  return {
    network,
    accounts,
    blockGasLimit: positiveBig(options.blockGasLimit ?? DEFAULTS.blockGasLimit, 'blockGasLimit'),
    minimumGasPrice: nonNegativeBig(options.minimumGasPrice ?? DEFAULTS.minimumGasPrice, 'minimumGasPrice'),
    genesisTimestamp: nonNegativeBig(options.genesisTimestamp ?? 0n, 'genesisTimestamp'),
    mining: { auto: mining.auto ?? !(mining.interval! > 0), interval: positiveInt(mining.interval ?? 0, 'mining.interval', 0) },
    hosted: options.hosted ?? false,
    maxBatchSize: positiveInt(options.maxBatchSize ?? DEFAULTS.maxBatchSize, 'maxBatchSize', 1),
    logsMaxBlockRange: positiveInt(options.logsMaxBlockRange ?? DEFAULTS.logsMaxBlockRange, 'logsMaxBlockRange', 0),
    logsMaxResults: positiveInt(options.logsMaxResults ?? DEFAULTS.logsMaxResults, 'logsMaxResults', 0),
    filterTimeout: positiveInt(options.filterTimeout ?? DEFAULTS.filterTimeout, 'filterTimeout', 1),
    callGasCap: positiveBig(options.callGasCap ?? DEFAULTS.callGasCap, 'callGasCap'),
    remasc: options.remasc ?? DEFAULTS.remasc,
    ...(options.clientVersion !== undefined ? { clientVersion: nonEmpty(options.clientVersion, 'clientVersion') } : {}),
    ...(options.database !== undefined ? { database: checkDatabase(options.database) } : {}),
    ...(options.stateHistory !== undefined ? { stateHistory: positiveInt(options.stateHistory, 'stateHistory', 1) } : {}),
    rpcTimeout: positiveInt(options.rpcTimeout ?? DEFAULTS.rpcTimeout, 'rpcTimeout', 0),
    gasEstimationCap: positiveBig(options.gasEstimationCap ?? DEFAULTS.gasEstimationCap, 'gasEstimationCap'),
    maxResponseSize: positiveInt(options.maxResponseSize ?? DEFAULTS.maxResponseSize, 'maxResponseSize', 0),
    accountTxRateLimit: options.accountTxRateLimit ?? DEFAULTS.accountTxRateLimit,
    ...(options.fork !== undefined ? { fork: checkFork(options) } : {}),
  }
}

function checkFork(options: ProviderOptions): ResolvedFork {
  const f = options.fork as ForkOptions | null
  if (typeof f !== 'object' || f === null || !isForkUrl(f.url)) {
    throw new TypeError('rsksim: fork.url must be an http:// or https:// URL')
  }
  if (options.network !== undefined) throw new TypeError('rsksim: with fork, the network is the remote\'s: leave network out')
  let blockNumber: bigint | undefined
  if (f.blockNumber !== undefined) {
    const n = typeof f.blockNumber === 'number' && Number.isSafeInteger(f.blockNumber) ? BigInt(f.blockNumber) : f.blockNumber
    if (typeof n !== 'bigint' || n < 0n) throw new TypeError('rsksim: fork.blockNumber must be a non-negative integer')
    blockNumber = n
  }
  const headers: Record<string, string> = {}
  for (const [k, v] of Object.entries(f.headers ?? {})) {
    if (typeof v !== 'string') throw new TypeError(`rsksim: fork.headers.${k} must be a string`)
    headers[k] = v
  }
  const cache = f.cache ?? true
  if (typeof cache !== 'boolean' && (typeof cache !== 'string' || cache.length === 0)) throw new TypeError('rsksim: fork.cache must be true, false or a directory')
  return {
    url: f.url,
    ...(blockNumber !== undefined ? { blockNumber } : {}),
    headers,
    cache: cache === true ? ForkCache.defaultDir() : cache,
    retries: positiveInt(f.retries ?? 5, 'fork.retries', 0),
    timeout: positiveInt(f.timeout ?? 30_000, 'fork.timeout', 1),
    keep: { minimumGasPrice: options.minimumGasPrice !== undefined, blockGasLimit: options.blockGasLimit !== undefined },
  }
}

function parseKey(key: string, i: number): Uint8Array {
  const bytes = isHexString(key) && key.length === 66 ? hexToBytes(key) : undefined
  if (bytes === undefined || !isPrivateKey(bytes)) throw new TypeError(`rsksim: accounts[${i}].secretKey must be a 32-byte 0x-hex private key`)
  return bytes
}

function parseBalance(v: bigint | string, i: number): bigint {
  try {
    const b = BigInt(v)
    if (b >= 0n) return b
  } catch {}
  throw new TypeError(`rsksim: accounts[${i}].balance must be a non-negative integer (wei)`)
}

function positiveInt(v: number, name: string, min: number): number {
  if (!Number.isInteger(v) || v < min) throw new TypeError(`rsksim: ${name} must be an integer ≥ ${min}`)
  return v
}

function nonEmpty(v: string, name: string): string {
  if (typeof v !== 'string' || v.length === 0 || v.length > 256) throw new TypeError(`rsksim: ${name} must be a string of 1 to 256 characters`)
  return v
}

function positiveBig(v: bigint, name: string): bigint {
  if (typeof v !== 'bigint' || v <= 0n) throw new TypeError(`rsksim: ${name} must be a positive bigint`)
  return v
}

function nonNegativeBig(v: bigint, name: string): bigint {
  if (typeof v !== 'bigint' || v < 0n) throw new TypeError(`rsksim: ${name} must be a non-negative bigint`)
  return v
}

function checkDatabase(d: unknown): NonNullable<ResolvedOptions['database']> {
  const db = d as { path?: unknown; level?: unknown } | null
  if (typeof db !== 'object' || db === null) throw new TypeError('rsksim: database must be { path } or { level }')
  if ((db.path === undefined) === (db.level === undefined)) throw new TypeError('rsksim: database takes either path or level')
  if (db.path !== undefined && (typeof db.path !== 'string' || db.path === '')) throw new TypeError('rsksim: database.path must be a directory path')
  if (db.level !== undefined && (typeof db.level !== 'object' || db.level === null || typeof (db.level as { batch?: unknown }).batch !== 'function')) {
    throw new TypeError('rsksim: database.level must be an abstract-level store (e.g. new MemoryLevel())')
  }
  return db as NonNullable<ResolvedOptions['database']>
}
