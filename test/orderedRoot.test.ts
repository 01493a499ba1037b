import { describe, expect, it } from 'vitest'
import { bytesToHex } from '@ethereumjs/util'
import { mptOrderedTrieRoot, orderedTrieRoot } from '../src/node/chain/tries.js'
import { rng } from './rng.js'

describe('ordered trie root without a trie', () => {
  it('equals @ethereumjs/mpt on 400 random lists (short values that embed, long ones that hash, up to 300 entries)', async () => {
    const next = rng(13)
    for (let round = 0; round < 400; round++) {
      const n = round < 40 ? round : Math.floor(next() * 300)
      const values: Uint8Array[] = []
      for (let i = 0; i < n; i++) {
        const len = 1 + (next() < 0.4 ? Math.floor(next() * 8) : Math.floor(next() * 200)) // @ethereumjs/mpt treats an empty value as a delete; real transactions and receipts are never empty
        values.push(Uint8Array.from({ length: len }, () => Math.floor(next() * 256)))
      }
      expect(bytesToHex(orderedTrieRoot(values)), `round ${round}, ${n} values`).toBe(bytesToHex(await mptOrderedTrieRoot(values)))
    }
  })
})
