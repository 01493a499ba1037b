/**
 * RSK's BlockHeader precompile (0x01000010, RSKIP119; src/node/rsk/evm/blockHeaderPrecompile.ts). Expected values
 * come from the blocks as `eth_getBlockByNumber` answers them, turned into what RSKj's methods return
 * (`co/rsk/pcc/blockheader/Get*`: Java's `BigInteger.toByteArray()` for numbers, the header's bytes otherwise) by
 * helpers written here, and from RSKj's `BlockAccessor`/`IndexedBlockStore.getBlockAtDepthStartingAt` (depth 0 = the
 * parent of the block being executed, at most 3,999, genesis only from block 1), `NativeContract` (selectors computed
 * with ethers, unparsable data priced 0) and `BlockHeaderContractMethod.getGas` (4,000 + 2 per byte of data).
 */
import { describe, expect, it } from 'vitest'
import { AbiCoder, Contract, Interface, id } from 'ethers'
import type { Provider } from '../src/index.js'
import { setEnginePatches } from '../src/node/enginePatches/index.js'
import { deployCode, fresh, relayTo, send, sendFailing, sendKeptFailure, useHttpServer, rq } from './helpers.js'

const BH = '0x0000000000000000000000000000000001000010'
const ABI = [
  'function getCoinbaseAddress(int256) view returns (bytes)',
  'function getBlockHash(int256) view returns (bytes)',
  'function getMergedMiningTags(int256) view returns (bytes)',
  'function getMinGasPrice(int256) view returns (bytes)',
  'function getGasLimit(int256) view returns (bytes)',
  'function getGasUsed(int256) view returns (bytes)',
  'function getDifficulty(int256) view returns (bytes)',
  'function getBitcoinHeader(int256) view returns (bytes)',
  'function getUncleCoinbaseAddress(int256,int256) view returns (bytes)',
  'function getDifficultyWithUncles(int256) view returns (bytes)',
  'function getCumulativeWork(int256) view returns (bytes)',
]
const iface = new Interface(ABI)
const abi = AbiCoder.defaultAbiCoder()
const hex = (n: number | bigint) => '0x' + n.toString(16)
const word = (n: number | bigint) => BigInt(n).toString(16).padStart(64, '0')
const data = (method: string, ...args: (number | bigint)[]) => iface.encodeFunctionData(method, args)
/** RSKj's `BytesType.encode` of empty bytes: offset, length 0, and one zero word (96 bytes). */
const EMPTY = '0x' + word(32) + word(0) + word(0)
/** A failed CALL through `relayTo`: no return data, result word 0. */
const RELAY_FAILED = '0x' + word(0)

/** Java's `BigInteger.toByteArray()` of a non-negative number (a leading zero byte when the top bit is set). */
function javaBytes(n: bigint | string): string {
  let h = BigInt(n).toString(16)
  if (h.length % 2 === 1) h = '0' + h
  if (parseInt(h[0]!, 16) >= 8) h = '00' + h
  return '0x' + h
}

/** What RSKj's methods answer for a block as eth_getBlockByNumber gives it (mined here: no uncles). */
function expected(b: Record<string, any>): Record<string, string> {
  const coinbaseTx: string = b.bitcoinMergedMiningCoinbaseTransaction.slice(2)
  const tag = Buffer.from('RSKBLOCK:').toString('hex')
  // Byte-aligned last occurrence of the tag; the tags are what follows it and its 32-byte hash.
  let at = coinbaseTx.lastIndexOf(tag)
  while (at % 2 === 1) at = coinbaseTx.lastIndexOf(tag, at - 1)
  return {
    getCoinbaseAddress: b.miner,
    getBlockHash: b.hash,
    getMergedMiningTags: at < 0 ? '0x' : '0x' + coinbaseTx.slice(at + tag.length + 64),
    getMinGasPrice: javaBytes(b.minimumGasPrice),
    // Blocks mined by RSKj's BlockToMineBuilder store the gas limit as `BigInteger.toByteArray()`.
    getGasLimit: javaBytes(b.gasLimit),
    getGasUsed: javaBytes(b.gasUsed),
    getDifficulty: javaBytes(b.difficulty),
    getBitcoinHeader: b.bitcoinMergedMiningHeader,
    getDifficultyWithUncles: javaBytes(b.cumulativeDifficulty),
    getCumulativeWork: javaBytes(b.totalDifficulty),
  }
}

