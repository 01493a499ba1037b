/**
 * How RSKj reads a raw transaction before its pool: the RLP structure, the fields the constructor parses, v, and a
 * signature from which no key is recovered. Transactions are written here by hand with ethers (encodeRlp writes each
 * field exactly as given; SigningKey signs, keccak256 hashes), and every expected code and text is RSKj's
 * (VETIVER-9.0.3), none taken from rsksim:
 * - org/ethereum/util/RLP.java `decodeList`/`decode2`/`decodeElement`: an item that does not fit throws an
 *   RLPException, answered -32602 `Invalid input: <its text>` (co/rsk/rpc/modules/eth/EthModuleTransactionBase.java
 *   `sendRawTransaction`); not exactly one item, or not a list, an IllegalArgumentException: -32603
 *   `Internal server error` (org/ethereum/rpc/exception/RskErrorResolver.java), as is a list of other than 9 items
 *   (org/ethereum/core/Transaction.java, RLPList constructor);
 * - Transaction.java `extractChainIdFromV` / `getRealV`: v 34, 35 and 36 name chain id 0 (a Java int division) with
 *   recovery v 28, 27 and 28; such a transaction is signed over the six fields and hashed (`getHash`, `rlpEncode`) with
 *   its recovery v; one signed over another message recovers another key, which the pool finds no account for
 *   (co/rsk/net/handler/TxPendingValidator.java, -32010 `the sender account doesn't exist`);
 * - Transaction.getSender: no key recovered (RSKj's default native signature service) → the null address, which has no
 *   account either: the same -32010.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SigningKey, encodeRlp, keccak256, toBeHex } from 'ethers'
import { startServer, type RsksimServer } from '../src/index.js'
import { COW, COW1, COW_KEY, fresh, rejects, rq } from './helpers.js'

/** A transfer of `value` wei (hex) from nonce `nonce` (hex) to cow1: the six signed fields, as a signer writes them. */
const six = (nonce = '0x', value = '0x'): string[] => [nonce, '0x', '0x5208', COW1, value, '0x']

/** `fields` signed by cow over the EIP-155 message for `chainId` (33 unless given), or the six fields alone (null). */
function signed(fields: string[], chainId: number | null = 33): { raw: string; v: number; r: string; s: string; yParity: number } {
  const message = chainId === null ? encodeRlp(fields) : encodeRlp([...fields, chainId === 0 ? '0x' : toBeHex(chainId), '0x', '0x'])
  const sig = new SigningKey(COW_KEY).sign(keccak256(message))
  const v = chainId === null ? 27 + sig.yParity : chainId * 2 + 35 + sig.yParity
  return { raw: encodeRlp([...fields, toBeHex(v), sig.r, sig.s]), v, r: sig.r, s: sig.s, yParity: sig.yParity }
}

/** Six fields whose pre-EIP-155 signature by cow has recovery v `27 + yParity`: the first value from `from` that gives it. */
function withParity(yParity: number, from = 1): { fields: string[]; sig: ReturnType<typeof signed> } {
  for (let value = from; ; value++) {
    const fields = six('0x', toBeHex(value))
    const sig = signed(fields, null)
    if (sig.yParity === yParity) return { fields, sig }
  }
}
/** The bytes sent: the pre-EIP-155 signature with v written as `v`. */
const as = (fields: string[], sig: ReturnType<typeof signed>, v: number): string => encodeRlp([...fields, toBeHex(v), sig.r, sig.s])

const INTERNAL = [-32603, 'Internal server error'] as const
const NO_SPACE = "Invalid input: The RLP byte array doesn't have enough space to hold an element with the specified length"

