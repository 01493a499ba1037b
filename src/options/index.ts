/**
 * Every option of rsksim and its default, written once. `resolveOptions` fills the defaults; the rest of
 * the code only ever sees a `ResolvedOptions`.
 */

import type { ForkConfig } from '../node/fork/fork.js'
import type { LevelLike } from '../node/persist/database.js'

/** The networks of the Rootstock family (spec "What the service does", reference §7.1). */
export type NetworkName = 'regtest' | 'mainnet' | 'testnet' | 'devnet'

export interface NetworkProfile {
  name: NetworkName
  /** Chain id used for EIP-155 signing and answered by `eth_chainId`. */
  chainId: bigint
  /** Network id answered by `net_version`. */
  networkId: string
}

/** Chain and network ids per network: RSKj `Constants.java` (mainnet 30, testnet 31, devnet 32, regtest 33). */
export const NETWORKS: Record<NetworkName, NetworkProfile> = {
  mainnet: { name: 'mainnet', chainId: 30n, networkId: '30' },
  testnet: { name: 'testnet', chainId: 31n, networkId: '31' },
  devnet: { name: 'devnet', chainId: 32n, networkId: '32' },
  regtest: { name: 'regtest', chainId: 33n, networkId: '33' },
}

/** A pre-funded account of the genesis block. */
export interface GenesisAccount {
  /** 32-byte private key as `0x` hex. */
  secretKey: string
  /** Balance in wei (bigint, or a decimal / `0x` hex string). Default: `defaultBalance`. */
  balance?: bigint | string
}

export interface MiningOptions {
  /**
   * Mine each accepted transaction at once, in its own block (default true). When false and no `interval`
   * is set, transactions wait in the pool until `evm_mine` or `evm_startMining`.
   */
  auto?: boolean
  /** Mine a block every `interval` milliseconds (0 = off, default). */
  interval?: number
}

