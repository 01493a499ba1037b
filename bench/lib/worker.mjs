// Runs every workload against one target, in a process of its own (so memory and startup are the target's own),
// and prints one JSON line per result, prefixed with RESULT, so a run that dies or times out keeps what it measured.
// Usage: node --expose-gc bench/lib/worker.mjs --target rsksim [--quick] [--workloads transfers,calls]
import { parseArgs } from 'node:util'
import 'ethers' // loaded before the startup clock starts: it is the client, not the target
import { startTarget } from './targets.mjs'
import * as w from './workloads.mjs'

const { values } = parseArgs({
  options: { target: { type: 'string' }, quick: { type: 'boolean' }, workloads: { type: 'string' }, 'profile-dir': { type: 'string' } },
})
const only = values.workloads ? new Set(values.workloads.split(',')) : null
const c = w.counts({ quick: values.quick, target: values.target })

function emit(id, result) {
  process.stdout.write('RESULT ' + JSON.stringify({ id, ...result }) + '\n')
}
function ctxKind(target) {
  return target.kind === 'http' ? 'server process' : 'benchmark process (simulator and client)'
}
function reason(e) {
  return String(e?.message ?? e).split('\n')[0].slice(0, 160)
}

let t
try {
  t = await startTarget(values.target)
  emit('startup', { value: t.startupMs })
} catch (e) {
  emit('startup', { na: reason(e) })
  process.exit(0)
}

const ctx = await w.prepare(t)
if (values['profile-dir']) {
  // CPU profile of the timed sections only (not signing, not setup): one .cpuprofile per workload.
  const { Session } = await import('node:inspector/promises')
  const { writeFileSync } = await import('node:fs')
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.setSamplingInterval', { interval: 100 })
  ctx.clock.start = () => session.post('Profiler.start')
  ctx.clock.stop = async (id) => {
    const { profile } = await session.post('Profiler.stop')
    writeFileSync(`${values['profile-dir']}/${id}.cpuprofile`, JSON.stringify(profile))
  }
}
let deployed = true
try {
  await w.deployContracts(ctx)
} catch (e) {
  deployed = false
  emit('deploy', { na: reason(e) })
}

// In order: transfers make the 500 blocks that getLogs reads; the memory checks, then the warm rows, run last.
const plan = [
  ['transfers', w.transfers],
  ['calls', w.calls],
  ['estimates', w.estimates],
  ['estimatesPending', w.estimatesPending],
  ['getLogs', w.getLogs],
  ['sends', w.sends], // after getLogs, which reads the transfers' own 500 blocks
  ['deploys', w.deploys],
  ['multiTxBlocks', w.multiTxBlocks], // before fixtures: the cycles' transfers are signed once, at fixed nonces
  ['fixtures', w.fixtures],
  ['keccak', w.keccak],
  ['arith', w.arith],
  ['storage', w.storage],
  ['blockNumber', w.blockNumber],
  ['httpBlockNumber', w.httpBlockNumber],
  ['httpCall', w.httpCall],
  ['mine', w.mine],
  ['cyclesMemory', w.cyclesMemory],
  // Warm rows last, so that the memory rows above measure what they did before these existed (2,000 more
  // transfer blocks before evm_mine would change its heap figures).
  ['fixturesWarm', w.fixturesWarm],
  ['transfersWarm', w.transfersWarm],
]
for (const [id, fn] of plan) {
  if (only && !only.has(id)) continue
  if (!deployed && id !== 'blockNumber' && id !== 'mine') {
    emit(id, { na: 'contract deployment failed' })
    continue
  }
  try {
    const r = await fn(ctx, c)
    if (id === 'mine') for (const [k, v] of Object.entries(r)) emit(`mine.${k}`, v)
    else emit(id, c.scaled.includes(id) && !r.na ? { ...r, scaled: true } : r)
    // CPU time per operation of the process running the simulator, as a row of its own.
    const cpu = r.cpuUsPerTx ?? r.cpuUsPerReq
    if (cpu !== undefined) emit(`${id}.cpu`, { value: cpu, detail: ctxKind(t) })
    else if (r.skip && id.startsWith('http')) emit(`${id}.cpu`, { skip: r.skip })
  } catch (e) {
    emit(id, { na: reason(e) })
  }
}
await t.close()
process.exit(0)
