/**
 * Raw legacy transactions whose integers carry leading zero bytes, answered as RSKj answers them. The transactions are
 * written here by hand (ethers' encodeRlp writes each field exactly as given) and signed with ethers' SigningKey over a
 * message also written here, so nothing comes from rsksim's encoder. Expected values follow RSKj VETIVER-9.0.3:
 * - org/ethereum/core/Transaction.java: nonce and gas limit kept as received, gas price and value read as numbers
 *   (RLP.parseCoinNonNullZero / parseCoinNullZero), r and s as numbers; the signed message (`getEncodedRaw`) and the
 *   hash (`getHash`, keccak of `getEncoded`) are of the re-encoding: nonce 0x00 written as the empty string, gas
 *   price zero as 0x00 and any other without leading zeros, value zero as the empty string, r and s without leading
 *   zeros; so the expected hash is keccak of the "canonical twin" written below, and the sender the key that signed
 *   the twin's message;
 * - co/rsk/net/handler/txvalidator/TxValidatorNonceEncodingValidator.java: the pool's -32010 texts for a nonce over 8
 *   bytes or with a leading zero (the single byte 0x00 passes), checked after the sender's state and the gas limit
 *   and before the nonce range (co/rsk/net/handler/TxPendingValidator.java).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { JsonRpcProvider, SigningKey, Wallet, encodeRlp, getBytes, hexlify, keccak256 } from 'ethers'
import { createMPT } from '@ethereumjs/mpt'
import { startServer, type RsksimServer } from '../src/index.js'
import { COW, COW1, COW_KEY, fresh, rejects, rq } from './helpers.js'


/** The six signed fields of a transfer of nothing from nonce 0, as a signer writes them (hex, sent as given). */
const BASE = ['0x', '0x', '0x5208', COW1, '0x', '0x']
type Six = string[]

/** `h` (hex bytes) without its leading zero bytes: r or s as a number. */
const unpadded = (h: string): string => '0x' + h.slice(2).replace(/^(00)+/, '')

/**
 * The nine fields sent: `sent`, signed with `key` over the EIP-155 message (chain id 33) of `signedOver` (default
 * `sent`); `pad` adds leading zero bytes to r and s as sent.
 */
function signedRaw(sent: Six, opts: { signedOver?: Six; key?: string; pad?: string } = {}): { raw: string; fields: string[] } {
  const message = encodeRlp([...(opts.signedOver ?? sent), '0x21', '0x', '0x'])
  const sig = new SigningKey(opts.key ?? COW_KEY).sign(keccak256(message))
  const pad = (h: string): string => (opts.pad === undefined ? unpadded(h) : opts.pad + unpadded(h).slice(2))
  const fields = [...sent, '0x' + (101 + sig.yParity).toString(16), pad(sig.r), pad(sig.s)]
  return { raw: encodeRlp(fields), fields }
}

/** keccak of the transaction RSKj re-encodes: `fields` with the six of `twin` and the signature without padding. */
const twinHash = (fields: string[], twin: Six): string => keccak256(encodeRlp([...twin, fields[6]!, unpadded(fields[7]!), unpadded(fields[8]!)]))

/** `six` with its field `i` (0 nonce, 1 gas price, 2 gas limit, 3 to, 4 value, 5 data) written as `v`. */
const with_ = (i: number, v: string, six: Six = BASE): Six => six.map((f, j) => (j === i ? v : f))

