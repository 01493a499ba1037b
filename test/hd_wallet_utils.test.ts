/**
 * RSK's HDWalletUtils precompile (0x01000009, RSKIP106; src/node/rsk/evm/hdWalletUtils.ts). Expected values: RSKj's
 * own test vectors (`rskj-core/src/test/java/co/rsk/pcc/bto/*Test.java`), BIP-32's test vector 2 (m → m/0, a public
 * derivation), and bitcoinjs-lib (Base58Check, P2SH of a multisig redeem script) for random inputs. Prices from the
 * method classes (`getGas`), failures from their checks and from `NativeContract` (unparsable data priced 0).
 */
import { describe, expect, it } from 'vitest'
import { Contract, Interface, hexlify, randomBytes } from 'ethers'
import { address as btcAddress, payments } from 'bitcoinjs-lib'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import type { Provider } from '../src/index.js'
import { base58Check, fromBase58Check } from '../src/node/rsk/base58.js'
import { deployCode, fresh, relayTo, sendFailing, sendKeptFailure, send, useHttpServer, rq } from './helpers.js'

const HDW = '0x0000000000000000000000000000000001000009'
const ABI = [
  'function toBase58Check(bytes,int256) view returns (string)',
  'function deriveExtendedPublicKey(string,string) view returns (string)',
  'function extractPublicKeyFromExtendedPublicKey(string) view returns (bytes)',
  'function getMultisigScriptHash(int256,bytes[]) view returns (bytes)',
]
const iface = new Interface(ABI)
const word = (n: number | bigint) => BigInt(n).toString(16).padStart(64, '0')
const RELAY_FAILED = '0x' + word(0)

