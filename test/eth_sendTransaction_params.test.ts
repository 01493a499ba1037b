/**
 * eth_sendTransaction's and personal_sendTransaction's transaction object as RSKj reads it (VETIVER-9.0.3): first
 * `CallArgumentsParam.Deserializer` (each field's `JsonNode.asText()` into HexAddressParam / HexNumberParam /
 * HexDataParam, in the order from, to, gas, gasPrice, gasLimit, nonce, chainId, value, data, input), then, after the
 * sender's checks, `TransactionArgumentsUtil.processArguments` (numbers through `HexUtils.strHexOrStrNumberToBigInteger`,
 * the chain id through `hexToChainId`), then `acceptTransactionSignature` (`EthModuleTransactionBase.sendTransaction`
 * quotes the chain id's text, `PersonalModuleWalletEnabled.sendTransaction` the transaction's byte). Every expected value
 * below is read from that code (src/rpc/codecs/callArgumentsParam.ts cites the methods).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { Transaction, Wallet, encodeRlp, keccak256, toBeHex } from 'ethers'
import type { Provider } from '../src/index.js'
import { setEnginePatches } from '../src/node/enginePatches/index.js'
import { COW, COW1, COW_KEY, fresh, rejects, rq, useHttpServer } from './helpers.js'

const NOBODY = '0x' + '12'.repeat(20)
const NUMBER_TEXT = 'Number values should not contain letters or hex values should start with 0x.'

let p: Provider
beforeAll(async () => {
  p = await fresh()
})

/** Sends from cow and answers the mined transaction. */
async function sent(fields: Record<string, unknown>): Promise<Record<string, any>> {
  const hash = await rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, ...fields }])
  return rq(p, 'eth_getTransactionByHash', [hash])
}

describe('eth_sendTransaction: the chain id (TransactionArgumentsUtil.hexToChainId, acceptTransactionSignature)', () => {
  it('a chain id that is not the node\'s is quoted as the request wrote it', async () => {
    await rejects(rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, chainId: '0x1f' }]), -32602, 'Invalid chainId: 0x1f')
    await rejects(rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, chainId: '0x1F' }]), -32602, 'Invalid chainId: 0x1F')
    await rejects(rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, chainId: 31 }]), -32602, 'Invalid chainId: 31')
  })

  it('must be one byte: 0x0021 and 0x100 and 0x are refused, 0x21 and 33 taken', async () => {
    for (const chainId of ['0x0021', '0x100', '0x', '256', 'ff']) {
      await rejects(rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, chainId }]), -32602, `Invalid chainId: ${chainId}`)
    }
    for (const chainId of ['0x21', '33', 33]) expect((await sent({ chainId })).v).toMatch(/^0x6[56]$/)
  })

  it('0 (0x0, 0x00, "0", 0) names none: the node\'s chain id signs', async () => {
    for (const chainId of ['0x0', '0x00', '0', 0]) {
      const tx = await sent({ chainId })
      expect(tx.v).toMatch(/^0x6[56]$/)
      // ethers reads the chain id back from the signed bytes the node holds.
      const raw = await rq(p, 'eth_getRawTransactionByHash', [tx.hash])
      expect(Transaction.from(raw).chainId).toBe(33n)
    }
  })

  it('is read after the sender: an unknown sender is answered first', async () => {
    await rejects(rq(p, 'eth_sendTransaction', [{ from: NOBODY, to: COW1, chainId: '0x100' }]), -32602, `Could not find account for address: ${NOBODY}`)
  })
})