describe('eth_sendRawTransaction: a nonce with non-canonical bytes (RSKj TxValidatorNonceEncodingValidator)', () => {
  it('a leading zero byte: -32010 `transaction nonce has non-canonical encoding`, whatever the number', async () => {
    const p = await fresh()
    for (const nonce of ['0x0000', '0x0001', '0x000005']) {
      await rejects(rq(p, 'eth_sendRawTransaction', [signedRaw(with_(0, nonce)).raw]), -32010, 'transaction nonce has non-canonical encoding')
    }
    // Nothing entered the pool: the sender's next nonce is still 0, and the canonical transaction goes through.
    expect(await rq(p, 'eth_getTransactionCount', [COW, 'pending'])).toBe('0x0')
    const { raw } = signedRaw(BASE)
    expect(await rq(p, 'eth_sendRawTransaction', [raw])).toBe(keccak256(raw))
  })

  it('more than 8 bytes: -32010 `transaction nonce byte length exceeds maximum: N > 8`, leading zeros or not', async () => {
    const p = await fresh()
    const cases: [string, string][] = [
      ['0x000000000000000001', 'transaction nonce byte length exceeds maximum: 9 > 8'],
      ['0x010000000000000000', 'transaction nonce byte length exceeds maximum: 9 > 8'],
      ['0x01' + '00'.repeat(32), 'transaction nonce byte length exceeds maximum: 33 > 8'],
    ]
    for (const [nonce, text] of cases) await rejects(rq(p, 'eth_sendRawTransaction', [signedRaw(with_(0, nonce)).raw]), -32010, text)
    // 8 canonical bytes pass the encoding check; 2^64 - 1, which the engine cannot hold, is RSKj's next answer.
    await rejects(rq(p, 'eth_sendRawTransaction', [signedRaw(with_(0, '0xffffffffffffffff')).raw]), -32010, 'transaction nonce too high')
    await rejects(rq(p, 'eth_sendRawTransaction', [signedRaw(with_(0, '0xfffffffffffffffe')).raw]), -32010, 'transaction nonce too high')
  })

  it('is checked after the sender state and the gas limit, before the nonce range', async () => {
    const p = await fresh()
    // No state for the signer: RSKj's first check (TxPendingValidator.isValid) answers.
    const stranger = Wallet.createRandom().privateKey
    await rejects(rq(p, 'eth_sendRawTransaction', [signedRaw(with_(0, '0x0001'), { key: stranger }).raw]), -32010, "the sender account doesn't exist")
    // A gas limit over the block's: TxValidatorGasLimitValidator comes before the nonce encoding.
    await rejects(rq(p, 'eth_sendRawTransaction', [signedRaw(with_(2, '0x01312d00', with_(0, '0x0001'))).raw]), -32010,
      "transaction's gas limit of 20000000 is higher than the block's gas limit of 10000000")
    // The nonce encoding comes before the nonce range: too low and too high are not what is answered.
    await rq(p, 'eth_sendRawTransaction', [signedRaw(BASE).raw])
    await rejects(rq(p, 'eth_sendRawTransaction', [signedRaw(with_(0, '0x0000')).raw]), -32010, 'transaction nonce has non-canonical encoding')
    await rejects(rq(p, 'eth_sendRawTransaction', [signedRaw(with_(0, '0x0040')).raw]), -32010, 'transaction nonce has non-canonical encoding')
    // And before the intrinsic gas: a gas limit below 21,000.
    await rejects(rq(p, 'eth_sendRawTransaction', [signedRaw(with_(2, '0x01', with_(0, '0x0001'))).raw]), -32010, 'transaction nonce has non-canonical encoding')
  })

  it('the single byte 0x00 passes the check; RSKj signs and hashes it as the empty string', async () => {
    const p = await fresh()
    // Signed over the canonical message (nonce as the empty string), sent with 0x00: taken, with the canonical hash.
    const { raw, fields } = signedRaw(with_(0, '0x00'), { signedOver: BASE })
    const hash = twinHash(fields, BASE)
    expect(hash).not.toBe(keccak256(raw))
    expect(await rq(p, 'eth_sendRawTransaction', [raw])).toBe(hash)
    const tx = await rq(p, 'eth_getTransactionByHash', [hash])
    expect([tx.from, tx.nonce, tx.blockNumber]).toEqual([COW, '0x0', '0x1'])
    expect((await rq(p, 'eth_getTransactionReceipt', [hash])).status).toBe('0x1')
    // Signed over its own bytes (0x00): RSKj's message has the empty string there, so another key is recovered,
    // one with no state.
    const q = await fresh()
    await rejects(rq(q, 'eth_sendRawTransaction', [signedRaw(with_(0, '0x00')).raw]), -32010, "the sender account doesn't exist")
  })
})

