/**
 * The eth methods' parameters read as RSKj reads them. Expected values come from RSKj's source (paths under
 * rskj-core/src/main/java): the parameter classes Jackson builds (org/ethereum/rpc/parameters/BlockRefParam.java,
 * BlockIdentifierParam.java, HexIndexParam.java + HexStringParam.java, HexNumberParam.java, HashParam32.java,
 * CallArgumentsParam.java), then the readers the methods hand their text to: co/rsk/rpc/Web3InformationRetriever.java
 * (`getBlock`, `getInformationProvider`), co/rsk/rpc/ExecutionBlockRetriever.java (`retrieveExecutionBlock`),
 * co/rsk/util/HexUtils.java (`stringHexToBigInteger`, `strHexOrStrNumberToByteArray`), co/rsk/util/StringUtils.java
 * (`trim`) and org/ethereum/rpc/converters/CallArgumentsToByteArray.java.
 */
import { describe, expect, it } from 'vitest'
import { startServer } from '../src/index.js'
import { COW, COW1, deployCode, fresh, rejects, rq, send, useHttpServer } from './helpers.js'

/** What rsksim adds to RSKj's text when the number that does not fit a long is 64 hex digits: a block hash. */
const HASH_HINT = ' (a block hash is not a block number here: pass {"blockHash": "<hash>"}, EIP-1898)'

/** Block 1 is COW's transfer of 1 wei to COW1; block 2 another. */
async function twoBlocks() {
  const p = await fresh()
  await send(p, { to: COW1, value: '0x1' })
  await send(p, { to: COW1, value: '0x1' })
  const block1 = await rq(p, 'eth_getBlockByNumber', ['0x1', false])
  return { p, block1 }
}

const UNKNOWN = '0x' + 'ab'.repeat(32)
/** 64 hex digits whose low 64 bits are 1, with an upper-case digit: not a hash for getBlock (HexUtils.isHex wants lower case). */
const WRAPS_TO_1 = '0xA' + '0'.repeat(47) + '0000000000000001'

describe('block identifiers of the …ByNumber methods (BlockIdentifierParam, then Web3InformationRetriever.getBlock)', () => {
  const byNumber = [
    ['eth_getBlockByNumber', (id: unknown) => [id, false]],
    ['eth_getTransactionByBlockNumberAndIndex', (id: unknown) => [id, '0x0']],
    ['eth_getUncleByBlockNumberAndIndex', (id: unknown) => [id, '0x0']],
    ['eth_getBlockTransactionCountByNumber', (id: unknown) => [id]],
    ['eth_getUncleCountByBlockNumber', (id: unknown) => [id]],
  ] as const

  it('tags pass BlockIdentifierParam in any case, but getBlock is a case-sensitive switch: LATEST is read as a number', async () => {
    const { p } = await twoBlocks()
    for (const [m, params] of byNumber) {
      await rejects(rq(p, m, params('LATEST')), -32602, 'invalid blocknumber LATEST')
      await rejects(rq(p, m, params('Earliest')), -32602, 'invalid blocknumber Earliest')
    }
  })

  it('what is no tag, decimal or lower-case-0x hex is refused by BlockIdentifierParam with its own text', async () => {
    const { p } = await twoBlocks()
    for (const [m, params] of byNumber) {
      await rejects(rq(p, m, params('0X1')), -32602, "Invalid block identifier '0X1'")
      await rejects(rq(p, m, params('0x+1')), -32602, "Invalid block identifier '0x+1'")
      await rejects(rq(p, m, params('abc')), -32602, "Invalid block identifier 'abc'")
      await rejects(rq(p, m, params(true)), -32602, "Invalid block identifier 'true'")
      await rejects(rq(p, m, params('')), -32602, 'Invalid block identifier: empty or null.')
      await rejects(rq(p, m, params(null)), -32602, 'Invalid block identifier: empty or null.')
    }
  })

  it('a number is HexUtils.stringHexToBigInteger(x).longValue(): the low 64 bits, so past a long it wraps', async () => {
    const { p, block1 } = await twoBlocks()
    expect((await rq(p, 'eth_getBlockByNumber', ['0x10000000000000001', false])).hash).toBe(block1.hash)
    expect((await rq(p, 'eth_getBlockByNumber', ['0x0001', false])).hash).toBe(block1.hash)
    // 0xffffffffffffffff is the long -1: no block.
    expect(await rq(p, 'eth_getBlockByNumber', ['0xffffffffffffffff', false])).toBeNull()
    // 66 characters with an upper-case digit are no hash (HexUtils.isHex): a number, here 1.
    expect((await rq(p, 'eth_getBlockByNumber', [WRAPS_TO_1, false])).hash).toBe(block1.hash)
    expect((await rq(p, 'eth_getTransactionByBlockNumberAndIndex', [WRAPS_TO_1, '0x0'])).blockHash).toBe(block1.hash)
    // The same digits in lower case are a block hash, which no block has.
    expect(await rq(p, 'eth_getBlockByNumber', [WRAPS_TO_1.toLowerCase(), false])).toBeNull()
    expect((await rq(p, 'eth_getBlockByNumber', [block1.hash, false])).number).toBe('0x1')
  })

  it('a block the chain lacks is -32600 `Block <id> not found`, the identifier as the request wrote it', async () => {
    const { p } = await twoBlocks()
    await rejects(rq(p, 'eth_getBlockTransactionCountByNumber', ['0x0099']), -32600, 'Block 0x0099 not found')
    await rejects(rq(p, 'eth_getBlockTransactionCountByNumber', [UNKNOWN]), -32600, `Block ${UNKNOWN} not found`)
    await rejects(rq(p, 'eth_getUncleCountByBlockNumber', [UNKNOWN]), -32600, `Block ${UNKNOWN} not found`)
    await rejects(rq(p, 'eth_getUncleCountByBlockNumber', ['0xffffffffffffffff']), -32600, 'Block 0xffffffffffffffff not found')
  })
})

