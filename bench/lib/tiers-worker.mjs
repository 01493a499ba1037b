// One fresh rsksim process for bench/tiers.mjs, run under `node --prof`: deploys the fixtures, then runs one workload
// `batches` times with its own bench/lib workloads. Around the last batch's timed section it creates and calls two
// functions named TIERS_START and TIERS_STOP; V8's log records when each was compiled, and bench/tiers.mjs keeps the
// samples between the two.
//
//   node --prof bench/lib/tiers-worker.mjs <repo> <workload> <operations> <batches>
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
const c = Object.assign(w.counts({ target: 'rsksim' }), { transfers: n, calls: n, fixtures: n, mineBlocks: n })
// A function made from source at the marker's moment: its compilation is logged with a timestamp.
const marker = (name) => new Function(`return function ${name}() { return 1 }`)()()
for (let b = 1; b <= Number(batches); b++) {
  const last = b === Number(batches)
  ctx.clock.start = async () => {
    if (last) marker('TIERS_START')
  }
  ctx.clock.stop = async () => {
    if (last) marker('TIERS_STOP')
  }
  await workloads[workload](ctx, c)
}
await t.close()
process.exit(0)