/** The `bytes` a method answers through eth_call at `tag`, after checking RSKj's encoding of it. */
async function read(p: Provider, method: string, args: (number | bigint)[], tag: string | number = 'latest'): Promise<string> {
  const raw: string = await rq(p, 'eth_call', [{ to: BH, data: data(method, ...args) }, typeof tag === 'number' ? hex(tag) : tag])
  const [bytes] = abi.decode(['bytes'], raw) as unknown as [string]
  const len = (bytes.length - 2) / 2
  expect(raw).toBe('0x' + word(32) + word(len) + bytes.slice(2).padEnd(Math.max(1, Math.ceil(len / 32)) * 64, '0'))
  return bytes
}

/** A chain of `n` blocks after genesis, some with transactions (gas used, fees). */
async function chainOf(n: number): Promise<Provider> {
  const p = await fresh()
  await send(p, { to: '0x00000000000000000000000000000000000a11ce', value: '0x1', gasPrice: '0x3b9aca00' })
  await send(p, { data: '0x600160005500' })
  while (Number(await rq(p, 'eth_blockNumber')) < n) await rq(p, 'evm_mine')
  return p
}

const block = (p: Provider, n: number | bigint) => rq(p, 'eth_getBlockByNumber', [hex(n), false])

describe('BlockHeader (0x01000010)', () => {
  it("answers each method for the executing block's parent (depth 0) and older blocks, as the blocks' own fields", async () => {
    const p = await chainOf(6)
    const head = 6
    for (const depth of [0, 1, 2, 3, head - 2]) {
      const want = expected(await block(p, head - 1 - depth))
      for (const [method, value] of Object.entries(want)) expect([method, depth, await read(p, method, [depth])]).toEqual([method, depth, value])
      // Blocks mined here have no uncles.
      expect(await read(p, 'getUncleCoinbaseAddress', [depth, 0])).toBe('0x')
    }
    // The transactions' blocks: gas used and a fee-paying block's total difficulty are not trivial.
    expect(await read(p, 'getGasUsed', [head - 2])).not.toBe('0x00')
  })

  it('reads the chain as of the selected block: genesis only as depth 0 from block 1, nothing before it', async () => {
    const p = await chainOf(4)
    const genesis = await block(p, 0)
    // Executing block 0: its parent does not exist.
    expect(await read(p, 'getBlockHash', [0], 0)).toBe('0x')
    // Executing block 1: depth 0 is genesis (its stored gas limit has no leading zero: RSKj's GenesisHeader).
    expect(await read(p, 'getBlockHash', [0], 1)).toBe(genesis.hash)
    expect(await read(p, 'getCoinbaseAddress', [0], 1)).toBe(genesis.miner)
    expect(await read(p, 'getBitcoinHeader', [0], 1)).toBe(genesis.bitcoinMergedMiningHeader)
    expect(await read(p, 'getMergedMiningTags', [0], 1)).toBe('0x')
    expect(await read(p, 'getGasLimit', [0], 1)).toBe('0x' + BigInt(genesis.gasLimit).toString(16).padStart(2, '0'))
    expect(await read(p, 'getDifficulty', [0], 1)).toBe(javaBytes(genesis.difficulty))
    expect(await read(p, 'getBlockHash', [1], 1)).toBe('0x')
    // Executing block 4 (parent 3): depths 0-2 reach blocks 3-1; depth 3 would be genesis, which the store refuses.
    for (const depth of [0, 1, 2]) expect(await read(p, 'getBlockHash', [depth], 4)).toBe((await block(p, 3 - depth)).hash)
    expect(await read(p, 'getBlockHash', [3], 4)).toBe('0x')
    expect(await read(p, 'getBlockHash', [4], 4)).toBe('0x')
    // At `latest` (block 4) the same; at `pending` the block executing is block 5 (the pending block, as RSKj's
    // ExecutionBlockRetriever builds it), so depth 0 is the head.
    expect(await read(p, 'getBlockHash', [0], 'latest')).toBe((await block(p, 3)).hash)
    expect(await read(p, 'getBlockHash', [0], 'pending')).toBe((await block(p, 4)).hash)
  })

  it('answers empty bytes from depth 4,000 on and outside a Java short, and fails for a negative depth', async () => {
    const p = await fresh()
    await rq(p, 'hardhat_mine', [hex(4002)])
    const head = Number(await rq(p, 'eth_blockNumber'))
    expect(head).toBe(4002)
    expect(await read(p, 'getBlockHash', [3999])).toBe((await block(p, head - 1 - 3999)).hash)
    expect(await read(p, 'getBlockHash', [4000])).toBe('0x')
    for (const depth of [32767n, 32768n, 2n ** 255n - 1n, -32769n, -(2n ** 255n)]) expect([depth, await read(p, 'getCoinbaseAddress', [depth])]).toEqual([depth, '0x'])
    expect(await read(p, 'getUncleCoinbaseAddress', [0, 32768])).toBe('0x')
    const relay = await deployCode(p, relayTo(BH))
    for (const depth of [-1, -32768]) expect(await rq(p, 'eth_call', [{ to: relay, data: data('getBlockHash', depth) }, 'latest'])).toBe(RELAY_FAILED)
    // A negative uncle index fails too, once the block exists.
    expect(await rq(p, 'eth_call', [{ to: relay, data: data('getUncleCoinbaseAddress', 0, -1) }, 'latest'])).toBe(RELAY_FAILED)
    expect(await rq(p, 'eth_call', [{ to: relay, data: data('getUncleCoinbaseAddress', 4000, -1) }, 'latest'])).toBe('0x' + EMPTY.slice(2) + word(1))
  })

  it("decodes arguments as RSKj's CallTransaction: a bare selector reads depth 0, a partial word or unknown selector fails", async () => {
    const p = await chainOf(3)
    const relay = await deployCode(p, relayTo(BH))
    const selector = id('getBlockHash(int256)').slice(0, 10)
    const head = Number(await rq(p, 'eth_blockNumber'))
    const parent = (await block(p, head - 1)).hash
    const ok = (bytes: string) => '0x' + word(32) + word(32) + bytes.slice(2) + word(1)
    expect(await rq(p, 'eth_call', [{ to: relay, data: selector }, 'latest'])).toBe(ok(parent))
    // Bytes after the argument are ignored.
    expect(await rq(p, 'eth_call', [{ to: relay, data: data('getBlockHash', 1) + 'ff'.repeat(5) }, 'latest'])).toBe(ok((await block(p, head - 2)).hash))
    for (const bad of [selector + '00'.repeat(16), '0x12345678' + word(0), selector.slice(0, 8), '0x', id('getCallStackDepth()').slice(0, 10)]) {
      expect([bad, await rq(p, 'eth_call', [{ to: relay, data: bad }, 'latest'])]).toEqual([bad, RELAY_FAILED])
    }
    // getUncleCoinbaseAddress with the depth only: the second word is partial (missing), so it fails.
    expect(await rq(p, 'eth_call', [{ to: relay, data: data('getBlockHash', 0).replace(selector, id('getUncleCoinbaseAddress(int256,int256)').slice(0, 10)) }, 'latest'])).toBe(RELAY_FAILED)
  })

  it('costs 4,000 + 2 per byte of data; a failure costs that price, unparsable data nothing', async () => {
    const p = await chainOf(2)
    const calldataGas = (d: string) => [...Buffer.from(d.slice(2), 'hex')].reduce((g, b) => g + (b === 0 ? 4 : 16), 0)
    for (const d of [data('getBlockHash', 0), data('getUncleCoinbaseAddress', 1, 0), data('getCumulativeWork', 0) + 'ab'.repeat(10)]) {
      const price = 4000 + 2 * ((d.length - 2) / 2)
      const gas = 21000 + calldataGas(d) + price
      expect(BigInt(await rq(p, 'eth_estimateGas', [{ to: BH, data: d }, 'latest']))).toBe(BigInt(gas))
      const r = await send(p, { to: BH, data: d, gas: hex(gas) })
      expect([r.status, Number(r.gasUsed)]).toEqual(['0x1', gas])
      await sendFailing(p, { to: BH, data: d, gas: hex(gas - 1) })
    }
    // A transaction straight to a failing precompile: the intrinsic gas and the price, status 0x1 (RSKj keeps the
    // precompile's failure without an execution error: TransactionExecutor.call).
    const gasUsed = async (d: string) => {
      const r = await sendKeptFailure(p, { to: BH, data: d })
      expect(r.status).toBe('0x1')
      return Number(r.gasUsed)
    }
    const negative = data('getBlockHash', -1)
    expect(await gasUsed(negative)).toBe(21000 + calldataGas(negative) + 4000 + 72)
    const unknown = '0x12345678' + word(0)
    expect(await gasUsed(unknown)).toBe(21000 + calldataGas(unknown))
  })

  it('reads the parent of the block a transaction is mined in, and a trace replays it the same', async () => {
    const p = await chainOf(3)
    // CALLDATACOPY the call data, CALL BlockHeader with it, LOG0 its answer and RETURN it.
    const logger = await deployCode(p, '366000600037' + '600060003660006000' + '73' + BH.slice(2) + '5af150' + '3d600060003e' + '3d6000a0' + '3d6000f3')
    const r = await send(p, { to: logger, data: data('getBlockHash', 0) })
    const mined = Number(r.blockNumber)
    const parent = (await block(p, mined - 1)).hash
    expect(r.logs[0].data).toBe('0x' + word(32) + word(32) + parent.slice(2))
    const r2 = await send(p, { to: logger, data: data('getCoinbaseAddress', 1) })
    expect(abi.decode(['bytes'], r2.logs[0].data)[0]).toBe((await block(p, Number(r2.blockNumber) - 2)).miner)
    await rq(p, 'evm_mine')
    const [top] = await rq(p, 'trace_transaction', [r.transactionHash])
    expect(top.result.output).toBe(r.logs[0].data)
  })

  it('answers the same with the engine patches off', async () => {
    setEnginePatches(false)
    try {
      const p = await chainOf(3)
      expect(await read(p, 'getBlockHash', [1])).toBe((await block(p, 1)).hash)
    } finally {
      setEnginePatches(true)
    }
  })

  describe('through ethers over HTTP', () => {
    const http = useHttpServer()
    it('a Contract reads the parent block through the precompile', async () => {
      const p = http.server.provider
      for (let i = 0; i < 3; i++) await rq(p, 'evm_mine')
      const contract = new Contract(BH, ABI, http.rpc)
      const head = await http.rpc.getBlockNumber()
      const parent = await http.rpc.getBlock(head - 1)
      expect(await contract.getFunction('getBlockHash')(0n)).toBe(parent!.hash)
      expect(await contract.getFunction('getCoinbaseAddress')(0n)).toBe(parent!.miner.toLowerCase())
      expect(await contract.getFunction('getGasLimit')(0n)).toBe(javaBytes(parent!.gasLimit))
      expect(await contract.getFunction('getBlockHash')(5000n)).toBe('0x')
    })
  })
})
