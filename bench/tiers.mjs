#!/usr/bin/env node
// Which of V8's tiers runs rsksim's JavaScript in a workload's timed section: `node --prof` samples the main thread
// (every 100 µs here), and each sample is given to the first JavaScript function on its stack (the builtins and the
// runtime it called included), in the tier its code was in: V8's interpreter (Ignition), its baseline compiler
// (Sparkplug) or its optimizing compiler (TurboFan). Samples with no JavaScript function on the stack (the collector,
// the compiler's main-thread part, native code entered from no JS frame) are counted apart. It answers "how much of a
// fresh process's time runs code V8 has not optimized yet, and in which functions" (docs/performance.md,
// twenty-seventh round). Sampling slows the process down by about a third: read shares, not times.
//
//   node bench/tiers.mjs                                          fresh process: 500 transfers, 3 runs summed
//   node bench/tiers.mjs --per 100 --batches 12 --runs 1          the twelfth hundred (a warm process)
//   node bench/tiers.mjs --workload fixtures --per 100 --top 40
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { benchDir, repoDir } from './lib/targets.mjs'
import { originalPlace } from './lib/sourceMaps.mjs'

const { values } = parseArgs({
  options: {
    workload: { type: 'string', default: 'transfers' },
    per: { type: 'string', default: '500' },
    batches: { type: 'string', default: '1' },
    runs: { type: 'string', default: '3' },
    top: { type: 'string', default: '25' },
  },
})

const TIERS = { Unopt: 'Ignition', Sparkplug: 'Sparkplug', Opt: 'TurboFan' }
const total = { Ignition: 0, Sparkplug: 0, TurboFan: 0, 'no JS frame': 0 }
const byFunction = new Map()
let windowMs = 0

for (let run = 0; run < Number(values.runs); run++) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rsksim-tiers-'))
  try {
    const worker = path.join(benchDir, 'lib/instructions-worker.mjs')
    const args = ['--prof', '--prof-sampling-interval=100', worker, repoDir, values.workload, values.per, values.batches]
    const r = spawnSync(process.execPath, args, { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] })
    if (r.status !== 0) throw new Error(`the worker exited with ${r.status}`)
    const log = readdirSync(dir).find((f) => f.endsWith('-v8.log'))
    if (log === undefined) throw new Error(`node --prof wrote no V8 log in ${dir}`)
    const pre = spawnSync(process.execPath, ['--prof-process', '--preprocess', log], { cwd: dir, maxBuffer: 1 << 30, encoding: 'utf8' })
    if (pre.status !== 0) throw new Error('node --prof-process --preprocess failed')
    count(JSON.parse(pre.stdout))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Adds one run's samples between the two markers. */
function count({ code, ticks }) {
  const at = (name) => code.find((c) => c.name?.startsWith(`${name} `))?.tm
  const start = at('TIERS_START')
  const stop = at('TIERS_STOP')
  if (start === undefined || stop === undefined) throw new Error('the markers are not in the V8 log')
  windowMs += (stop - start) / 1000
  for (const tick of ticks) {
    if (tick.tm < start || tick.tm > stop) continue
    // tick.s lists the stack from the top as [code index, offset] pairs; -1 where the address matched no code.
    let fn
    for (let i = 0; i < tick.s.length && fn === undefined; i += 2) {
      const c = tick.s[i] >= 0 ? code[tick.s[i]] : undefined
      if (c !== undefined && TIERS[c.kind] !== undefined) fn = c
    }
    if (fn === undefined) {
      total['no JS frame']++
      continue
    }
    const tier = TIERS[fn.kind]
    total[tier]++
    const name = placeOf(fn.name)
    const row = byFunction.get(name) ?? { Ignition: 0, Sparkplug: 0, TurboFan: 0 }
    row[tier]++
    byFunction.set(name, row)
  }
}

/** "name file:///…/dist/x.js:line:column" as the function's name and its source file and line (dist's source maps). */
function placeOf(v8Name) {
  const m = /^(.*?) ?(file:\/\/\S+):(\d+):(\d+)$/.exec(v8Name)
  if (m === null) return v8Name
  const { url, line } = originalPlace({ url: m[2], lineNumber: Number(m[3]) - 1, columnNumber: Number(m[4]) - 1 }, repoDir)
  return `${m[1] || '(anonymous)'} ${path.relative(repoDir, url.replace('file://', ''))}:${line + 1}`
}

const samples = Object.values(total).reduce((a, b) => a + b, 0)
if (samples === 0) throw new Error('no samples between the markers: the timed section was too short to sample')
const pct = (n) => `${((100 * n) / samples).toFixed(1)} %`
console.log(`${values.workload}: batch ${values.batches} of ${values.per}, ${values.runs} run(s), ${samples} samples over ${windowMs.toFixed(0)} ms`)
for (const [tier, n] of Object.entries(total)) console.log(`  ${tier.padEnd(12)} ${String(n).padStart(6)}  ${pct(n)}`)
console.log(`\nfunctions by samples outside TurboFan code (Ignition + Sparkplug, then TurboFan), the top ${values.top}:`)
const rows = [...byFunction].map(([name, r]) => [name, r.Ignition + r.Sparkplug, r.TurboFan]).sort((a, b) => b[1] - a[1])
for (const [name, slow, fast] of rows.slice(0, Number(values.top))) console.log(`${String(slow).padStart(6)} ${String(fast).padStart(6)}  ${name}`)
