/**
 * RSK's secp256k1 point addition (0x01000016) and multiplication (0x01000017) precompiles (RSKIP516; RSKj
 * `co/rsk/pcc/secp256k1/Secp256k1Addition`, `Secp256k1Multiplication`, the operations of
 * `org/ethereum/crypto/signature/Secp256k1ServiceBC`), the secp256k1 twins of alt_bn128's 0x06 and 0x07:
 *
 * - input: 32-byte words, big-endian: x1, y1, x2, y2 for addition (at most 128 bytes read), x, y, scalar for
 *   multiplication (at most 96); missing bytes are zeros. (0, 0) is the point at infinity; any other pair must be
 *   a point of the curve with both coordinates below the field prime, or the call fails.
 * - output: the result's x and y, 64 bytes; the point at infinity is 64 zero bytes. The scalar is any 256-bit
 *   number (a multiple of the group order gives infinity).
 * - price: 150 for addition, 3,000 for multiplication; a failure costs the price, as any RSK precompile's does, and
 *   a call with less gas than the price fails with all of it (precompileCall.ts).
 *
 * The curve arithmetic is @noble/curves' (the library the engine and @noble/hashes' authors keep).
 */
import type { CustomPrecompile, PrecompileFunc } from '@ethereumjs/evm'
import { bytesToBigInt, setLengthLeft, bigIntToBytes } from '@ethereumjs/util'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { failed, rskjPrecompile } from './precompileCall.js'

type Point = InstanceType<typeof secp256k1.Point>

const ADDITION = '0x0000000000000000000000000000000001000016'
const MULTIPLICATION = '0x0000000000000000000000000000000001000017'
const ORDER = secp256k1.Point.CURVE().n

/** Word `i` of `data` (already padded to its full length). */
const word = (data: Uint8Array, i: number): bigint => bytesToBigInt(data.subarray(32 * i, 32 * i + 32))

/** The point (x, y), infinity for (0, 0), undefined when it is not on the curve. */
function pointOf(x: bigint, y: bigint): Point | undefined {
  if (x === 0n && y === 0n) return secp256k1.Point.ZERO
  try {
    const p = secp256k1.Point.fromAffine({ x, y })
    p.assertValidity()
    return p
  } catch {
    return undefined
  }
}

function encode(p: Point): Uint8Array {
  const out = new Uint8Array(64)
  if (p.is0()) return out
  const { x, y } = p.toAffine()
  out.set(setLengthLeft(bigIntToBytes(x), 32), 0)
  out.set(setLengthLeft(bigIntToBytes(y), 32), 32)
  return out
}

/**
 * A precompile priced `price`, reading at most `maxInput` bytes (missing ones are zeros: RSKj `ByteUtil.parseWord`),
 * computing `op` (undefined: invalid input, a failure at the price: precompileCall.ts).
 */
function precompile(price: bigint, maxInput: number, op: (data: Uint8Array) => Point | undefined): PrecompileFunc {
  return rskjPrecompile(
    (input) => {
      const data = new Uint8Array(maxInput)
      data.set(input.data)
      const result = op(data)
      return result === undefined ? failed(price) : { returnValue: encode(result), executionGasUsed: price }
    },
    { maxInput, price: () => price },
  )
}

const add = precompile(150n, 128, (data) => {
  const a = pointOf(word(data, 0), word(data, 1))
  const b = a === undefined ? undefined : pointOf(word(data, 2), word(data, 3))
  return a === undefined || b === undefined ? undefined : a.add(b)
})

const multiply = precompile(3_000n, 96, (data) => {
  const p = pointOf(word(data, 0), word(data, 1))
  return p?.multiplyUnsafe(word(data, 2) % ORDER)
})

/** The two precompiles, for `createEVM({ customPrecompiles })`. */
export function secp256k1Precompiles(): CustomPrecompile[] {
  return [
    { address: ADDITION, function: add },
    { address: MULTIPLICATION, function: multiply },
  ]
}
