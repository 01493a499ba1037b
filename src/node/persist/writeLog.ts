/**
 * The acknowledgement log of an on-disk database: each batch is appended here with one synchronous write before
 * the request that made it is answered, then applied to LevelDB in the background.
 *
 * Why: a LevelDB batch goes through libuv's thread pool, and waiting for it took 0.2 ms at the median and over
 * 2 ms for one batch in ten here (docs/performance.md), on every transaction. A process killed with SIGKILL keeps
 * what its `write` calls handed to the kernel, so a batch is safe once `writeSync` returns (power loss is another
 * matter, as with LevelDB's own unsynced log). On open, records not yet in LevelDB (sequence numbers above the
 * one in its head record) are applied before anything reads it; the log is emptied when LevelDB holds it all.
 *
 * Record: "RSKL" | payload length (u32) | CRC-32 of the payload (u32) | payload. Payload: sequence number (u64),
 * op count (u32), then per op: kind (u8: 1 put, 2 del), key length (u32), key, [value length (u32), value]. A record
 * cut short or failing its checksum ends the log: it was being written when the process died, so never answered.
 */
import { closeSync, openSync, readFileSync, existsSync, writeSync, ftruncateSync, fstatSync } from 'node:fs'
import { nodeZlib } from '../builtins.js'
import { lazily } from '../lazily.js'
import type { BatchOp } from './database.js'

const MAGIC = 0x52534b4c // "RSKL"

/** zlib.crc32 (Node ≥ 20.15), else the same CRC-32 (IEEE) computed here; chosen at the first record. */
const crc32Of = lazily(chooseCrc32)
const crc32 = (data: Uint8Array): number => crc32Of()(data)

function chooseCrc32(): (data: Uint8Array) => number {
  const zlib = nodeZlib()
  return typeof (zlib as { crc32?: unknown }).crc32 === 'function'
    ? (zlib as unknown as { crc32: (d: Uint8Array) => number }).crc32
    : (() => {
        const table = Array.from({ length: 256 }, (_, n) => {
          let c = n
          for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
          return c >>> 0
        })
        return (data: Uint8Array) => {
          let c = 0xffffffff
          for (let i = 0; i < data.length; i++) c = table[(c ^ data[i]!) & 0xff]! ^ (c >>> 8)
          return (c ^ 0xffffffff) >>> 0
        }
      })()
}

export interface LogRecord {
  seq: bigint
  ops: BatchOp[]
}

export function encodeRecord(seq: bigint, ops: BatchOp[]): Uint8Array {
  let size = 12
  for (const op of ops) size += 5 + op.key.length + (op.type === 'put' ? 4 + op.value.length : 0)
  const out = new Uint8Array(12 + size)
  const view = new DataView(out.buffer)
  view.setUint32(0, MAGIC)
  view.setUint32(4, size)
  let o = 12
  view.setBigUint64(o, seq)
  view.setUint32(o + 8, ops.length)
  o += 12
  for (const op of ops) {
    out[o] = op.type === 'put' ? 1 : 2
    view.setUint32(o + 1, op.key.length)
    out.set(op.key, o + 5)
    o += 5 + op.key.length
    if (op.type === 'put') {
      view.setUint32(o, op.value.length)
      out.set(op.value, o + 4)
      o += 4 + op.value.length
    }
  }
  view.setUint32(8, crc32(out.subarray(12)))
  return out
}

/** The whole records of a log file, in order; stops at the first torn or damaged one. */
export function decodeRecords(bytes: Uint8Array): LogRecord[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const out: LogRecord[] = []
  let o = 0
  while (o + 12 <= bytes.length) {
    if (view.getUint32(o) !== MAGIC) break
    const size = view.getUint32(o + 4)
    if (size < 12 || o + 12 + size > bytes.length) break
    const payload = bytes.subarray(o + 12, o + 12 + size)
    if (crc32(payload) !== view.getUint32(o + 8)) break
    const seq = view.getBigUint64(o + 12)
    const count = view.getUint32(o + 20)
    const ops: BatchOp[] = []
    let p = o + 24
    for (let i = 0; i < count; i++) {
      const kind = bytes[p]
      const keyLength = view.getUint32(p + 1)
      const key = new Uint8Array(bytes.subarray(p + 5, p + 5 + keyLength))
      p += 5 + keyLength
      if (kind === 1) {
        const valueLength = view.getUint32(p)
        ops.push({ type: 'put', key, value: new Uint8Array(bytes.subarray(p + 4, p + 4 + valueLength)) })
        p += 4 + valueLength
      } else ops.push({ type: 'del', key })
    }
    out.push({ seq, ops })
    o += 12 + size
  }
  return out
}

export class WriteLog {
  private fd: number

  constructor(readonly file: string) {
    this.fd = openSync(file, 'a')
  }

  /** The records a previous process left (empty when there is no log). */
  static read(file: string): LogRecord[] {
    return existsSync(file) ? decodeRecords(readFileSync(file)) : []
  }

  /** Appends one batch; returns once the kernel has it. */
  append(seq: bigint, ops: BatchOp[]): void {
    const record = encodeRecord(seq, ops)
    let written = 0
    while (written < record.length) written += writeSync(this.fd, record, written)
  }

  get size(): number {
    return fstatSync(this.fd).size
  }

  /** Empties the log: call only when LevelDB holds every record in it. */
  clear(): void {
    ftruncateSync(this.fd, 0)
  }

  close(): void {
    closeSync(this.fd)
  }
}