describe('indexes (HexIndexParam: HexStringParam, then Integer.parseInt(digits, 16))', () => {
  it('0x alone, an empty string and anything past 2^31 - 1 are `Invalid index param`; past 66 characters `Invalid argument: <66 characters>...`', async () => {
    const { p, block1 } = await twoBlocks()
    for (const [m, block] of [
      ['eth_getTransactionByBlockNumberAndIndex', '0x1'],
      ['eth_getTransactionByBlockHashAndIndex', block1.hash],
      ['eth_getUncleByBlockNumberAndIndex', '0x1'],
      ['eth_getUncleByBlockHashAndIndex', block1.hash],
    ]) {
      for (const index of ['0x', '', '0x80000000', '0x' + 'f'.repeat(64)]) {
        await rejects(rq(p, m!, [block, index]), -32602, 'Invalid index param: value must be a valid hex number.')
      }
      await rejects(rq(p, m!, [block, '0x' + '0'.repeat(65)]), -32602, `Invalid argument: 0x${'0'.repeat(64)}...`)
      await rejects(rq(p, m!, [block, '0xA']), -32602, 'Invalid argument "0xA": param should be a hex value string.')
      await rejects(rq(p, m!, [block, 1]), -32602, 'Invalid argument "1": param should be a hex value string.')
      // HexIndexParam.Deserializer reads jp.getText(): the token an object or array starts with.
      await rejects(rq(p, m!, [block, { index: '0x0' }]), -32602, 'Invalid argument "{": param should be a hex value string.')
      await rejects(rq(p, m!, [block, ['0x0']]), -32602, 'Invalid argument "[": param should be a hex value string.')
    }
    expect(await rq(p, 'eth_getTransactionByBlockNumberAndIndex', ['0x1', '0x7fffffff'])).toBeNull()
    expect((await rq(p, 'eth_getTransactionByBlockNumberAndIndex', ['0x1', '0x0000'])).blockHash).toBe(block1.hash)
  })
})

