/**
 * The acknowledgement log of an on-disk database (src/node/persist/writeLog.ts): records read back whole and in
 * order; a record cut short at any byte, or with any byte changed, ends the log there (it was never answered).
 */
import { describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { decodeRecords, encodeRecord, WriteLog } from '../src/node/persist/writeLog.js'
import type { BatchOp } from '../src/node/persist/database.js'

const op = (k: number, v?: number[]): BatchOp => (v === undefined ? { type: 'del', key: Uint8Array.of(k) } : { type: 'put', key: Uint8Array.of(k, k), value: Uint8Array.from(v) })

describe('acknowledgement log', () => {
  const batches: BatchOp[][] = [[op(1, [1, 2, 3]), op(2)], [op(3, Array.from({ length: 300 }, (_, i) => i & 255))], [op(4, []), op(5)]]

  it('reads back what was appended, through a file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rsksim-log-'))
    try {
      const file = path.join(dir, 'log')
      const log = new WriteLog(file)
      batches.forEach((ops, i) => log.append(BigInt(i + 1), ops))
      log.close()
      expect(WriteLog.read(file)).toEqual(batches.map((ops, i) => ({ seq: BigInt(i + 1), ops })))
      const again = new WriteLog(file)
      again.clear()
      again.close()
      expect(readFileSync(file).length).toBe(0)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('a record cut at any byte, or with a byte changed, ends the log', () => {
    const parts = batches.map((ops, i) => encodeRecord(BigInt(i + 1), ops))
    const all = new Uint8Array(parts.reduce((a, p) => a + p.length, 0))
    let o = 0
    const ends: number[] = []
    for (const p of parts) {
      all.set(p, o)
      o += p.length
      ends.push(o)
    }
    for (let cut = 0; cut <= all.length; cut++) {
      const whole = ends.filter((e) => e <= cut).length
      expect(decodeRecords(all.subarray(0, cut)).map((r) => r.seq)).toEqual(Array.from({ length: whole }, (_, i) => BigInt(i + 1)))
    }
    for (let at = ends[0]!; at < ends[1]!; at++) {
      const bad = all.slice()
      bad[at] = bad[at]! ^ 0x40
      expect(decodeRecords(bad).map((r) => r.seq)).toEqual([1n])
    }
  })
})
