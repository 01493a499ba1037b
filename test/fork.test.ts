/**
 * Forking (docs/forking.md, issue 16) against a second rsksim served over HTTP as the remote, behind a counting
 * proxy that can also go down. The remote's answers at the forked block are the expected values: every read on the
 * fork is compared with the same read asked of the remote at that block.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type FunctionFragment, Interface, JsonRpcProvider } from 'ethers'
import { createPublicClient, createTestClient, custom, http } from 'viem'
import { startServer, type Provider, type RsksimServer } from '../src/index.js'
import { RLP } from '@ethereumjs/rlp'
import { bytesToBigInt, bytesToHex, hexToBytes } from '@ethereumjs/util'
import { COW, MINER, deploy, fresh, rejects, send, rq as rpc } from './helpers.js'
import { Caller, Events, Reverter, Storage, Target, Token } from './fixtures/index.js'
import { countingProxy } from './forkProxy.js'

const hex = (n: number | bigint) => '0x' + n.toString(16)
const token = new Interface(Token.abi as never)
const storage = new Interface(Storage.abi as never)
const events = new Interface(Events.abi as never)
const ALICE = '0x00000000000000000000000000000000000a11ce'
const BOB = '0x0000000000000000000000000000000000000b0b'
const BRIDGE = '0x0000000000000000000000000000000001000006'
const REMASC = '0x0000000000000000000000000000000001000008'

describe('forking a remote rsksim', () => {
  let remote: RsksimServer
  let proxy: Awaited<ReturnType<typeof countingProxy>>
  let cacheDir: string
  const at: Record<string, any> = {}

  beforeAll(async () => {
    remote = await startServer({ port: 0, accountTxRateLimit: false })
    const r = remote.provider
    at.token = await deploy(r, Token, [10n ** 24n])
    at.storage = await deploy(r, Storage)
    at.events = await deploy(r, Events)
    // These pay fees (1 gwei), so REMASC has rewards to pay out after maturity (10 blocks), some on the fork.
    const fee = { gasPrice: '0x3b9aca00' }
    await send(r, { to: at.token, data: token.encodeFunctionData('transfer', [ALICE, 1234n]), ...fee })
    for (const [slot, v] of [[1n, 11n], [2n, 22n], [3n, 33n]]) await send(r, { to: at.storage, data: storage.encodeFunctionData('set', [slot, v]), ...fee })
    await send(r, { to: at.storage, data: storage.encodeFunctionData('inc'), ...fee })
    at.remoteTx = (await send(r, { to: ALICE, value: '0x3039', ...fee })).transactionHash
    for (let i = 0; i < 2; i++) await rpc(r, 'evm_mine')
    at.forkNumber = Number(await rpc(r, 'eth_blockNumber'))
    at.forkBlock = await rpc(r, 'eth_getBlockByNumber', [hex(at.forkNumber), false])
    at.snapshot = await rpc(r, 'evm_snapshot')
    // The remote goes on after the fork: none of this is part of the forked chain.
    at.laterTx = (await send(r, { to: BOB, value: '0x1' })).transactionHash
    proxy = await countingProxy(remote.url)
    cacheDir = mkdtempSync(join(tmpdir(), 'rsksim-fork-cache-'))
  })

  afterAll(async () => {
    await proxy?.close()
    await remote?.close()
    if (cacheDir !== undefined) rmSync(cacheDir, { recursive: true, force: true })
  })

  const forkAt = (extra: Record<string, unknown> = {}) => fresh({ fork: { url: proxy.url, blockNumber: at.forkNumber, cache: cacheDir, ...extra } as never })

  it('takes the chain id, head and block fields from the remote, and reads state as the remote has it at the forked block', async () => {
    const f = await forkAt()
    expect(await rpc(f, 'eth_chainId')).toBe(await rpc(remote.provider, 'eth_chainId'))
    expect(await rpc(f, 'net_version')).toBe(await rpc(remote.provider, 'net_version'))
    expect(Number(await rpc(f, 'eth_blockNumber'))).toBe(at.forkNumber)
    expect(await rpc(f, 'eth_getBlockByNumber', ['latest', false])).toEqual(at.forkBlock)
    const tag = hex(at.forkNumber)
    for (const who of [ALICE, BOB, at.token, at.storage, at.events, BRIDGE, REMASC]) {
      for (const m of ['eth_getBalance', 'eth_getTransactionCount', 'eth_getCode']) {
        expect([m, who, await rpc(f, m, [who, 'latest'])]).toEqual([m, who, await rpc(remote.provider, m, [who, tag])])
      }
    }
    for (let slot = 0; slot < 3; slot++) {
      expect(await rpc(f, 'eth_getStorageAt', [at.storage, hex(slot), 'latest'])).toBe(await rpc(remote.provider, 'eth_getStorageAt', [at.storage, hex(slot), tag]))
    }
    for (const call of [
      { to: at.token, data: token.encodeFunctionData('balanceOf', [ALICE]) },
      { to: at.token, data: token.encodeFunctionData('totalSupply') },
      { to: at.storage, data: storage.encodeFunctionData('get', [2n]) },
      { to: at.storage, data: storage.encodeFunctionData('counter') },
      // The Bridge's read methods are answered by the forked network's Bridge.
      { to: BRIDGE, data: '0x6923fa85' },
    ]) {
      expect(await rpc(f, 'eth_call', [call, 'latest'])).toBe(await rpc(remote.provider, 'eth_call', [call, tag]))
    }
    // REMASC's storage (reward balance) is the remote's.
    const rewardKey = '0x' + Buffer.from('rewardBalance').toString('hex').padStart(64, '0')
    expect(await rpc(f, 'eth_getStorageAt', [REMASC, rewardKey, 'latest'])).toBe(await rpc(remote.provider, 'eth_getStorageAt', [REMASC, rewardKey, tag]))
    await f.disconnect()
  })

  it('pending, right at the fork, is the block rsksim would build: trace_block, the raw header and debug_traceBlockByNumber are its own', async () => {
    const f = await forkAt({ cache: false })
    await rpc(f, 'evm_setAutomine', [false])
    await rpc(f, 'eth_sendTransaction', [{ from: COW, to: BOB, value: '0x7' }])
    const traces = await rpc(f, 'trace_block', ['pending'])
    // The transfer, then REMASC's transaction, in block fork + 1 (the remote's answer would be the forked block's).
    expect(traces.map((t: any) => [t.blockNumber, t.action.to])).toEqual([
      [at.forkNumber + 1, BOB],
      [at.forkNumber + 1, REMASC],
    ])
    expect(await rpc(f, 'trace_filter', [{ fromBlock: 'pending', toBlock: 'pending' }])).toEqual(traces)
    for (const m of ['chain_getRawBlockHeaderByNumber', 'rsk_getRawBlockHeaderByNumber']) {
      const [parentHash, , , , , , , , number] = RLP.decode(hexToBytes(await rpc(f, m, ['pending']))) as Uint8Array[]
      expect([m, bytesToHex(parentHash!), bytesToBigInt(number!)]).toEqual([m, at.forkBlock.hash, BigInt(at.forkNumber + 1)])
    }
    expect(await rpc(f, 'debug_traceBlockByNumber', ['pending', { tracer: 'callTracer' }])).toHaveLength(2)
    // So are the extensions' answers at pending (the remote's would be its forked block).
    const header = await rpc(f, 'erigon_getHeaderByNumber', ['pending'])
    expect([header.number, header.parentHash, header.hash]).toEqual([hex(at.forkNumber + 1), at.forkBlock.hash, traces[0].blockHash])
    expect((await rpc(f, 'ots_getBlockDetails', ['pending'])).block.hash).toBe(header.hash)
    expect((await rpc(f, 'trace_replayBlockTransactions', ['pending', ['trace']])).map((e: any) => e.trace[0].action.to)).toEqual([BOB, REMASC])
    await f.disconnect()
  })

  it('pending, right at the fork, is rsksim\'s pending block for the block methods by number too: refused where the spec refuses it, counted from rsksim\'s pool', async () => {
    const f = await forkAt({ cache: false })
    await rpc(f, 'evm_setAutomine', [false])
    for (const value of ['0x1', '0x2']) await rpc(f, 'eth_sendTransaction', [{ from: COW, to: BOB, value }])
    // Spec "Supported methods": PARTIALLY, `pending` unsupported, with the -32201 text RSKj has for it (reference,
    // error codes). Asked of the remote as the forked block's number, they answered the remote's forked block.
    for (const [m, params] of [
      ['eth_getBlockByNumber', ['pending', false]],
      ['eth_getUncleCountByBlockNumber', ['pending']],
      ['eth_getTransactionByBlockNumberAndIndex', ['pending', '0x0']],
      ['eth_getUncleByBlockNumberAndIndex', ['pending', '0x0']],
    ] as const) {
      await rejects(rpc(f, m, [...params]), -32201, /don't support 'pending'/)
    }
    // RSKj `Web3InformationRetriever.getTransactions("pending")` counts its own pool's pending transactions, as Anvil's
    // fork counts its own (the remote's forked block holds one transaction, REMASC's).
    expect(await rpc(f, 'eth_getBlockTransactionCountByNumber', ['pending'])).toBe('0x2')
    await f.disconnect()
  })

  it('builds new blocks on the forked one: transactions see the remote\'s state, the remote does not see them', async () => {
    const f = await forkAt()
    const r = await send(f, { to: at.token, data: token.encodeFunctionData('transfer', [BOB, 500n]) })
    expect(r.status).toBe('0x1')
    expect(Number(r.blockNumber)).toBe(at.forkNumber + 1)
    const block = await rpc(f, 'eth_getBlockByNumber', [r.blockNumber, false])
    expect(block.parentHash).toBe(at.forkBlock.hash)
    expect(BigInt(block.timestamp)).toBeGreaterThan(BigInt(at.forkBlock.timestamp))
    expect(BigInt(block.totalDifficulty)).toBe(BigInt(at.forkBlock.totalDifficulty) + BigInt(block.difficulty))
    expect(block.minimumGasPrice).toBe(at.forkBlock.minimumGasPrice)
    const balanceOf = async (p: Provider, who: string, tag = 'latest') =>
      BigInt(await rpc(p, 'eth_call', [{ to: at.token, data: token.encodeFunctionData('balanceOf', [who]) }, tag]))
    const remoteCow = await balanceOf(remote.provider, COW, hex(at.forkNumber))
    expect(await balanceOf(f, BOB)).toBe(500n)
    expect(await balanceOf(f, COW)).toBe(remoteCow - 500n)
    expect(await balanceOf(remote.provider, BOB)).toBe(0n)
    // A storage slot zeroed here stays zero (the remote still has its value).
    await send(f, { to: at.storage, data: storage.encodeFunctionData('clear', [2n]) })
    const slot2 = { to: at.storage, data: storage.encodeFunctionData('get', [2n]) }
    expect(BigInt(await rpc(f, 'eth_call', [slot2, 'latest']))).toBe(0n)
    expect(BigInt(await rpc(remote.provider, 'eth_call', [slot2, 'latest']))).toBe(22n)
    // The fork's state at the forked block is still the remote's.
    expect(BigInt(await rpc(f, 'eth_call', [slot2, hex(at.forkNumber)]))).toBe(22n)
    // Logs of new blocks, and the remote's below: one query over the whole range.
    await send(f, { to: at.events, data: events.encodeFunctionData('emitOne', [7n]) })
    const transfers = await rpc(f, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: at.token }])
    const remoteTransfers = await rpc(remote.provider, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(at.forkNumber), address: at.token }])
    expect(transfers.slice(0, remoteTransfers.length)).toEqual(remoteTransfers)
    expect(transfers).toHaveLength(remoteTransfers.length + 1)
    expect(transfers.at(-1).transactionHash).toBe(r.transactionHash)
    await f.disconnect()
  })

  it("trace_block and the block methods by number take a block hash: the remote's blocks' from the remote, rsksim's own blocks' here", async () => {
    const f = await forkAt()
    expect(await rpc(f, 'trace_block', [at.forkBlock.hash])).toEqual(await rpc(remote.provider, 'trace_block', [at.forkBlock.hash]))
    // A block below the forked one that only the remote has: its answer by hash, for trace_block and for the block
    // methods by number, which read a 64-digit selector as a block hash (RSKj `Web3InformationRetriever.getBlock`).
    const five = await rpc(remote.provider, 'eth_getBlockByNumber', ['0x5', false])
    for (const [m, params] of [
      ['trace_block', [five.hash]],
      ['eth_getBlockByNumber', [five.hash, false]],
      ['eth_getBlockTransactionCountByNumber', [five.hash]],
      ['eth_getTransactionByBlockNumberAndIndex', [five.hash, '0x0']],
      ['trace_replayBlockTransactions', [five.hash, ['trace']]],
    ] as const) {
      expect([m, await rpc(f, m, [...params])]).toEqual([m, await rpc(remote.provider, m, [...params])])
    }
    expect(await rpc(f, 'eth_getBlockByNumber', [five.hash, false])).toEqual(five)
    const r = await send(f, { to: BOB, value: '0x5' })
    const own = await rpc(f, 'trace_block', [r.blockHash])
    // The transfer, then REMASC's transaction, of the block the receipt names.
    expect(own.map((t: any) => [t.blockHash, t.blockNumber, t.action.to])).toEqual([
      [r.blockHash, Number(r.blockNumber), BOB],
      [r.blockHash, Number(r.blockNumber), REMASC],
    ])
    expect(own[0].transactionHash).toBe(r.transactionHash)
    await f.disconnect()
  })

  it("the BlockHeader precompile reads the remote's blocks below the forked one, and rsksim's above it", async () => {
    const f = await forkAt()
    const bh = new Interface([
      'function getBlockHash(int256) returns (bytes)',
      'function getCoinbaseAddress(int256) returns (bytes)',
      'function getMergedMiningTags(int256) returns (bytes)',
      'function getMinGasPrice(int256) returns (bytes)',
      'function getGasLimit(int256) returns (bytes)',
      'function getGasUsed(int256) returns (bytes)',
      'function getDifficulty(int256) returns (bytes)',
      'function getBitcoinHeader(int256) returns (bytes)',
      'function getUncleCoinbaseAddress(int256,int256) returns (bytes)',
      'function getDifficultyWithUncles(int256) returns (bytes)',
      'function getCumulativeWork(int256) returns (bytes)',
    ])
    const BH = '0x0000000000000000000000000000000001000010'
    const read = async (p: Provider, method: string, depth: number, tag = 'latest') => {
      const args = method === 'getUncleCoinbaseAddress' ? [depth, 0] : [depth]
      return bh.decodeFunctionResult(method, await rpc(p, 'eth_call', [{ to: BH, data: bh.encodeFunctionData(method, args) }, tag]))[0] as string
    }
    const remoteBlock = (n: number) => rpc(remote.provider, 'eth_getBlockByNumber', [hex(n), false])
    // Executing the forked block: depth 0 is the remote's block below it.
    for (const depth of [0, 1, 2]) {
      const b = await remoteBlock(at.forkNumber - 1 - depth)
      expect(await read(f, 'getBlockHash', depth)).toBe(b.hash)
      expect(await read(f, 'getCoinbaseAddress', depth)).toBe(b.miner)
      expect(BigInt(await read(f, 'getCumulativeWork', depth))).toBe(BigInt(b.totalDifficulty))
      expect(await read(f, 'getBitcoinHeader', depth)).toBe(b.bitcoinMergedMiningHeader)
      // Every method answers what the remote answers executing the same block.
      for (const fragment of bh.fragments) {
        const method = (fragment as FunctionFragment).name
        expect([method, depth, await read(f, method, depth)]).toEqual([method, depth, await read(remote.provider, method, depth, hex(at.forkNumber))])
      }
    }
    // A block mined on the fork: depth 0 is the forked block, depth 1 the remote's below it.
    await rpc(f, 'evm_mine')
    expect(await read(f, 'getBlockHash', 0)).toBe(at.forkBlock.hash)
    expect(await read(f, 'getBlockHash', 1)).toBe((await remoteBlock(at.forkNumber - 1)).hash)
    await f.disconnect()
  })

  it('answers history at or below the forked block from the remote, and nothing the remote mined after it', async () => {
    const f = await forkAt()
    for (const n of [0, 1, 5, at.forkNumber]) {
      expect(await rpc(f, 'eth_getBlockByNumber', [hex(n), true])).toEqual(await rpc(remote.provider, 'eth_getBlockByNumber', [hex(n), true]))
    }
    const five = await rpc(remote.provider, 'eth_getBlockByNumber', ['0x5', false])
    expect(await rpc(f, 'eth_getBlockByHash', [five.hash, false])).toEqual(five)
    expect(await rpc(f, 'eth_getTransactionByHash', [at.remoteTx])).toEqual(await rpc(remote.provider, 'eth_getTransactionByHash', [at.remoteTx]))
    expect(await rpc(f, 'eth_getTransactionReceipt', [at.remoteTx])).toEqual(await rpc(remote.provider, 'eth_getTransactionReceipt', [at.remoteTx]))
    // State below the forked block is the remote's at that block.
    const before = await rpc(remote.provider, 'eth_getTransactionReceipt', [at.remoteTx])
    const prior = hex(Number(before.blockNumber) - 1)
    expect(await rpc(f, 'eth_getBalance', [ALICE, prior])).toBe(await rpc(remote.provider, 'eth_getBalance', [ALICE, prior]))
    // A call traced there is traced by the remote (a second rsksim, which has debug_traceCall), as it traces it.
    const traced = [{ from: ALICE, to: at.token, data: token.encodeFunctionData('balanceOf', [ALICE]) }, prior, { tracer: 'callTracer' }]
    expect(await rpc(f, 'debug_traceCall', traced)).toEqual(await rpc(remote.provider, 'debug_traceCall', traced))
    // So are an access list and a simulation based there (they answered -32600 "Block … not found").
    const listed = [traced[0], prior]
    expect(await rpc(f, 'eth_createAccessList', listed)).toEqual(await rpc(remote.provider, 'eth_createAccessList', listed))
    const simulated = [{ blockStateCalls: [{ calls: [traced[0]] }] }, prior]
    expect(await rpc(f, 'eth_simulateV1', simulated)).toEqual(await rpc(remote.provider, 'eth_simulateV1', simulated))
    // What the remote mined after the forked block is not on this chain.
    expect(await rpc(f, 'eth_getTransactionByHash', [at.laterTx])).toBeNull()
    expect(await rpc(f, 'eth_getTransactionReceipt', [at.laterTx])).toBeNull()
    const later = await rpc(remote.provider, 'eth_getBlockByNumber', [hex(at.forkNumber + 1), false])
    expect(await rpc(f, 'eth_getBlockByHash', [later.hash, false])).toBeNull()
    expect(await rpc(f, 'eth_getBlockByNumber', [hex(at.forkNumber + 1), false])).toBeNull()
    // Proofs: the remote's up to the forked block; none for rsksim's own blocks (their trie holds local changes only).
    expect(await rpc(f, 'eth_getProof', [ALICE, [], hex(at.forkNumber)])).toEqual(await rpc(remote.provider, 'eth_getProof', [ALICE, [], hex(at.forkNumber)]))
    // `pending` is the block after the forked one, rsksim's own, even before anything is mined here.
    await rejects(rpc(f, 'eth_getProof', [ALICE, [], 'pending']), -32603, /eth_getProof on a fork answers for blocks up to the forked block/)
    await rpc(f, 'evm_mine')
    await rejects(rpc(f, 'eth_getProof', [ALICE, [], 'latest']), -32603, /eth_getProof on a fork answers for blocks up to the forked block/)
    await f.disconnect()
  })

  it("raw transactions, account reads and replays of the remote's history: from the remote's answers, as the remote has them", async () => {
    const f = await forkAt()
    // The remote (a second rsksim) answers these extensions itself: its bytes are the expected ones. The fork asks it
    // only eth_getTransactionBy* and the single-field reads, which an RSKj remote also answers.
    const tx = await rpc(remote.provider, 'eth_getTransactionByHash', [at.remoteTx])
    const raw = await rpc(remote.provider, 'eth_getRawTransactionByHash', [at.remoteTx])
    expect(await rpc(f, 'eth_getRawTransactionByHash', [at.remoteTx])).toBe(raw)
    expect(await rpc(f, 'debug_getRawTransaction', [at.remoteTx])).toBe(raw)
    expect(await rpc(f, 'eth_getRawTransactionByBlockNumberAndIndex', [tx.blockNumber, tx.transactionIndex])).toBe(raw)
    expect(await rpc(f, 'eth_getRawTransactionByBlockHashAndIndex', [tx.blockHash, tx.transactionIndex])).toBe(raw)
    // The REMASC system transaction ending that block: RSKj's encoding of it.
    const block = await rpc(remote.provider, 'eth_getBlockByNumber', [tx.blockNumber, false])
    const remascIndex = hex(block.transactions.length - 1)
    expect(await rpc(f, 'eth_getRawTransactionByBlockNumberAndIndex', [tx.blockNumber, remascIndex])).toBe(
      await rpc(remote.provider, 'eth_getRawTransactionByBlockNumberAndIndex', [tx.blockNumber, remascIndex]),
    )
    expect(await rpc(f, 'eth_getRawTransactionByHash', [at.laterTx])).toBeNull()
    // The remote's blocks as raw bytes: the header as its chain_getRawBlockHeaderBy* answers it (which RSKj has), the
    // block and receipts as its own debug_getRaw* (the node holds the forked block without them, and none below it).
    for (const ref of [tx.blockNumber, tx.blockHash, hex(at.forkNumber)]) {
      for (const m of ['debug_getRawHeader', 'debug_getRawBlock', 'debug_getRawReceipts']) {
        expect([m, ref, await rpc(f, m, [ref])]).toEqual([m, ref, await rpc(remote.provider, m, [ref])])
      }
    }
    expect(await rpc(f, 'debug_getRawHeader', [tx.blockNumber])).toBe(await rpc(remote.provider, 'chain_getRawBlockHeaderByNumber', [tx.blockNumber]))
    expect((await rpc(f, 'debug_getRawReceipts', [hex(at.forkNumber)])).length).toBe((await rpc(remote.provider, 'eth_getBlockByNumber', [hex(at.forkNumber), false])).transactions.length)
    // Replays of the remote's blocks and transactions are the remote's (a second rsksim has them; RSKj answers -32601).
    const replay = [tx.blockNumber, ['trace', 'stateDiff']]
    expect(await rpc(f, 'trace_replayBlockTransactions', replay)).toEqual(await rpc(remote.provider, 'trace_replayBlockTransactions', replay))
    expect(await rpc(f, 'trace_replayTransaction', [at.remoteTx, ['trace']])).toEqual(await rpc(remote.provider, 'trace_replayTransaction', [at.remoteTx, ['trace']]))
    const prior = hex(Number(tx.blockNumber) - 1)
    for (const block of [prior, hex(at.forkNumber), 'latest']) {
      const tag = block === 'latest' ? hex(at.forkNumber) : block
      expect(await rpc(f, 'eth_getAccountInfo', [at.storage, block])).toEqual(await rpc(remote.provider, 'eth_getAccountInfo', [at.storage, tag]))
    }
    // ots_hasCode below the forked block (by JSON number, as Otterscan sends it, by number, and by a block hash only the
    // remote has) is the remote's.
    for (const block of [0, prior, tx.blockHash, { blockHash: tx.blockHash }]) {
      expect([block, await rpc(f, 'ots_hasCode', [at.storage, block])]).toEqual([block, await rpc(remote.provider, 'ots_hasCode', [at.storage, block])])
    }
    expect(await rpc(f, 'ots_hasCode', [at.storage, prior])).toBe(true)
    expect(await rpc(f, 'eth_getAccount', [ALICE, prior])).toEqual(await rpc(remote.provider, 'eth_getAccount', [ALICE, prior]))
    await rpc(f, 'evm_mine')
    await rejects(rpc(f, 'eth_getAccount', [ALICE, 'latest']), -32603, /eth_getAccount on a fork answers for blocks up to the forked block/)
    await f.disconnect()
  })

  it('log filters reach into the remote\'s blocks: eth_getFilterLogs and a new filter\'s first changes hold its logs, then rsksim\'s', async () => {
    const f = await forkAt()
    // The reference: the remote's own filter over the blocks up to the forked one.
    const remoteId = await rpc(remote.provider, 'eth_newFilter', [{ fromBlock: '0x0', toBlock: hex(at.forkNumber), address: at.token }])
    const remoteLogs = await rpc(remote.provider, 'eth_getFilterLogs', [remoteId])
    expect(remoteLogs.length).toBeGreaterThan(0)
    expect(remoteLogs.every((l: any) => l.removed === false)).toBe(true)
    const id = await rpc(f, 'eth_newFilter', [{ fromBlock: '0x0', address: at.token }])
    const r = await send(f, { to: at.token, data: token.encodeFunctionData('transfer', [BOB, 3n]) })
    const all = await rpc(f, 'eth_getFilterLogs', [id])
    expect(all.slice(0, remoteLogs.length)).toEqual(remoteLogs)
    expect(all).toHaveLength(remoteLogs.length + 1)
    expect(all.at(-1)).toMatchObject({ transactionHash: r.transactionHash, blockNumber: r.blockNumber, removed: false })
    // The first poll reports the history (the remote's matches), then the block mined since; the next one nothing.
    expect(await rpc(f, 'eth_getFilterChanges', [id])).toEqual(all)
    expect(await rpc(f, 'eth_getFilterChanges', [id])).toEqual([])
    // eth_getLogs over the same criteria: the same logs, without the filters' `removed`.
    const plain = await rpc(f, 'eth_getLogs', [{ fromBlock: '0x0', address: at.token }])
    expect(plain.map((l: any) => ({ ...l, removed: false }))).toEqual(all)
    // A filter on one of the remote's blocks by hash, and topics as the filter's criteria.
    const transferTopic = remoteLogs[0].topics[0]
    const byHash = await rpc(f, 'eth_newFilter', [{ blockHash: remoteLogs[0].blockHash, topics: [transferTopic] }])
    const inBlock = remoteLogs.filter((l: any) => l.blockHash === remoteLogs[0].blockHash)
    expect(await rpc(f, 'eth_getFilterLogs', [byHash])).toEqual(inBlock)
    expect(await rpc(f, 'eth_getFilterChanges', [byHash])).toEqual(inBlock)
    // From `latest`, as before: only blocks mined after the filter was made.
    const fromNow = await rpc(f, 'eth_newFilter', [{ address: at.token }])
    expect(await rpc(f, 'eth_getFilterChanges', [fromNow])).toEqual([])
    // Forked again lower down before the first poll: what the remote mined above the new forked block, and the
    // blocks mined here, are no longer part of the chain, so the poll leaves them out.
    const again = await rpc(f, 'eth_newFilter', [{ fromBlock: '0x0', address: at.token }])
    const lower = Number(remoteLogs[0].blockNumber)
    expect(remoteLogs.some((l: any) => Number(l.blockNumber) > lower)).toBe(true)
    expect(await rpc(f, 'hardhat_reset', [{ forking: { blockNumber: lower } }])).toBe(true)
    expect(await rpc(f, 'eth_getFilterChanges', [again])).toEqual(remoteLogs.filter((l: any) => Number(l.blockNumber) <= lower))
    await f.disconnect()
  })

  it('log queries read fromBlock/toBlock as RSKj does across the forked block: from > to, from latest, pending, safe', async () => {
    // Expected values: RSKj's LogFilter.retrieveHistoricalData/processBlocks (test/eth_getLogs.test.ts has the rules
    // and their lines) applied to the remote's answers for plain ranges, which it answers itself.
    const remoteLogs = await rpc(remote.provider, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(at.forkNumber), address: at.token }])
    const t = Number(remoteLogs.at(-1).blockNumber)
    expect(t).toBeLessThan(at.forkNumber)
    const inT = await rpc(remote.provider, 'eth_getLogs', [{ fromBlock: hex(t), toBlock: hex(t), address: at.token }])
    expect(inT.length).toBeGreaterThan(0)
    // Forked at block t, with nothing mined here: the best block is the forked one, the remote's.
    const atT = await forkAt({ blockNumber: t })
    expect(await rpc(atT, 'eth_getLogs', [{ fromBlock: 'latest', toBlock: '0x0', address: at.token }])).toEqual(inT)
    for (const q of [{ fromBlock: 'safe' }, { fromBlock: '0x0', toBlock: 'finalized' }]) await rejects(rpc(atT, 'eth_getLogs', [q]), -32602, /^invalid blocknumber (safe|finalized)$/)
    await atT.disconnect()
    const f = await forkAt()
    const logs = (q: Record<string, unknown>) => rpc(f, 'eth_getLogs', [q])
    expect(await logs({ fromBlock: hex(at.forkNumber), toBlock: hex(t), address: at.token })).toEqual(inT)
    const r1 = await send(f, { to: at.token, data: token.encodeFunctionData('transfer', [BOB, 1n]) })
    const r2 = await send(f, { to: at.token, data: token.encodeFunctionData('transfer', [BOB, 2n]) })
    expect(Number(r2.blockNumber)).toBe(at.forkNumber + 2)
    const txs = (ls: any[]) => ls.map((l) => l.transactionHash)
    // fromBlock above the forked block, toBlock below it: toBlock's block alone, the remote's.
    expect(await logs({ fromBlock: r2.blockNumber, toBlock: hex(t), address: at.token })).toEqual(inT)
    // fromBlock latest: the best block alone (rsksim's own), toBlock unused.
    expect(txs(await logs({ fromBlock: 'latest', toBlock: '0x0', address: at.token }))).toEqual([r2.transactionHash])
    // toBlock a tag: the best block, so the remote's part and rsksim's.
    const all = await logs({ fromBlock: '0x0', toBlock: 'earliest', address: at.token })
    expect(all.slice(0, remoteLogs.length)).toEqual(remoteLogs)
    expect(txs(all.slice(remoteLogs.length))).toEqual([r1.transactionHash, r2.transactionHash])
    // fromBlock pending: nothing; safe/finalized: refused.
    expect(await logs({ fromBlock: 'pending', toBlock: 'latest', address: at.token })).toEqual([])
    for (const q of [{ fromBlock: 'finalized' }, { fromBlock: '0x0', toBlock: 'safe' }]) await rejects(logs(q), -32602, /^invalid blocknumber (safe|finalized)$/)
    // A filter's history and eth_getFilterLogs over the same bounds.
    const down = await rpc(f, 'eth_newFilter', [{ fromBlock: r2.blockNumber, toBlock: hex(t), address: at.token }])
    const inTFiltered = inT.map((l: any) => ({ ...l, removed: false }))
    expect(await rpc(f, 'eth_getFilterLogs', [down])).toEqual(inTFiltered)
    expect(await rpc(f, 'eth_getFilterChanges', [down])).toEqual(inTFiltered)
    const fromLatest = await rpc(f, 'eth_newFilter', [{ fromBlock: 'latest', toBlock: '0x0', address: at.token }])
    expect(txs(await rpc(f, 'eth_getFilterLogs', [fromLatest]))).toEqual([r2.transactionHash])
    await rejects(rpc(f, 'eth_newFilter', [{ fromBlock: '0x0', toBlock: 'safe' }]), -32602, 'invalid blocknumber safe')
    await f.disconnect()
  })

  it('a log filter over the log limits is refused when made, and one forked higher reports the remote\'s blocks it gained', async () => {
    const remoteLogs = await rpc(remote.provider, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(at.forkNumber), address: at.token }])
    expect(remoteLogs.length).toBeGreaterThan(1)
    // Over the block range limit, more logs than the results limit: refused at once (as eth_getLogs over the same
    // range is), with no filter made. Within the results limit it is made, and its first poll reports the logs.
    const limited = await fresh({ fork: { url: proxy.url, blockNumber: at.forkNumber, cache: false }, logsMaxBlockRange: 2, logsMaxResults: 1 } as never)
    const tooMany = { fromBlock: '0x0', address: at.token }
    const refused = await rejects(rpc(limited, 'eth_newFilter', [tooMany]), -32012)
    expect((await rejects(rpc(limited, 'eth_getLogs', [tooMany]), -32012)).message).toBe(refused.message)
    await rejects(rpc(limited, 'eth_getFilterChanges', ['0x1']), -32000, /filter not found/)
    await limited.disconnect()
    const roomy = await fresh({ fork: { url: proxy.url, blockNumber: at.forkNumber, cache: false }, logsMaxBlockRange: 2, logsMaxResults: remoteLogs.length } as never)
    const ok = await rpc(roomy, 'eth_newFilter', [tooMany])
    expect(await rpc(roomy, 'eth_getFilterChanges', [ok])).toEqual(remoteLogs.map((l: any) => ({ ...l, removed: false })))
    await roomy.disconnect()

    // Forked at the block of the first log, then again at the test's forked block: a filter from block 0 and one
    // made from `latest` both report, at their next poll, rsksim's own log (reported before) as removed, then the
    // remote's logs above the first forked block (as the remote answers them).
    const low = Number(remoteLogs[0].blockNumber)
    const gained = remoteLogs.filter((l: any) => Number(l.blockNumber) > low)
    expect(gained.length).toBeGreaterThan(0)
    const f = await fresh({ fork: { url: proxy.url, blockNumber: low, cache: false } } as never)
    const fromZero = await rpc(f, 'eth_newFilter', [{ fromBlock: '0x0', address: at.token }])
    expect(await rpc(f, 'eth_getFilterChanges', [fromZero])).toEqual(remoteLogs.filter((l: any) => Number(l.blockNumber) <= low).map((l: any) => ({ ...l, removed: false })))
    const fromNow = await rpc(f, 'eth_newFilter', [{ address: at.token }])
    const unpolled = await rpc(f, 'eth_newFilter', [{ fromBlock: '0x0', address: at.token }])
    // A numeric toBlock (past the head here) takes no new block (RSKj LogFilter.newBlockReceived L112-119): neither
    // rsksim's nor the remote's blocks the reset adds.
    const bounded = await rpc(f, 'eth_newFilter', [{ fromBlock: '0x0', toBlock: hex(at.forkNumber + 100), address: at.token }])
    expect(await rpc(f, 'eth_getFilterChanges', [bounded])).toEqual(remoteLogs.filter((l: any) => Number(l.blockNumber) <= low).map((l: any) => ({ ...l, removed: false })))
    // The same through viem's event filter (a real client's eth_newFilter and eth_getFilterChanges).
    const viemClient = createPublicClient({ transport: custom(f, { retryCount: 0 }) })
    const viemFilter = await viemClient.createEventFilter({ address: at.token, fromBlock: 0n })
    const mine = await send(f, { to: at.token, data: token.encodeFunctionData('transfer', [BOB, 7n]) })
    for (const id of [fromZero, fromNow]) expect((await rpc(f, 'eth_getFilterChanges', [id])).map((l: any) => [l.transactionHash, l.removed])).toEqual([[mine.transactionHash, false]])
    expect(await rpc(f, 'hardhat_reset', [{ forking: { blockNumber: at.forkNumber } }])).toBe(true)
    for (const id of [fromZero, fromNow]) {
      const changes = await rpc(f, 'eth_getFilterChanges', [id])
      expect(changes.map((l: any) => [l.transactionHash, l.removed])).toEqual([
        [mine.transactionHash, true],
        ...gained.map((l: any) => [l.transactionHash, false]),
      ])
      expect(changes.slice(1)).toEqual(gained.map((l: any) => ({ ...l, removed: false })))
      expect(await rpc(f, 'eth_getFilterChanges', [id])).toEqual([])
    }
    // Not polled before the reset: its remote history now reaches the new forked block; rsksim's log, never
    // reported to it, is left out.
    expect(await rpc(f, 'eth_getFilterChanges', [unpolled])).toEqual(remoteLogs.map((l: any) => ({ ...l, removed: false })))
    const viemChanges = await viemClient.getFilterChanges({ filter: viemFilter })
    expect(viemChanges.map((l) => [l.transactionHash, l.blockNumber, l.removed])).toEqual(remoteLogs.map((l: any) => [l.transactionHash, BigInt(l.blockNumber), false]))
    expect(await rpc(f, 'eth_getFilterChanges', [bounded])).toEqual([])
    // Mined after the reset: reported as before.
    const next = await send(f, { to: at.token, data: token.encodeFunctionData('transfer', [BOB, 8n]) })
    expect((await rpc(f, 'eth_getFilterChanges', [fromZero])).map((l: any) => l.transactionHash)).toEqual([next.transactionHash])
    await f.disconnect()

    // Under the log limits, the blocks a reset added over more logs than allowed: that poll answers -32012 (as
    // eth_getLogs over them does), the part is dropped, and the next poll reports what was mined since.
    const span = [{ fromBlock: '0x1', toBlock: hex(at.forkNumber) }]
    const added = await rpc(remote.provider, 'eth_getLogs', span)
    expect(added.length).toBeGreaterThan(1)
    const tight = await fresh({ fork: { url: proxy.url, blockNumber: 0, cache: false }, logsMaxBlockRange: 1, logsMaxResults: 1 } as never)
    const watching = await rpc(tight, 'eth_newFilter', [{}])
    expect(await rpc(tight, 'hardhat_reset', [{ forking: { blockNumber: at.forkNumber } }])).toBe(true)
    const limit = await rejects(rpc(tight, 'eth_getFilterChanges', [watching]), -32012)
    expect(limit.message).toBe((await rejects(rpc(tight, 'eth_getLogs', span), -32012)).message)
    const after = await send(tight, { to: ALICE, value: '0x1' })
    const changes = await rpc(tight, 'eth_getFilterChanges', [watching])
    expect(changes).toEqual(await rpc(tight, 'eth_getLogs', [{ blockHash: after.blockHash }]).then((ls: any[]) => ls.map((l) => ({ ...l, removed: false }))))
    expect(await rpc(tight, 'eth_getFilterChanges', [watching])).toEqual([])
    await tight.disconnect()

    // A remote that refuses the blocks a reset added (its own limits): that poll answers its refusal, the part is
    // dropped, and the next poll reports what was mined since. (A remote that cannot be reached is asked again.)
    // rsksim's own limits are off here (logsMaxBlockRange 0), so the refusal is the remote's.
    const strict = await startServer({ port: 0, accountTxRateLimit: false, logsMaxBlockRange: 1, logsMaxResults: 0 } as never)
    try {
      for (let i = 0; i < 3; i++) await send(strict.provider, { to: ALICE, value: '0x1' })
      const own = await fresh({ fork: { url: strict.url, blockNumber: 0, cache: false }, logsMaxBlockRange: 0 } as never)
      const follow = await rpc(own, 'eth_newFilter', [{}])
      expect(await rpc(own, 'hardhat_reset', [{ forking: { jsonRpcUrl: strict.url, blockNumber: 3 } }])).toBe(true)
      // The remote's own error, code and text (-32012 for its block range limit).
      await rejects(rpc(own, 'eth_getFilterChanges', [follow]), -32012, /Cannot query more than 1 blocks at once/)
      const later = await send(own, { to: ALICE, value: '0x1' })
      expect(await rpc(own, 'eth_getFilterChanges', [follow])).toEqual(
        await rpc(own, 'eth_getLogs', [{ blockHash: later.blockHash }]).then((ls: any[]) => ls.map((l) => ({ ...l, removed: false }))),
      )
      await own.disconnect()
    } finally {
      await strict.close()
    }
  })

  it('a hardhat_reset to a higher block while a log filter is being polled: no log of the remote\'s blocks is lost or reported twice', async () => {
    // The expected logs are the remote's own answer over the blocks the reset adds (low + 1 to the forked block).
    const remoteLogs = await rpc(remote.provider, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(at.forkNumber), address: at.token }])
    const low = Number(remoteLogs[0].blockNumber)
    const gained = remoteLogs.filter((l: any) => Number(l.blockNumber) > low).map((l: any) => ({ ...l, removed: false }))
    expect(gained.length).toBeGreaterThan(0)
    const f = await fresh({ fork: { url: proxy.url, blockNumber: low, cache: false } } as never)
    const fromNow = await rpc(f, 'eth_newFilter', [{ address: at.token }])
    // The reset holds the node's queue while it asks the remote (slowed here); the poll, which has no remote part to
    // ask for when it starts, is answered in the queue after it, when the filter has gained the remote's blocks.
    proxy.delay = 300
    try {
      const calls = proxy.calls.length
      const reset = rpc(f, 'hardhat_reset', [{ forking: { blockNumber: at.forkNumber } }])
      while (proxy.calls.length === calls) await new Promise((resolve) => setTimeout(resolve, 5))
      const poll = rpc(f, 'eth_getFilterChanges', [fromNow])
      expect(await reset).toBe(true)
      const during = await poll
      proxy.delay = 0
      const next = await rpc(f, 'eth_getFilterChanges', [fromNow])
      expect([...during, ...next]).toEqual(gained)
      expect(await rpc(f, 'eth_getFilterChanges', [fromNow])).toEqual([])
    } finally {
      proxy.delay = 0
      await f.disconnect()
    }

    // A poll already asking the remote for a filter's history when the reset switches remotes: the old remote is
    // closed, so that poll answers its failure, and the next poll reports the whole history, up to the new forked
    // block, once.
    const g = await fresh({ fork: { url: proxy.url, blockNumber: low, cache: false } } as never)
    const fromZero = await rpc(g, 'eth_newFilter', [{ fromBlock: '0x0', address: at.token }])
    proxy.delay = 500
    proxy.delayOnly = 'eth_getLogs'
    try {
      const calls = proxy.calls.length
      const poll = rpc(g, 'eth_getFilterChanges', [fromZero])
      while (!proxy.calls.slice(calls).includes('eth_getLogs')) await new Promise((resolve) => setTimeout(resolve, 5))
      expect(await rpc(g, 'hardhat_reset', [{ forking: { blockNumber: at.forkNumber } }])).toBe(true)
      await rejects(poll, -32603, /eth_getLogs.* failed: client closed$/)
      proxy.delay = 0
      expect(await rpc(g, 'eth_getFilterChanges', [fromZero])).toEqual(remoteLogs.map((l: any) => ({ ...l, removed: false })))
      expect(await rpc(g, 'eth_getFilterChanges', [fromZero])).toEqual([])
    } finally {
      proxy.delay = 0
      proxy.delayOnly = undefined
      await g.disconnect()
    }
  })

  it('real clients over HTTP: viem\'s event filter and ethers\' trace_filter and eth_getBlocksByNumber reach the remote\'s blocks', async () => {
    const server = await startServer({ port: 0, accountTxRateLimit: false, fork: { url: proxy.url, blockNumber: at.forkNumber, cache: false } } as never)
    const ethers = new JsonRpcProvider(server.url, undefined, { cacheTimeout: -1, staticNetwork: true })
    try {
      const theirLogs = await rpc(remote.provider, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(at.forkNumber), address: at.token }])
      expect(theirLogs.length).toBeGreaterThan(0)
      const client = createPublicClient({ transport: http(server.url) })
      const filter = await client.createEventFilter({ address: at.token, fromBlock: 0n })
      const changes = await client.getFilterChanges({ filter })
      expect(changes.map((l) => [l.transactionHash, l.logIndex, l.removed])).toEqual(theirLogs.map((l: any) => [l.transactionHash, Number(l.logIndex), false]))
      expect(await client.getFilterChanges({ filter })).toEqual([])
      expect((await client.getFilterLogs({ filter })).map((l) => l.transactionHash)).toEqual(theirLogs.map((l: any) => l.transactionHash))
      const range = [{ toBlock: hex(at.forkNumber) }]
      expect(await ethers.send('trace_filter', range)).toEqual(await rpc(remote.provider, 'trace_filter', range))
      expect(await ethers.send('eth_getBlocksByNumber', ['0x1'])).toEqual(await rpc(remote.provider, 'eth_getBlocksByNumber', ['0x1']))
    } finally {
      ethers.destroy()
      await server.close()
    }
  })

  it('a JSON integer no double holds, in a request forwarded to the remote over HTTP, reaches the remote as the same digits, and its answer is the reply', async () => {
    const server = await startServer({ port: 0, accountTxRateLimit: false, fork: { url: proxy.url, blockNumber: at.forkNumber, cache: cacheDir } } as never)
    const post = async (url: string, body: string): Promise<any> => (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json()
    // JSON.parse reads 1234567890123456789 as 1234567890123456800: the literal must go on as written.
    const object = `{"from":"${COW}","to":"${BOB}","value":1234567890123456789,"gas":21000}`
    try {
      for (const method of ['eth_call', 'eth_estimateGas']) {
        // Below the forked block: the remote's (forkRoute.ts `atState`), asked with the params as sent.
        const below = `{"jsonrpc":"2.0","id":7,"method":"${method}","params":[${object},"${hex(at.forkNumber - 1)}"]}`
        const before = proxy.bodies.length
        const reply = await post(server.url, below)
        expect([method, reply]).toEqual([method, await post(remote.url, below)])
        expect(reply.error).toBeUndefined()
        const sent = proxy.bodies.slice(before).filter((b) => b.includes(method))
        expect(sent).toHaveLength(1)
        expect(sent[0]).toContain(`"value":1234567890123456789,`)
        // Asked again: the same call, answered from the fork cache (its key holds the digits) without the remote.
        expect(await post(server.url, below)).toEqual(reply)
        expect(proxy.bodies.slice(before).filter((b) => b.includes(method))).toHaveLength(1)
        // At the head the call runs here, over the remote's state: the remote's answer at the forked block.
        const atHead = `{"jsonrpc":"2.0","id":8,"method":"${method}","params":[${object},"latest"]}`
        expect([method, await post(server.url, atHead)]).toEqual([method, await post(remote.url, atHead.replace('"latest"', `"${hex(at.forkNumber)}"`))])
      }
      // In process, a bigint param goes to the remote as the same JSON integer.
      const before = proxy.bodies.length
      const call = { from: COW, to: BOB, value: 1234567890123456789n, gas: 21000 }
      expect(await rpc(server.provider, 'eth_call', [call, hex(at.forkNumber - 2)])).toBe('0x')
      expect(proxy.bodies.slice(before).find((b) => b.includes('eth_call'))).toContain(`"value":1234567890123456789,`)
    } finally {
      await server.close()
    }
  })

  /**
   * RSKj reads eth_call's overrides (`AccountOverride.fromAccountOverrideParam`) before the block
   * (`Web3Impl.eth_call`, then `new BlockIdentifierParam(...)` and `ExecutionBlockRetriever`), so an override it cannot
   * read wins over a block number it cannot read; on a fork too, where the block is looked at to route the call.
   */
  it('eth_call: a bad override wins over a block text that cannot be read, as without a fork', async () => {
    const f = await forkAt()
    const want = `Invalid state override for ${BOB}: balance 100 is not a 0x hex number`
    for (const block of ['0x8000000000000000', '99999999999999999999', '0x' + 'ab'.repeat(32)]) {
      await expect(rpc(f, 'eth_call', [{ from: COW, to: BOB }, block, { [BOB]: { balance: '100' } }]), block).rejects.toMatchObject({ code: -32602, message: want })
    }
    // The block's own error is still answered when the overrides are good.
    await expect(rpc(f, 'eth_call', [{ from: COW, to: BOB }, '0x8000000000000000', { [BOB]: { balance: '0x1' } }])).rejects.toMatchObject({
      code: -32602,
      message: 'Invalid hexadecimal number: 0x8000000000000000',
    })
  })

  it('eth_getBlocksByNumber answers the remote\'s heights below the forked block, and rsksim\'s from it on', async () => {
    const f = await forkAt()
    await rpc(f, 'evm_mine')
    for (const n of [0, 1, at.forkNumber - 1]) {
      expect([n, await rpc(f, 'eth_getBlocksByNumber', [hex(n)])]).toEqual([n, await rpc(remote.provider, 'eth_getBlocksByNumber', [hex(n)])])
    }
    const forked = await rpc(f, 'eth_getBlocksByNumber', [hex(at.forkNumber)])
    expect(forked).toEqual([{ hash: at.forkBlock.hash, totalDifficulty: at.forkBlock.totalDifficulty, inMainChain: true }])
    const mined = await rpc(f, 'eth_getBlockByNumber', [hex(at.forkNumber + 1), false])
    expect(await rpc(f, 'eth_getBlocksByNumber', [hex(at.forkNumber + 1)])).toEqual([{ hash: mined.hash, totalDifficulty: mined.totalDifficulty, inMainChain: true }])
    expect(await rpc(f, 'eth_getBlocksByNumber', [hex(at.forkNumber + 5)])).toEqual([])
    await f.disconnect()
  })

  it('trace_filter pages through the remote\'s traces up to the forked block, then rsksim\'s', async () => {
    const f = await forkAt()
    const r = await send(f, { to: BOB, value: '0x5' })
    await send(f, { to: ALICE, value: '0x6' })
    // References: the remote's own trace_filter up to the forked block, and the fork's over its own blocks.
    const theirs = await rpc(remote.provider, 'trace_filter', [{ toBlock: hex(at.forkNumber) }])
    const own = await rpc(f, 'trace_filter', [{ fromBlock: hex(at.forkNumber + 1) }])
    expect(theirs.length).toBeGreaterThan(3)
    expect(own[0].transactionHash).toBe(r.transactionHash)
    // The default range starts at block 0: before, a fork answered [] (block 0 is not among its own blocks).
    expect(await rpc(f, 'trace_filter', [{}])).toEqual([...theirs, ...own])
    const n = theirs.length
    expect(await rpc(f, 'trace_filter', [{ after: n - 1, count: 2 }])).toEqual([theirs[n - 1], own[0]])
    expect(await rpc(f, 'trace_filter', [{ after: n + 1, count: 2 }])).toEqual(own.slice(1, 3))
    expect(await rpc(f, 'trace_filter', [{ count: 3 }])).toEqual(theirs.slice(0, 3))
    expect(await rpc(f, 'trace_filter', [{ fromBlock: '0x1', toBlock: hex(at.forkNumber - 1) }])).toEqual(
      await rpc(remote.provider, 'trace_filter', [{ fromBlock: '0x1', toBlock: hex(at.forkNumber - 1) }]),
    )
    // Address criteria go to the remote as sent and apply to rsksim's blocks alike.
    const toAlice = await rpc(f, 'trace_filter', [{ toAddress: [ALICE] }])
    const theirsToAlice = await rpc(remote.provider, 'trace_filter', [{ toBlock: hex(at.forkNumber), toAddress: [ALICE] }])
    expect(theirsToAlice.length).toBeGreaterThan(0)
    expect(toAlice).toEqual([...theirsToAlice, ...(await rpc(f, 'trace_filter', [{ fromBlock: hex(at.forkNumber + 1), toAddress: [ALICE] }]))])
    expect(toAlice.length).toBe(theirsToAlice.length + 1)
    // RSKj reads a bound with HexUtils.stringHexToBigInteger(..).longValue() (TraceModuleImpl.java 298, HexUtils.java
    // 72-78): a signed `0x-1` names no block, so as fromBlock there is no walk ([], 151-157) and as toBlock the best
    // block (147); a number past a long keeps its low 64 bits, so 0x10000000000000001 is block 1, the remote's.
    expect(await rpc(f, 'trace_filter', [{ fromBlock: '0x-1' }])).toEqual([])
    expect(await rpc(f, 'trace_filter', [{ toBlock: '0x-1' }])).toEqual([...theirs, ...own])
    expect(await rpc(f, 'trace_filter', [{ fromBlock: '0x10000000000000001', toBlock: hex(at.forkNumber - 1) }])).toEqual(
      await rpc(remote.provider, 'trace_filter', [{ fromBlock: '0x1', toBlock: hex(at.forkNumber - 1) }]),
    )
    // An address without `0x` (new RskAddress(String) strips it when present) is the same address on both sides.
    expect(await rpc(f, 'trace_filter', [{ toAddress: [ALICE.slice(2)] }])).toEqual(toAlice)
    // A transaction hash of another length names no transaction (RSKj looks its bytes up as they are,
    // TraceModuleImpl.java 91-97): null, without asking the remote (whose eth_getTransactionByHash would refuse it).
    expect(await rpc(f, 'trace_transaction', ['0x1234'])).toBeNull()
    expect(await rpc(f, 'debug_traceTransaction', ['0x1234'])).toBeNull()
    await f.disconnect()
  })

  it('snapshots, reverts and resets over the remote\'s state; hardhat_reset forks again at another block', async () => {
    const f = await forkAt()
    const get = (p: Provider, slot: bigint, tag = 'latest') => rpc(p, 'eth_call', [{ to: at.storage, data: storage.encodeFunctionData('get', [slot]) }, tag]).then(BigInt)
    const snap = await rpc(f, 'evm_snapshot')
    await send(f, { to: at.storage, data: storage.encodeFunctionData('set', [1n, 99n]) })
    await send(f, { to: ALICE, value: '0x5' })
    expect(await get(f, 1n)).toBe(99n)
    expect(await rpc(f, 'evm_revert', [snap])).toBe(true)
    expect(await get(f, 1n)).toBe(11n)
    expect(await rpc(f, 'eth_getBalance', [ALICE, 'latest'])).toBe(await rpc(remote.provider, 'eth_getBalance', [ALICE, hex(at.forkNumber)]))
    await send(f, { to: at.storage, data: storage.encodeFunctionData('set', [3n, 0n]) })
    await rpc(f, 'hardhat_reset')
    expect(Number(await rpc(f, 'eth_blockNumber'))).toBe(at.forkNumber)
    expect(await get(f, 3n)).toBe(33n)
    // Fork again, below the block where slot 1 was set: its value there is the remote's then (zero).
    const setAt = 5
    await rpc(f, 'hardhat_reset', [{ forking: { jsonRpcUrl: proxy.url, blockNumber: setAt } }])
    expect(Number(await rpc(f, 'eth_blockNumber'))).toBe(setAt)
    expect(await get(f, 1n)).toBe(await get(remote.provider, 1n, hex(setAt)))
    expect(await rpc(f, 'eth_getBlockByNumber', ['latest', false])).toEqual(await rpc(remote.provider, 'eth_getBlockByNumber', [hex(setAt), false]))
    const nodeInfo = await rpc(f, 'anvil_nodeInfo')
    expect(nodeInfo.forkConfig.forkBlockNumber).toBe(setAt)
    expect(nodeInfo.forkConfig.forkUrl).not.toContain('secretKey')
    const block5 = await rpc(remote.provider, 'eth_getBlockByNumber', [hex(setAt), false])
    expect((await rpc(f, 'anvil_metadata')).forkedNetwork).toEqual({ chainId: 33, forkBlockNumber: setAt, forkBlockHash: block5.hash })
    await f.disconnect()
  })

  it("anvil_metadata's and hardhat_metadata's forkedNetwork name the remote's chain id and the forked block, as Anvil and Hardhat do", async () => {
    const f = await forkAt()
    // Anvil 1.7.1 and Hardhat 3.18 (EDR) forking a remote rsksim answered this object, numbers as JSON numbers (checked by hand).
    const forkedNetwork = { chainId: 33, forkBlockNumber: at.forkNumber, forkBlockHash: at.forkBlock.hash }
    const snap = await rpc(f, 'evm_snapshot')
    await rpc(f, 'evm_mine')
    const head = await rpc(f, 'eth_getBlockByNumber', ['latest', false])
    const anvil = await rpc(f, 'anvil_metadata')
    expect(anvil).toMatchObject({ chainId: 33, latestBlockNumber: at.forkNumber + 1, latestBlockHash: head.hash, forkedNetwork, snapshots: { [snap]: [at.forkNumber, at.forkBlock.hash] } })
    expect(await rpc(f, 'hardhat_metadata')).toEqual({ clientVersion: anvil.clientVersion, chainId: 33, instanceId: anvil.instanceId, latestBlockNumber: at.forkNumber + 1, latestBlockHash: head.hash, forkedNetwork })
    await f.disconnect()
  })

  it('a remote that goes down answers a clear error naming it (without its key); cached reads and local work go on', async () => {
    const f = await forkAt({ retries: 1, cache: false })
    const alice = await rpc(remote.provider, 'eth_getBalance', [ALICE, hex(at.forkNumber)])
    expect(await rpc(f, 'eth_getBalance', [ALICE, 'latest'])).toBe(alice)
    // A first transfer reads what every later block needs (the coinbase, REMASC, the paid blocks).
    await send(f, { to: ALICE, value: '0x1' })
    await rpc(f, 'eth_call', [{ from: COW, to: at.token, data: token.encodeFunctionData('balanceOf', [ALICE]) }, 'latest'])
    proxy.down = true
    try {
      const e = await rejects(rpc(f, 'eth_getBalance', [BOB, 'latest']), -32603)
      expect(e.message).toContain('fork remote http://127.0.0.1:')
      expect(e.message).toContain('eth_getBalance')
      expect(e.message).not.toContain('secretKey')
      await rejects(rpc(f, 'eth_getBlockByNumber', ['0x1', false]), -32603, /fork remote .*eth_getBlockByHash|fork remote .*eth_getBlockByNumber/)
      // A read that fails in the middle of an execution (a storage slot not read before) fails the call, and leaves
      // no checkpoint of the frames it stopped open: after the next block the state has nothing left unrooted.
      await rejects(rpc(f, 'eth_call', [{ from: COW, to: at.token, data: token.encodeFunctionData('balanceOf', [BOB]) }, 'latest']), -32603, /eth_getStorageAt/)
      // A transaction that needs what cannot be read is refused, and not kept for later.
      const count = await rpc(f, 'eth_getTransactionCount', [COW, 'pending'])
      await rejects(rpc(f, 'eth_sendTransaction', [{ from: COW, to: BOB, value: '0x1' }]), -32603, /fork remote .*eth_get/)
      expect(await rpc(f, 'eth_getTransactionCount', [COW, 'pending'])).toBe(count)
      // What was read stays readable, and the chain goes on.
      expect(BigInt(await rpc(f, 'eth_getBalance', [ALICE, 'latest']))).toBe(BigInt(alice) + 1n)
      const r = await send(f, { to: ALICE, value: '0x7' })
      expect(r.status).toBe('0x1')
      expect(BigInt(await rpc(f, 'eth_getBalance', [ALICE, 'latest']))).toBe(BigInt(alice) + 8n)
      expect(f.node.chain.state.hasUnrootedWrites).toBe(false)
    } finally {
      proxy.down = false
    }
    // Back up: the failed read is tried again.
    expect(await rpc(f, 'eth_getBalance', [BOB, 'latest'])).toBe('0x0')
    await f.disconnect()
  })

  it('hardhat_reset to a fork through viem\'s test client; bad forking options and a slow remote leave the chain as it was', async () => {
    const f = await forkAt()
    const test = createTestClient({ mode: 'hardhat', transport: custom(f, { retryCount: 0 }) })
    await test.reset({ jsonRpcUrl: proxy.url, blockNumber: 3n })
    expect(Number(await rpc(f, 'eth_blockNumber'))).toBe(3)
    expect(await rpc(f, 'eth_getBlockByNumber', ['latest', false])).toEqual(await rpc(remote.provider, 'eth_getBlockByNumber', ['0x3', false]))
    const head = await rpc(f, 'eth_getBlockByNumber', ['latest', false])
    await rejects(rpc(f, 'hardhat_reset', [{ forking: { blockNumber: 10_000 } }]), -32602, /cannot fork at block 10000: the remote http:\/\/127\.0\.0\.1:\d+\/\*\*\* is at block/)
    await rejects(rpc(f, 'hardhat_reset', [{ forking: { blockNumber: -1 } }]), -32602, /forking.blockNumber must be a non-negative integer/)
    await rejects(rpc(f, 'hardhat_reset', [{ forking: { jsonRpcUrl: 'ftp://x' } }]), -32602, /forking.jsonRpcUrl must be an http\(s\) URL/)
    // A remote slower than rpcTimeout (default 5 s): the reset answers -32011 and nothing changed.
    const quick = await fresh({ fork: { url: proxy.url, blockNumber: at.forkNumber, cache: false } as never, rpcTimeout: 200 })
    proxy.delay = 600
    try {
      await rejects(rpc(quick, 'hardhat_reset', [{ forking: { blockNumber: 2 } }]), -32011, 'Execution has got timeout out.')
    } finally {
      proxy.delay = 0
    }
    expect(Number(await rpc(quick, 'eth_blockNumber'))).toBe(at.forkNumber)
    expect((await rpc(quick, 'eth_getBlockByNumber', ['latest', false])).hash).toBe(at.forkBlock.hash)
    await quick.disconnect()
    expect(await rpc(f, 'eth_getBlockByNumber', ['latest', false])).toEqual(head)
    await f.disconnect()
  })

  it('a slow remote holds a request no longer than rpcTimeout (-32011); the read goes on and serves the next request', async () => {
    const p = await fresh({ fork: { url: proxy.url, blockNumber: at.forkNumber, cache: false } as never, rpcTimeout: 300 })
    const call = { from: COW, to: at.token, data: token.encodeFunctionData('balanceOf', [ALICE]) }
    await rpc(p, 'eth_call', [{ from: COW, to: at.token, data: token.encodeFunctionData('totalSupply') }, 'latest'])
    proxy.delay = 1_000
    try {
      // ALICE's balance slot is not read yet: the remote answers after the deadline.
      await rejects(rpc(p, 'eth_call', [call, 'latest']), -32011, 'Execution has got timeout out.')
      // The node is free at once.
      expect(Number(await rpc(p, 'eth_blockNumber'))).toBe(at.forkNumber)
      // The read finishes in the background; the same call then answers from it without asking again.
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      const before = proxy.calls.length
      expect(await rpc(p, 'eth_call', [call, 'latest'])).toBe(await rpc(remote.provider, 'eth_call', [call, hex(at.forkNumber)]))
      expect(proxy.calls.length).toBe(before)
    } finally {
      proxy.delay = 0
    }
    // Nothing was left half done: the next block settles every write (no checkpoint left open by the timeout).
    await rpc(p, 'evm_mine')
    expect(p.node.chain.state.hasUnrootedWrites).toBe(false)
    await p.disconnect()
  })

  it('a request forwarded to a slow remote waits no longer than rpcTimeout either (-32011, bare over HTTP); the answer is kept for the next one', async () => {
    const server = await startServer({ port: 0, accountTxRateLimit: false, rpcTimeout: 300, fork: { url: proxy.url, blockNumber: at.forkNumber, cache: false } } as never)
    const p = server.provider
    proxy.delay = 1_000
    try {
      // The remote's history (a block below the forked one, a transaction it mined, its trace): asked of the remote
      // outside the node's queue, under the same deadline as every request (RSKj's JsonRpcTimeoutError).
      // Answered at the deadline, not once the remote answered: the proxy has passed back none of the requests it
      // holds yet (read from it, not from the clock, which a loaded machine slows).
      const answered = proxy.heldAnswered
      await rejects(rpc(p, 'eth_getBlockByNumber', ['0x1', false]), -32011, 'Execution has got timeout out.')
      expect(proxy.heldAnswered).toBe(answered)
      await rejects(rpc(p, 'eth_getTransactionByHash', [at.remoteTx]), -32011, 'Execution has got timeout out.')
      await rejects(rpc(p, 'debug_traceTransaction', [at.remoteTx]), -32011, 'Execution has got timeout out.')
      const reply = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'trace_block', params: ['0x1'] }) })
      expect(await reply.json()).toEqual({ error: { code: -32011, message: 'Execution has got timeout out.' } })
      // The node is free meanwhile; the reads finish in the background, and a block read is kept (cache off: blocks
      // and transactions are kept in memory), so the same request then asks nothing.
      expect(Number(await rpc(p, 'eth_blockNumber'))).toBe(at.forkNumber)
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      const before = proxy.calls.length
      expect(await rpc(p, 'eth_getBlockByNumber', ['0x1', false])).toEqual(await rpc(remote.provider, 'eth_getBlockByNumber', ['0x1', false]))
      expect(proxy.calls.length).toBe(before)
    } finally {
      proxy.delay = 0
      await server.close()
    }
  })

  it('a request that asked the remote before rsksim answers it has only the rest of rpcTimeout for its local run', async () => {
    const p = await fresh({ fork: { url: proxy.url, blockNumber: at.forkNumber, cache: false } as never, rpcTimeout: 5_000 })
    await rpc(p, 'evm_mine')
    const guard = p.node.chain.guard
    const within = guard.within.bind(guard)
    const budgets: number[] = []
    guard.within = ((ms: number, task: () => unknown) => (budgets.push(ms), within(ms, task as never))) as typeof guard.within
    proxy.delay = 400
    try {
      // A block hash the remote does not know: asked of the remote (400 ms), then answered by rsksim (not found).
      await rpc(p, 'eth_getBalance', [COW, { blockHash: '0x' + 'ab'.repeat(32) }]).catch(() => undefined)
      // trace_filter across the forked block: the remote's traces (400 ms a page), then rsksim's block's.
      await rpc(p, 'trace_filter', [{ fromBlock: hex(at.forkNumber), toBlock: hex(at.forkNumber + 1) }])
    } finally {
      proxy.delay = 0
      guard.within = within
    }
    // Each local run got what was left of the 5 s: at most 4.6 s (before, a whole second rpcTimeout: 5,000).
    expect(budgets).toHaveLength(2)
    for (const ms of budgets) expect(ms > 0 && ms <= 4_600, `local budget ${ms} ms`).toBe(true)
    await p.disconnect()
  })

  it('with the disk cache, a second run at the same block asks the remote nothing, to start or for what the first one read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rsksim-fork-warm-'))
    const reads = async (p: Provider) => [
      await rpc(p, 'eth_getBalance', [ALICE, 'latest']),
      await rpc(p, 'eth_call', [{ to: at.token, data: token.encodeFunctionData('balanceOf', [ALICE]) }, 'latest']),
      await rpc(p, 'eth_getStorageAt', [at.storage, '0x1', 'latest']),
      await rpc(p, 'eth_getBlockByNumber', ['0x3', false]),
    ]
    try {
      const cold = await forkAt({ cache: dir })
      const startup = proxy.calls.length
      const first = await reads(cold)
      const coldCalls = proxy.calls.length - startup
      await cold.disconnect()
      expect(coldCalls).toBeGreaterThan(0)
      const before = proxy.calls.length
      const warm = await forkAt({ cache: dir })
      expect(await reads(warm)).toEqual(first)
      expect(proxy.calls.slice(before)).toEqual([])
      await warm.disconnect()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('without the disk cache, the remote\'s blocks and transactions are asked once while among the last 1,024 kept', async () => {
    const f = await forkAt({ cache: false })
    const block1 = await rpc(remote.provider, 'eth_getBlockByNumber', ['0x1', false])
    const before = proxy.calls.length
    // A route first asks whose block the hash is (eth_getBlockByHash), then answers with the remote's answer: each asked once.
    for (let i = 0; i < 3; i++) expect(await rpc(f, 'eth_getBlockByHash', [block1.hash, false])).toEqual(block1)
    // Other answers are not kept in memory (they may be large, and nothing else would bound them); eth_bridgeState,
    // which has no block parameter, is never cached.
    for (let i = 0; i < 2; i++) expect(await rpc(f, 'eth_getBlockTransactionCountByHash', [block1.hash])).toBe(hex(block1.transactions.length))
    for (let i = 0; i < 2; i++) await rpc(f, 'eth_bridgeState')
    expect(proxy.calls.slice(before)).toEqual(['eth_getBlockByHash', ...Array(2).fill('eth_getBlockTransactionCountByHash'), ...Array(2).fill('eth_bridgeState')])
    // At most 1,024 of them are kept, the oldest out first: the first of 1,025 unknown transactions is asked again.
    const hashes = Array.from({ length: 1_025 }, (_, i) => '0xab' + (i + 1).toString(16).padStart(62, '0'))
    for (const h of hashes) expect(await rpc(f, 'eth_getTransactionByHash', [h])).toBeNull()
    const asked = proxy.calls.length
    expect(await rpc(f, 'eth_getTransactionByHash', [hashes[1_024]])).toBeNull()
    expect(proxy.calls.length).toBe(asked)
    expect(await rpc(f, 'eth_getTransactionByHash', [hashes[0]])).toBeNull()
    expect(proxy.calls.slice(asked)).toEqual(['eth_getTransactionByHash'])
    await f.disconnect()
  })

  it('REMASC pays the remote\'s blocks out on the fork as the remote itself does', async () => {
    const f = await forkAt()
    // The remote, back at the forked block, mines the same empty blocks: it is the reference.
    await rpc(remote.provider, 'evm_revert', [at.snapshot])
    for (let i = 0; i < 10; i++) {
      await rpc(f, 'evm_mine')
      await rpc(remote.provider, 'evm_mine')
    }
    const from = hex(at.forkNumber + 1)
    const mine = await rpc(f, 'eth_getLogs', [{ fromBlock: from, toBlock: 'latest', address: REMASC }])
    const theirs = await rpc(remote.provider, 'eth_getLogs', [{ fromBlock: from, toBlock: 'latest', address: REMASC }])
    const payments = (logs: any[]) => logs.map((l) => [l.blockNumber, l.topics, l.data])
    expect(payments(mine)).toEqual(payments(theirs))
    expect(mine.length).toBeGreaterThan(5)
    const rewardKey = '0x' + Buffer.from('rewardBalance').toString('hex').padStart(64, '0')
    for (const who of [REMASC, MINER, '0xdabadabadabadabadabadabadabadabadaba0001']) {
      expect([who, await rpc(f, 'eth_getBalance', [who, 'latest'])]).toEqual([who, await rpc(remote.provider, 'eth_getBalance', [who, 'latest'])])
    }
    expect(await rpc(f, 'eth_getStorageAt', [REMASC, rewardKey, 'latest'])).toBe(await rpc(remote.provider, 'eth_getStorageAt', [REMASC, rewardKey, 'latest']))
    await f.disconnect()
  })

  it('refuses bad fork options with a clear message', async () => {
    await expect(fresh({ fork: { url: 'ftp://x' } } as never)).rejects.toThrow('fork.url must be an http:// or https:// URL')
    await expect(fresh({ fork: { url: proxy.url, blockNumber: 10_000 }, accountTxRateLimit: false } as never)).rejects.toThrow(/cannot fork at block 10000: the remote .* is at block/)
    await expect(fresh({ fork: { url: 'http://127.0.0.1:1/k', retries: 0 } } as never)).rejects.toThrow(/fork remote http:\/\/127\.0\.0\.1:1\/.*eth_chainId/)
  })
})