describe('block identifiers of the state reads (BlockRefParam, then Web3InformationRetriever.getInformationProvider)', () => {
  it('reads numbers as getBlock does: wrapping past 64 bits; 0X and signs refused by BlockRefParam', async () => {
    const { p } = await twoBlocks()
    const at1 = await rq(p, 'eth_getBalance', [COW1, '0x1'])
    expect(at1).not.toBe(await rq(p, 'eth_getBalance', [COW1, '0x2']))
    expect(await rq(p, 'eth_getBalance', [COW1, '0x10000000000000001'])).toBe(at1)
    expect(await rq(p, 'eth_getBalance', [COW1, WRAPS_TO_1])).toBe(at1)
    expect(await rq(p, 'eth_getTransactionCount', [COW, '0x10000000000000001'])).toBe('0x1')
    for (const m of ['eth_getBalance', 'eth_getTransactionCount', 'eth_getCode']) {
      await rejects(rq(p, m, [COW, '0X1']), -32602, "Invalid block identifier '0X1'")
      await rejects(rq(p, m, [COW, '0x-1']), -32602, "Invalid block identifier '0x-1'")
    }
  })

  it('an unknown block is -32600 quoting the identifier as written; a hash string `Block <h>`, a map `Block with hash <h>`', async () => {
    const { p } = await twoBlocks()
    await rejects(rq(p, 'eth_getBalance', [COW, '0x0999']), -32600, 'Block 0x0999 not found')
    await rejects(rq(p, 'eth_getStorageAt', [COW, '0x0', '0xffffffffffffffff']), -32600, 'Block 0xffffffffffffffff not found')
    await rejects(rq(p, 'eth_getBalance', [COW, UNKNOWN]), -32600, `Block ${UNKNOWN} not found`)
    await rejects(rq(p, 'eth_getBalance', [COW, { blockHash: UNKNOWN }]), -32600, `Block with hash ${UNKNOWN} not found`)
    // EthModule.getCode: a number naming no block answers null.
    expect(await rq(p, 'eth_getCode', [COW, '0xffffffffffffffff'])).toBeNull()
  })

  it('EIP-1898 maps: each entry checked by its class, in order', async () => {
    const { p, block1 } = await twoBlocks()
    const at1 = await rq(p, 'eth_getBalance', [COW1, '0x1'])
    expect(await rq(p, 'eth_getBalance', [COW1, { blockHash: block1.hash, requireCanonical: 'TRUE' }])).toBe(at1)
    expect(await rq(p, 'eth_getBalance', [COW1, { blockHash: block1.hash, requireCanonical: true }])).toBe(at1)
    expect(await rq(p, 'eth_getBalance', [COW1, { blockNumber: '0x10000000000000001' }])).toBe(at1)
    // blockNumber is a HexNumberParam: no tags; then getBlock (no 0x: a NumberFormatException there).
    await rejects(rq(p, 'eth_getBalance', [COW, { blockNumber: 'latest' }]), -32602, 'Invalid param latest: value must be a valid hex or string number.')
    await rejects(rq(p, 'eth_getBalance', [COW, { blockNumber: 'abc' }]), -32602, 'invalid blocknumber abc')
    // eth_call makes a BlockIdentifierParam of it first.
    await rejects(rq(p, 'eth_call', [{ to: COW1 }, { blockNumber: 'abc' }]), -32602, "Invalid block identifier 'abc'")
    await rejects(rq(p, 'eth_getBalance', [COW, { blockHash: '0x1234' }]), -32602, 'Invalid block hash: incorrect length.')
    await rejects(
      rq(p, 'eth_getBalance', [COW, { blockHash: block1.hash, requireCanonical: 'yes' }]),
      -32602,
      'Invalid input: requireCanonical must be a String "true" or "false"',
    )
    await rejects(rq(p, 'eth_getBalance', [COW, { requireCanonical: 'true' }]), -32602, 'Invalid block input')
  })
})