describe('eth_sendRawTransaction: other integers with leading zeros (RSKj Transaction.java)', () => {
  it('a gas limit with a leading zero is taken and mined as received: hash over the bytes, sender over them', async () => {
    const p = await fresh()
    const six = with_(2, '0x005208')
    const { raw } = signedRaw(six)
    expect(await rq(p, 'eth_sendRawTransaction', [raw])).toBe(keccak256(raw))
    const read = async (): Promise<unknown> => {
      const tx = await rq(p, 'eth_getTransactionByHash', [keccak256(raw)])
      const receipt = await rq(p, 'eth_getTransactionReceipt', [keccak256(raw)])
      return [tx.from, tx.gas, tx.nonce, tx.blockNumber, receipt.status, receipt.gasUsed]
    }
    expect(await read()).toEqual([COW, '0x5208', '0x0', '0x1', '0x1', '0x5208'])
    // Executed as the signer's: its nonce moved (the engine alone would recover another key from its own message).
    expect(await rq(p, 'eth_getTransactionCount', [COW, 'latest'])).toBe('0x1')
    // Read again once later blocks are mined (the block then keeps the transaction as its stored bytes).
    await rq(p, 'evm_mine')
    await rq(p, 'evm_mine')
    expect(await read()).toEqual([COW, '0x5208', '0x0', '0x1', '0x1', '0x5208'])
    // Signed over the canonical gas limit and sent with the zero: RSKj signs the bytes received, so another sender.
    await rejects(rq(p, 'eth_sendRawTransaction', [signedRaw(with_(0, '0x01', six), { signedOver: with_(0, '0x01') }).raw]), -32010, "the sender account doesn't exist")
  })

  it('a gas price with leading zeros is read as a number: signed and hashed without them', async () => {
    const p = await fresh()
    const { raw, fields } = signedRaw(with_(1, '0x0001'), { signedOver: with_(1, '0x01') })
    const hash = twinHash(fields, with_(1, '0x01'))
    expect(await rq(p, 'eth_sendRawTransaction', [raw])).toBe(hash)
    const tx = await rq(p, 'eth_getTransactionByHash', [hash])
    expect([tx.from, tx.gasPrice]).toEqual([COW, '0x1'])
    await rejects(rq(p, 'eth_sendRawTransaction', [signedRaw(with_(0, '0x01', with_(1, '0x0001'))).raw]), -32010, "the sender account doesn't exist")
  })

  it('a zero gas price given as 0x00 is written back as 0x00 (encodeCoinNonNullZero); 0x0000 becomes 0x00', async () => {
    const p = await fresh()
    const zeroByte = signedRaw(with_(1, '0x00'))
    expect(await rq(p, 'eth_sendRawTransaction', [zeroByte.raw])).toBe(keccak256(zeroByte.raw))
    expect((await rq(p, 'eth_getTransactionByHash', [keccak256(zeroByte.raw)])).from).toBe(COW)
    const twin = with_(0, '0x01', with_(1, '0x00'))
    const { raw, fields } = signedRaw(with_(1, '0x0000', twin), { signedOver: twin })
    expect(await rq(p, 'eth_sendRawTransaction', [raw])).toBe(twinHash(fields, twin))
    await rq(p, 'evm_mine')
    const tx = await rq(p, 'eth_getTransactionByHash', [twinHash(fields, twin)])
    expect([tx.from, tx.nonce, tx.gasPrice]).toEqual([COW, '0x1', '0x0'])
    expect(await rq(p, 'eth_getTransactionCount', [COW, 'latest'])).toBe('0x2')
  })

  it('a value with leading zeros, or zero as 0x00, is read as a number: signed and hashed without them', async () => {
    const p = await fresh()
    const { raw, fields } = signedRaw(with_(4, '0x0005'), { signedOver: with_(4, '0x05') })
    expect(await rq(p, 'eth_sendRawTransaction', [raw])).toBe(twinHash(fields, with_(4, '0x05')))
    expect((await rq(p, 'eth_getTransactionByHash', [twinHash(fields, with_(4, '0x05'))])).value).toBe('0x5')
    const twin = with_(0, '0x01')
    const zero = signedRaw(with_(4, '0x00', twin), { signedOver: twin })
    expect(await rq(p, 'eth_sendRawTransaction', [zero.raw])).toBe(twinHash(zero.fields, twin))
    // Signed over 0x00 itself: RSKj's message holds the empty string, so another sender.
    await rejects(rq(p, 'eth_sendRawTransaction', [signedRaw(with_(0, '0x02', with_(4, '0x00'))).raw]), -32010, "the sender account doesn't exist")
  })

  it('r and s with leading zeros (33 bytes too) are numbers: the sender is the signer, the hash the canonical one', async () => {
    const p = await fresh({ mining: { auto: false } })
    const canonical = signedRaw(BASE)
    const padded = signedRaw(BASE, { pad: '0x00' })
    const long = signedRaw(BASE, { pad: '0x0000' })
    expect(padded.raw).not.toBe(canonical.raw)
    expect(await rq(p, 'eth_sendRawTransaction', [long.raw])).toBe(keccak256(canonical.raw))
    // The same transaction for RSKj (same hash): the pool has it already.
    await rejects(rq(p, 'eth_sendRawTransaction', [padded.raw]), -32010, 'pending transaction with same hash already exists')
    await rejects(rq(p, 'eth_sendRawTransaction', [canonical.raw]), -32010, 'pending transaction with same hash already exists')
    await rq(p, 'evm_mine')
    const tx = await rq(p, 'eth_getTransactionByHash', [keccak256(canonical.raw)])
    expect([tx.from, BigInt(tx.r), BigInt(tx.s)]).toEqual([COW, BigInt(canonical.fields[7]!), BigInt(canonical.fields[8]!)])
  })

  it('a block holds RSKj\'s re-encoding: its transactions root is over those bytes (one transaction, no REMASC)', async () => {
    // The root is an Ethereum trie, key RLP(index) (docs/compatibility.md), computed here with @ethereumjs/mpt.
    const rootOf = async (bytes: string): Promise<string> => {
      const trie = await createMPT()
      await trie.put(Uint8Array.of(0x80), getBytes(bytes))
      return hexlify(trie.root())
    }
    const p = await fresh({ remasc: false })
    const gasLimit = signedRaw(with_(2, '0x005208'))
    await rq(p, 'eth_sendRawTransaction', [gasLimit.raw])
    expect((await rq(p, 'eth_getBlockByNumber', ['0x1', false])).transactionsRoot).toBe(await rootOf(gasLimit.raw))
    const twin = with_(0, '0x01')
    const padded = signedRaw(with_(4, '0x0000', twin), { signedOver: twin, pad: '0x00' })
    await rq(p, 'eth_sendRawTransaction', [padded.raw])
    const reencoded = encodeRlp([...twin, padded.fields[6]!, unpadded(padded.fields[7]!), unpadded(padded.fields[8]!)])
    expect((await rq(p, 'eth_getBlockByNumber', ['0x2', false])).transactionsRoot).toBe(await rootOf(reencoded))
  })

  it('r or s of 0 or at least n, leading zeros or not, and s = n/2: -32602 `Invalid chainId: 33` (acceptTransactionSignature)', async () => {
    const p = await fresh()
    // secp256k1's group order (SEC 2) and RSKj's SECP256K1N_HALF, n / 2 rounded down.
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
    const half = n / 2n
    const { fields } = signedRaw(BASE)
    const hex = (x: bigint): string => '0x' + x.toString(16).padStart(64, '0')
    const cases: [string, string][] = [
      ['0x00', fields[8]!], [fields[7]!, '0x00'], ['0x0000', fields[8]!],
      [hex(n), fields[8]!], ['0x00' + hex(n).slice(2), fields[8]!], [hex(n + 5n), fields[8]!],
      [fields[7]!, hex(half)], [fields[7]!, '0x00' + hex(half).slice(2)],
    ]
    for (const [r, s] of cases) {
      await rejects(rq(p, 'eth_sendRawTransaction', [encodeRlp([...BASE, fields[6]!, r, s])]), -32602, 'Invalid chainId: 33')
    }
    // s = n/2 - 1 is not refused for its size (this one recovers no funded key: the pool answers).
    await rejects(rq(p, 'eth_sendRawTransaction', [encodeRlp([...BASE, fields[6]!, fields[7]!, hex(half - 1n)])]), -32010, "the sender account doesn't exist")
  })

  it('eth_sendRawTransactionSync (an extension) decodes and admits the same way', async () => {
    const p = await fresh()
    await rejects(rq(p, 'eth_sendRawTransactionSync', [signedRaw(with_(0, '0x0001')).raw]), -32010, 'transaction nonce has non-canonical encoding')
    const { raw } = signedRaw(with_(2, '0x005208'))
    const receipt = await rq(p, 'eth_sendRawTransactionSync', [raw])
    expect([receipt.transactionHash, receipt.from, receipt.status]).toEqual([keccak256(raw), COW, '0x1'])
  })

  it('anvil_reorg refuses a raw transaction whose nonce RSKj\'s pool refuses', async () => {
    const p = await fresh()
    await rq(p, 'evm_mine')
    await rejects(rq(p, 'anvil_reorg', ['0x1', [[signedRaw(with_(0, '0x0000')).raw, '0x0']]]), -32602, 'Invalid reorg transaction: transaction nonce has non-canonical encoding')
  })
})

