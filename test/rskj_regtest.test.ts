/**
 * Methods a default RSKj regtest node answers that the service does not list, derived from RSKj's sources:
 * `org/ethereum/rpc/Web3Impl.java` (`eth_getBlocksByNumber`, `rpc_modules`), `co/rsk/rpc/modules/trace/
 * TraceModuleImpl.java` and `TraceGetRequest.java` (`trace_get`), `reference.conf` `rpc.modules` (enabled modules,
 * versions, the rsk methods disabled by default) and `co/rsk/rpc/JsonRpcMethodFilter.java` (what a disabled method
 * answers). Outside hosted mode only.
 */
import { describe, expect, it } from 'vitest'
import { startServer } from '../src/index.js'
import { COW, COW1, fresh, NO_QUOTA, rejects, send, rq } from './helpers.js'

/** A body POSTed as written: a JSON integer no double holds keeps its digits only over the wire (requestJson.ts). */
const post = async (url: string, body: string): Promise<any> => (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json()


describe('eth_getBlocksByNumber (Web3Impl, BlockInformationResult)', () => {
  it('answers [{hash, totalDifficulty, inMainChain}] for hex or decimal, [] where no block is', async () => {
    const p = await fresh()
    await rq(p, 'evm_mine')
    await rq(p, 'evm_mine')
    const block = await rq(p, 'eth_getBlockByNumber', ['0x2', false])
    const expected = [{ hash: block.hash, totalDifficulty: block.totalDifficulty, inMainChain: true }]
    expect(await rq(p, 'eth_getBlocksByNumber', ['0x2'])).toEqual(expected)
    // HexUtils.stringNumberAsBigInt: no 0x prefix = decimal BigInteger; Jackson gives a JSON integer as its text.
    expect(await rq(p, 'eth_getBlocksByNumber', ['2'])).toEqual(expected)
    expect(await rq(p, 'eth_getBlocksByNumber', [2])).toEqual(expected)
    expect(Object.keys((await rq(p, 'eth_getBlocksByNumber', ['0x0']))[0])).toEqual(['hash', 'totalDifficulty', 'inMainChain'])
    expect(await rq(p, 'eth_getBlocksByNumber', ['0x3'])).toEqual([])
    expect(await rq(p, 'eth_getBlocksByNumber', ['-1'])).toEqual([])
  })

  it('keeps the low 64 bits, signed (Web3Impl.java 704 `.longValue()`), of the exact digits of a JSON integer no double holds', async () => {
    const server = await startServer({ port: 0, ...NO_QUOTA })
    try {
      const p = server.provider
      await rq(p, 'evm_mine')
      const block = await rq(p, 'eth_getBlockByNumber', ['0x1', false])
      const one = [{ hash: block.hash, totalDifficulty: block.totalDifficulty, inMainChain: true }]
      // 2^64 + 1 is block 1; JSON.parse's 18446744073709552000 would be block 384 (none).
      const ask = (param: string): Promise<any> => post(server.url, `{"jsonrpc":"2.0","id":1,"method":"eth_getBlocksByNumber","params":[${param}]}`)
      expect(await ask('18446744073709551617')).toEqual({ jsonrpc: '2.0', id: 1, result: one })
      expect(await ask('"18446744073709551617"')).toEqual({ jsonrpc: '2.0', id: 1, result: one })
      expect(await ask('"0x10000000000000001"')).toEqual({ jsonrpc: '2.0', id: 1, result: one })
      // HexUtils.hasHexPrefix is a lower-case `0x`, after which BigInteger takes a sign; `0X1` is a bad decimal.
      expect(await ask('"0x+1"')).toEqual({ jsonrpc: '2.0', id: 1, result: one })
      expect(await ask('"0x-1"')).toEqual({ jsonrpc: '2.0', id: 1, result: [] })
      expect((await ask('"0X1"')).error).toEqual({ code: -32602, message: 'invalid blocknumber 0X1' })
      // Long.MAX_VALUE + 2 wraps to a negative height: no block.
      expect(await ask('9223372036854775809')).toEqual({ jsonrpc: '2.0', id: 1, result: [] })
      expect(await ask('1234567890123456789')).toEqual({ jsonrpc: '2.0', id: 1, result: [] })
      // Quoted as JSON writes it, the digits unquoted (as Jackson writes a BigIntegerNode).
      expect((await ask('{"a":12345678901234567891}')).error).toEqual({ code: -32602, message: 'invalid blocknumber {"a":12345678901234567891}' })
      const h = (await send(p, { to: COW1, value: '0x1' })).transactionHash
      const traced = await post(server.url, `{"jsonrpc":"2.0","id":2,"method":"trace_get","params":["${h}",[12345678901234567891]]}`)
      expect(traced.error).toEqual({ code: -32602, message: 'invalid position 12345678901234567891' })
    } finally {
      await server.close()
    }
  })

  it('anything else is -32602 invalid blocknumber <x>; exactly one parameter', async () => {
    const p = await fresh()
    await rejects(rq(p, 'eth_getBlocksByNumber', ['latest']), -32602, 'invalid blocknumber latest')
    await rejects(rq(p, 'eth_getBlocksByNumber', ['0x']), -32602, 'invalid blocknumber 0x')
    await rejects(rq(p, 'eth_getBlocksByNumber', ['0xzz']), -32602, 'invalid blocknumber 0xzz')
    await rejects(rq(p, 'eth_getBlocksByNumber', []), -32602)
    await rejects(rq(p, 'eth_getBlocksByNumber', ['0x1', true]), -32602)
  })
})

describe('rpc_modules (Web3Impl.rpc_modules)', () => {
  it('answers the enabled modules at version 1.0, keys in java.util.HashMap order', async () => {
    const p = await fresh()
    const modules = await rq(p, 'rpc_modules')
    // reference.conf modules (eth, net, rpc, web3, evm, txpool, personal, rsk on; sco, debug, trace on here as the
    // spec lists them) plus mnr. Order: HashMap buckets of String.hashCode for a 16-slot table; eth and web3
    // share bucket 5 and keep their insertion order.
    expect(Object.entries(modules)).toEqual(
      ['mnr', 'txpool', 'trace', 'debug', 'rpc', 'eth', 'web3', 'personal', 'rsk', 'net', 'evm', 'sco'].map((m) => [m, '1.0']),
    )
  })
})

describe('methods RSKj regtest disables', () => {
  it('rsk_shutdown, rsk_flush, rsk_getStorageBytesAt and ext_* answer -32601 "does not exist/is not available"', async () => {
    for (const hosted of [false, true]) {
      const p = await fresh({ hosted })
      for (const m of ['rsk_shutdown', 'rsk_flush', 'rsk_getStorageBytesAt', 'ext_dumpState', 'ext_dumpBlockchain']) {
        await rejects(rq(p, m), -32601, `the method ${m} does not exist/is not available`)
      }
    }
  })

  it('there is no rsk_getStorageAt in RSKj: method not found', async () => {
    await rejects(rq(await fresh(), 'rsk_getStorageAt', [COW, '0x0', 'latest']), -32601, 'method not found')
  })
})

describe('hosted mode keeps the service list', () => {
  it('eth_getBlocksByNumber, rpc_modules and trace_get answer as an unknown method', async () => {
    const p = await fresh({ hosted: true })
    for (const [m, params] of [['eth_getBlocksByNumber', ['0x0']], ['rpc_modules', []], ['trace_get', ['0x' + '0'.repeat(64), ['0x0']]]] as const) {
      await rejects(rq(p, m, [...params]), -32601, 'method not found')
    }
  })
})

describe('trace_get (TraceModuleImpl.traceGet, TraceGetRequest)', () => {
  it('answers the trace at positions[0] of the whole block, whichever transaction names the block', async () => {
    const p = await fresh({ mining: { auto: false } })
    const a = await rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x1' }])
    const b = await rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x2' }])
    await rq(p, 'evm_mine')
    const block = await rq(p, 'trace_block', ['0x1'])
    expect(block.map((t: any) => t.transactionHash).slice(0, 2)).toEqual([a, b])
    expect(await rq(p, 'trace_get', [a, ['0x1']])).toEqual(block[1])
    expect(await rq(p, 'trace_get', [b, ['0x0']])).toEqual(block[0])
    expect(await rq(p, 'trace_get', ['0x' + '1'.repeat(64), ['0x0']])).toBeNull()
  })

  it("refuses what TraceGetRequest refuses, with its texts; -32602 where RSKj's is an internal error", async () => {
    const p = await fresh()
    const { transactionHash: h } = await send(p, { to: COW1, value: '0x1' })
    await rejects(rq(p, 'trace_get', [h, []]), -32602, "'positions' cannot be null or empty")
    await rejects(rq(p, 'trace_get', [h, ['0x0', '0x1']]), -32602, "'positions' accepts only one index")
    await rejects(rq(p, 'trace_get', [h, ['1']]), -32602)
    await rejects(rq(p, 'trace_get', [h, ['0x9']]), -32602)
    await rejects(rq(p, 'trace_get', [h]), -32602)
  })

  it('takes one position given alone, not in an array: jsonrpc4j reads List<String> positions with ACCEPT_SINGLE_VALUE_AS_ARRAY', async () => {
    // com/googlecode/jsonrpc4j/JsonRpcBasicServer.java `convertJsonToParameters`; Jackson's CollectionDeserializer
    // `handleNonArray` wraps the value (Web3TraceModule.java: `trace_get(String, List<String>)`).
    const p = await fresh()
    const { transactionHash: h } = await send(p, { to: COW1, value: '0x1' })
    const block = await rq(p, 'trace_block', ['0x1'])
    expect(await rq(p, 'trace_get', [h, '0x1'])).toEqual(block[1])
    expect(await rq(p, 'trace_get', [h, '0x0'])).toEqual(block[0])
    await rejects(rq(p, 'trace_get', [h, '1']), -32602, 'invalid position "1"')
    await rejects(rq(p, 'trace_get', [h, { a: '0x0' }]), -32602, "'positions' must be an array of hex numbers")
  })

  it('reads a position as HexUtils.stringHexToBigInteger(p).intValue(): a sign, and the low 32 bits (TraceGetRequest.java 76-78)', async () => {
    const p = await fresh()
    const { transactionHash: h } = await send(p, { to: COW1, value: '0x1' })
    const block = await rq(p, 'trace_block', ['0x1'])
    expect(block).toHaveLength(2)
    expect(await rq(p, 'trace_get', [h, ['0x100000001']])).toEqual(block[1])
    expect(await rq(p, 'trace_get', [h, ['0x+0']])).toEqual(block[0])
    // -1 (and 0xffffffff, the same int): traces.get(-1) is an IndexOutOfBoundsException (-32603); rsksim -32602.
    await rejects(rq(p, 'trace_get', [h, ['0x-1']]), -32602, 'position -1 is out of range: the block has 2 traces')
    await rejects(rq(p, 'trace_get', [h, ['0xffffffff']]), -32602, 'position -1 is out of range: the block has 2 traces')
  })

  it("an empty or null hash is TraceGetRequest's first refusal (TraceGetRequest.java 35-37)", async () => {
    const p = await fresh()
    await rejects(rq(p, 'trace_get', ['', ['0x0']]), -32602, "'transactionHash' cannot be null or empty")
    await rejects(rq(p, 'trace_get', [null, []]), -32602, "'transactionHash' cannot be null or empty")
    // Any other hex is looked up as it is (getTransactionHashAsByteArray): no transaction has 2 bytes → null.
    expect(await rq(p, 'trace_get', ['0x1234', ['0x0']])).toBeNull()
  })
})

describe('decimal block numbers, as each RSKj path reads them', () => {
  it('Web3InformationRetriever.getBlock and getBlockByNumberOrStr want 0x hex; ExecutionBlockRetriever (eth_call, eth_estimateGas) takes decimals', async () => {
    const p = await fresh()
    await rq(p, 'evm_mine')
    // getBlock: HexUtils.stringHexToBigInteger → -32602 `invalid blocknumber <n>`; a JSON number is read as its text.
    for (const [m, params] of [
      ['eth_getBlockByNumber', ['1', false]],
      ['eth_getBlockByNumber', [1, false]],
      ['eth_getBlockTransactionCountByNumber', ['1']],
      ['eth_getTransactionByBlockNumberAndIndex', ['1', '0x0']],
      ['eth_getUncleCountByBlockNumber', ['1']],
      ['eth_getUncleByBlockNumberAndIndex', ['1', '0x0']],
      // BlockRefParam takes the decimal, then getInformationProvider hands it to getBlock (EthModule.getCode to
      // HexUtils.stringHexToBigInteger): the same refusal.
      ['eth_getBalance', [COW, '1']],
      ['eth_getTransactionCount', [COW, '1']],
      ['eth_getStorageAt', [COW, '0x0', '1']],
      ['eth_getCode', [COW, '1']],
      ['eth_getBalance', [COW, { blockNumber: '1' }]],
      ['debug_traceBlockByNumber', ['1']],
      ['chain_getRawBlockHeaderByNumber', ['1']],
      ['trace_block', ['1']],
      // getBlockByNumberOrStr → jsonHexToLong: a NumberFormatException in RSKj (-32603); -32602 here.
      ['eth_getLogs', [{ fromBlock: '1', toBlock: '0x1' }]],
      ['eth_newFilter', [{ fromBlock: '0x0', toBlock: '1' }]],
    ] as const) {
      await rejects(rq(p, m, [...params]), -32602, 'invalid blocknumber 1')
    }
    // BlockRefParam then ExecutionBlockRetriever (eth_call), and ExecutionBlockRetriever (eth_estimateGas) take them.
    const block1 = await rq(p, 'eth_getBlockByNumber', ['0x1', false])
    expect(await rq(p, 'eth_call', [{ to: COW1 }, '1'])).toBe('0x')
    expect(await rq(p, 'eth_call', [{ to: COW1 }, { blockNumber: '1' }])).toBe('0x')
    expect(await rq(p, 'eth_estimateGas', [{ from: COW, to: COW1 }, '1'])).toBe('0x5208')
    expect((await rq(p, 'eth_getBlocksByNumber', ['1']))[0].hash).toBe(block1.hash)
    // BlockRefParam.Deserializer: neither a string nor an object → `Invalid input`.
    await rejects(rq(p, 'eth_getBalance', [COW, 1]), -32602, 'Invalid input')
    await rejects(rq(p, 'eth_call', [{ to: COW1 }, true]), -32602, 'Invalid input')
  })
})

describe('through a real client over HTTP', () => {
  it('ethers JsonRpcProvider.send reaches eth_getBlocksByNumber, rpc_modules, trace_get, anvil_nodeInfo and hardhat_metadata', async () => {
    const { JsonRpcProvider } = await import('ethers')
    const { startServer } = await import('../src/index.js')
    const server = await startServer({ port: 0 })
    const rpc = new JsonRpcProvider(server.url, undefined, { staticNetwork: true })
    try {
      const r = await send(server.provider, { to: COW1, value: '0x1' })
      const block = await rpc.send('eth_getBlockByNumber', ['0x1', false])
      expect(await rpc.send('eth_getBlocksByNumber', ['0x1'])).toEqual([{ hash: block.hash, totalDifficulty: block.totalDifficulty, inMainChain: true }])
      expect(await rpc.send('rpc_modules', [])).toMatchObject({ eth: '1.0', rpc: '1.0' })
      expect(await rpc.send('trace_get', [r.transactionHash, ['0x0']])).toMatchObject({ transactionHash: r.transactionHash, action: { from: COW } })
      expect(await rpc.send('anvil_nodeInfo', [])).toMatchObject({ currentBlockNumber: '0x1', currentBlockHash: block.hash })
      expect(await rpc.send('hardhat_metadata', [])).toMatchObject({ chainId: 33, latestBlockNumber: 1, latestBlockHash: block.hash })
    } finally {
      rpc.destroy()
      await server.close()
    }
  })
})