describe("Otterscan's ots_* of a remote's blocks and transactions, built from what an RSKj remote answers", () => {
  // The remote is a second rsksim, which answers ots_* itself: its answers are the expected ones. The fork may ask it
  // only the service's hosted methods (an RSKj remote has no ots_*).
  const HOSTED = ['eth_chainId', 'eth_blockNumber', 'eth_getBlockByNumber', 'eth_getBlockByHash', 'eth_getTransactionByHash', 'eth_getTransactionReceipt', 'trace_transaction', 'debug_traceTransaction']
  const ci = new Interface(Caller.abi as never)
  const ri = new Interface(Reverter.abi as never)
  const SALT = '0x' + '00'.repeat(31) + '01'
  // Init code that reverts with 32 bytes 0x00…01: revert data with leading zero bytes (PUSH1 1 PUSH1 0 MSTORE
  // PUSH1 32 PUSH1 0 REVERT).
  const REVERTING_INIT = '0x600160005260206000fd'
  let remote: RsksimServer
  let proxy: Awaited<ReturnType<typeof countingProxy>>
  const tx: Record<string, string> = {}
  let block: any
  let forkNumber: number

  beforeAll(async () => {
    remote = await startServer({ port: 0, accountTxRateLimit: false })
    const r = remote.provider
    const caller = await deploy(r, Caller)
    const target = await deploy(r, Target)
    const reverter = await deploy(r, Reverter)
    await send(r, { to: caller, value: '0x5' })
    // One block holding every kind of transaction, so ots_getBlockTransactions has pages to turn.
    await rpc(r, 'evm_setAutomine', [false])
    const sent = async (name: string, t: Record<string, unknown>) => {
      tx[name] = await rpc(r, 'eth_sendTransaction', [{ from: COW, gas: '0x4c4b40', gasPrice: '0x3b9aca00', ...t }])
    }
    await sent('call', { to: caller, data: ci.encodeFunctionData('callTarget', [target, 9]) })
    await sent('pay', { to: caller, data: ci.encodeFunctionData('pay', [ALICE]), value: '0x4d' })
    await sent('create', { to: caller, data: ci.encodeFunctionData('create') })
    await sent('create2', { to: caller, data: ci.encodeFunctionData('create2', [SALT]) })
    await sent('caught', { to: caller, data: ci.encodeFunctionData('tryRevert', [reverter]) })
    await sent('revert', { to: reverter, data: ri.encodeFunctionData('revertWithReason') })
    await sent('badDeploy', { data: REVERTING_INIT })
    await sent('destroy', { to: caller, data: ci.encodeFunctionData('destroy', [BOB]) })
    await sent('identity', { to: '0x0000000000000000000000000000000000000004', data: '0x0102030405' })
    await sent('transfer', { to: BOB, value: '0x9' })
    await rpc(r, 'evm_mine')
    await rpc(r, 'evm_setAutomine', [true])
    await rpc(r, 'evm_mine')
    forkNumber = Number(await rpc(r, 'eth_blockNumber'))
    block = await rpc(r, 'eth_getBlockByNumber', [hex(forkNumber - 1), false])
    expect(block.transactions.slice(0, 10)).toEqual(Object.values(tx))
    proxy = await countingProxy(remote.url)
    // The remote's trace_transaction and callTracer lose the top frame's output, as RSKj's do.
    proxy.rskjTraces = true
  })

  afterAll(async () => {
    await proxy?.close()
    await remote?.close()
  })

  it('ots_traceTransaction, ots_getInternalOperations and ots_getTransactionError of each remote transaction are the remote\'s', async () => {
    const f = await fresh({ fork: { url: proxy.url, blockNumber: forkNumber, cache: false } } as never)
    proxy.calls.length = 0
    // The block's last transaction is REMASC's system transaction (its trace: a call to REMASC paying the miners).
    for (const [name, hash] of [...Object.entries(tx), ['remasc', block.transactions.at(-1)]]) {
      for (const m of ['ots_traceTransaction', 'ots_getInternalOperations', 'ots_getTransactionError']) {
        expect([name, m, await rpc(f, m, [hash])]).toEqual([name, m, await rpc(remote.provider, m, [hash])])
      }
    }
    // What the cases hold, so the equalities above compare something: internal transfers, CREATE and CREATE2, a
    // SELFDESTRUCT, a caught inner revert with its reason, a top-level revert, a failed deployment's revert data.
    const trace = (h: string | undefined) => rpc(f, 'ots_traceTransaction', [h])
    // The proxy gives RSKj's trace shapes: the top frame's output is not in trace_transaction's answer.
    const created = (await rpc(remote.provider, 'trace_transaction', [tx.create]))[0].result.output
    expect(BigInt(created)).toBeGreaterThan(0n)
    expect((await rpc(f, 'trace_transaction', [tx.create]))[0].result.output).toBe('0x')
    expect((await trace(tx.create))[0].output).toBe(created)
    expect((await rpc(f, 'ots_getInternalOperations', [tx.pay])).map((o: any) => o.type)).toEqual([0])
    expect((await trace(tx.create2)).map((e: any) => e.type)).toEqual(['CALL', 'CREATE2'])
    expect((await trace(tx.create)).map((e: any) => e.type)).toEqual(['CALL', 'CREATE'])
    expect((await trace(tx.destroy)).map((e: any) => e.type)).toEqual(['CALL', 'SELFDESTRUCT'])
    const nope = ri.encodeErrorResult('Error', ['nope'])
    expect((await trace(tx.caught))[1]).toMatchObject({ depth: 1, output: nope })
    expect((await trace(tx.call))[0].output).toBe('0x')
    expect(await rpc(f, 'ots_getTransactionError', [tx.revert])).toBe(nope)
    expect(await rpc(f, 'ots_getTransactionError', [tx.badDeploy])).toBe('0x' + '00'.repeat(31) + '01')
    expect(await rpc(f, 'ots_getTransactionError', [tx.call])).toBe('0x')
    // A real client over the fork's provider (viem, as Otterscan-minded tools call it) gets the same answers.
    const viem = createPublicClient({ transport: custom(f) })
    expect(await viem.request({ method: 'ots_getTransactionError' as never, params: [tx.revert] as never })).toBe(nope)
    expect(await viem.request({ method: 'ots_traceTransaction' as never, params: [tx.create2] as never })).toEqual(await trace(tx.create2))
    expect(new Set(proxy.calls).size).toBeGreaterThan(0)
    expect([...new Set(proxy.calls)].filter((m) => !HOSTED.includes(m))).toEqual([])
    // A transaction of the fork's own is rsksim's, as before.
    const own = await send(f, { to: BOB, value: '0x1' })
    expect(await trace(own.transactionHash)).toHaveLength(1)
    await f.disconnect()
  })

  it("erigon_getHeaderByNumber takes a block hash as eth_getBlockByNumber does: the remote's blocks' (the forked one too) from the remote", async () => {
    const f = await fresh({ fork: { url: proxy.url, blockNumber: forkNumber, cache: false } } as never)
    const forked = await rpc(remote.provider, 'eth_getBlockByNumber', [hex(forkNumber), false])
    for (const hash of [block.hash, forked.hash]) {
      // The remote's own answer for that hash is the expected one, and the fork's eth_getBlockByNumber agrees.
      const expected = await rpc(remote.provider, 'erigon_getHeaderByNumber', [hash])
      expect(expected.hash).toBe(hash)
      expect(await rpc(f, 'erigon_getHeaderByNumber', [hash])).toEqual(expected)
      expect(await rpc(f, 'eth_getBlockByNumber', [hash, false])).toEqual(expected)
      expect((await rpc(f, 'ots_getBlockDetails', [hash])).block.hash).toBe(hash)
    }
    // rsksim's own block by its hash is its own; a hash neither chain has is null.
    await rpc(f, 'evm_mine')
    const own = await rpc(f, 'eth_getBlockByNumber', [hex(forkNumber + 1), false])
    expect(await rpc(f, 'erigon_getHeaderByNumber', [own.hash])).toEqual(own)
    expect(await rpc(f, 'erigon_getHeaderByNumber', ['0x' + 'ab'.repeat(32)])).toBeNull()
    await f.disconnect()
  })

  it('ots_getBlockTransactions of a remote block: its pages and their receipts, the receipts asked in one batch', async () => {
    const f = await fresh({ fork: { url: proxy.url, blockNumber: forkNumber, cache: false } } as never)
    proxy.calls.length = 0
    proxy.batches.length = 0
    const n = forkNumber - 1
    const page = await rpc(f, 'ots_getBlockTransactions', [n, 1, 3])
    expect(page).toEqual(await rpc(remote.provider, 'ots_getBlockTransactions', [n, 1, 3]))
    expect(page.fullblock.transactions.map((t: any) => t.hash)).toEqual(block.transactions.slice(3, 6))
    expect(page.fullblock.transactionCount).toBe(block.transactions.length)
    // Only the page's receipts were asked, together.
    expect(proxy.calls.filter((m) => m === 'eth_getTransactionReceipt')).toHaveLength(3)
    expect(proxy.batches).toContainEqual(['eth_getTransactionReceipt', 'eth_getTransactionReceipt', 'eth_getTransactionReceipt'])
    expect([...new Set(proxy.calls)].filter((m) => !HOSTED.includes(m))).toEqual([])
    // A real client over the fork's provider gets the same page.
    expect(await createPublicClient({ transport: custom(f) }).request({ method: 'ots_getBlockTransactions' as never, params: [n, 1, 3] as never })).toEqual(page)
    for (const [pg, size] of [[0, 25], [0, 1], [2, 4], [9, 4]]) {
      expect(await rpc(f, 'ots_getBlockTransactions', [n, pg, size])).toEqual(await rpc(remote.provider, 'ots_getBlockTransactions', [n, pg, size]))
    }
    expect(await rpc(f, 'ots_getBlockTransactions', [0, 0, 10])).toEqual(await rpc(remote.provider, 'ots_getBlockTransactions', [0, 0, 10]))
    // The block above the forked one is rsksim's own: none yet.
    expect(await rpc(f, 'ots_getBlockTransactions', [forkNumber + 1, 0, 10])).toBeNull()
    await f.disconnect()
  })
})

