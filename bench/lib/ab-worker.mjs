// One build, one process, for bench/ab.mjs: deploys the fixtures, runs each workload `--batches` times with the
// build's own bench/lib workloads, and prints `AB {workload: {value, cpuUs, mainUs}}` for the last batch: what the
// workload reports (a rate, or for keccak/arith/storage the median time of a call in ms), and the CPU time per operation of its timed section (the process, and its main thread).
import path from 'node:path'
import { readFileSync, writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: { repo: { type: 'string' }, workloads: { type: 'string' }, batches: { type: 'string', default: '1' }, transfers: { type: 'string' }, profile: { type: 'string' } },
})
const lib = path.join(values.repo, 'bench/lib')
const { startTarget } = await import(path.join(lib, 'targets.mjs'))
const w = await import(path.join(lib, 'workloads.mjs'))

/** CPU time of this process's main thread so far, in µs (10 ms ticks). */
function mainThreadUs() {
  const stat = readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, 'utf8')
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(f[11]) + Number(f[12])) * 10_000
}

const t = await startTarget('rsksim')
const ctx = await w.prepare(t)
await w.deployContracts(ctx)
const c = w.counts({ target: 'rsksim' })
c.mineBlocks = 3_000
if (values.transfers) c.transfers = Number(values.transfers)
const workloads = { transfers: w.transfers, sends: w.sends, fixtures: w.fixtures, mine: w.mine, calls: w.calls, keccak: w.keccak, arith: w.arith, storage: w.storage }

let session
if (values.profile) {
  const { Session } = await import('node:inspector/promises')
  session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.setSamplingInterval', { interval: 100 })
}

const out = {}
const ids = values.workloads.split(',')
for (const id of ids) {
  if (!workloads[id]) throw new Error(`unknown workload ${id} (${Object.keys(workloads).join(', ')})`)
  for (let b = 1; b <= Number(values.batches); b++) {
    const last = b === Number(values.batches)
    const profiled = last && session !== undefined && id === ids.at(-1)
    // The timed section is the workload's own clock (signing and setup excluded); without one, all of it counts.
    let cpu0, main0, cpu, main
    ctx.clock.start = async () => {
      if (profiled) await session.post('Profiler.start')
      cpu0 = process.cpuUsage()
      main0 = mainThreadUs()
    }
    ctx.clock.stop = async () => {
      cpu = process.cpuUsage(cpu0)
      main = mainThreadUs() - main0
      if (profiled) writeFileSync(values.profile, JSON.stringify((await session.post('Profiler.stop')).profile))
    }
    const outer = process.cpuUsage()
    const outerMain = mainThreadUs()
    let r = await workloads[id](ctx, c)
    if (r.rate) r = r.rate
    cpu ??= process.cpuUsage(outer)
    main ??= mainThreadUs() - outerMain
    const n = w.operationsOf(id, c)
    if (last) out[id] = { value: Math.round(r.value * 10) / 10, cpuUs: Math.round((cpu.user + cpu.system) / n), mainUs: Math.round(main / n) }
  }
}
console.log('AB ' + JSON.stringify(out))
await t.close()
process.exit(0)
