#!/usr/bin/env node
// Where rsksim spends its time on one workload: runs the bench worker for rsksim in process with the V8 sampling
// profiler on (node:inspector, 100 µs interval) during the workload's timed section only (setup and the client's
// signing excluded), and prints the functions and the packages with the most self time.
//
//   node bench/profile.mjs                       transfers workload (deploy + 500 transfers)
//   node bench/profile.mjs --workloads fixtures  any worker workload id(s), comma separated
//   node bench/profile.mjs --top 40 --target rsksim
//   node bench/profile.mjs --report out/steady.cpuprofile   report a profile written elsewhere (bench/ab.mjs --profile)
//   node bench/profile.mjs --diff a.cpuprofile,b.cpuprofile --ops 30000,30000   what B adds per operation, by function
//
// dist bundles the engine, so a frame's place in dist/*.js is mapped back through dist/*.js.map (Node's own
// SourceMap) to the original file: src/… for rsksim, node_modules/<package>/… for the engine.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { benchDir, repoDir } from './lib/targets.mjs'
import { originalPlace } from './lib/sourceMaps.mjs'

const { values } = parseArgs({
  options: {
    workloads: { type: 'string', default: 'transfers' },
    top: { type: 'string', default: '25' },
    target: { type: 'string', default: 'rsksim' },
    report: { type: 'string' },
    diff: { type: 'string' },
    ops: { type: 'string' },
  },
})
const dir = values.report ? path.dirname(path.resolve(values.report)) : path.join(benchDir, 'out/profile')
if (!values.report && !values.diff) {
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const run = spawnSync(
    process.execPath,
    ['--expose-gc', path.join(benchDir, 'lib/worker.mjs'), '--target', values.target, '--workloads', values.workloads, '--profile-dir', dir],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  )
  if (run.status !== 0) process.exit(run.status ?? 1)
}

/** A profile frame's original place: { url, line } with the url of the source file (through dist's source map). */
const original = (frame) => originalPlace(frame, repoDir)

function pkgOf(url) {
  if (!url) return '(native / VM)'
  const p = url.replace(/^file:\/\//, '')
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(p)
  if (m) return (p.includes('/bench/node_modules/') ? 'bench client: ' : '') + m[1]
  if (p.startsWith('wasm')) return 'wasm (hash-wasm keccak / tiny-secp256k1)'
  if (p.startsWith(path.join(repoDir, 'dist')) || p.startsWith(path.join(repoDir, 'src'))) return 'rsksim'
  if (p.startsWith('node:')) return 'node internals'
  return path.relative(repoDir, p)
}

/** A profile read from `file`, its frames mapped to their original sources, with its samples counted per node. */
function load(file) {
  const prof = JSON.parse(readFileSync(file, 'utf8'))
  for (const node of prof.nodes) {
    const o = original(node.callFrame)
    node.callFrame = { ...node.callFrame, url: o.url, lineNumber: o.line }
  }
  // Self time per node = its samples × the sampling interval; summed per function (name + file + line).
  const dt = (prof.endTime - prof.startTime) / prof.samples.length / 1000 // ms per sample
  const counts = new Map()
  for (const id of prof.samples) counts.set(id, (counts.get(id) ?? 0) + 1)
  const byFn = new Map()
  const byPkg = new Map()
  let total = 0
  for (const node of prof.nodes) {
    const n = counts.get(node.id) ?? 0
    if (!n) continue
    total += n
    const f = node.callFrame
    const where = !f.url ? '' : f.url.startsWith('wasm') ? f.url : `${path.relative(repoDir, f.url.replace(/^file:\/\//, ''))}:${f.lineNumber + 1}`
    const key = `${f.functionName || '(anonymous)'}  ${where}`
    byFn.set(key, (byFn.get(key) ?? 0) + n)
    const pkg = pkgOf(f.url)
    byPkg.set(pkg, (byPkg.get(pkg) ?? 0) + n)
  }
  return { prof, dt, counts, byFn, byPkg, total }
}

/**
 * What B adds to A per operation, function by function (`--diff a,b --ops na,nb`): self time of each in µs per
 * operation in both, largest difference first. For two runs of one workload that differ in one respect (a call to
 * code and to an address without code; a build and the next), it names what the difference costs.
 */
function diff(files, ops) {
  const [a, b] = files.map((f) => load(path.resolve(f)))
  const perOp = (p, n, key) => ((p.byFn.get(key) ?? 0) * p.dt * 1000) / n
  const keys = new Set([...a.byFn.keys(), ...b.byFn.keys()])
  const rows = [...keys].map((k) => [k, perOp(a, ops[0], k), perOp(b, ops[1], k)]).sort((x, y) => y[2] - y[1] - (x[2] - x[1]))
  const sum = (i) => rows.reduce((t, r) => t + r[i], 0)
  console.log(`\nµs per operation: A ${sum(1).toFixed(1)} (${files[0]}), B ${sum(2).toFixed(1)} (${files[1]})\n`)
  console.log('   B - A        A        B  function  location')
  for (const [k, x, y] of rows.slice(0, Number(values.top)))
    console.log(`${(y - x).toFixed(2).padStart(8)} ${x.toFixed(2).padStart(8)} ${y.toFixed(2).padStart(8)}  ${k}`)
}

function report(file) {
const { prof, dt, counts, byFn, byPkg, total } = load(path.join(dir, file))
const rows = [...byFn].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))
console.log(`\nprofile: ${path.relative(repoDir, path.join(dir, file))}; ${(total * dt).toFixed(0)} ms sampled\n`)
console.log('self ms   self %  function  location')
for (const [key, n] of rows) console.log(`${(n * dt).toFixed(1).padStart(7)}  ${((100 * n) / total).toFixed(1).padStart(6)}%  ${key}`)
// Inclusive time of rsksim's own functions (a sample counts once per function on its stack): where a request goes.
const parent = new Map()
const byId = new Map(prof.nodes.map((n) => [n.id, n]))
for (const n of prof.nodes) for (const ch of n.children ?? []) parent.set(ch, n.id)
const incl = new Map()
for (const [id, n] of counts) {
  const seen = new Set()
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const f = byId.get(cur).callFrame
    if (!f.url.replace(/^file:\/\//, '').startsWith(path.join(repoDir, 'src'))) continue
    const key = `${f.functionName || '(anonymous)'}  ${path.relative(repoDir, f.url.replace(/^file:\/\//, ''))}:${f.lineNumber + 1}`
    if (!seen.has(key)) seen.add(key), incl.set(key, (incl.get(key) ?? 0) + n)
  }
}
console.log('\ninclusive time of rsksim functions')
for (const [key, n] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, 20))
  console.log(`${(n * dt).toFixed(1).padStart(7)}  ${((100 * n) / total).toFixed(1).padStart(6)}%  ${key}`)
console.log('\nself time by package')
for (const [key, n] of [...byPkg].sort((a, b) => b[1] - a[1]).slice(0, 15))
  console.log(`${(n * dt).toFixed(1).padStart(7)}  ${((100 * n) / total).toFixed(1).padStart(6)}%  ${key}`)
}

if (values.diff) diff(values.diff.split(','), (values.ops ?? '1,1').split(',').map(Number))
else if (values.report) report(path.basename(values.report))
else for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) report(file)
