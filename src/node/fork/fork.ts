/**
 * Connecting a fork (docs/forking.md): asks the remote for its chain id, network id and the block to fork at, opens
 * the disk cache of that block, and builds the forked block's record, the parent of rsksim's own blocks. Everything
 * at or below the forked block stays the remote's: state through ForkState (lazily, under the local trie), history
 * through src/rpc/forkRoute.ts.
 */
import { bytesToHex } from '@ethereumjs/util'
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { sha256 } from '@noble/hashes/sha2.js'
import type { BlockRecord } from '../chain/types.js'
import { NETWORKS, type NetworkProfile } from '../../options/index.js'
import { BRIDGE_ADDRESS_HEX } from '../rsk/evm/bridge.js'
import type { RskHeader } from '../rsk/header/header.js'
import { flatHex } from '../chain/flatHex.js'
import { RemoteNode } from './remote.js'
import { ForkError } from '../errors.js'
import { ForkCache } from './cache.js'
import { ForkState, hexBytes, once, quantity } from './forkState.js'

/** How far below the remote's latest block a fork starts when no block is given: a short reorganisation of the
 * remote's tip then does not change the forked block (nor make its disk cache wrong). */
export const FORK_CONFIRMATIONS = 4n

export interface ForkConfig {
  /** The remote's JSON-RPC URL over HTTP(S); path segments that look like API keys are never printed (`redactUrl`). */
  url: string
  /** The block to fork at; default: the remote's latest minus FORK_CONFIRMATIONS. */
  blockNumber?: bigint
  /** Extra HTTP headers sent with every request (authorization). */
  headers: Record<string, string>
  /** The disk cache's directory, or false for none. */
  cache: string | false
  /** Retries of a failed HTTP request (429, 5xx, timeouts, network errors). */
  retries: number
  /** Milliseconds before one HTTP request is abandoned (and retried). */
  timeout: number
}

/**
 * A connected fork. Its URL is held once: `config.url` (with `config.headers`), from which `remote` is made; the URL safe
 * to print is `remote.url`, and `state` reads through `remote`. anvil_setRpcUrl changes them together (switchRemote.ts).
 */
export interface ForkPoint {
  /** The node's own `options.fork` (the same object, node.ts): a reset without a URL forks again from `config.url`. */
  readonly config: ForkConfig
  remote: RemoteNode
  readonly chainId: bigint
  readonly networkId: string
  /** The forked block's number and record (the remote's header fields, its hash; no transactions kept locally). */
  readonly number: bigint
  readonly block: BlockRecord
  readonly state: ForkState
  /** The remote's answers of `cache: true` calls: on disk too unless `cache: false` (ForkCache.inMemory). */
  readonly cache: ForkCache
}

/** Connects to the remote and pins the forked block. `chainId`: the chain id the fork must have (a reset). */
export async function connectFork(config: ForkConfig, chainId?: bigint): Promise<ForkPoint> {
  const remote = new RemoteNode({ url: config.url, headers: config.headers, retries: config.retries, timeout: config.timeout })
  try {
    const start = (config.cache !== false && config.blockNumber !== undefined ? readStart(config.cache, config.url, config.blockNumber) : undefined) ?? (await askStart(remote, config))
    const remoteChainId = quantity(start.chainId, 'eth_chainId')
    if (chainId !== undefined && remoteChainId !== chainId) {
      throw new ForkError(`rsksim: the fork's remote ${remote.url} has chain id ${remoteChainId}, this node has ${chainId}: a reset cannot change the chain id`, true)
    }
    const { networkId, block: json } = start
    const block = forkedBlock(json)
    const number = block.number
    if (config.cache !== false && config.blockNumber !== undefined) writeStart(config.cache, config.url, config.blockNumber, start)
    // Off disk (`cache: false`), the answers are still kept for the fork's life, as the disk cache keeps them in memory.
    const cache = config.cache === false ? ForkCache.inMemory() : ForkCache.open(config.cache, { chainId: remoteChainId, blockNumber: number, blockHash: block.hashHex })
    remote.useCache(cache)
    const point = { config, remote, chainId: remoteChainId, networkId: String(networkId), number, block, cache }
    return Object.assign(point, { state: new ForkState(point, '0x' + number.toString(16)) })
  } catch (e) {
    remote.close()
    throw e
  }
}