describe('eth_sendRawTransaction: v 34, 35 and 36 name chain id 0 (Transaction.extractChainIdFromV, getRealV)', () => {
  it('v 35 is recovery v 27: taken from cow, hashed, kept and answered with v 27', async () => {
    const p = await fresh()
    const { fields, sig } = withParity(0)
    const hash = keccak256(sig.raw) // the v-27 encoding: what RSKj's getHash hashes
    expect(await rq(p, 'eth_sendRawTransaction', [as(fields, sig, 35)])).toBe(hash)
    const tx = await rq(p, 'eth_getTransactionByHash', [hash])
    expect([tx.from, tx.v, tx.blockNumber]).toEqual([COW, '0x1b', '0x1'])
    expect((await rq(p, 'eth_getTransactionReceipt', [hash])).status).toBe('0x1')
    expect(await rq(p, 'eth_getRawTransactionByHash', [hash])).toBe(sig.raw)
  })

  it('v 34 and v 36 are recovery v 28: the same transaction, with the hash of its v-28 encoding', async () => {
    const { fields, sig } = withParity(1)
    for (const v of [34, 36]) {
      const p = await fresh()
      expect(await rq(p, 'eth_sendRawTransaction', [as(fields, sig, v)])).toBe(keccak256(sig.raw))
      expect((await rq(p, 'eth_getTransactionByHash', [keccak256(sig.raw)])).v).toBe('0x1c')
    }
  })

  it('signed over the EIP-155 message of chain id 0, it recovers another key: -32010, no account', async () => {
    const p = await fresh()
    await rejects(rq(p, 'eth_sendRawTransaction', [signed(six(), 0).raw]), -32010, "the sender account doesn't exist")
    expect(await rq(p, 'eth_getTransactionCount', [COW, 'pending'])).toBe('0x0')
  })

  it('v 33 and v 37 name chain ids -1 and 1: -32602 `Invalid chainId: <id>`', async () => {
    const p = await fresh()
    const { fields, sig } = withParity(0)
    await rejects(rq(p, 'eth_sendRawTransaction', [as(fields, sig, 33)]), -32602, 'Invalid chainId: -1')
    await rejects(rq(p, 'eth_sendRawTransaction', [as(fields, sig, 37)]), -32602, 'Invalid chainId: 1')
  })
})

describe('eth_sendRawTransaction: the RLP around and inside the list (RLP.decodeList, decode2, decodeElement)', () => {
  it('bytes after the list that read as items: -32603 `Internal server error`; nothing enters the pool', async () => {
    const p = await fresh()
    const { raw } = signed(six())
    // A single byte, an empty string, a one-byte string, an empty list, a second transaction.
    for (const after of ['00', '80', '8105', 'c0', raw.slice(2)]) await rejects(rq(p, 'eth_sendRawTransaction', [raw + after]), ...INTERNAL)
    expect(await rq(p, 'eth_getTransactionCount', [COW, 'pending'])).toBe('0x0')
    expect(await rq(p, 'eth_sendRawTransaction', [raw])).toBe(keccak256(raw))
  })

  it("bytes after the list that do not fit as an item: -32602 with the RLPException's text", async () => {
    const p = await fresh()
    const { raw } = signed(six())
    const cases: [string, string][] = [
      ['81', NO_SPACE], // a one-byte string without its byte
      ['c2', NO_SPACE], // a two-byte list without its bytes
      ['b901', "Invalid input: The length of the RLP item length can't possibly fit the data byte array"],
      ['bbffffffff', "Invalid input: The length of the RLP item can't be negative"], // a Java int's sign bit
      ['fb7fffffff', "Invalid input: The current implementation doesn't support lengths longer than Integer.MAX_VALUE because that is the largest number of elements an array can have. integer overflow"],
    ]
    for (const [after, text] of cases) await rejects(rq(p, 'eth_sendRawTransaction', [raw + after]), -32602, text)
  })

  it('no list, or a list of other than nine items: -32603; a list longer than its bytes: -32602', async () => {
    const p = await fresh()
    const { raw } = signed(six())
    const items = [...six(), '0x65', '0x01', '0x01']
    for (const bytes of ['0x', '0x80', '0x820102', encodeRlp(items.slice(0, 8)), encodeRlp([...items, '0x'])]) {
      await rejects(rq(p, 'eth_sendRawTransaction', [bytes]), ...INTERNAL)
    }
    await rejects(rq(p, 'eth_sendRawTransaction', [raw.slice(0, -2)]), -32602, NO_SPACE)
  })
})

