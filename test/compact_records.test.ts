/** Helpers that keep mined records compact must not change any value (src/node/chain/flatHex.ts, packBytes.ts, bloom.ts). */
import { describe, expect, it } from 'vitest'
import { bytesToHex } from '@ethereumjs/util'
import { Bloom } from '@ethereumjs/vm'
import { flatHex } from '../src/node/chain/flatHex.js'
import { packBytes } from '../src/node/chain/packBytes.js'
import { addToBloom, bloomBits, bloomHas } from '../src/node/chain/bloom.js'

const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 37 + seed * 11) & 255)

describe('compact record helpers', () => {
  it('flatHex equals bytesToHex', () => {
    for (const n of [0, 1, 20, 32, 256]) expect(flatHex(bytes(n, n))).toBe(bytesToHex(bytes(n, n)))
  })

  it('packBytes returns views with the same bytes, in order, on one buffer (empty parts: one shared empty array)', () => {
    const parts = [bytes(32, 1), new Uint8Array(), bytes(12, 2), bytes(80, 3)]
    const views = packBytes(parts)
    expect(views).toEqual(parts)
    expect(new Set([views[0], views[2], views[3]].map((v) => v!.buffer)).size).toBe(1)
    // An empty part costs no view of its own: every pack answers the same empty array for it.
    expect(views[1]).toBe(packBytes([new Uint8Array(), bytes(4, 7)])[0])
    expect(views[1]!.length).toBe(0)
  })

  it('bloom bits are the engine bloom bits', () => {
    const items = [bytes(20, 4), bytes(32, 5), bytes(32, 6)]
    const ours = new Uint8Array(256)
    const engine = new Bloom()
    for (const item of items) {
      addToBloom(ours, item)
      engine.add(item)
    }
    expect(ours).toEqual(engine.bitvector)
    for (const item of items) expect(bloomHas(ours, bloomBits(item))).toBe(true)
    expect(bloomHas(new Uint8Array(256), bloomBits(items[0]!))).toBe(false)
  })
})
