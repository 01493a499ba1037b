#!/usr/bin/env node
// HTTP throughput, interleaved A/B (issue 13 items 4 and 5): every server is started once, in a process of its own,
// then autocannon runs against each in turn, round after round, the order reversed every other round, so that
// drift in the shared machine's load falls on every server alike. Each cell reports the median over rounds of
// req/s and of the server process's own CPU time per request (/proc/<pid>/stat user + system), the figure that does
// not depend on how much CPU the load generator (~30 µs per request on 2 cores) or other processes take.
//
//   node bench/http.mjs                                 rsksim (dist/) and Anvil, 3 rounds of 10 s per workload
//   node bench/http.mjs --servers rsksim,base,raw,anvil --rounds 5 --seconds 5
//   node bench/http.mjs --servers rsksim --workloads blockNumber,balance,callNoCode,call   an eth_call taken apart
//       base = the build in bench/out/dist-base (e.g. the base branch's dist/, copied there before a change)
//       raw  = rsksim's provider behind the raw `net` HTTP/1.1 prototype (bench/lib/raw-http.mjs)
//       nodehttp = rsksim (dist/) with startServer's fast path off (node:http for every request)
import { spawn } from 'node:child_process'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { Interface } from 'ethers'
import { benchDir, startTarget } from './lib/targets.mjs'
import { cpuMsOfPid } from './lib/cpu.mjs'
import { prepare, deployContracts } from './lib/workloads.mjs'
import { readFileSync } from 'node:fs'

const { values } = parseArgs({
  options: {
    servers: { type: 'string', default: 'rsksim,anvil' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10' },
    workloads: { type: 'string', default: 'blockNumber,call' },
  },
})
const rounds = Number(values.rounds)
const seconds = Number(values.seconds)
const connections = Number(values.connections)
const workloads = values.workloads.split(',')
const contracts = JSON.parse(readFileSync(path.join(benchDir, '../test/fixtures/contracts.json'), 'utf8'))
const tokenAbi = new Interface(contracts.Token.abi)

/** Server name → how bench/lib/targets.mjs starts it. */
const STARTS = {
  rsksim: { target: 'rsksim-http', env: {} },
  base: { target: 'rsksim-http', env: { RSKSIM_DIST: path.join(benchDir, 'out/dist-base') } },
  raw: { target: 'rsksim-http', env: { RSKSIM_HTTP: 'raw' } },
  nodehttp: { target: 'rsksim-http', env: { RSKSIM_FAST: '0' } },
  anvil: { target: 'anvil', env: {} },
}

const servers = []
for (const name of values.servers.split(',')) {
  const start = STARTS[name]
  if (!start) throw new Error(`unknown server ${name}; known: ${Object.keys(STARTS).join(', ')}`)
  const saved = { ...process.env }
  Object.assign(process.env, start.env)
  const t = await startTarget(start.target)
  process.env = saved
  const ctx = await prepare(t)
  await deployContracts(ctx)
  const bodies = {
    blockNumber: { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] },
    call: { jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ from: ctx.from, to: ctx.token, data: tokenAbi.encodeFunctionData('balanceOf', [ctx.from]) }, 'latest'] },
    // To take an eth_call apart: the same call to an address without code (the call's setup, no execution), and a
    // balance read (a state read with a body of about the same size).
    callNoCode: { jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ from: ctx.from, to: '0x' + '00'.repeat(19) + 'ee', data: tokenAbi.encodeFunctionData('balanceOf', [ctx.from]) }, 'latest'] },
    balance: { jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [ctx.from, 'latest'] },
  }
  servers.push({ name, t, bodies })
  process.stderr.write(`started ${name} (pid ${t.pid}) at ${t.url}\n`)
}

function cannon(url, body) {
  const bin = path.join(benchDir, 'node_modules/autocannon/autocannon.js')
  const args = [bin, '-c', String(connections), '-d', String(seconds), '-m', 'POST', '-H', 'content-type=application/json', '-b', JSON.stringify(body), '--json', url]
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] })
    let s = ''
    p.stdout.on('data', (d) => (s += d))
    p.on('exit', (code) => (code === 0 ? resolve(JSON.parse(s)) : reject(new Error(`autocannon exited ${code}`))))
  })
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const samples = {} // `${server}/${workload}` → [{ rps, cpuUs }]
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? servers : [...servers].reverse()
  for (const w of workloads) {
    for (const s of order) {
      const cpu0 = cpuMsOfPid(s.t.pid)
      const out = await cannon(s.t.url, s.bodies[w])
      const cpuMs = cpuMsOfPid(s.t.pid) - cpu0
      if (out.non2xx || out.errors) throw new Error(`${s.name} ${w}: ${out.non2xx} non-2xx, ${out.errors} errors`)
      const total = out.requests.total
      const row = { rps: out.requests.average, cpuUs: (cpuMs * 1000) / total, p99: out.latency.p99 }
      ;(samples[`${s.name}/${w}`] ??= []).push(row)
      process.stderr.write(`round ${r + 1} ${w.padEnd(12)} ${s.name.padEnd(7)} ${row.rps.toFixed(0).padStart(6)} req/s  ${row.cpuUs.toFixed(1).padStart(6)} µs CPU/req  p99 ${row.p99} ms\n`)
    }
  }
}
for (const s of servers) await s.t.close()

const ref = servers.find((s) => s.name === 'anvil')?.name
const lines = [`| workload | server | req/s (median of ${rounds}) | server CPU µs/req (median) | req/s vs Anvil | CPU/req vs Anvil |`, '| --- | --- | ---: | ---: | ---: | ---: |']
for (const w of workloads) {
  for (const s of servers) {
    const xs = samples[`${s.name}/${w}`]
    const rps = median(xs.map((x) => x.rps))
    const cpu = median(xs.map((x) => x.cpuUs))
    const a = ref ? samples[`${ref}/${w}`] : undefined
    const vs = a ? (rps / median(a.map((x) => x.rps))).toFixed(2) + 'x' : ''
    const vsCpu = a ? (cpu / median(a.map((x) => x.cpuUs))).toFixed(2) + 'x' : ''
    lines.push(`| ${w} | ${s.name} | ${rps.toFixed(0)} | ${cpu.toFixed(1)} | ${vs} | ${vsCpu} |`)
  }
}
console.log(lines.join('\n'))
console.log(`\n${connections} connections, ${seconds} s per run, ${rounds} rounds, order reversed every other round; all rounds:`)
console.log(JSON.stringify(samples))
process.exit(0)