describe('eth_sendRawTransaction: the fields the Transaction constructor and sendRawTransaction check', () => {
  it('a `to` of neither 0 nor 20 bytes: -32602 with the hex length of the parameter (RskErrorResolver)', async () => {
    const p = await fresh()
    const { raw } = signed([...six().slice(0, 3), COW1.slice(0, -2), '0x', '0x'])
    await rejects(rq(p, 'eth_sendRawTransaction', [raw]), -32602, `invalid argument 0: hex string has length ${raw.length - 2}, want 40 for RSK address`)
  })

  it('v of two bytes, or r or s empty: -32603; v empty: unsigned, -32602 `Invalid chainId: 0`', async () => {
    const p = await fresh()
    const { r, s } = signed(six())
    await rejects(rq(p, 'eth_sendRawTransaction', [encodeRlp([...six(), '0x0065', r, s])]), ...INTERNAL)
    await rejects(rq(p, 'eth_sendRawTransaction', [encodeRlp([...six(), '0x65', '0x', s])]), ...INTERNAL)
    await rejects(rq(p, 'eth_sendRawTransaction', [encodeRlp([...six(), '0x65', r, '0x'])]), ...INTERNAL)
    await rejects(rq(p, 'eth_sendRawTransaction', [encodeRlp([...six(), '0x', '0x', '0x'])]), -32602, 'Invalid chainId: 0')
  })

  it('an empty gas limit: -32602 `Missing parameter, gasPrice, gas or value`, before the signature is looked at', async () => {
    const p = await fresh()
    const fields = ['0x', '0x', '0x', COW1, '0x', '0x']
    await rejects(rq(p, 'eth_sendRawTransaction', [signed(fields).raw]), -32602, 'Missing parameter, gasPrice, gas or value')
    await rejects(rq(p, 'eth_sendRawTransaction', [encodeRlp([...fields, '0x', '0x', '0x'])]), -32602, 'Missing parameter, gasPrice, gas or value')
  })

  it('a field given as a list is read as its encoding: the data list 0xc20102 is the data 0xc20102', async () => {
    const p = await fresh()
    const twin = ['0x', '0x', '0x7530', COW1, '0x', '0xc20102']
    const sig = signed(twin)
    const sent = encodeRlp([...twin.slice(0, 5), ['0x01', '0x02'], toBeHex(sig.v), sig.r, sig.s])
    expect(sent).not.toBe(sig.raw)
    expect(await rq(p, 'eth_sendRawTransaction', [sent])).toBe(keccak256(sig.raw))
    expect((await rq(p, 'eth_getTransactionByHash', [keccak256(sig.raw)])).input).toBe('0xc20102')
  })
})

describe('eth_sendRawTransaction: a signature from which no key is recovered (RSKj native service → null sender)', () => {
  // r = 5: 5³ + 7 is no square modulo secp256k1's p, so no point has x = 5 (ethers' recoverPublicKey refuses it too).
  const r5 = (chainId: number | null): string => {
    const { v, s } = signed(six(), chainId)
    return encodeRlp([...six(), toBeHex(v), '0x05', s])
  }
  it('ethers recovers no key from it either', () => {
    const digest = keccak256(encodeRlp([...six(), '0x21', '0x', '0x']))
    expect(() => SigningKey.recoverPublicKey(digest, { r: toBeHex(5, 32), s: signed(six()).s, v: 27 })).toThrow()
  })

  it('-32010 `the sender account doesn\'t exist`, for chain id 33, chain id 0 and bytes RSKj re-encodes; nothing enters the pool', async () => {
    const p = await fresh()
    for (const chainId of [33, null]) await rejects(rq(p, 'eth_sendRawTransaction', [r5(chainId)]), -32010, "the sender account doesn't exist")
    // A gas limit with a leading zero byte: the transaction RSKj re-encodes (nonCanonicalTransaction.ts).
    const { v, s } = signed(six())
    await rejects(rq(p, 'eth_sendRawTransaction', [encodeRlp(['0x', '0x', '0x005208', COW1, '0x', '0x', toBeHex(v), '0x05', s])]), -32010, "the sender account doesn't exist")
    expect(await rq(p, 'txpool_status')).toEqual({ pending: 0, queued: 0 })
  })
})

describe('eth_sendRawTransaction over HTTP, default and hosted: these answers and their HTTP status', () => {
  const servers: RsksimServer[] = []
  beforeAll(async () => {
    for (const hosted of [false, true]) servers.push(await startServer({ port: 0, hosted, accountTxRateLimit: false }))
  })
  afterAll(async () => {
    for (const s of servers) await s.close()
  })
  const post = async (server: RsksimServer, raw: string): Promise<[number, unknown]> => {
    const res = await fetch(server.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [raw] }) })
    return [res.status, await res.json()]
  }
  const error = (code: number, message: string) => ({ jsonrpc: '2.0', id: 1, error: { code, message } })

  it('-32603 (HTTP 200) for a byte after the list, -32602 (HTTP 400) for one that does not fit, -32010 (HTTP 200) for no key', async () => {
    const { raw } = signed(six())
    const { s } = signed(six())
    for (const server of servers) {
      expect(await post(server, raw + '00')).toEqual([200, error(...INTERNAL)])
      expect(await post(server, raw + '81')).toEqual([400, error(-32602, NO_SPACE)])
      expect(await post(server, encodeRlp([...six(), '0x65', '0x05', s]))).toEqual([200, error(-32010, "the sender account doesn't exist")])
    }
  })

  it('a v-35 transaction is taken in both modes, answered with the hash of its v-27 encoding', async () => {
    for (const server of servers) {
      const { fields, sig } = withParity(0)
      const sent = as(fields, sig, 35)
      expect(await post(server, sent)).toEqual([200, { jsonrpc: '2.0', id: 1, result: keccak256(sig.raw) }])
    }
  })
})
