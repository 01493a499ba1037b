// A/B of two builds inside one process: each build gets its own provider (its own dist/ and engine), and batches of
// a workload alternate between them (A B, then B A, …), so the machine's load drifts over both alike. Caveat: one
// process has one heap, so each build's garbage is collected during both builds' batches.
//
//   node --expose-gc bench/ab-inproc.mjs --builds ../old-checkout,. --workload sends --batches 16 --per 200
//
// Prints, per build, the wall time per operation of every batch after the first two (warm-up), sorted, and the median.
// Workloads: transfers, sends (--per operations each), fixtures (--per / 5 cycles), calls (--per × 10), mine (--per × 5).
import path from 'node:path'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: {
    builds: { type: 'string' },
    workload: { type: 'string', default: 'sends' },
    batches: { type: 'string', default: '16' },
    per: { type: 'string', default: '200' },
  },
})
if (values.builds === undefined || values.builds.split(',').length !== 2) throw new Error('--builds a,b: two checkouts with dist/ built')
const per = Number(values.per)
const setups = []
for (const build of values.builds.split(',').map((b) => path.resolve(b))) {
  const lib = path.join(build, 'bench/lib')
  const { startTarget } = await import(path.join(lib, 'targets.mjs'))
  const w = await import(path.join(lib, 'workloads.mjs'))
  if (typeof w[values.workload] !== 'function') throw new Error(`unknown workload ${values.workload}`)
  const t = await startTarget('rsksim')
  const ctx = await w.prepare(t)
  await w.deployContracts(ctx)
  const c = w.counts({ target: 'rsksim' })
  Object.assign(c, { transfers: per, fixtures: Math.max(1, Math.round(per / 5)), calls: per * 10, mineBlocks: per * 5 })
  const operations = w.operationsOf(values.workload, c)
  if (operations === undefined || ['keccak', 'arith', 'storage'].includes(values.workload)) throw new Error('ab-inproc.mjs counts operations of transfers, sends, fixtures, calls and mine')
  setups.push({ build, w, ctx, c, operations, times: [] })
}
for (let b = 0; b < Number(values.batches); b++) {
  for (const s of b % 2 === 0 ? setups : [...setups].reverse()) {
    let t0 = 0
    // The workload's own clock: signing and encoding before it are not timed.
    s.ctx.clock.start = async () => {
      t0 = performance.now()
    }
    s.ctx.clock.stop = async () => {
      s.times.push(((performance.now() - t0) * 1000) / s.operations)
    }
    await s.w[values.workload](s.ctx, s.c)
  }
}
for (const s of setups) {
  const warm = s.times.slice(2).sort((a, b) => a - b)
  const median = warm[Math.floor(warm.length / 2)]
  console.log(`${path.relative(process.cwd(), s.build) || '.'}  ${values.workload}  µs/op, wall, warm batches: ${warm.map((x) => x.toFixed(0)).join(' ')}  | median ${median.toFixed(0)}`)
}
process.exit(0)