describe('eth_sendTransaction: numbers (HexNumberParam, then strHexOrStrNumberToBigInteger)', () => {
  it('JSON numbers are their decimal text: 10^18 as a number is one RBTC', async () => {
    const tx = await sent({ value: 1e18, gas: 21000, gasPrice: 0 })
    expect([tx.value, tx.gas, tx.gasPrice]).toEqual(['0xde0b6b3a7640000', '0x5208', '0x0'])
  })

  it('a number with a fraction or an exponent is a DoubleNode, quoted as Java prints it', async () => {
    await rejects(rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, gas: 21000.5 }]), -32602, 'Invalid param 21000.5: value must be a valid hex or string number.')
    await rejects(rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: 1e21 }]), -32602, 'Invalid param 1.0E21: value must be a valid hex or string number.')
    await rejects(rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: true }]), -32602, 'Invalid param true: value must be a valid hex or string number.')
  })

  it('only a lower-case 0x is a prefix; over 66 characters is "Invalid param: <its first 66>..." (co.rsk.util.StringUtils.trim)', async () => {
    await rejects(rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, gas: '0X5208' }]), -32602, 'Invalid param 0X5208: value must be a valid hex or string number.')
    const long = '0x' + '0'.repeat(61) + '5208'
    await rejects(rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, gas: long }]), -32602, `Invalid param: ${long.slice(0, 66)}...`)
    expect((await sent({ gas: '0x' + '0'.repeat(60) + '5208' })).gas).toBe('0x5208')
  })

  it('0x alone passes the parameter and fails the reading: -32603, after the sender', async () => {
    await rejects(rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, gas: '0x' }]), -32603, 'Internal server error')
    await rejects(rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x' }]), -32603, 'Internal server error')
    await rejects(rq(p, 'eth_sendTransaction', [{ from: NOBODY, to: COW1, gas: '0x' }]), -32602, `Could not find account for address: ${NOBODY}`)
  })

  it('hex digits without 0x, the empty string and an object pass the parameter and fail the reading: -32602', async () => {
    for (const gasPrice of ['ff', '1a', '', {}, []]) {
      await rejects(rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, gasPrice }]), -32602, NUMBER_TEXT)
    }
  })

  it('gasLimit is not read when gas is given', async () => {
    expect((await sent({ gas: '0x5208', gasLimit: '0x' })).gas).toBe('0x5208')
    expect((await sent({ gas: '0x5208', gasLimit: 'ff' })).gas).toBe('0x5208')
    expect((await sent({ gasLimit: '0x5209' })).gas).toBe('0x5209')
    await rejects(rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, gasLimit: 'ff' }]), -32602, NUMBER_TEXT)
  })

  it('a negative decimal is the unsigned value of its two\'s-complement bytes (BigIntegers.asUnsignedByteArray)', async () => {
    expect((await sent({ value: '-1' })).value).toBe('0xff')
    expect((await sent({ value: '-256', gas: '+21000' })).value).toBe('0xff00')
  })
})

describe('eth_sendTransaction: addresses and data (HexAddressParam, HexDataParam)', () => {
  it('an address of 39 digits after 0x is left-padded to 20 bytes', async () => {
    const tx = await sent({ to: '0x' + COW1.slice(3) })
    expect(tx.to).toBe('0x0' + COW1.slice(3))
  })

  it('data and input are both read, data first: a bad data is refused even when input is good', async () => {
    await rejects(rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, data: '0xzz', input: '0x' }]), -32602, 'Invalid data format: invalid hex value.')
    await rejects(rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, data: '0X12' }]), -32602, 'Invalid data format: invalid hex value.')
    expect((await sent({ data: '0x01', input: '0x02' })).input).toBe('0x02')
    expect((await sent({ data: '0x123' })).input).toBe('0x0123')
  })

  it('a parameter that is no object has no fields (JsonNode.get answers null): `from is null`', async () => {
    const raw = '0xf86c808504a817c800825208943535353535353535353535353535353535353535880de0b6b3a76400008025a0'
    for (const param of [raw, 5, true, [COW]]) await rejects(rq(p, 'eth_sendTransaction', [param]), -32602, 'from is null')
    await rejects(rq(p, 'eth_sendTransaction', [null]), -32602, 'Invalid transaction call object: expected an object.')
  })

  it('fields are checked in the deserializer\'s order: from before data, to before gas', async () => {
    await rejects(rq(p, 'eth_sendTransaction', [{ data: '0xzz', from: '0x12' }]), -32602, 'Invalid address: null, empty or invalid hex value.')
    await rejects(rq(p, 'eth_sendTransaction', [{ gas: '0xzz', from: COW, to: 'nope' }]), -32602, 'Invalid address: null, empty or invalid hex value.')
  })
})