/** What a fork starts from: the remote's chain and network ids and the forked block (as the remote answers it). */
interface Start {
  chainId: string
  networkId: string
  block: Record<string, unknown>
}

/** Asks the remote for its ids and the block to fork at. */
async function askStart(remote: RemoteNode, config: ForkConfig): Promise<Start> {
  const [chainId, networkId, latestHex] = await Promise.all([
    remote.request<string>('eth_chainId', []),
    remote.request<string>('net_version', []),
    remote.request<string>('eth_blockNumber', []),
  ])
  const latest = quantity(latestHex, 'eth_blockNumber')
  const number = config.blockNumber ?? (latest > FORK_CONFIRMATIONS ? latest - FORK_CONFIRMATIONS : 0n)
  if (number > latest) throw new ForkError(`rsksim: cannot fork at block ${number}: the remote ${remote.url} is at block ${latest}`, true)
  const block = await remote.request<Record<string, unknown> | null>('eth_getBlockByNumber', [hexNumber(number), false])
  if (block === null || typeof block !== 'object') throw new ForkError(`rsksim: the remote ${remote.url} has no block ${number}`, true)
  return { chainId, networkId: String(networkId), block }
}

/**
 * A fork at a given block starts from the disk cache without asking the remote anything: its start is kept under a
 * hash of the URL (which may hold an API key, so it is never written in clear) and the block number.
 */
function startPath(dir: string, url: string, blockNumber: bigint): string {
  return join(dir, 'starts', `${bytesToHex(sha256(new TextEncoder().encode(url))).slice(2, 34)}-${blockNumber}.json`)
}

function readStart(dir: string, url: string, blockNumber: bigint): Start | undefined {
  try {
    const s = JSON.parse(readFileSync(startPath(dir, url, blockNumber), 'utf8')) as Start
    return typeof s.chainId === 'string' && typeof s.networkId === 'string' && typeof s.block === 'object' && s.block !== null ? s : undefined
  } catch {
    return undefined
  }
}

/** Written whole (a temporary file renamed), never half; a failure only costs the next run four requests. */
function writeStart(dir: string, url: string, blockNumber: bigint, start: Start): void {
  const path = startPath(dir, url, blockNumber)
  try {
    mkdirSync(dirname(path), { recursive: true })
    const tmp = `${path}.${process.pid}.tmp`
    writeFileSync(tmp, JSON.stringify(start))
    renameSync(tmp, path)
  } catch {
    // The cache itself reports an unwritable directory (ForkCache).
  }
}

/**
 * The forked block as a record: what rsksim's next block builds on (parent hash, number, timestamp, total
 * difficulty) and what the miner reads of its ancestors (coinbase, fees, Bitcoin header). RSK fields an Ethereum
 * remote does not have are empty or zero.
 */
export function forkedBlock(json: Record<string, unknown>): BlockRecord {
  const bytes = (k: string, fallback = '0x'): Uint8Array => hexBytes(json[k] ?? fallback, `eth_getBlockByNumber (${k})`)
  const big = (k: string, fallback = '0x0'): bigint => quantity(json[k] ?? fallback, `eth_getBlockByNumber (${k})`)
  const number = big('number')
  const header: RskHeader = {
    parentHash: bytes('parentHash'),
    unclesHash: bytes('sha3Uncles'),
    coinbase: bytes('miner'),
    stateRoot: bytes('stateRoot'),
    txTrieRoot: bytes('transactionsRoot'),
    receiptTrieRoot: bytes('receiptsRoot'),
    logsBloom: bytes('logsBloom'),
    difficulty: big('difficulty'),
    number,
    gasLimit: big('gasLimit'),
    gasUsed: big('gasUsed'),
    timestamp: big('timestamp'),
    extraData: bytes('extraData'),
    paidFees: big('paidFees'),
    minimumGasPrice: big('minimumGasPrice'),
    uncleCount: Array.isArray(json.uncles) ? json.uncles.length : 0,
    version: 2,
    bitcoinMergedMiningHeader: bytes('bitcoinMergedMiningHeader'),
    bitcoinMergedMiningMerkleProof: bytes('bitcoinMergedMiningMerkleProof'),
    bitcoinMergedMiningCoinbaseTransaction: bytes('bitcoinMergedMiningCoinbaseTransaction'),
  }
  const hash = bytes('hash')
  if (hash.length !== 32) throw new ForkError(`the fork's remote answered a block without a 32-byte hash`)
  return {
    header,
    hash,
    hashHex: flatHex(hash),
    number,
    hashForMergedMining: json.hashForMergedMining === undefined ? new Uint8Array(32) : bytes('hashForMergedMining'),
    transactions: [],
    receipts: [],
    totalDifficulty: big('totalDifficulty', String(json.difficulty ?? '0x0')),
    // RSKj's block field: the difficulty plus its uncles' (the BlockHeader precompile's getDifficultyWithUncles).
    ...(json.cumulativeDifficulty !== undefined ? { cumulativeDifficulty: big('cumulativeDifficulty') } : {}),
    size: Number(big('size')),
  }
}

