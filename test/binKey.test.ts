/**
 * binKey (src/node/binKey.ts): a Map key with one character per byte. Node's latin1 decoder makes it; the expected
 * string is built independently, character by character with String.fromCharCode.
 */
import { describe, expect, it } from 'vitest'
import { binKey } from '../src/node/binKey.js'
import { rng } from './rng.js'

const expected = (bytes: Uint8Array): string => Array.from(bytes, (b) => String.fromCharCode(b)).join('')

describe('binKey', () => {
  it('is one character per byte, for every byte value, any length and views into larger buffers', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i)
    expect(binKey(all)).toBe(expected(all))
    expect(binKey(new Uint8Array())).toBe('')
    const r = rng(5)
    for (let i = 0; i < 300; i++) {
      const backing = Uint8Array.from({ length: 300 }, () => Math.floor(r() * 256))
      const start = Math.floor(r() * 100)
      const view = backing.subarray(start, start + Math.floor(r() * 200))
      expect(binKey(view)).toBe(expected(view))
      expect(binKey(view).length).toBe(view.length)
    }
  })

  it('gives equal keys exactly for equal bytes', () => {
    const a = Uint8Array.of(0, 1, 0x80, 0xff)
    expect(binKey(a)).toBe(binKey(Uint8Array.of(0, 1, 0x80, 0xff)))
    expect(binKey(a)).not.toBe(binKey(Uint8Array.of(0, 1, 0x80, 0xfe)))
    expect(binKey(Uint8Array.of(0))).not.toBe(binKey(Uint8Array.of(0, 0)))
  })
})