describe('personal_sendTransaction: the chain id as the transaction holds it (tx.getChainId(), a Java byte)', () => {
  it('quotes the byte, signed; a chain id of more than one byte is quoted as written', async () => {
    const addr = await rq(p, 'personal_newAccount', ['pw'])
    await rq(p, 'eth_sendTransaction', [{ from: COW, to: addr, value: '0xde0b6b3a7640000' }])
    await rejects(rq(p, 'personal_sendTransaction', [{ from: addr, to: COW1, chainId: '0x1f' }, 'pw']), -32602, 'Invalid chainId: 31')
    await rejects(rq(p, 'personal_sendTransaction', [{ from: addr, to: COW1, chainId: '0xa1' }, 'pw']), -32602, 'Invalid chainId: -95')
    await rejects(rq(p, 'personal_sendTransaction', [{ from: addr, to: COW1, chainId: '0x100' }, 'pw']), -32602, 'Invalid chainId: 0x100')
    const hash = await rq(p, 'personal_sendTransaction', [{ from: addr, to: COW1, chainId: '0x0' }, 'pw'])
    expect((await rq(p, 'eth_getTransactionByHash', [hash])).v).toMatch(/^0x6[56]$/)
  })
})

describe('eth_sendTransaction without a wallet (hosted)', () => {
  it('answers "Local wallet is disabled in this node" before reading from (EthModuleTransactionDisabled)', async () => {
    const hosted = await fresh({ hosted: true })
    await rejects(rq(hosted, 'eth_sendTransaction', [{ to: COW1 }]), -32602, 'Local wallet is disabled in this node')
  })
})

/**
 * The bytes RSKj signs for eth_sendTransaction (TransactionBuilder, Transaction.encode): a zero gas price written as the
 * byte 0x00 (RLP.encodeCoinNonNullZero), a zero nonce and value as the empty string, EIP-155 for chain id 33 (0x21).
 * Signed here with ethers' SigningKey (RFC 6979, as libsecp256k1 signs), so the hash is computed independently.
 */
function rskjSigned(nonce: string, gasPrice: string, gas: string, to: string, value: string, data: string): { raw: string; hash: string } {
  const six = [nonce, gasPrice, gas, to, value, data]
  const sig = new Wallet(COW_KEY).signingKey.sign(keccak256(encodeRlp([...six, '0x21', '0x', '0x'])))
  const raw = encodeRlp([...six, toBeHex(sig.yParity + 35 + 2 * 33), toBeHex(BigInt(sig.r)), toBeHex(BigInt(sig.s))])
  return { raw, hash: keccak256(raw) }
}

describe('eth_sendTransaction: the signed bytes (RSKj writes a zero gas price as 0x00)', () => {
  it('the default gas price 0 is signed and hashed as the byte 0x00; a block holds those bytes', async () => {
    const q = await fresh()
    const nonce = await rq(q, 'eth_getTransactionCount', [COW, 'pending'])
    const hash = await rq(q, 'eth_sendTransaction', [{ from: COW, to: COW1, gas: '0x5208' }])
    const expected = rskjSigned(nonce === '0x0' ? '0x' : nonce, '0x00', '0x5208', COW1, '0x', '0x')
    expect(hash).toBe(expected.hash)
    expect(await rq(q, 'eth_getRawTransactionByHash', [hash])).toBe(expected.raw)
    const tx = await rq(q, 'eth_getTransactionByHash', [hash])
    expect([tx.gasPrice, tx.value, tx.nonce, tx.from]).toEqual(['0x0', '0x0', '0x0', COW])
    expect((await rq(q, 'eth_getTransactionReceipt', [hash])).status).toBe('0x1')
  })

  it('the transaction signed at gas price 0 runs as its sender\'s, with the engine patches on and off', async () => {
    for (const on of [true, false]) {
      setEnginePatches(on)
      try {
        const q = await fresh()
        const hash = await rq(q, 'eth_sendTransaction', [{ from: COW, to: NOBODY, value: '0x5' }])
        expect((await rq(q, 'eth_getTransactionReceipt', [hash])).status).toBe('0x1')
        expect(await rq(q, 'eth_getBalance', [NOBODY, 'latest'])).toBe('0x5')
        expect(await rq(q, 'eth_getTransactionCount', [COW, 'latest'])).toBe('0x1')
        // The traced sender is the engine's own reading of the transaction, not the record's.
        expect((await rq(q, 'debug_traceTransaction', [hash, { tracer: 'callTracer' }])).from).toBe(COW)
      } finally {
        setEnginePatches(true)
      }
    }
  })

  it('a gas price above zero is written without leading zeros, as every signer writes it', async () => {
    const q = await fresh()
    const hash = await rq(q, 'eth_sendTransaction', [{ from: COW, to: COW1, gas: '0x5208', gasPrice: '0x1', value: '0x0a' }])
    expect(hash).toBe(rskjSigned('0x', '0x01', '0x5208', COW1, '0x0a', '0x').hash)
  })

  it('personal_sendTransaction signs the same bytes', async () => {
    const q = await fresh()
    const addr = await rq(q, 'personal_importRawKey', [COW_KEY, 'pw'])
    expect(addr).toBe(COW)
    const hash = await rq(q, 'personal_sendTransaction', [{ from: COW, to: COW1, gas: '0x5208' }, 'pw'])
    expect(hash).toBe(rskjSigned('0x', '0x00', '0x5208', COW1, '0x', '0x').hash)
  })
})