describe("eth_getStorageAt's position (HexNumberParam, then HexUtils.strHexOrStrNumberToByteArray)", () => {
  it('0x alone is slot 0; a negative decimal is its two-s complement bytes; hex needs a lower-case 0x', async () => {
    const p = await fresh()
    const c = await deployCode(p, '00')
    await rq(p, 'anvil_setStorageAt', [c, '0x0', '0x' + '11'.repeat(32)])
    await rq(p, 'anvil_setStorageAt', [c, '0xff', '0x' + '22'.repeat(32)])
    expect(await rq(p, 'eth_getStorageAt', [c, '0x', 'latest'])).toBe('0x' + '11'.repeat(32))
    // new BigInteger("-1").toByteArray() is the one byte ff.
    expect(await rq(p, 'eth_getStorageAt', [c, '-1', 'latest'])).toBe('0x' + '22'.repeat(32))
    expect(await rq(p, 'eth_getStorageAt', [c, '255', 'latest'])).toBe('0x' + '22'.repeat(32))
    await rejects(rq(p, 'eth_getStorageAt', [c, '0XFF', 'latest']), -32602, 'Invalid param 0XFF: value must be a valid hex or string number.')
    await rejects(rq(p, 'eth_getStorageAt', [c, 'ff', 'latest']), -32602, 'Number values should not contain letters or hex values should start with 0x.')
    await rejects(rq(p, 'eth_getStorageAt', [c, '0x' + '0'.repeat(65), 'latest']), -32602, `Invalid param: 0x${'0'.repeat(64)}...`)
  })
})

describe('eth_call and eth_estimateGas blocks (ExecutionBlockRetriever.retrieveExecutionBlock)', () => {
  it('lower-case tags only; numbers as a Java long (past it RSKj throws an IllegalArgumentException: -32602 with its text here)', async () => {
    const { p } = await twoBlocks()
    const tx = { from: COW, to: COW1 }
    const unsupported = (x: string) =>
      `Unsupported block specifier '${x}'. Can only be either 'earliest', 'latest', 'pending' or a specific block number (either hex - prepending '0x' or decimal).`
    await rejects(rq(p, 'eth_estimateGas', [tx, 'LATEST']), -32602, unsupported('LATEST'))
    await rejects(rq(p, 'eth_call', [tx, 'LATEST']), -32602, "Invalid block identifier 'LATEST'")
    await rejects(rq(p, 'eth_call', [tx, '0x10000000000000001']), -32602, 'Invalid hexadecimal number: 0x10000000000000001')
    await rejects(rq(p, 'eth_estimateGas', [tx, UNKNOWN]), -32602, `Invalid hexadecimal number: ${UNKNOWN}${HASH_HINT}`)
    await rejects(rq(p, 'eth_estimateGas', [tx, '9223372036854775808']), -32602, 'Invalid decimal number: 9223372036854775808')
    await rejects(rq(p, 'eth_call', [tx, '9223372036854775807']), -32602, 'Invalid block number 9223372036854775807')
    expect(await rq(p, 'eth_estimateGas', [tx, '0x0001'])).toBe('0x5208')
  })
})

