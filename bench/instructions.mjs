#!/usr/bin/env node
// Instructions per operation of rsksim builds, counted by valgrind's callgrind: the instructions of a workload's
// timed section (lib/instructions-worker.mjs marks it), divided by its operations. Node runs with V8's
// --single-threaded, so the optimizing compiler and the collector do their work on the main thread, in the same
// order every run, and it is counted too: four runs of one build here spread over 0.33 % (7,555,737-7,581,032 per
// transfer), against 10-30 % for timed A/Bs on this shared machine and up to 8.5 % when V8's threads were left on
// (when optimized code arrived varied). So changes of 1 % show. It does not count what costs time without instructions
// (cache misses, waiting), and a single-threaded V8 is not how users run it: confirm with bench/ab.mjs.
// Under valgrind a process runs tens of times slower and one thread at a time: setup and two batches of 100
// transfers took 2-2.5 minutes here. Builds run two at a time (valgrind uses one core each).
//
//   node bench/instructions.mjs --builds ../old-checkout,.                        transfers, 2 batches of 100
//   node bench/instructions.mjs --builds ../old-checkout,. --workload fixtures --per 20 --rounds 2
//
// Needs valgrind (Debian: `apt-get install valgrind`); a build is a checkout with `dist/` built and
// `bench/node_modules` installed, as for bench/ab.mjs.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { benchDir } from './lib/targets.mjs'

const { values } = parseArgs({
  options: {
    builds: { type: 'string', default: '.' },
    workload: { type: 'string', default: 'transfers' },
    per: { type: 'string', default: '100' },
    batches: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '1' },
  },
})

if (spawnSync('valgrind', ['--version']).status !== 0) {
  console.error('bench/instructions.mjs needs valgrind on the PATH (Debian: apt-get install valgrind)')
  process.exit(1)
}
const builds = values.builds.split(',').map((b) => path.resolve(b))
const worker = path.join(benchDir, 'lib/instructions-worker.mjs')
const per = Number(values.per)

/** Main-thread instructions of one run's timed section. */
function run(repo) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rsksim-callgrind-'))
  const out = path.join(dir, 'cg.out')
  const args = [
    '--tool=callgrind',
    '--smc-check=all-non-file', // V8 writes the code it runs
    '--separate-threads=yes',
    '--zero-before=uv_loadavg',
    '--dump-before=uv_get_free_memory',
    `--callgrind-out-file=${out}`,
    process.execPath,
    '--single-threaded', // V8 compiles and collects on the main thread: the same work in every run
    worker,
    repo,
    values.workload,
    String(per),
    values.batches,
  ]
  return new Promise((resolve, reject) => {
    const child = spawn('valgrind', args, { stdio: ['ignore', 'ignore', 'pipe'] })
    let err = ''
    child.stderr.on('data', (d) => (err = (err + d).slice(-4000)))
    child.on('exit', (code) => {
      try {
        // The dump the trigger wrote, of the thread that called it: `<out>.1-01` (dump 1, thread 1).
        const dump = readdirSync(dir).find((f) => f === 'cg.out.1-01')
        if (code !== 0 || dump === undefined) throw new Error(`callgrind run failed (exit ${code}):\n${err}`)
        const summary = /^summary: (\d+)$/m.exec(readFileSync(path.join(dir, dump), 'utf8'))
        if (summary === null) throw new Error(`no summary line in ${dump}`)
        resolve(Number(summary[1]))
      } catch (e) {
        reject(e)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })
  })
}

const results = new Map(builds.map((b) => [b, []]))
for (let r = 1; r <= Number(values.rounds); r++) {
  // Two at a time: valgrind runs a process's threads one after another, on one core.
  for (let i = 0; i < builds.length; i += 2) {
    const pair = builds.slice(i, i + 2)
    const counts = await Promise.all(pair.map(run))
    pair.forEach((b, k) => {
      results.get(b).push(counts[k] / per)
      console.log(`round ${r} ${path.relative(process.cwd(), b) || '.'} ${Math.round(counts[k] / per).toLocaleString('en-US')} instructions per operation`)
    })
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return (s[Math.floor((s.length - 1) / 2)] + s[Math.ceil((s.length - 1) / 2)]) / 2
}
const base = median(results.get(builds[0]))
console.log(`\n${values.workload}: main-thread instructions per operation (timed batch of ${per} after ${Number(values.batches) - 1} warm-up batch(es))\n`)
console.log('| build | median | rounds | vs first |')
console.log('| --- | ---: | --- | ---: |')
for (const [b, xs] of results) {
  const m = median(xs)
  console.log(`| ${path.relative(process.cwd(), b) || '.'} | ${Math.round(m).toLocaleString('en-US')} | ${xs.map((x) => Math.round(x).toLocaleString('en-US')).join(', ')} | ${(((m - base) / base) * 100).toFixed(1)} % |`)
}