describe('forking a chain past block 449 (RSKIP110 fork detection data)', () => {
  it('mines on the forked block; the new blocks\' fork detection data count the remote\'s ancestors as absent', async () => {
    // Every live network is past block 449, where each mined block's hash for merged mining starts to carry
    // ancestors' Bitcoin hash bytes; before this test, mining on such a fork failed with "Internal server error".
    const remote = await startServer({ port: 0, accountTxRateLimit: false })
    try {
      await rpc(remote.provider, 'hardhat_mine', ['0x1d0'])
      const forkNumber = Number(await rpc(remote.provider, 'eth_blockNumber'))
      expect(forkNumber).toBe(464)
      const f = await fresh({ fork: { url: remote.url, blockNumber: forkNumber, cache: false } as never })
      const r = await send(f, { to: BOB, value: '0x7' })
      expect(r.status).toBe('0x1')
      await rpc(f, 'evm_mine')
      expect(await rpc(f, 'eth_getBalance', [BOB, 'latest'])).toBe('0x7')
      for (const n of [forkNumber + 1, forkNumber + 2]) {
        const block = await rpc(f, 'eth_getBlockByNumber', [hex(n), false])
        // RSKIP110's 12 bytes after the hash's first 20: seven ancestor bytes (the remote's blocks: absent, so 0),
        // the uncle count of the last 32 blocks (0), then the height of the block as 4 big-endian bytes.
        expect([n, block.hashForMergedMining.slice(2 + 40)]).toEqual([n, '00'.repeat(8) + n.toString(16).padStart(8, '0')])
      }
      await f.disconnect()
    } finally {
      await remote.close()
    }
  }, 60_000)
})