export interface ProviderOptions {
  /** Which network to simulate. Default `regtest` (chain id 33, `net_version` "33"). */
  network?: NetworkName
  /**
   * Genesis accounts. Default: the ten regtest `cow` accounts of RSKj (keys keccak256("cow"), keccak256("cow1"), …),
   * each with `defaultBalance`, all unlocked (reference §7.2).
   */
  accounts?: GenesisAccount[]
  /** Number of `cow` accounts to create when `accounts` is not given (1 to 10 use RSKj's seeds; more continue the series). Default 10. */
  accountCount?: number
  /** Balance of each default account in wei. Default 10^30 (10^12 RBTC). */
  defaultBalance?: bigint
  /** Gas limit of every block. Default 10,000,000 (regtest genesis `0x989680`). */
  blockGasLimit?: bigint
  /** `minimumGasPrice` of every block, in wei. Transactions priced lower are refused. Default 0. */
  minimumGasPrice?: bigint
  /** Genesis timestamp in seconds. Default 0, as RSKj's regtest genesis (`genesis/rsk-dev.json`: `"timestamp": "0x00"`). */
  genesisTimestamp?: bigint
  /** Mining mode. Default: automine. */
  mining?: MiningOptions
  /** Behave as the hosted service: no keys held, `eth_accounts` is `[]`, wallet methods refused. Default false. */
  hosted?: boolean
  /** Most requests in one batch (RSKj `max_batch_requests_size`). Default 50. */
  maxBatchSize?: number
  /** `eth_getLogs` block range limit (0 = off). Default 2,000 (spec "Limits"). */
  logsMaxBlockRange?: number
  /** `eth_getLogs` result cap (0 = off). Default 10,000 (spec "Limits"). */
  logsMaxResults?: number
  /** Idle time after which a polling filter is removed, in ms. Default 5 minutes (RSKj `FilterManager`). */
  filterTimeout?: number
  /**
   * Gas given to `eth_call` when the call names none, and most it runs with (RSKj `rpc.callGasCap`); also the gas of
   * a whole `eth_simulateV1` request, all its calls together (geth's RPC gas cap there). Default 10,000,000.
   */
  callGasCap?: bigint
  /**
   * What `web3_clientVersion` answers instead of `RskJ/<RSKj version>/<os>/Node<n>/RSKSIM-<version>`. Hardhat's
   * network helpers accept only nodes whose version starts with `HardhatNetwork`, `anvil` or `zksync`: the Hardhat
   * integration sets `HardhatNetwork/rsksim/<version>` (src/integrations/hardhat/shared.ts). Never changed by default:
   * RSK tools detect RSKj by `RskJ/`.
   */
  clientVersion?: string
  /**
   * Longest a request may run, in ms (RSKj `rpc.timeout`, reference §1.1); 0 = no limit. A request past it is
   * stopped (EVM execution, tracing and replays check the deadline) and answered -32011 `Execution has got
   * timeout out.` — bare, without `jsonrpc`/`id`, as RSKj answers it. Block building is never stopped. Default 5,000.
   */
  rpcTimeout?: number
  /**
   * Most gas `eth_estimateGas` simulates with when the call names a gas limit (RSKj `rpc.gasEstimationCap`,
   * reference §5.2). Without one, the upper bound is the block gas limit (spec "Transaction call object").
   * Default 6,800,000.
   */
  gasEstimationCap?: bigint
  /**
   * Largest reply in bytes of serialised JSON (RSKj `rpc.maxResponseSize`, reference §1.1); 0 = no limit. Tracers
   * stop collecting as soon as their reply would pass it; a larger reply is answered -32011 `Response size limit
   * of N bytes exceeded`. Default 10 MiB (10,485,760).
   */
  maxResponseSize?: number
  /**
   * End every mined block with the REMASC system transaction and send fees to the REMASC contract, which pays the
   * miner after maturity (10 blocks on regtest), as RSKj does. `false` omits the transaction and pays fees to the
   * coinbase at once (like RSKj's `rpc.skipRemasc` for the listing, plus Ganache-style fees). Default true.
   *
   * @example
   * ```ts
   * const provider = await createProvider({ remasc: false }) // one transaction per automined block
   * ```
   */
  remasc?: boolean
  /**
   * RSKj's per-account transaction rate limit (`transaction.accountTxRateLimit.enabled`, on by default in RSKj and
   * on regtest): each transaction entering the pending set costs its sender "virtual gas" (gas limit times factors
   * for nonce, size, gas limit share, replacement), refilled at 90 % of the block gas limit per second of the
   * node's clock, up to 2,000 seconds' worth. A sender short of it is refused with -32010 `account exceeds quota`;
   * `evm_increaseTime` refills. `debug_accountTransactionQuota` shows the quota. `false` turns the limit off, as
   * the RSKj setting does. Default true (docs/modules/tx-quota.md).
   *
   * @example
   * ```ts
   * const provider = await createProvider({ accountTxRateLimit: false }) // send as fast as the test wants
   * ```
   */
  accountTxRateLimit?: boolean
  /**
   * Keep the chain in a database so that it survives restarts (docs/persistence.md): blocks, receipts, logs, the
   * state and every historical state, the pool, the clock, dev-chain settings and passphrase-sealed keys, written
   * as one batch after every request before it is answered. `path`: a directory (LevelDB through the optional
   * `classic-level` package; created when missing). `level`: an abstract-level store you open and close yourself
   * (e.g. `new MemoryLevel()` from memory-level, to restart a node in process). Reopening resumes at the same head;
   * the genesis options are then ignored, and a database made for another chain id is refused. Default: none
   * (everything in memory).
   *
   * @example
   * ```ts
   * const provider = await createProvider({ database: { path: './chain' } })
   * await provider.disconnect() // writes the last changes and releases the directory
   * ```
   */
  database?: DatabaseOptions
  /**
   * Keep the state of the last `stateHistory` blocks only (at least that many; up to 1.25 times as many), for long
   * runs: older states are released from memory (with a database they stay on disk and readable). Reads at a
   * released block (`eth_getBalance` at a number, `eth_call`, `eth_getProof`, traces) answer RSKj's -32600
   * `State not found for block with hash …`. Snapshot states and genesis are always kept. Blocks, receipts and logs
   * are all kept. Default: every state (docs/state-layer.md).
   */
  stateHistory?: number
  /**
   * Fork a live network (docs/forking.md): the remote node's state at a block is read lazily, on first touch, and
   * rsksim's own blocks build on that block. Chain id, network id, minimum gas price and block gas limit come from
   * the remote (give `minimumGasPrice` or `blockGasLimit` to set your own); the funded accounts get their balance
   * over the remote's. Not with `database` or `network`.
   *
   * @example
   * ```ts
   * const provider = await createProvider({ fork: { url: 'https://public-node.testnet.rsk.co', blockNumber: 6_000_000 } })
   * ```
   */
  fork?: ForkOptions
}