/** RSKj's vectors (DeriveExtendedPublicKeyTest, ExtractPublicKeyFromExtendedPublicKeyTest, GetMultisigScriptHashTest). */
const TPUB = 'tpubD6NzVbkrYhZ4YHQqwWz3Tm1ESZ9AidobeyLG4mEezB6hN8gFFWrcjczyF77Lw3HEs6Rjd2R11BEJ8Y9ptfxx9DFknkdujp58mFMx9H5dc1r'
const DERIVED: [string, string][] = [
  ['2/3/4', 'tpubDCGMkPKredy7oh6zw8f4ExWFdTgQCrAHToF1ytny3gbVy9GkUNK2Nqh7NbKbh8dkd5VtjUiLJPkbEkeg29NVHwxYwzHJFt9SazGLZrrU4Y4'],
  ['0/0/0/0/0/0', 'tpubDJ28nwFGUypUD6i8eGCQfMkwNGxzzabA5Mh7AcUdwm6ziFxCSWjy4HyhPXH5uU2ovdMMYLT9W3g3MrGo52TrprMvX8o1dzT2ZGz1pwCPTNv'],
  ['2147483647', 'tpubD8fY35uPCY1rUjMUZwhkGUFi33pwkffMEBaCsTSw1he2AbM6DMbPaRR2guvk5qTWDfE9ubFB5pzuUNnMtsqbCeKAAjfepSvEWyetyF9Q4fG'],
]
/** BIP-32 test vector 2: chain m and m/0 (public derivation). */
const BIP32_M = 'xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB'
const BIP32_M_0 = 'xpub69H7F5d8KSRgmmdJg2KhpAK8SR3DjMwAdkxj3ZuxV27CprR9LgpeyGmXUbC6wb7ERfvrnKZjXoUmmDznezpbZb7ap6r1D3tgFxHmwMkQTPH'
const XPUB = 'xpub661MyMwAqRbcFMGNG2YcHvj3x63bAZN9U5cKikaiQ4zu2D1cvpnZYyXNR9nH62sGp4RR39Ui7SVQSq1PY4JbPuEuu5prVJJC3d5Pogft712'
const XPUB_KEY = '0x02be517550b9e3be7fe42c80932d51e88e698663b4926e598b269d050e87e34d8c'
const KEYS = [
  '03b53899c390573471ba30e5054f78376c5f797fda26dde7a760789f02908cbad2',
  '027319afb15481dbeb3c426bcc37f9a30e7f51ceff586936d85548d9395bcc2344',
  '0355a2e9bf100c00fc0a214afd1bf272647c7824eb9cb055480962f0c382596a70',
  '02566d5ded7c7db1aa7ee4ef6f76989fb42527fcfdcddcd447d6793b7d869e46f7',
  '0294c817150f78607566e961b3c71df53a22022a80acbb982f83c0c8baac040adc',
  '0372cd46831f3b6afd4c044d160b7667e8ebf659d6cb51a825a3104df6ee0638c6',
  '0340df69f28d69eef60845da7d81ff60a9060d4da35c767f017b0dd4e20448fb44',
  '02ac1901b6fba2c1dbd47d894d2bd76c8ba1d296d65f6ab47f1c6b22afb53e73eb',
  '031aabbeb9b27258f98c2bf21f36677ae7bae09eb2d8c958ef41a20a6e88626d26',
  '0245ef34f5ee218005c9c21227133e8568a4f3f11aeab919c66ff7b816ae1ffeea',
  '02550cc87fa9061162b1dd395a16662529c9d8094c0feca17905a3244713d65fe8',
  '02481f02b7140acbf3fcdd9f72cf9a7d9484d8125e6df7c9451cfa55ba3b077265',
  '03f909ae15558c70cc751aff9b1f495199c325b13a9e5b934fd6299cd30ec50be8',
  '02c6018fcbd3e89f3cf9c7f48b3232ea3638eb8bf217e59ee290f5f0cfb2fb9259',
  '03b65694ccccda83cbb1e56b31308acd08e993114c33f66a456b627c2c1c68bed6',
].map((k) => '0x' + k)
const MIXED = [...KEYS]
MIXED[0] = '0x04b53899c390573471ba30e5054f78376c5f797fda26dde7a760789f02908cbad2aafaaa2611606699ec4f82777a268b708dab346de4880cd223969f7bbe5422bf'
MIXED[4] = '0x0494c817150f78607566e961b3c71df53a22022a80acbb982f83c0c8baac040adcb17171aa9ec8d8587098e0771f686ee61ac35279f9e5aadf9b06b738aa6d3720'
MIXED[6] = '0x0440df69f28d69eef60845da7d81ff60a9060d4da35c767f017b0dd4e20448fb44e1abebaea4c3c57c6e9e39e205b4df046f7110a8d3477c0d8e26a28be9692c29'
MIXED[9] = '0x0445ef34f5ee218005c9c21227133e8568a4f3f11aeab919c66ff7b816ae1ffeeae024d50312de76a7950f8c6268fbf454335cf252f961a67c47e67dc06fa590ba'
const MULTISIG_8_OF_15 = '0x51f103320b435b5fe417b3f3e0f18972ccc710a0'

/** The answer of `method(args)` through eth_call, decoded; the raw answer checked against RSKj's padding. */
async function call(p: Provider, method: string, args: unknown[]): Promise<string> {
  const raw: string = await rq(p, 'eth_call', [{ to: HDW, data: iface.encodeFunctionData(method, args) }, 'latest'])
  const value = iface.decodeFunctionResult(method, raw)[0] as string
  const bytes = value.startsWith('0x') ? value.slice(2) : Buffer.from(value).toString('hex')
  expect(raw).toBe('0x' + word(32) + word(bytes.length / 2) + bytes.padEnd(Math.max(1, Math.ceil(bytes.length / 64)) * 64, '0'))
  return value
}

/** A random public key: compressed, uncompressed or hybrid (0x06/0x07, which BouncyCastle accepts). */
function randomKey(form: number): { given: string; compressed: Uint8Array } {
  const point = secp256k1.Point.BASE.multiply(BigInt(hexlify(randomBytes(31))))
  const compressed = point.toBytes(true)
  if (form === 0) return { given: hexlify(compressed), compressed }
  const full = point.toBytes(false)
  if (form === 2) full[0] = 0x06 + Number(point.toAffine().y & 1n)
  return { given: hexlify(full), compressed }
}

