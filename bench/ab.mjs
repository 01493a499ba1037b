#!/usr/bin/env node
// Interleaved A/B of rsksim builds, in process (issue 13 item 5): each round runs every build once, in a fresh
// process of its own (lib/ab-worker.mjs), the order reversed every other round, and the report gives per build the
// median over rounds of the workload's value (a rate; for keccak, arith and storage the time of one call in ms) and
// of the CPU time per operation: the whole process (V8's compiler and GC threads
// included) and its main thread alone (/proc/<pid>/task/<pid>/stat), the figure least moved by the shared machine.
//
//   node bench/ab.mjs --builds /path/to/old/checkout,. --rounds 5
//   node bench/ab.mjs --builds .,../other --workloads transfers,sends,fixtures,mine,calls,keccak,arith,storage --batches 1
//   node bench/ab.mjs --builds . --workloads transfers --batches 3 --transfers 1000 --profile out/steady.cpuprofile
//
// A build is a checkout with `dist/` built and `bench/node_modules` installed (its own bench/lib drives it, so old
// checkouts run with their own workloads). `--batches N` runs each workload N times in the same process and reports
// the last: 1 includes the JIT warm-up of a fresh process (as bench/run.mjs measures), 3 measures a warm process.
// `--profile file` writes a CPU profile of the last batch (first build, first round): read it with bench/profile.mjs's
// report (`node bench/profile.mjs --report file`).
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { benchDir } from './lib/targets.mjs'

const { values } = parseArgs({
  options: {
    builds: { type: 'string', default: '.' },
    rounds: { type: 'string', default: '5' },
    workloads: { type: 'string', default: 'transfers,fixtures,mine,calls' },
    batches: { type: 'string', default: '1' },
    transfers: { type: 'string' },
    profile: { type: 'string' },
  },
})
const builds = values.builds.split(',').map((b) => path.resolve(b))
const rounds = Number(values.rounds)
const results = new Map(builds.map((b) => [b, []]))

for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? builds : [...builds].reverse()
  for (const build of order) {
    const args = ['--expose-gc', path.join(benchDir, 'lib/ab-worker.mjs'), '--repo', build, '--workloads', values.workloads, '--batches', values.batches]
    if (values.transfers) args.push('--transfers', values.transfers)
    if (values.profile && r === 0 && build === builds[0]) args.push('--profile', path.resolve(values.profile))
    const run = spawnSync(process.execPath, args, { cwd: path.join(build, 'bench'), encoding: 'utf8' })
    const line = run.stdout.split('\n').find((l) => l.startsWith('AB '))
    if (run.status !== 0 || line === undefined) {
      process.stderr.write(`round ${r + 1} ${build}: failed\n${run.stderr}\n`)
      continue
    }
    const result = JSON.parse(line.slice(3))
    results.get(build).push(result)
    console.log(`round ${r + 1} ${path.relative(process.cwd(), build) || '.'} ${JSON.stringify(result)}`)
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}
console.log(`\n| workload | build | value (median of ${rounds}) | CPU µs/op, process | CPU µs/op, main thread |`)
console.log('| --- | --- | ---: | ---: | ---: |')
for (const w of values.workloads.split(',')) {
  for (const build of builds) {
    const runs = results.get(build).map((x) => x[w]).filter(Boolean)
    if (runs.length === 0) continue
    const cell = (k) => median(runs.map((x) => x[k])).toLocaleString('en-US', { maximumFractionDigits: 1 })
    console.log(`| ${w} | ${path.relative(process.cwd(), build) || '.'} | ${cell('value')} | ${cell('cpuUs')} | ${cell('mainUs')} |`)
  }
}