/**
 * Numbers the engine (@ethereumjs/tx) cannot hold but RSKj's pool reads as BigIntegers (co/rsk/net/handler/
 * TxPendingValidator.java and its txvalidator steps, in order: gas limit, account state, nonce encoding, nonce range,
 * balance = gas price × gas limit): RSKj answers -32010 with the step's text, not a decoding error.
 */
describe('numbers past the engine: RSKj pool texts', () => {
  const TWO_64 = 2n ** 64n
  const signedRaw = (fields: Record<string, unknown>, key = COW_KEY): string => {
    const tx = Transaction.from({ type: 0, chainId: 33, gasPrice: 0, gasLimit: 21000, to: COW1, ...fields } as never)
    tx.signature = new Wallet(key).signingKey.sign(tx.unsignedHash)
    return tx.serialized
  }

  it('a gas limit of 2^64 or more: `transaction\'s gas limit of X is higher than the block\'s gas limit of Y` (TxValidatorGasLimitValidator)', async () => {
    const q = await fresh()
    const blockGasLimit = BigInt((await rq(q, 'eth_getBlockByNumber', ['latest', false])).gasLimit)
    const text = (g: bigint): string => `transaction's gas limit of ${g} is higher than the block's gas limit of ${blockGasLimit}`
    await rejects(rq(q, 'eth_sendTransaction', [{ from: COW, to: COW1, gas: '0x' + TWO_64.toString(16) }]), -32010, text(TWO_64))
    await rejects(rq(q, 'eth_sendTransaction', [{ from: COW, to: COW1, gas: '0x' + 'f'.repeat(64) }]), -32010, text(2n ** 256n - 1n))
    await rejects(rq(q, 'eth_sendRawTransaction', [signedRaw({ gasLimit: TWO_64 })]), -32010, text(TWO_64))
    // The account-state check comes first: a sender with no state.
    await rejects(rq(q, 'eth_sendRawTransaction', [signedRaw({ gasLimit: TWO_64 }, '0x' + '42'.repeat(32))]), -32010, "the sender account doesn't exist")
  })

  it('a gas price × gas limit of 2^256 or more: `insufficient funds` (TxValidatorAccountBalanceValidator), after the nonce checks', async () => {
    const q = await fresh()
    const price = 2n ** 256n - 1n
    await rejects(rq(q, 'eth_sendTransaction', [{ from: COW, to: COW1, gasPrice: '0x' + price.toString(16) }]), -32010, 'insufficient funds')
    await rejects(rq(q, 'eth_sendRawTransaction', [signedRaw({ gasPrice: price })]), -32010, 'insufficient funds')
    await rejects(rq(q, 'eth_sendRawTransaction', [signedRaw({ gasPrice: price, nonce: 5000 })]), -32010, 'transaction nonce too high')
  })

  it('a nonce of 2^64 − 1 or of nine bytes (TxValidatorNonceRangeValidator, TxValidatorNonceEncodingValidator)', async () => {
    const q = await fresh()
    await rejects(rq(q, 'eth_sendTransaction', [{ from: COW, to: COW1, nonce: '0xffffffffffffffff' }]), -32010, 'transaction nonce too high')
    await rejects(rq(q, 'eth_sendTransaction', [{ from: COW, to: COW1, nonce: '0x10000000000000000' }]), -32010, 'transaction nonce byte length exceeds maximum: 9 > 8')
    // Nothing of these reached the pool or a block.
    expect(await rq(q, 'eth_blockNumber')).toBe('0x0')
    expect(await rq(q, 'eth_getTransactionCount', [COW, 'pending'])).toBe('0x0')
  })
})