/** Whether `url` is one a fork can read from: http:// or https://. */
export const isForkUrl = (url: unknown): url is string => typeof url === 'string' && /^https?:\/\/./i.test(url)

/** A block number as the `0x` quantity the remote is asked with. */
export function hexNumber(n: bigint): string {
  return '0x' + n.toString(16)
}

/** How many of the remote's blocks are asked for at once (REMASC and BLOCKHASH read them in order). */
const BLOCK_WINDOW = 50n
/** How far below the block asked for the fetched ones are kept (BLOCKHASH reads 256 back). */
const KEPT_BEHIND = 512n

/**
 * The remote's blocks below the forked one, as records (forkedBlock), for what the miner reads of its ancestors:
 * REMASC pays the fees of block N − maturity, BLOCKHASH reads the last 256 hashes. Asked `BLOCK_WINDOW` at a time.
 */
export function remoteBlocks(fork: ForkPoint): (n: bigint) => Promise<BlockRecord | undefined> {
  const known = new Map<bigint, Promise<BlockRecord | undefined>>()
  const fetch = (n: bigint): Promise<BlockRecord | undefined> =>
    fork.remote.request<Record<string, unknown> | null>('eth_getBlockByNumber', [hexNumber(n), false], { cache: true }).then((json) => (json === null ? undefined : forkedBlock(json)))
  return (n) => {
    if (n < 0n || n >= fork.number) return Promise.resolve(undefined)
    const hit = known.get(n)
    if (hit !== undefined) return hit
    // Readers move forward (REMASC's paid block, the last 256 for BLOCKHASH): what is far behind is dropped.
    for (const k of known.keys()) if (k < n - KEPT_BEHIND) known.delete(k)
    for (let k = n + 1n; k < n + BLOCK_WINDOW && k < fork.number; k++) void once(known, k, () => fetch(k))
    return once(known, n, () => fetch(n))
  }
}

/**
 * The network profile of a forked chain: RSK's by chain id (30 mainnet, 31 testnet, 32 devnet, 33 regtest: their
 * REMASC and EVM rules), else regtest's rules under the remote's chain and network ids (an Ethereum remote).
 */
export function forkNetwork(chainId: bigint, networkId: string): NetworkProfile {
  const known = Object.values(NETWORKS).find((n) => n.chainId === chainId)
  return known !== undefined ? { ...known, networkId } : { name: 'regtest', chainId, networkId }
}

/**
 * The coinbase of uncle `index` of one of the remote's blocks (`eth_getUncleByBlockHashAndIndex`, cached), for the
 * BlockHeader precompile's `getUncleCoinbaseAddress`; undefined when the remote answers no uncle.
 */
export function forkUncleCoinbase(fork: ForkPoint): (block: BlockRecord, index: number) => Promise<Uint8Array | undefined> {
  return async (block, index) => {
    const uncle = await fork.remote.request<Record<string, unknown> | null>('eth_getUncleByBlockHashAndIndex', [bytesToHex(block.hash), hexNumber(BigInt(index))], { cache: true })
    return uncle === null || uncle.miner === undefined ? undefined : hexBytes(uncle.miner, 'eth_getUncleByBlockHashAndIndex (miner)')
  }
}

/** The Bridge's read methods answered by the forked network's Bridge at the forked block (rsk/evm/bridge.ts). */
export function forkBridgeCall(fork: ForkPoint): (data: Uint8Array) => Promise<Uint8Array> {
  const tag = hexNumber(fork.number)
  return async (data) => {
    const out = await fork.remote.request<string>('eth_call', [{ to: BRIDGE_ADDRESS_HEX, data: bytesToHex(data) }, tag], { cache: true })
    return hexBytes(out, 'eth_call')
  }
}
