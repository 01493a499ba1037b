/** QUANTITY and DATA encodings (src/rpc/format/hex.ts) against ethers' own (`toQuantity`, `hexlify`). */
import { describe, expect, it } from 'vitest'
import { hexlify, toQuantity } from 'ethers'
import { data, jsonHex, quantity } from '../src/rpc/format/hex.js'

describe('quantity', () => {
  it('matches ethers toQuantity for every small number, across the table edge, and for bigints', () => {
    for (let n = 0; n < 1100; n++) {
      expect(quantity(n)).toBe(toQuantity(n))
      expect(quantity(BigInt(n))).toBe(toQuantity(n))
    }
    for (const n of [2 ** 31 - 1, 2 ** 31, 2 ** 32, Number.MAX_SAFE_INTEGER]) expect(quantity(n)).toBe(toQuantity(n))
    for (const n of [2n ** 64n, 2n ** 256n - 1n]) expect(quantity(n)).toBe(toQuantity(n))
  })
})

describe('data', () => {
  it('matches ethers hexlify; jsonHex writes empty as 0x00', () => {
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 151 + 7) & 255)
    for (const len of [0, 1, 20, 32, 300]) expect(data(bytes.subarray(0, len))).toBe(hexlify(bytes.subarray(0, len)))
    expect(jsonHex(new Uint8Array(0))).toBe('0x00')
  })
})