describe('eth_sendRawTransaction: RLP that is not canonical (RSKj RLP.decodeElement reads it)', () => {
  /** The nine items written by hand (each hex already an RLP item), in a list whose length has a leading zero byte. */
  const list = (items: string[]): string => {
    const payload = items.map((i) => i.slice(2)).join('')
    return '0xf900' + (payload.length / 2).toString(16).padStart(2, '0') + payload
  }
  const item = (h: string): string => encodeRlp(h)

  it('reads prefixed single bytes, long forms for short strings and padded lengths; hashes and signs the re-encoding', async () => {
    const p = await fresh()
    const twin = with_(2, '0x7530', with_(5, '0xabcd', with_(4, '0x05')))
    const { fields } = signedRaw(twin)
    const items = fields.map(item)
    items[4] = '0x8105' // value 5 with a length prefix
    items[5] = '0xb802abcd' // two bytes in the long form
    const raw = list(items)
    const hash = keccak256(encodeRlp(fields))
    expect(hash).not.toBe(keccak256(raw))
    expect(await rq(p, 'eth_sendRawTransaction', [raw])).toBe(hash)
    const tx = await rq(p, 'eth_getTransactionByHash', [hash])
    expect([tx.from, tx.value, tx.input]).toEqual([COW, '0x5', '0xabcd'])
    // A byte after the list is a second item: RLP.decodeList's IllegalArgumentException, -32603 (RskErrorResolver).
    await rejects(rq(p, 'eth_sendRawTransaction', [list(items) + '00']), -32603, 'Internal server error')
  })

  it('and the pool still answers the nonce texts for such bytes', async () => {
    const p = await fresh()
    const items = signedRaw(with_(0, '0x0001')).fields.map(item)
    items[2] = '0xb8025208'
    await rejects(rq(p, 'eth_sendRawTransaction', [list(items)]), -32010, 'transaction nonce has non-canonical encoding')
  })
})

