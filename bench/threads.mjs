#!/usr/bin/env node
// Where a fresh process's CPU goes, thread by thread, over the transfers workload's timed section (Linux only).
// For each thread of this process: the CPU time it ran and the time it waited, runnable, for a core
// (/proc/self/task/<tid>/schedstat, fields 1 and 2). The main thread runs the simulator's JavaScript (for Hardhat,
// the JavaScript side of EDR's provider); the others are V8's platform workers (its optimizing compiler, parts of
// the GC), libuv's pool, and a native library's own threads (EDR's).
//
//   node bench/threads.mjs                         rsksim, deploy + 500 transfers in a fresh process
//   node bench/threads.mjs --target hardhat --transfers 500
//   node bench/threads.mjs --rounds 4              both rsksim and hardhat, alternating, each in its own process
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: {
    target: { type: 'string' },
    transfers: { type: 'string', default: '500' },
    rounds: { type: 'string' },
  },
})

if (values.rounds !== undefined) {
  // Alternate the two targets, each run in a process of its own, and print one line per run.
  for (let r = 0; r < Number(values.rounds); r++) {
    for (const target of r % 2 === 0 ? ['rsksim', 'hardhat'] : ['hardhat', 'rsksim']) {
      const out = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--target', target, '--transfers', values.transfers], { encoding: 'utf8' })
      if (out.status !== 0) throw new Error(`${target}: ${out.stderr}`)
      const summary = out.stdout.split('\n').find((l) => l.startsWith('summary'))
      process.stdout.write(`round ${r + 1} ${target.padEnd(8)} ${summary}\n`)
    }
  }
  process.exit(0)
}

/** CPU run and runnable-wait time of every thread of this process so far, ms. */
function threads() {
  const out = new Map()
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const [run, wait] = readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ').map(Number)
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
      out.set(tid, { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), run: run / 1e6, wait: wait / 1e6 })
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out
}

const { startTarget } = await import('./lib/targets.mjs')
const w = await import('./lib/workloads.mjs')
const target = values.target ?? 'rsksim'
const t = await startTarget(target)
const ctx = await w.prepare(t)
await w.deployContracts(ctx)
const c = w.counts({ target })
c.transfers = Number(values.transfers)
let before
let t0
let report
ctx.clock.start = async () => {
  before = threads()
  t0 = performance.now()
}
ctx.clock.stop = async () => {
  const wall = performance.now() - t0
  const after = threads()
  const main = String(process.pid)
  const rows = [...after].map(([tid, x]) => {
    const b = before.get(tid) ?? { run: 0, wait: 0 }
    return { tid, name: x.name, run: x.run - b.run, wait: x.wait - b.wait, main: tid === main }
  })
  report = { wall, rows }
}
const r = await w.transfers(ctx, c)
await t.close()

const fmt = (x) => x.toFixed(0).padStart(6)
const busy = report.rows.filter((x) => x.run >= 1)
for (const x of busy) process.stdout.write(`${x.main ? 'main ' : 'other'} ${x.tid.padStart(7)} ${x.name.padEnd(16)} run ${fmt(x.run)} ms  waited ${fmt(x.wait)} ms\n`)
const main = busy.find((x) => x.main) ?? { run: 0, wait: 0 }
const others = busy.filter((x) => !x.main)
const otherRun = others.reduce((s, x) => s + x.run, 0)
process.stdout.write(
  `summary ${fmt(r.value)} tx/s  wall ${fmt(report.wall)} ms  main thread ran ${fmt(main.run)} ms, waited ${fmt(main.wait)} ms  ` +
    `${others.length} other threads ran ${fmt(otherRun)} ms\n`,
)