describe('the call object (CallArgumentsParam, then CallArgumentsToByteArray)', () => {
  it('empty numbers are absent, 0x is zero, -1 is the byte ff; data and input both checked, input wins; other fields ignored', async () => {
    const p = await fresh()
    const c = await deployCode(p, '3460005260206000f3') // returns CALLVALUE
    const word = (n: number) => '0x' + n.toString(16).padStart(64, '0')
    expect(await rq(p, 'eth_call', [{ from: COW, to: c, value: '-1' }, 'latest'])).toBe(word(255))
    expect(await rq(p, 'eth_call', [{ from: COW, to: c, value: '0x', gas: '', gasPrice: '' }, 'latest'])).toBe(word(0))
    expect(await rq(p, 'eth_call', [{ from: COW, to: c, value: 16 }, 'latest'])).toBe(word(16))
    expect(await rq(p, 'eth_call', [{ from: COW, to: c, type: '0x2', maxFeePerGas: 'junk', accessList: 7 }, 'latest'])).toBe(word(0))
    // paramOrNull reads each field's asText(): an object's or an array's is "", an absent number and empty data.
    expect(await rq(p, 'eth_call', [{ from: COW, to: c, value: {}, gas: [], data: {} }, 'latest'])).toBe(word(0))
    expect(await rq(p, 'eth_call', [{ from: COW, to: c, value: 16, input: [1] }, 'latest'])).toBe(word(16))
    await rejects(rq(p, 'eth_call', [{ to: {} }, 'latest']), -32602, 'Invalid address: null, empty or invalid hex value.')
    await rejects(rq(p, 'eth_call', [{ to: c, input: '0x', data: 'zz' }, 'latest']), -32602, 'Invalid data format: invalid hex value.')
    await rejects(rq(p, 'eth_call', [{ to: c, gas: '0X5208' }, 'latest']), -32602, 'Invalid param 0X5208: value must be a valid hex or string number.')
    await rejects(rq(p, 'eth_call', [{ to: c, nonce: 'zz' }, 'latest']), -32602, 'Invalid param zz: value must be a valid hex or string number.')
    await rejects(rq(p, 'eth_estimateGas', [{ to: c, value: 'ff' }]), -32602, 'Number values should not contain letters or hex values should start with 0x.')
    // Kept (docs/compatibility.md): RSKj runs an empty call for a call object that is not an object.
    await rejects(rq(p, 'eth_call', ['0x1234', 'latest']), -32602, 'Invalid transaction call object: expected an object.')
  })
})

/**
 * Which bad parameter RSKj answers first. The parameter classes are built in parameter order when jsonrpc4j reads the
 * parameters (`JsonRpcBasicServer.convertJsonToParameters`); what the method reads later comes after: the block
 * (`Web3Impl.eth_getStorageAt` → `Web3InformationRetriever.getInformationProvider`; `EthModule.call`/`estimateGas` →
 * `ExecutionBlockRetriever.retrieveExecutionBlock`), then the numbers (`HexUtils.strHexOrStrNumberToByteArray` in
 * `eth_getStorageAt`; `CallArgumentsToByteArray` in `EthModule.callConstant`/`estimateGas`). eth_call's overrides:
 * `Web3Impl.eth_call` reads them (`AccountOverride.fromAccountOverrideParam`) before the block, and `EthModule.call`
 * checks them against the precompiles (`applyStateOverride`) after it and before the call object's numbers.
 */
describe('the order of the checks: a block RSKj looks up before it reads a number wins', () => {
  it('eth_getStorageAt, eth_call, eth_estimateGas', async () => {
    const { p } = await twoBlocks()
    const numbers = 'Number values should not contain letters or hex values should start with 0x.'
    await rejects(rq(p, 'eth_getStorageAt', [COW, 'ff', '0x99']), -32600, 'Block 0x99 not found')
    await rejects(rq(p, 'eth_getStorageAt', [COW, 'ff', { blockHash: UNKNOWN }]), -32600, `Block with hash ${UNKNOWN} not found`)
    await rejects(rq(p, 'eth_getStorageAt', [COW, 'ff', '1']), -32602, 'invalid blocknumber 1')
    await rejects(rq(p, 'eth_getStorageAt', [COW, 'ff', 'latest']), -32602, numbers)
    // A parameter class still wins over the block: HexNumberParam's check is made when the parameters are read.
    await rejects(rq(p, 'eth_getStorageAt', [COW, '0XFF', '0x99']), -32602, 'Invalid param 0XFF: value must be a valid hex or string number.')
    for (const m of ['eth_call', 'eth_estimateGas']) {
      await rejects(rq(p, m, [{ to: COW1, gas: 'ff' }, '0x99']), -32602, 'Invalid block number 153')
      await rejects(rq(p, m, [{ to: COW1, value: 'ff' }, 'safe']), -32602, m === 'eth_call' ? "Invalid block identifier 'safe'" : /^Unsupported block specifier 'safe'/)
      await rejects(rq(p, m, [{ to: COW1, gasPrice: 'ff' }, 'latest']), -32602, numbers)
    }
    await rejects(rq(p, 'eth_call', [{ to: COW1, gas: 'ff' }, { blockHash: UNKNOWN }]), -32600, `Block with hash ${UNKNOWN} not found`)
    const precompile = '0x0000000000000000000000000000000000000001'
    // The overrides' numbers are read before the block; their check against the precompiles after it, before the call's numbers.
    await rejects(rq(p, 'eth_call', [{ to: COW1 }, '0x99', { [COW1]: { balance: '100' } }]), -32602, `Invalid state override for ${COW1}: balance 100 is not a 0x hex number`)
    await rejects(rq(p, 'eth_call', [{ to: COW1 }, '0x99', { [precompile]: { balance: '0x1' } }]), -32602, 'Invalid block number 153')
    await rejects(rq(p, 'eth_call', [{ to: COW1, gas: 'ff' }, 'latest', { [precompile]: { balance: '0x1' } }]), -32602, 'Precompiled contracts can not be overridden')
    await rejects(rq(p, 'eth_call', [{ to: COW1 }, 'latest', { [precompile]: { state: {}, stateDiff: {} } }]), -32602, 'Precompiled contracts can not be overridden')
  })
})