/** The remote node a fork reads from. */
export interface ForkOptions {
  /**
   * JSON-RPC over HTTP(S). The hosted service's form with the API key in the path works; a path segment that looks like
   * a key (16+ characters of [A-Za-z0-9_-], or 12+ with letters and digits), query values and `user:password@` are
   * never printed (`redactUrl`, src/node/fork/remote.ts).
   */
  url: string
  /** The block to fork at. Default: the remote's latest block minus 4 (a short reorganisation does not move it). */
  blockNumber?: number | bigint
  /** HTTP headers sent with every request to the remote (e.g. `{ authorization: 'Bearer …' }`). */
  headers?: Record<string, string>
  /**
   * Keep what was read from the remote on disk, per chain id and forked block, so the next run starts warm: true
   * (default: `$RSKSIM_FORK_CACHE`, else `$XDG_CACHE_HOME/rsksim/fork`, else `~/.cache/rsksim/fork`), a directory, or
   * false.
   */
  cache?: boolean | string
  /** Retries of a failed request to the remote (HTTP 429, 5xx, timeouts, network errors), with backoff. Default 5. */
  retries?: number
  /** Milliseconds one HTTP request to the remote may take before it is retried. Default 30,000. */
  timeout?: number
}

/** Where `database` keeps the chain: give one of the two. */
export interface DatabaseOptions {
  /** A directory (LevelDB, through the optional `classic-level` package). */
  path?: string
  /** An open or closed abstract-level store with Uint8Array keys and values ('view' encodings are asked per call). */
  level?: LevelLike
}

export interface ResolvedOptions {
  network: NetworkProfile
  accounts: { secretKey: Uint8Array; balance: bigint }[]
  blockGasLimit: bigint
  minimumGasPrice: bigint
  genesisTimestamp: bigint
  mining: { auto: boolean; interval: number }
  hosted: boolean
  maxBatchSize: number
  logsMaxBlockRange: number
  logsMaxResults: number
  filterTimeout: number
  callGasCap: bigint
  remasc: boolean
  clientVersion?: string
  rpcTimeout: number
  gasEstimationCap: bigint
  maxResponseSize: number
  accountTxRateLimit: boolean
  database?: DatabaseOptions
  stateHistory?: number
  fork?: ResolvedFork
}

/** `fork`, checked, with what the remote must not override. */
export interface ResolvedFork extends ForkConfig {
  /** Whether the user gave `minimumGasPrice` / `blockGasLimit` (else the forked block's are used). */
  keep: { minimumGasPrice: boolean; blockGasLimit: boolean }
}

export const DEFAULTS = {
  network: 'regtest' as NetworkName,
  accountCount: 10,
  defaultBalance: 10n ** 30n,
  blockGasLimit: 10_000_000n,
  minimumGasPrice: 0n,
  maxBatchSize: 50,
  logsMaxBlockRange: 2_000,
  logsMaxResults: 10_000,
  filterTimeout: 5 * 60_000,
  callGasCap: 10_000_000n,
  remasc: true,
  rpcTimeout: 5_000,
  gasEstimationCap: 6_800_000n,
  maxResponseSize: 10 * 1024 * 1024,
  accountTxRateLimit: true,
}
