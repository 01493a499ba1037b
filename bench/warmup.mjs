#!/usr/bin/env node
// Warm-up of a fresh process: rsksim in process (dist/), or another in-process target, one workload of
// bench/lib/workloads.mjs run again and again in batches, printing each batch's wall time and the process's CPU time
// per operation. The first batches pay V8's compilation of the code they reach (on the second core too, so CPU
// exceeds wall); later ones show the warm speed.
//
//   node --expose-gc bench/warmup.mjs                        calls, 12 batches of 2,000
//   node --expose-gc bench/warmup.mjs --workload transfers --per 200 --batches 8
//   node --expose-gc bench/warmup.mjs --target hardhat --workload fixtures --per 100 --batches 10
import path from 'node:path'
import { parseArgs } from 'node:util'
import { benchDir, startTarget } from './lib/targets.mjs'

const { values } = parseArgs({
  options: {
    target: { type: 'string', default: 'rsksim' },
    workload: { type: 'string', default: 'calls' },
    per: { type: 'string', default: '2000' },
    batches: { type: 'string', default: '12' },
  },
})
const w = await import(path.join(benchDir, 'lib/workloads.mjs'))
if (!['calls', 'transfers', 'sends', 'fixtures'].includes(values.workload)) throw new Error('warmup.mjs runs calls, transfers, sends or fixtures')
if (!['rsksim', 'hardhat', 'ganache'].includes(values.target)) throw new Error('warmup.mjs runs an in-process target: rsksim, hardhat or ganache')
const per = Number(values.per)
const t = await startTarget(values.target)
const ctx = await w.prepare(t)
await w.deployContracts(ctx)
const c = Object.assign(w.counts({ target: values.target }), { calls: per, transfers: per, fixtures: per })
const rows = []
for (let b = 0; b < Number(values.batches); b++) {
  let t0 = 0
  let cpu0
  // The workload's own clock: signing and encoding before it are not timed.
  ctx.clock.start = async () => {
    t0 = performance.now()
    cpu0 = process.cpuUsage()
  }
  ctx.clock.stop = async () => {
    const cpu = process.cpuUsage(cpu0)
    rows.push(`${(((performance.now() - t0) * 1000) / per).toFixed(0)}/${((cpu.user + cpu.system) / per).toFixed(0)}`)
  }
  await w[values.workload](ctx, c)
}
console.log(`${values.target} ${values.workload}, batches of ${per}, µs per operation (wall/CPU of the process): ${rows.join(' ')}`)
await t.close()
process.exit(0)