describe('the order of the checks: the second parameter of the …ByNumber and …ByHash methods', () => {
  /**
   * `BlockIdentifierParam` takes `1` and `safe`, which `Web3InformationRetriever.getBlock` refuses only in the method, after
   * jsonrpc4j has read the index (`HexIndexParam`) or the Boolean; a JSON null hash reaches `Web3Impl`'s own checks
   * (`blockHash is null`, `index is null`) after the other parameter is read too.
   */
  it('a bad index or Boolean wins over a block text getBlock refuses; a null hash or index is the method\'s error', async () => {
    const { p, block1 } = await twoBlocks()
    const index = 'Invalid argument "zz": param should be a hex value string.'
    for (const m of ['eth_getTransactionByBlockNumberAndIndex', 'eth_getUncleByBlockNumberAndIndex']) {
      await rejects(rq(p, m, ['1', 'zz']), -32602, index)
      await rejects(rq(p, m, ['safe', 'zz']), -32602, index)
      await rejects(rq(p, m, ['1', '0x0']), -32602, 'invalid blocknumber 1')
    }
    await rejects(rq(p, 'eth_getBlockByNumber', ['safe', 'yes']), -32602, 'Invalid argument "yes": param should be a boolean.')
    await rejects(rq(p, 'eth_getBlockByNumber', ['safe', true]), -32602, 'invalid blocknumber safe')
    await rejects(rq(p, 'eth_getBlockByHash', [null, false]), -32602, 'blockHash is null')
    await rejects(rq(p, 'eth_getBlockByHash', [null, 'yes']), -32602, 'Invalid argument "yes": param should be a boolean.')
    await rejects(rq(p, 'eth_getTransactionByBlockHashAndIndex', [null, '0x0']), -32602, 'blockHash is null')
    await rejects(rq(p, 'eth_getTransactionByBlockHashAndIndex', [null, 'zz']), -32602, index)
    await rejects(rq(p, 'eth_getTransactionByBlockHashAndIndex', [block1.hash, null]), -32602, 'index is null')
    await rejects(rq(p, 'eth_getTransactionByBlockHashAndIndex', [null, null]), -32602, 'blockHash is null')
  })

  /**
   * Jackson hands `HexIndexParam`'s deserializer no JSON null: the method gets a null index and reads it only once the
   * block is found (co/rsk/rpc/Web3Impl.java: `eth_getTransactionByBlockNumberAndIndex`'s `index.getIndex()`,
   * `eth_getUncleByBlock…AndIndex`'s `uncleIdx.getIndex()`), so a block that is not found answers null; one that is
   * found is RSKj's NullPointerException (-32603), here -32602 `index is null`.
   */
  it('a null index: null where no block is found, -32602 where one is', async () => {
    const { p, block1 } = await twoBlocks()
    for (const m of ['eth_getTransactionByBlockNumberAndIndex', 'eth_getUncleByBlockNumberAndIndex']) {
      expect(await rq(p, m, ['0x99', null]), m).toBeNull()
      await rejects(rq(p, m, ['0x1', null]), -32602, 'index is null')
    }
    expect(await rq(p, 'eth_getUncleByBlockHashAndIndex', [UNKNOWN, null])).toBeNull()
    await rejects(rq(p, 'eth_getUncleByBlockHashAndIndex', [block1.hash, null]), -32602, 'index is null')
    expect(await rq(p, 'eth_getTransactionByBlockNumberAndIndex', ['0x1', '0x0'])).toMatchObject({ blockHash: block1.hash, transactionIndex: '0x0' })
  })
})

