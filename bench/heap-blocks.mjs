#!/usr/bin/env node
// Heap per automined transfer block (issue 13's memory target): rsksim in process (dist/), a Token deployed, W
// warm-up transfers (4,600 by default: past the 4,096 newest blocks, kept as records, so that the N blocks measured
// are the packed ones), then N more, each in its own block; the JS heap after a full GC before and after, divided by
// N, and the growth of ArrayBuffer memory outside the heap (where packed blocks live) likewise.
// `--holders new` sends each transfer to a new holder (the state grows by a storage slot per block), `same` to one.
//
//   node --expose-gc bench/heap-blocks.mjs [--blocks 3000] [--warmup 4600] [--state-history 128] [--holders same|new] [--snapshots dir]
//
// `--snapshots dir` also writes a V8 heap snapshot before and after (open them in Chrome DevTools' Memory tab, or
// compare them by constructor to see what a block keeps).
import path from 'node:path'
import { writeHeapSnapshot } from 'node:v8'
import { parseArgs } from 'node:util'
import { repoDir } from './lib/targets.mjs'
import { deployToken } from './lib/token.mjs'

const { values } = parseArgs({
  options: { blocks: { type: 'string', default: '3000' }, warmup: { type: 'string', default: '4600' }, 'state-history': { type: 'string' }, holders: { type: 'string', default: 'same' }, snapshots: { type: 'string' } },
})
if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc')
const { createProvider } = await import(path.join(repoDir, 'dist/index.js'))
const stateHistory = values['state-history'] === undefined ? undefined : Number(values['state-history'])
const provider = await createProvider({ accountTxRateLimit: false, ...(stateHistory !== undefined ? { stateHistory } : {}) })
const { rq, transfer } = await deployToken(provider)
const holder = (i) => (values.holders === 'new' ? '0x' + (0x1000 + i).toString(16).padStart(40, '0') : '0x' + '12'.repeat(20))

async function transfers(from, n) {
  const raws = []
  for (let i = 0; i < n; i++) raws.push(await transfer(holder(from + i)))
  for (const raw of raws) {
    const hash = await rq('eth_sendRawTransaction', [raw])
    if ((await rq('eth_getTransactionReceipt', [hash])).status !== '0x1') throw new Error('transfer failed')
  }
}
/** The JS heap and the ArrayBuffers' memory outside it (a buffer's bytes past V8's on-heap limit live there). */
function heapAfterGc() {
  globalThis.gc()
  globalThis.gc()
  const { heapUsed, arrayBuffers } = process.memoryUsage()
  return { heapUsed, arrayBuffers }
}

const blocks = Number(values.blocks)
await transfers(0, Number(values.warmup))
const before = heapAfterGc()
if (values.snapshots) writeHeapSnapshot(path.join(values.snapshots, 'before.heapsnapshot'))
await transfers(Number(values.warmup), blocks)
const after = heapAfterGc()
if (values.snapshots) writeHeapSnapshot(path.join(values.snapshots, 'after.heapsnapshot'))
console.log(
  JSON.stringify({
    blocks,
    warmup: Number(values.warmup),
    stateHistory: stateHistory ?? 'all',
    holders: values.holders,
    heapBefore: before.heapUsed,
    heapAfter: after.heapUsed,
    bytesPerBlock: Math.round((after.heapUsed - before.heapUsed) / blocks),
    arrayBufferBytesPerBlock: Math.round((after.arrayBuffers - before.arrayBuffers) / blocks),
  }),
)
await provider.disconnect()
