/**
 * RSK's HDWalletUtils precompile (0x01000009, RSKIP106; RSKj `co/rsk/pcc/bto/HDWalletUtils`, a native contract:
 * `co/rsk/pcc/NativeContract`), pure Bitcoin helpers over bitcoinj-thin (`co/rsk/bitcoinj`, 0.14.4-rsk-18):
 *
 * | Method | Price | Answer |
 * |---|---|---|
 * | `toBase58Check(bytes hash, int256 version)` | 13,000 | `string`: Base58Check of `version ‖ hash`; `hash` must be 20 bytes, `version` 0-255 (`ToBase58Check`) |
 * | `deriveExtendedPublicKey(string xpub, string path)` | 107,000 | `string`: the extended public key at `path` below `xpub` (`DeriveExtendedPublicKey`) |
 * | `extractPublicKeyFromExtendedPublicKey(string xpub)` | 11,300 | `bytes`: its 33-byte compressed public key |
 * | `getMultisigScriptHash(int256 m, bytes[] keys)` | 20,000 + 700 per key past 2 | `bytes`: HASH160 of the m-of-n redeem script (`GetMultisigScriptHash`) |
 *
 * - **Extended keys** (`HDWalletUtilsHelper`, `DeterministicKey.deserializeB58`): the text must start with `xpub`
 *   (mainnet) or `tpub` (testnet), be Base58Check of exactly 78 bytes with that network's public header
 *   (0x0488b21e, 0x043587cf) and a compressed public key on the curve. Depth, parent fingerprint and child number
 *   are taken as they are.
 * - **Paths** (`DeriveExtendedPublicKey.execute`): 1 to 10 levels separated by `/`, each a number that Java's
 *   `Integer.parseInt` reads as 0 to 2^31 − 1 (so no `M`, no hardened `'`/`H`, no empty level; a sign is accepted
 *   inside the path, not as its first or last character; Unicode decimal digits are digits). Each level is a
 *   public (non-hardened) BIP32 derivation (`HDKeyDerivation.deriveChildKeyBytesFromPublic`: I_L above the curve
 *   order or a child at infinity fails); the answer keeps the network, has depth + levels (as one byte), the
 *   fingerprint of its parent and the last level as child number.
 * - **Multisig**: m from 1 to the number of keys, 2 to 15 keys of 33 bytes (compressed) or 65 (0x04, or the
 *   hybrid 0x06/0x07 that BouncyCastle's `decodePoint` accepts), all on the curve; each is compressed, the keys are
 *   sorted bytewise and the script is `OP_m <keys> OP_n OP_CHECKMULTISIG` (`ScriptBuilder.createP2SHOutputScript`,
 *   `createRedeemScript`). The price counts every key given, also when there are too many.
 *
 * As every native contract: arguments are read as RSKj's ABI decoder reads them and answers written as it writes
 * them (nativeAbi.ts); data it cannot read (fewer than 4 bytes, an unknown selector, a malformed argument) is
 * priced 0 and fails; any refusal above fails at the method's price (precompileCall.ts). Value may be sent.
 */
import type { CustomPrecompile, ExecResult, PrecompileInput } from '@ethereumjs/evm'
import { bytesToBigInt, concatBytes } from '@ethereumjs/util'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { hmac } from '@noble/hashes/hmac.js'
import { ripemd160 } from '@noble/hashes/legacy.js'
import { sha256, sha512 } from '@noble/hashes/sha2.js'
import { base58Check, fromBase58Check } from '../base58.js'
import { abiSelector, nativeAbiBytes, parseNativeCall, type NativeAbiType, type NativeAbiValue } from './nativeAbi.js'
import { failed, rskjPrecompile } from './precompileCall.js'

type Point = InstanceType<typeof secp256k1.Point>

const HD_WALLET_UTILS = '0x0000000000000000000000000000000001000009'
const ORDER = secp256k1.Point.CURVE().n
const PRIME = secp256k1.Point.CURVE().p
/** BIP32 public headers of bitcoinj's `MainNetParams` and `TestNet3Params` (`getBip32HeaderPub`). */
const HEADERS = { xpub: 0x0488b21e, tpub: 0x043587cf } as const
const MAX_PATH_LEVELS = 10
const MIN_KEYS = 2
const MAX_KEYS = 15

/** A method's answer (bytes or a string), or undefined for a refusal (RSKj throws). */
type Answer = Uint8Array | string | undefined

interface Method {
  selector: Uint8Array
  args: readonly NativeAbiType[]
  price: (args: NativeAbiValue[]) => bigint
  answer: (args: NativeAbiValue[]) => Answer
}

const hash160 = (b: Uint8Array): Uint8Array => ripemd160(sha256(b))