describe('32-byte hashes (HashParam32: 64 to 66 characters, HexUtils.stringHexToByteArray, then 32 bytes)', () => {
  it('0x and 63 digits is a hash (padded); 0x and 62, or 65/66 digits without 0x, are the wrong length; 0X is no prefix', async () => {
    const p = await fresh()
    for (const [m, type] of [
      ['eth_getTransactionByHash', 'transaction hash'],
      ['eth_getBlockByHash', 'block hash'],
    ]) {
      const params = (h: string) => (m === 'eth_getBlockByHash' ? [h, false] : [h])
      expect(await rq(p, m!, params('0x' + '1'.repeat(63)))).toBeNull()
      await rejects(rq(p, m!, params('0x' + '1'.repeat(62))), -32602, `Invalid ${type}: incorrect length.`)
      await rejects(rq(p, m!, params('1'.repeat(65))), -32602, `Invalid ${type}: incorrect length.`)
      await rejects(rq(p, m!, params('1'.repeat(66))), -32602, `Invalid ${type}: incorrect length.`)
      await rejects(rq(p, m!, params('0X' + '1'.repeat(64))), -32602, `Invalid ${type} format: invalid hex value`)
    }
    const genesis = await rq(p, 'eth_getBlockByNumber', ['0x0', false])
    expect((await rq(p, 'eth_getBlockByHash', [genesis.hash.slice(2).toUpperCase(), false])).hash).toBe(genesis.hash)
  })
})

describe('addresses and data (HexAddressParam: 40 to 42 characters, then RskAddress; HexDataParam: HexUtils.stringHexToByteArray)', () => {
  it('0x and 39 digits is an address (padded); 0X is no prefix, for addresses and data', async () => {
    const p = await fresh()
    const short = '0x0' + '1'.repeat(39)
    await rq(p, 'anvil_setBalance', [short, '0x10'])
    expect(await rq(p, 'eth_getBalance', ['0x' + '1'.repeat(39), 'latest'])).toBe('0x10')
    await rejects(rq(p, 'eth_getBalance', ['0X' + COW.slice(2), 'latest']), -32602, 'Invalid address format: invalid hex value.')
    await rejects(rq(p, 'eth_getBalance', ['1'.repeat(41), 'latest']), -32602, 'Invalid address format: invalid hex value.')
    await rejects(rq(p, 'eth_call', [{ to: COW1, data: '0X00' }, 'latest']), -32602, 'Invalid data format: invalid hex value.')
    expect(await rq(p, 'eth_call', [{ to: COW1, data: '0x0' }, 'latest'])).toBe('0x')
  })
})

