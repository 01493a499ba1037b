// Bytes allocated per operation, by allocating function: V8's sampling heap profiler over one batch of a workload,
// counting the objects the garbage collector already took (not only what is still alive at the end). Unlike time,
// allocation hardly moves with the shared machine's load, so it shows small changes that timing runs cannot.
//
//   node bench/alloc.mjs                                  transfers: the second batch of 500, warm
//   node bench/alloc.mjs --workload fixtures --top 30 --repo ../other-build
//   node bench/alloc.mjs --fresh                          the first batch of a fresh process instead
//   node bench/alloc.mjs --out alloc.heapprofile          also keeps the profile (Chrome DevTools, Memory tab)
//   node --expose-gc bench/alloc.mjs --live               what is still alive after the batch and a full GC: what an
//                                                         operation keeps, which the young-generation collector copies
//
// The workloads are bench/lib/workloads.mjs's, on rsksim in process (dist/ of --repo, default this repository).
import path from 'node:path'
import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { Session } from 'node:inspector/promises'
import { benchDir } from './lib/targets.mjs'
import { originalPlace } from './lib/sourceMaps.mjs'

const { values } = parseArgs({
  options: {
    repo: { type: 'string', default: path.join(benchDir, '..') },
    workload: { type: 'string', default: 'transfers' },
    top: { type: 'string', default: '20' },
    interval: { type: 'string', default: '256' },
    out: { type: 'string' },
    live: { type: 'boolean', default: false },
    fresh: { type: 'boolean', default: false },
  },
})
const repoDir = path.resolve(values.repo)
const lib = path.join(repoDir, 'bench/lib')
const { startTarget } = await import(path.join(lib, 'targets.mjs'))
const w = await import(path.join(lib, 'workloads.mjs'))
const fn = w[values.workload]
if (typeof fn !== 'function') throw new Error(`unknown workload ${values.workload}`)

const t = await startTarget('rsksim')
const ctx = await w.prepare(t)
await w.deployContracts(ctx)
const c = w.counts({ target: 'rsksim' })
c.mineBlocks = 3_000 // as bench/ab.mjs: 10,000 empty blocks twice would take long for a sampled run
const operations = w.operationsOf(values.workload, c)
if (operations === undefined || ['keccak', 'arith', 'storage'].includes(values.workload)) throw new Error('alloc.mjs counts operations of transfers, sends, fixtures, calls and mine')
if (values.live && typeof globalThis.gc !== 'function') throw new Error('--live needs node --expose-gc')

const session = new Session()
session.connect()
await session.post('HeapProfiler.enable')
// The first batch warms the code up; the second, inside the workload's own clock (signing excluded), is sampled
// (with --fresh the first: a fresh process's code, before V8 has optimized it, allocates more).
const sampled = values.fresh ? 1 : 2
let batch = 0
let profile
ctx.clock.start = async () => {
  if (batch === sampled) {
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: Number(values.interval),
      includeObjectsCollectedByMajorGC: !values.live,
      includeObjectsCollectedByMinorGC: !values.live,
    })
  }
}
ctx.clock.stop = async () => {
  if (batch !== sampled) return
  if (values.live) globalThis.gc()
  profile = (await session.post('HeapProfiler.stopSampling')).profile
}
for (batch = 1; batch <= sampled; batch++) await fn(ctx, c)
await t.close()

const bySelf = new Map()
let total = 0
const walk = (node) => {
  const f = node.callFrame
  const at = f.url ? originalPlace(f, repoDir) : undefined
  const name = `${f.functionName || '(anonymous)'} ${at ? `${at.url.split('/').slice(-2).join('/')}:${at.line + 1}` : ''}`
  total += node.selfSize
  if (node.selfSize > 0) bySelf.set(name, (bySelf.get(name) ?? 0) + node.selfSize)
  for (const child of node.children) walk(child)
}
walk(profile.head)
console.log(`${values.workload}: ${(total / 1024 / operations).toFixed(1)} KB ${values.live ? 'kept' : 'allocated'} per operation (${operations} operations, sampled every ${values.interval} B)\n`)
console.log('KB/op  function')
for (const [name, bytes] of [...bySelf].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) {
  console.log(`${(bytes / 1024 / operations).toFixed(2).padStart(6)}  ${name}`)
}
if (values.out) writeFileSync(values.out, JSON.stringify(profile))
process.exit(0)