/** Java's `BigInteger.intValueExact` range. */
const isInt = (n: bigint): boolean => n >= -(2n ** 31n) && n < 2n ** 31n

/** The value of a UTF-16 unit as a decimal digit for Java's `Character.digit(c, 10)`: a Unicode Nd character. */
function javaDigit(unit: number): number {
  if (unit >= 0x30 && unit <= 0x39) return unit - 0x30
  // A lone surrogate is no digit for Java (`charAt` gives one half of a supplementary character).
  const isNd = (u: number): boolean => u >= 0 && (u < 0xd800 || u > 0xdfff) && /\p{Nd}/u.test(String.fromCharCode(u))
  if (!isNd(unit)) return -1
  // Nd characters come in runs of ten, 0 to 9 (Unicode's stability policy): count back to the run's start.
  let zero = unit
  while (isNd(zero - 1)) zero--
  return (unit - zero) % 10
}

/** Java's `Integer.parseInt(s)`: an optional sign, decimal digits, within int range; undefined where it throws. */
function javaParseInt(s: string): number | undefined {
  if (s.length === 0) return undefined
  let i = 0
  let negative = false
  if (s.charCodeAt(0) < 0x30) {
    if (s[0] === '-') negative = true
    else if (s[0] !== '+') return undefined
    if (s.length === 1) return undefined
    i = 1
  }
  let n = 0n
  for (; i < s.length; i++) {
    const d = javaDigit(s.charCodeAt(i))
    if (d < 0) return undefined
    n = n * 10n + BigInt(d)
    if (n > 2n ** 31n) return undefined
  }
  const value = negative ? -n : n
  return isInt(value) ? Number(value) : undefined
}

/** `DeriveExtendedPublicKey.isDecimal`: `Integer.parseInt(s) >= 0`. */
const isDecimal = (s: string): boolean => (javaParseInt(s) ?? -1) >= 0

/** The child numbers of `path`, or undefined when RSKj refuses it. */
function pathLevels(path: string): number[] | undefined {
  if (path.length === 0 || !isDecimal(path.slice(0, 1)) || !isDecimal(path.slice(-1))) return undefined
  const levels = path.split('/')
  if (levels.length > MAX_PATH_LEVELS || !levels.every(isDecimal)) return undefined
  return levels.map((l) => javaParseInt(l)!)
}

interface ExtendedKey {
  header: number
  depth: number
  parentFingerprint: Uint8Array
  childNumber: Uint8Array
  chainCode: Uint8Array
  point: Point
}

/** `HDWalletUtilsHelper` and `DeterministicKey.deserializeB58` (see the file comment); undefined when refused. */
function readExtendedKey(text: string): ExtendedKey | undefined {
  const header = text.startsWith('xpub') ? HEADERS.xpub : text.startsWith('tpub') ? HEADERS.tpub : undefined
  const bytes = header === undefined ? undefined : fromBase58Check(text)
  if (bytes === undefined || bytes.length !== 78) return undefined
  if (new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0) !== header) return undefined
  const key = bytes.subarray(45, 78)
  // bitcoinj keeps a compressed key undecoded until it is used; every method uses it, so a bad one always fails.
  if (key[0] !== 0x02 && key[0] !== 0x03) return undefined
  let point: Point
  try {
    point = secp256k1.Point.fromBytes(key)
  } catch {
    return undefined
  }
  return { header: header!, depth: bytes[4]!, parentFingerprint: bytes.slice(5, 9), childNumber: bytes.slice(9, 13), chainCode: bytes.slice(13, 45), point }
}

/** `HDKeyDerivation.deriveChildKey` for a public key and a non-hardened child; undefined when derivation fails. */
function deriveChild(parent: ExtendedKey, index: number): ExtendedKey | undefined {
  const parentKey = parent.point.toBytes(true)
  const child = new Uint8Array(4)
  new DataView(child.buffer).setUint32(0, index)
  const i = hmac(sha512, parent.chainCode, concatBytes(parentKey, child))
  const il = bytesToBigInt(i.subarray(0, 32))
  // bitcoinj refuses I_L > n only (`assertLessThanN`); n·G and 0·G are the point at infinity.
  if (il > ORDER) return undefined
  const tweak = il === ORDER || il === 0n ? secp256k1.Point.ZERO : secp256k1.Point.BASE.multiply(il)
  const point = tweak.add(parent.point)
  if (point.is0()) return undefined
  return {
    header: parent.header,
    depth: (parent.depth + 1) & 0xff,
    parentFingerprint: hash160(parentKey).slice(0, 4),
    childNumber: child,
    chainCode: i.slice(32, 64),
    point,
  }
}