describe('over HTTP with ethers', () => {
  const http = useHttpServer()
  it('a decimal block number for eth_getBalance is -32602 `invalid blocknumber 1`, answered with HTTP 400', async () => {
    await rq(http.server.provider, 'evm_mine')
    await expect(http.rpc.send('eth_getBalance', [COW, '1'])).rejects.toMatchObject({ error: { code: -32602, message: 'invalid blocknumber 1' } })
    const res = await fetch(http.server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['LATEST', false] }),
    })
    expect(res.status).toBe(400)
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'invalid blocknumber LATEST' } })
    expect((await http.rpc.send('eth_getBlockByNumber', ['0x10000000000000001', false])).number).toBe('0x1')
  })

  /**
   * Jackson 2.15 reads a float literal past a double's range into a `DoubleNode` of Infinity
   * (`JsonNodeDeserializer._fromFloat`), whose `asText()` is Java's `Double.toString`, `Infinity`
   * (com/fasterxml/jackson/databind/node/DoubleNode.java). `CallArgumentsParam` and `AccountOverrideParam` hand that
   * text to `HexNumberParam` (org/ethereum/rpc/parameters/HexNumberParam.java), which refuses it; it is not an absent
   * field. `BlockIdentifierParam` gets the same text from the parser (`getText`).
   */
  it('a number literal past a double (1e400) is the text Infinity, refused, not an absent field', async () => {
    const B = '0x0000000000000000000000000000000000000b0b'
    const post = async (method: string, params: string): Promise<unknown> => {
      const res = await fetch(http.server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"jsonrpc":"2.0","id":1,"method":"${method}","params":${params}}`,
      })
      return ((await res.json()) as { error?: unknown }).error
    }
    const number = { code: -32602, message: 'Invalid param Infinity: value must be a valid hex or string number.' }
    expect(await post('eth_call', `[{"from":"${COW}","to":"${B}"},"latest",{"${B}":{"balance":1e400}}]`)).toEqual(number)
    expect(await post('eth_call', `[{"from":"${COW}","to":"${B}","value":1e400},"latest"]`)).toEqual(number)
    const head = await rq(http.server.provider, 'eth_blockNumber')
    expect(await post('eth_sendTransaction', `[{"from":"${COW}","to":"${B}","value":1e400}]`)).toEqual(number)
    expect(await rq(http.server.provider, 'eth_blockNumber')).toBe(head)
    expect(await post('eth_call', `[{"from":"${COW}","to":"${B}","value":-1e400},"latest"]`)).toEqual({ ...number, message: number.message.replace('Infinity', '-Infinity') })
    expect(await post('eth_getBlockByNumber', '[1e400, false]')).toEqual({ code: -32602, message: "Invalid block identifier 'Infinity'" })
  })

  it('ethers sends a block hash blockTag to eth_call as the block string: refused, as ExecutionBlockRetriever refuses it', async () => {
    const head = await http.rpc.getBlock('latest')
    const failure = await http.rpc.call({ to: COW1, blockTag: head!.hash! }).catch((e) => e)
    // HTTP 400, as RSKj answers -32602 (Web3HttpStatusCodeProvider): ethers reports a SERVER_ERROR with the body.
    expect(failure.code).toBe('SERVER_ERROR')
    expect(JSON.parse(failure.info.responseBody).error).toEqual({ code: -32602, message: `Invalid hexadecimal number: ${head!.hash}${HASH_HINT}` })
    expect(await http.rpc.call({ to: COW1, blockTag: head!.number })).toBe('0x')
  })
})

describe('on a fork, the numbers read as RSKj reads them', () => {
  it('a wrapped number is asked of the remote as the block it names; a negative one names no block and is not asked', async () => {
    const remote = await startServer({ port: 0, accountTxRateLimit: false })
    try {
      await send(remote.provider, { to: COW1, value: '0x1' })
      await send(remote.provider, { to: COW1, value: '0x1' })
      await rq(remote.provider, 'evm_mine')
      const f = await fresh({ fork: { url: remote.url, blockNumber: 3, cache: false } } as never)
      const at1 = await rq(remote.provider, 'eth_getBalance', [COW1, '0x1'])
      expect(await rq(f, 'eth_getBalance', [COW1, '0x10000000000000001'])).toBe(at1)
      expect((await rq(f, 'eth_getBlockByNumber', ['0x10000000000000001', false])).hash).toBe((await rq(remote.provider, 'eth_getBlockByNumber', ['0x1', false])).hash)
      await rejects(rq(f, 'eth_getBalance', [COW1, '0xffffffffffffffff']), -32600, 'Block 0xffffffffffffffff not found')
      expect(await rq(f, 'eth_getCode', [COW1, '0xffffffffffffffff'])).toBeNull()
      expect(await rq(f, 'eth_getBlockByNumber', ['0xffffffffffffffff', false])).toBeNull()
    } finally {
      await remote.close()
    }
  })
})