describe('eth_sendRawTransaction over HTTP, default and hosted', () => {
  const servers: RsksimServer[] = []
  beforeAll(async () => {
    for (const hosted of [false, true]) servers.push(await startServer({ port: 0, hosted, accountTxRateLimit: false }))
  })
  afterAll(async () => {
    for (const s of servers) await s.close()
  })
  const post = (server: RsksimServer, raw: string): Promise<any> =>
    fetch(server.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [raw] }) }).then((r) => r.json())

  it('answers the nonce refusals with -32010 and takes the other encodings, in both modes', async () => {
    for (const server of servers) {
      expect(await post(server, signedRaw(with_(0, '0x0001')).raw)).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32010, message: 'transaction nonce has non-canonical encoding' } })
      expect(await post(server, signedRaw(with_(0, '0x000000000000000001')).raw)).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32010, message: 'transaction nonce byte length exceeds maximum: 9 > 8' } })
      const { raw } = signedRaw(with_(2, '0x005208'))
      expect(await post(server, raw)).toEqual({ jsonrpc: '2.0', id: 1, result: keccak256(raw) })
      const twin = with_(0, '0x01')
      const value = signedRaw(with_(4, '0x0000', twin), { signedOver: twin })
      expect(await post(server, value.raw)).toEqual({ jsonrpc: '2.0', id: 1, result: twinHash(value.fields, twin) })
    }
  })

  it("answers ethers' JsonRpcProvider the same: the refusal's code and text, RSKj's hash for what it takes", async () => {
    const server = await startServer({ port: 0, accountTxRateLimit: false })
    const ethers = new JsonRpcProvider(server.url, undefined, { staticNetwork: true })
    try {
      await expect(ethers.send('eth_sendRawTransaction', [signedRaw(with_(0, '0x0001')).raw])).rejects.toMatchObject({
        error: { code: -32010, message: 'transaction nonce has non-canonical encoding' },
      })
      const twin = with_(0, '0x01')
      const value = signedRaw(with_(4, '0x0000', twin), { signedOver: twin })
      expect(await ethers.send('eth_sendRawTransaction', [value.raw])).toBe(twinHash(value.fields, twin))
    } finally {
      ethers.destroy()
      await server.close()
    }
  })
})