describe('fork flags', () => {
  it('--fork-* flags become fork options; stray or conflicting ones are refused', async () => {
    const { parseCli } = await import('../src/server/cliArgs.js')
    expect(parseCli(['--fork-url', 'https://rpc.testnet.rootstock.io/KEY', '--fork-block-number', '0x10', '--fork-header', 'Authorization: Bearer x', '--no-fork-cache', '--fork-retries', '2', '--fork-timeout', '500'])).toMatchObject({
      options: { fork: { url: 'https://rpc.testnet.rootstock.io/KEY', blockNumber: 16n, headers: { Authorization: 'Bearer x' }, cache: false, retries: 2, timeout: 500 } },
    })
    expect(parseCli(['-f', 'http://127.0.0.1:4444', '--fork-cache-dir', '/tmp/c'])).toMatchObject({ options: { fork: { url: 'http://127.0.0.1:4444', cache: '/tmp/c' } } })
    expect(() => parseCli(['--fork-block-number', '5'])).toThrow('--fork-block-number needs --fork-url')
    expect(() => parseCli(['--fork-url', 'ws://x'])).toThrow('--fork-url: expected an http:// or https:// URL')
    expect(() => parseCli(['--fork-url', 'http://x', '--network', 'mainnet'])).toThrow(/cannot be combined/)
    expect(() => parseCli(['--fork-url', 'http://x', '--fork-header', 'nocolon'])).toThrow(/--fork-header: expected name:value/)
  })

  it('a node started without a fork refuses hardhat_reset to one', async () => {
    const p = await fresh()
    await rejects(rpc(p, 'hardhat_reset', [{ forking: { jsonRpcUrl: 'http://127.0.0.1:1' } }]), -32602, /was not started with a fork/)
    expect(await rpc(p, 'hardhat_reset', [{ forking: {} }])).toBe(true)
  })
})