function deriveExtendedPublicKey([xpub, path]: NativeAbiValue[]): Answer {
  const key = readExtendedKey(xpub as string)
  const levels = key === undefined ? undefined : pathLevels(path as string)
  if (key === undefined || levels === undefined) return undefined
  let derived: ExtendedKey | undefined = key
  for (const level of levels) {
    derived = deriveChild(derived, level)
    if (derived === undefined) return undefined
  }
  const header = new Uint8Array(4)
  new DataView(header.buffer).setUint32(0, derived.header)
  return base58Check(concatBytes(header, Uint8Array.of(derived.depth), derived.parentFingerprint, derived.childNumber, derived.chainCode, derived.point.toBytes(true)))
}

function toBase58Check([hash, version]: NativeAbiValue[]): Answer {
  const h = hash as Uint8Array
  const v = version as bigint
  if (h.length !== 20 || !isInt(v) || v < 0n || v > 255n) return undefined
  return base58Check(concatBytes(Uint8Array.of(Number(v)), h))
}

/** BouncyCastle's `ECCurve.decodePoint` for 33 or 65 bytes (compressed, uncompressed, hybrid), compressed again. */
function compressedKey(key: Uint8Array): Uint8Array | undefined {
  try {
    if (key.length === 33 && (key[0] === 0x02 || key[0] === 0x03)) return secp256k1.Point.fromBytes(key).toBytes(true)
    if (key.length !== 65 || ![0x04, 0x06, 0x07].includes(key[0]!)) return undefined
    const x = bytesToBigInt(key.subarray(1, 33))
    const y = bytesToBigInt(key.subarray(33, 65))
    // Hybrid: the type says the parity of y.
    if (key[0] !== 0x04 && (y & 1n) !== BigInt(key[0]! - 0x06)) return undefined
    if (x >= PRIME || y >= PRIME) return undefined
    const p = secp256k1.Point.fromAffine({ x, y })
    p.assertValidity()
    return p.toBytes(true)
  } catch {
    return undefined
  }
}

function getMultisigScriptHash([threshold, keys]: NativeAbiValue[]): Answer {
  const m = threshold as bigint
  const given = keys as Uint8Array[]
  if (!isInt(m) || m <= 0n || given.length < MIN_KEYS || given.length < m || given.length > MAX_KEYS) return undefined
  const compressed: Uint8Array[] = []
  for (const k of given) {
    const c = compressedKey(k)
    if (c === undefined) return undefined
    compressed.push(c)
  }
  compressed.sort((a, b) => Buffer.compare(a, b))
  const push = (k: Uint8Array): Uint8Array => concatBytes(Uint8Array.of(k.length), k)
  return hash160(concatBytes(Uint8Array.of(0x50 + Number(m)), ...compressed.map(push), Uint8Array.of(0x50 + compressed.length, 0xae)))
}

/** `HDWalletUtils.getMethods`, in RSKj's order. */
const METHODS: readonly Method[] = [
  { selector: abiSelector('toBase58Check(bytes,int256)'), args: ['bytes', 'int256'], price: () => 13_000n, answer: toBase58Check },
  { selector: abiSelector('deriveExtendedPublicKey(string,string)'), args: ['string', 'string'], price: () => 107_000n, answer: deriveExtendedPublicKey },
  {
    selector: abiSelector('extractPublicKeyFromExtendedPublicKey(string)'),
    args: ['string'],
    price: () => 11_300n,
    answer: ([xpub]) => readExtendedKey(xpub as string)?.point.toBytes(true),
  },
  {
    selector: abiSelector('getMultisigScriptHash(int256,bytes[])'),
    args: ['int256', 'bytes[]'],
    // 20,000 for up to two keys, then 700 per key (`GetMultisigScriptHash.getGas`).
    price: ([, keys]) => 20_000n + 700n * BigInt(Math.max(0, (keys as Uint8Array[]).length - MIN_KEYS)),
    answer: getMultisigScriptHash,
  },
]

/** The method and its arguments (nativeAbi.ts `parseNativeCall`). */
const parse = (data: Uint8Array) => parseNativeCall(data, METHODS, (m) => m.args)

const price = (data: Uint8Array): bigint => {
  const parsed = parse(data)
  return parsed === undefined ? 0n : parsed.method.price(parsed.args)
}

function run(input: PrecompileInput): ExecResult {
  const parsed = parse(input.data)
  if (parsed === undefined) return failed(0n)
  const gas = parsed.method.price(parsed.args)
  const answer = parsed.method.answer(parsed.args)
  return answer === undefined ? failed(gas) : { returnValue: nativeAbiBytes(answer), executionGasUsed: gas }
}

/** The HDWalletUtils precompile, for `createEVM({ customPrecompiles })`. */
export function hdWalletUtilsPrecompile(): CustomPrecompile[] {
  return [{ address: HD_WALLET_UTILS, function: rskjPrecompile(run, { price }) }]
}
