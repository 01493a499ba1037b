/**
 * The acknowledgement log of an on-disk database (src/node/persist/writeLog.ts): records read back whole and in
 * order; a record cut short at any byte, or with any byte changed, ends the log there (it was never answered).
 */
import { describe, expect, it } from 'vitest'
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { decodeRecords, encodeRecord, WriteLog } from '../src/node/persist/writeLog.js'
import { dbBatch, dbGet, logFile, openDatabase, META_KEY, type BatchOp } from '../src/node/persist/database.js'

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

  // A clean-clone CI run once lost 7 acknowledged receipts in test/database_crash.test.ts: a kill tore the first
  // record of an empty log; the next process, finding no whole record, left the torn bytes and appended after them,
  // and the process after that could read none of its records.
  it('a log holding only a torn record is emptied on open, so the records appended after it are replayed', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rsksim-log-'))
    const meta = { format: 'rsksim-db', version: 1, chainId: '33', networkId: '33', genesis: '0x' + '00'.repeat(32) }
    const key = Uint8Array.of(0x78, 1)
    try {
      const first = await openDatabase({ path: dir })
      await dbBatch(first, [{ type: 'put', key: META_KEY, value: new TextEncoder().encode(JSON.stringify(meta)) }])
      await first.level.close()
      const record = encodeRecord(1n, [op(7, [7, 7, 7])])
      writeFileSync(logFile(dir), record.subarray(0, record.length - 3))
      const second = await openDatabase({ path: dir })
      expect(statSync(logFile(dir)).size).toBe(0)
      // This process acknowledges a batch (in the log) and is killed before LevelDB has it.
      const log = new WriteLog(logFile(dir))
      log.append(2n, [{ type: 'put', key, value: Uint8Array.of(42) }])
      log.close()
      await second.level.close()
      const third = await openDatabase({ path: dir })
      expect([...((await dbGet(third, key)) ?? [])]).toEqual([42])
      await third.level.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