describe('numbers past the engine from an impersonated sender (anvil_impersonateAccount): the same pool texts', () => {
  it('a gas limit of 2^64, a gas price x gas of 2^256 or more and a nonce of 2^64 - 1 are refused as from a sender with a key, not -32603', async () => {
    const q = await fresh()
    const who = '0x' + '34'.repeat(20)
    await rq(q, 'anvil_impersonateAccount', [who])
    await rq(q, 'anvil_setBalance', [who, '0xffffffffffffffffffff'])
    const blockGasLimit = BigInt((await rq(q, 'eth_getBlockByNumber', ['latest', false])).gasLimit)
    const send = (fields: Record<string, unknown>): Promise<unknown> => rq(q, 'eth_sendTransaction', [{ from: who, to: COW1, ...fields }])
    await rejects(send({ gas: '0x10000000000000000' }), -32010, `transaction's gas limit of ${2n ** 64n} is higher than the block's gas limit of ${blockGasLimit}`)
    await rejects(send({ gas: '0x5208', gasPrice: '0x' + 'f'.repeat(64) }), -32010, 'insufficient funds')
    await rejects(send({ nonce: '0xffffffffffffffff' }), -32010, 'transaction nonce too high')
    expect(await rq(q, 'eth_getTransactionCount', [who, 'pending'])).toBe('0x0')
    // In range, it is sent as before.
    expect(await send({ value: '0x1' })).toMatch(/^0x[0-9a-f]{64}$/)
  })
})

describe('over HTTP: the JSON text as a client writes it', () => {
  const http = useHttpServer()
  const post = async (body: string): Promise<{ status: number; body: any }> => {
    const res = await fetch(http.server.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })
    return { status: res.status, body: await res.json() }
  }
  const send = (fields: string): string => `{"jsonrpc":"2.0","id":1,"method":"eth_sendTransaction","params":[{"from":"${COW}","to":"${COW1}",${fields}}]}`

  it('a JSON integer is its digits (Jackson asText); a chain id that is not the node\'s is quoted as written', async () => {
    const ok = await post(send('"value":1000000000000000000,"gas":21000'))
    expect(ok.status).toBe(200)
    const tx = await http.rpc.send('eth_getTransactionByHash', [ok.body.result])
    expect([tx.value, tx.gas]).toEqual(['0xde0b6b3a7640000', '0x5208'])
    const bad = await post(send('"chainId":"0x1f"'))
    expect(bad.body).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid chainId: 0x1f' } })
    const empty = await post(send('"gas":"0x"'))
    expect(empty.body).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal server error' } })
  })
})

describe('over HTTP: an integer literal no double holds (Jackson keeps its digits)', () => {
  const http = useHttpServer()
  const post = async (body: string): Promise<any> =>
    (await fetch(http.server.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body })).json()

  it('value 1234567890123456789 as a JSON number moves exactly that, not JSON.parse\'s 1234567890123456800', async () => {
    const body = `{"jsonrpc":"2.0","id":12345678901234567891,"method":"eth_sendTransaction","params":[{"from":"${COW}","to":"${COW1}","value":1234567890123456789,"gas":21000}]}`
    const reply = await post(body)
    // The id stays a number (the reply echoes what JSON.parse reads).
    expect(reply.id).toBe(12345678901234567891)
    const tx = await http.rpc.send('eth_getTransactionByHash', [reply.result])
    expect(BigInt(tx.value)).toBe(1234567890123456789n)
  })

  it('error texts quote such a number by its digits, as Jackson\'s getText() gives them', async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"personal_unlockAccount","params":["${COW}","pw",12345678901234567891]}`
    expect((await post(body)).error).toEqual({ code: -32602, message: 'Invalid argument "12345678901234567891": param should be a hex value string.' })
  })

  it('digits inside strings, and objects with a __proto__ key, are read as JSON.parse reads them', async () => {
    const { parseRequestJson } = await import('../src/rpc/requestJson.js')
    const text = '{"a":"x:12345678901234567891","b":[12345678901234567891,1e300,-12345678901234567891,1.5],"__proto__":{"c":12345678901234567891}}'
    const v = parseRequestJson(text) as any
    expect(v.a).toBe('x:12345678901234567891')
    expect(v.b).toEqual([12345678901234567891n, 1e300, -12345678901234567891n, 1.5])
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype)
    expect(Object.getOwnPropertyDescriptor(v, '__proto__')?.value).toEqual({ c: 12345678901234567891n })
    const deep = '['.repeat(50_000) + '12345678901234567891' + ']'.repeat(50_000)
    expect(() => parseRequestJson(deep)).not.toThrow()
  })
})
