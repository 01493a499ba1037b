// One build in a fresh process, for bench/instructions.mjs (under callgrind) and bench/tiers.mjs (under node --prof):
// deploys the fixtures and runs one workload `batches` times with the build's own bench/lib workloads. The last
// batch's timed section (its own clock: signing and setup excluded) is marked twice:
// - os.loadavg() and os.freemem(), whose native functions (libuv's uv_loadavg and uv_get_free_memory, exported by
//   node) are callgrind's triggers: --zero-before=uv_loadavg --dump-before=uv_get_free_memory, so the dump holds the
//   instructions of that section alone;
// - two functions named TIERS_START and TIERS_STOP, made from source at that moment, whose compilation V8's --prof log
//   records with a timestamp; made outside the callgrind triggers, so callgrind does not count them.
//
//   node bench/lib/instructions-worker.mjs <repo> <workload> <operations> <batches>
import os from 'node:os'
import path from 'node:path'

const [repo, workload, per, batches] = process.argv.slice(2)
const lib = path.join(path.resolve(repo), 'bench/lib')
const { startTarget } = await import(path.join(lib, 'targets.mjs'))
const w = await import(path.join(lib, 'workloads.mjs'))
const workloads = { transfers: w.transfers, sends: w.sends, fixtures: w.fixtures, calls: w.calls, mine: w.mine }
if (!workloads[workload]) throw new Error(`unknown workload ${workload} (${Object.keys(workloads).join(', ')})`)

const t = await startTarget('rsksim')
const ctx = await w.prepare(t)
await w.deployContracts(ctx)
const n = Number(per)
// `per` is the number of operations of the timed batch, whatever the workload counts in.
const c = Object.assign(w.counts({ target: 'rsksim' }), { transfers: n, calls: n, fixtures: n, mineBlocks: n })
if (w.operationsOf(workload, c) !== n) throw new Error(`${workload}: expected ${n} operations, the workload counts ${w.operationsOf(workload, c)}`)
const marker = (name) => new Function(`return function ${name}() { return 1 }`)()()
for (let b = 1; b <= Number(batches); b++) {
  const last = b === Number(batches)
  ctx.clock.start = async () => {
    if (!last) return
    marker('TIERS_START')
    os.loadavg()
  }
  ctx.clock.stop = async () => {
    if (!last) return
    os.freemem()
    marker('TIERS_STOP')
  }
  await workloads[workload](ctx, c)
}
await t.close()
process.exit(0)