describe('HDWalletUtils (0x01000009)', () => {
  it("answers RSKj's test vectors and BIP-32's, in RSKj's encoding", async () => {
    const p = await fresh()
    expect(await call(p, 'toBase58Check', ['0x0d3bf5f30dda7584645546079318e97f0e1d044f', 111n])).toBe('mgivuh9jErcGdRr81cJ3A7YfgbJV7WNyZV')
    for (const [path, want] of DERIVED) expect(await call(p, 'deriveExtendedPublicKey', [TPUB, path])).toBe(want)
    expect(await call(p, 'deriveExtendedPublicKey', [BIP32_M, '0'])).toBe(BIP32_M_0)
    expect(await call(p, 'extractPublicKeyFromExtendedPublicKey', [XPUB])).toBe(XPUB_KEY)
    expect(await call(p, 'getMultisigScriptHash', [8n, KEYS])).toBe(MULTISIG_8_OF_15)
    expect(await call(p, 'getMultisigScriptHash', [8n, MIXED])).toBe(MULTISIG_8_OF_15)
  })

  it("reads arguments as RSKj's decoder: unpadded bytes, offsets by their low 32 bits, array offsets after the length", async () => {
    const p = await fresh()
    const raw = (data: string) => rq(p, 'eth_call', [{ to: HDW, data }, 'latest'])
    const want = await raw(iface.encodeFunctionData('extractPublicKeyFromExtendedPublicKey', [XPUB]))
    const data = iface.encodeFunctionData('extractPublicKeyFromExtendedPublicKey', [XPUB])
    // The string's 111 bytes without the padding after them.
    expect(await raw(data.slice(0, data.length - 2 * 17))).toBe(want)
    // Offset word 2^32 + 32: Java's intValue() reads 32.
    expect(await raw(data.slice(0, 10) + word(2n ** 32n + 32n) + data.slice(74))).toBe(want)
    expect(iface.decodeFunctionResult('getMultisigScriptHash', await raw(iface.encodeFunctionData('getMultisigScriptHash', [8n, KEYS])))[0]).toBe(MULTISIG_8_OF_15)
  })

  it('agrees with bitcoinjs-lib on random Base58Check and multisig inputs (keys sorted, compressed, hybrid accepted)', async () => {
    const p = await fresh()
    for (const version of [0, 5, 111, 196, 255]) {
      const hash = randomBytes(20)
      expect(await call(p, 'toBase58Check', [hash, BigInt(version)])).toBe(btcAddress.toBase58Check(hash, version))
    }
    for (const [m, n] of [[1, 2], [2, 3], [3, 5], [15, 15]] as const) {
      const keys = Array.from({ length: n }, (_, i) => randomKey(i % 3))
      const sorted = keys.map((k) => k.compressed).sort((a, b) => Buffer.compare(a, b))
      const want = payments.p2sh({ redeem: payments.p2ms({ m, pubkeys: sorted }) }).hash!
      expect(await call(p, 'getMultisigScriptHash', [BigInt(m), keys.map((k) => k.given)])).toBe(hexlify(want))
    }
  })

  it("keeps the depth in one byte as bitcoinj writes it: depth 255 derives to 0; child numbers and fingerprints as BIP-32's", async () => {
    const p = await fresh()
    const tpub = fromBase58Check(TPUB)!
    const deep = Uint8Array.from(tpub)
    deep[4] = 255
    const derived = fromBase58Check(await call(p, 'deriveExtendedPublicKey', [base58Check(deep), '7']))!
    expect(derived[4]).toBe(0)
    expect(hexlify(derived.subarray(9, 13))).toBe('0x00000007')
    // The rest of it is the derivation of TPUB's key and chain code, whatever the depth says.
    expect(hexlify(derived.subarray(13))).toBe(hexlify(fromBase58Check(await call(p, 'deriveExtendedPublicKey', [TPUB, '7']))!.subarray(13)))
  })

  it("reads paths as Java's Integer.parseInt does: a sign inside the path, Unicode digits", async () => {
    const p = await fresh()
    const at = (path: string) => call(p, 'deriveExtendedPublicKey', [TPUB, path])
    expect(await at('2/+3/4')).toBe(DERIVED[0]![1])
    expect(await at('0/-0/0/0/0/0')).toBe(DERIVED[1]![1])
    // ARABIC-INDIC DIGIT TWO and FULLWIDTH DIGIT FOUR.
    expect(await at('\u0662/3/\uff14')).toBe(DERIVED[0]![1])
    expect(await at('0002/03/4')).toBe(DERIVED[0]![1])
  })

  it('fails where RSKj refuses, at the price; unparsable data fails at no cost', async () => {
    const p = await fresh()
    const relay = await deployCode(p, relayTo(HDW))
    const fails = async (method: string, args: unknown[]) =>
      expect([method, args, await rq(p, 'eth_call', [{ to: relay, data: iface.encodeFunctionData(method, args) }, 'latest'])]).toEqual([method, args, RELAY_FAILED])
    const hash = '0x0d3bf5f30dda7584645546079318e97f0e1d044f'
    await fails('toBase58Check', ['0xaabbcc', 111n])
    await fails('toBase58Check', [hash, -1n])
    await fails('toBase58Check', [hash, 256n])
    await fails('toBase58Check', [hash, 2n ** 32n + 5n])
    for (const path of ['', 'M/0', '/0', '0/', '0H', "0'", '-1', '+1', '0//1', '0/1/2/2147483648', '0/1/2/3/4/5/6/7/8/9/10', ' 1', '0/-1', 'x']) {
      await fails('deriveExtendedPublicKey', [TPUB, path])
    }
    // Extended keys made from TPUB's 78 bytes with one thing changed (Base58Check written by src/node/rsk/base58.ts).
    const tpub = fromBase58Check(TPUB)!
    const changed = (at: number, ...bytes: number[]) => {
      const b = Uint8Array.from(tpub)
      b.set(bytes, at)
      return base58Check(b)
    }
    // The mainnet header but one (still written "xpub…"); a key prefix 0x04; an x with no point (x = 5 has none).
    const wrongHeader = changed(0, 0x04, 0x88, 0xb2, 0x1f)
    expect(wrongHeader.startsWith('xpub')).toBe(true)
    const notOnCurve = changed(45, 0x02, ...new Uint8Array(31), 5)
    expect(() => secp256k1.Point.fromBytes(fromBase58Check(notOnCurve)!.subarray(45))).toThrow()
    // Not an extended key, a wrong checksum (RSKj's vector), a broken checksum under the xpub prefix, 79 bytes.
    for (const xpub of ['this-is-not-an-xpub', TPUB.slice(0, -1) + 's', 'xpub' + TPUB.slice(4), wrongHeader, changed(45, 0x04), notOnCurve, base58Check(Uint8Array.of(...tpub, 0))]) {
      await fails('deriveExtendedPublicKey', [xpub, '0'])
      await fails('extractPublicKeyFromExtendedPublicKey', [xpub])
    }
    await fails('getMultisigScriptHash', [0n, KEYS.slice(0, 2)])
    await fails('getMultisigScriptHash', [1n, KEYS.slice(0, 1)])
    await fails('getMultisigScriptHash', [3n, KEYS.slice(0, 2)])
    await fails('getMultisigScriptHash', [1n, [...KEYS, KEYS[0]!]])
    await fails('getMultisigScriptHash', [1n, [KEYS[3]!, '0xaabbcc']])
    await fails('getMultisigScriptHash', [1n, ['0x03566d5ded7c7db1aa7ee4ef6f76989fb42527fcfdcddcd447d6793b7d869e46f7', '0x08566d5ded7c7db1aa7ee4ef6f76989fb42527fcfdcddcd447d6793b7d869e46f7']])
    // A hybrid key whose type says the wrong parity of y.
    const hybrid = randomKey(2).given
    await fails('getMultisigScriptHash', [1n, [KEYS[0]!, hybrid.slice(0, 3) + (hybrid[3] === '6' ? '7' : '6') + hybrid.slice(4)]])
  })

  it("costs each method's price, the multisig 700 per key past two, and unparsable data nothing", async () => {
    const p = await fresh()
    const calldataGas = (d: string) => [...Buffer.from(d.slice(2), 'hex')].reduce((g, b) => g + (b === 0 ? 4 : 16), 0)
    const cases: [string, unknown[], number][] = [
      ['toBase58Check', ['0x0d3bf5f30dda7584645546079318e97f0e1d044f', 111n], 13_000],
      ['deriveExtendedPublicKey', [TPUB, '2/3/4'], 107_000],
      ['extractPublicKeyFromExtendedPublicKey', [XPUB], 11_300],
      ['getMultisigScriptHash', [1n, KEYS.slice(0, 2)], 20_000],
      ['getMultisigScriptHash', [8n, KEYS], 20_000 + 13 * 700],
    ]
    for (const [method, args, price] of cases) {
      const data = iface.encodeFunctionData(method, args)
      const gas = 21_000 + calldataGas(data) + price
      expect([method, Number(await rq(p, 'eth_estimateGas', [{ to: HDW, data }, 'latest']))]).toEqual([method, gas])
      const r = await send(p, { to: HDW, data, gas: '0x' + gas.toString(16) })
      expect([method, r.status, Number(r.gasUsed)]).toEqual([method, '0x1', gas])
      await sendFailing(p, { to: HDW, data, gas: '0x' + (gas - 1).toString(16) })
    }
    // Failing at the price: 16 keys (priced as 16), a bare multisig selector (m = 0 and no keys, priced 20,000). Sent
    // straight to the precompile, the failure is kept without an execution error, as RSKj's TransactionExecutor does:
    // status 0x1.
    const failedGas = async (data: string) => {
      const r = await sendKeptFailure(p, { to: HDW, data })
      expect(r.status).toBe('0x1')
      return Number(r.gasUsed)
    }
    const sixteen = iface.encodeFunctionData('getMultisigScriptHash', [1n, [...KEYS, KEYS[0]!]])
    expect(await failedGas(sixteen)).toBe(21_000 + calldataGas(sixteen) + 20_000 + 14 * 700)
    const bare = iface.getFunction('getMultisigScriptHash')!.selector
    expect(await failedGas(bare)).toBe(21_000 + calldataGas(bare) + 20_000)
    // Unparsable: a partial word, a string whose length runs past the data, an unknown selector.
    const partial = iface.getFunction('toBase58Check')!.selector + '00'.repeat(16)
    const data = iface.encodeFunctionData('extractPublicKeyFromExtendedPublicKey', [XPUB])
    const truncated = data.slice(0, data.length - 64)
    for (const d of [partial, truncated, '0x12345678']) expect([d, await failedGas(d)]).toEqual([d, 21_000 + calldataGas(d)])
  })

  describe('through ethers over HTTP', () => {
    const http = useHttpServer()
    it('a Contract derives and hashes', async () => {
      const contract = new Contract(HDW, ABI, http.rpc)
      expect(await contract.getFunction('deriveExtendedPublicKey')(TPUB, '2/3/4')).toBe(DERIVED[0]![1])
      expect(await contract.getFunction('getMultisigScriptHash')(8n, MIXED)).toBe(MULTISIG_8_OF_15)
      expect(await contract.getFunction('extractPublicKeyFromExtendedPublicKey')(XPUB)).toBe(XPUB_KEY)
    })
  })
})
