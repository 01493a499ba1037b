#!/usr/bin/env node
// rsksim side-by-side benchmark (issue 6): the same workloads, in one run, against rsksim in process, rsksim over
// HTTP, Ganache 7, Hardhat 3/EDR in process and Anvil over HTTP. Each target runs in a fresh child process
// (lib/worker.mjs) one after the other, so startup and memory are its own and targets never share the CPU.
//
//   node bench/run.mjs                 full run; writes docs/performance.md
//   node bench/run.mjs --quick         fewer iterations (smoke run); prints only
//   node bench/run.mjs --only rsksim,anvil
//   node bench/run.mjs --write         write docs/performance.md even for --quick / --only runs
//   node bench/run.mjs --workloads multiTxBlocks --rounds 3
//                                      only those workloads; 3 rounds of every target, interleaved (A B C, C B A,
//                                      A B C), each cell the median over rounds, so a change in the shared
//                                      machine's load falls on every target alike
//   node bench/run.mjs --workloads fork --only rsksim,anvil
//                                      the fork workload only (lib/fork.mjs): rsksim and Anvil forking a remote
//                                      rsksim, cold and warm; the other targets have no part in it
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { TARGETS, LABELS, benchDir, repoDir, versions } from './lib/targets.mjs'
import { counts } from './lib/workloads.mjs'
import { table, details, checks, checksMarkdown, forkTable, forkDetails, rows } from './lib/report.mjs'
import { runFork } from './lib/fork.mjs'

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean' },
    only: { type: 'string' },
    write: { type: 'boolean' },
    'timeout-min': { type: 'string', default: '20' },
    workloads: { type: 'string' },
    rounds: { type: 'string', default: '1' },
  },
})
const targets = values.only ? values.only.split(',').map((s) => s.trim()) : TARGETS
for (const t of targets) if (!TARGETS.includes(t)) throw new Error(`unknown target ${t}; known: ${TARGETS.join(', ')}`)
const c = counts({ quick: values.quick })
const gc = counts({ quick: values.quick, target: 'ganache' }) // Ganache's scaled counts, for the table's footnote
// `fork` is not a worker workload: lib/fork.mjs runs it with a remote of its own. The per-target workers run only when
// some other workload is asked for (or none is named: every workload).
const workloads = values.workloads ? values.workloads.split(',').map((s) => s.trim()) : null
const forkWanted = !workloads || workloads.includes('fork')
const workersWanted = !workloads || workloads.some((w) => w !== 'fork')
const workerWorkloads = workloads?.filter((w) => w !== 'fork').join(',')

function runWorker(target) {
  return new Promise((resolve) => {
    const results = {}
    const args = ['--expose-gc', path.join(benchDir, 'lib/worker.mjs'), '--target', target]
    if (values.quick) args.push('--quick')
    if (workerWorkloads) args.push('--workloads', workerWorkloads)
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let buf = ''
    let err = ''
    child.stdout.on('data', (d) => {
      buf += d
      let i
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i)
        buf = buf.slice(i + 1)
        if (!line.startsWith('RESULT ')) continue
        const r = JSON.parse(line.slice(7))
        results[r.id] = r
        const shown = r.na ? `n/a: ${r.na}` : r.skip ? `skipped: ${r.skip}` : `${r.value.toFixed(2)}${r.detail ? `  (${r.detail})` : ''}`
        process.stderr.write(`  ${target.padEnd(12)} ${r.id.padEnd(16)} ${shown}\n`)
      }
    })
    child.stderr.on('data', (d) => (err += d))
    const timer = setTimeout(() => {
      err += `\ntimed out after ${values['timeout-min']} min`
      child.kill('SIGKILL')
    }, Number(values['timeout-min']) * 60_000)
    child.on('exit', (code) => {
      clearTimeout(timer)
      const why = (err.trim().split('\n').pop() || `worker exited with ${code}`).slice(0, 160)
      // Whatever the worker did not report is n/a with the worker's last words as the reason.
      if (code !== 0 || !results.startup) results._error = why
      resolve(results)
    })
  })
}

function machine() {
  const cpus = os.cpus()
  return {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    ramGiB: (os.totalmem() / 1024 ** 3).toFixed(1),
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
  }
}

/**
 * The machine's CPU counters (Linux `/proc/stat`, first line, in clock ticks): the total and the steal (time the
 * hypervisor gave other guests while this one wanted to run). undefined elsewhere.
 */
function cpuTicks() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number)
    return { total: f.slice(0, 8).reduce((a, b) => a + b, 0), steal: f[7] ?? 0 }
  } catch {
    return undefined
  }
}

/**
 * How busy the machine was apart from this run: the 1-minute load average before it, and the share of CPU time
 * stolen by the host over it. The fresh-process rows move most with it (docs/performance.md, sixteenth round).
 */
function loadLine(loadBefore, ticksBefore, ticksAfter) {
  const parts = [`1-minute load average ${loadBefore.toFixed(2)} before the run`]
  if (ticksBefore && ticksAfter && ticksAfter.total > ticksBefore.total) {
    const steal = (100 * (ticksAfter.steal - ticksBefore.steal)) / (ticksAfter.total - ticksBefore.total)
    parts.push(`CPU steal ${steal.toFixed(1)} % of the cores' time during it (\`/proc/stat\`: time the host gave other guests)`)
  }
  return parts.join('; ')
}

const loadBefore = os.loadavg()[0]
const ticksBefore = cpuTicks()
const started = Date.now()
const rounds = Number(values.rounds)
const runs = Object.fromEntries(targets.map((t) => [t, []]))
for (let r = 0; r < (workersWanted ? rounds : 0); r++) {
  for (const t of r % 2 === 0 ? targets : [...targets].reverse()) {
    process.stderr.write(`${LABELS[t]}${rounds > 1 ? ` (round ${r + 1} of ${rounds})` : ''} …\n`)
    runs[t].push(await runWorker(t))
  }
}
const results = {}
for (const t of workersWanted ? targets : []) {
  results[t] = mergeRounds(runs[t])
  if (results[t]._error) {
    for (const { id } of rows(c)) results[t][id] ??= { na: results[t]._error }
  }
}

/** One target's rounds → one result per workload: the round with the median value (its detail kept). */
function mergeRounds(list) {
  if (list.length === 1) return list[0]
  const out = {}
  for (const id of new Set(list.flatMap((r) => Object.keys(r)))) {
    const measured = list.map((r) => r[id]).filter((x) => x && typeof x.value === 'number')
    if (measured.length === 0) {
      out[id] = list.map((r) => r[id]).find((x) => x !== undefined)
      continue
    }
    const sorted = [...measured].sort((a, b) => a.value - b.value)
    const mid = sorted[Math.floor(sorted.length / 2)]
    out[id] = { ...mid, detail: `${mid.detail ? mid.detail + '; ' : ''}median of ${measured.length} rounds: ${sorted.map((x) => x.value.toFixed(x.value < 100 ? 1 : 0)).join(' / ')}` }
  }
  return out
}
// The fork workload: rsksim (in process) and Anvil, whichever of them --only keeps.
const fork = forkWanted
  ? await runFork({ targets, c, rounds, timeoutMin: Number(values['timeout-min']), log: (line) => process.stderr.write(line + '\n') })
  : undefined
const minutes = ((Date.now() - started) / 60_000).toFixed(1)

const m = { ...machine(), load: loadLine(loadBefore, ticksBefore, cpuTicks()) }
const v = versions()
const tbl = table(results, targets, c)
const chk = checks(results, c)
if (workersWanted) {
  console.log('\n' + tbl + '\n')
  console.log(checksMarkdown(chk) + '\n')
}
const forkTbl = forkTable(fork)
if (fork) console.log('\n' + forkTbl + '\n\n' + forkDetails(fork) + '\n')

mkdirSync(path.join(benchDir, 'out'), { recursive: true })
writeFileSync(path.join(benchDir, 'out/last-run.json'), JSON.stringify({ machine: m, versions: v, quick: !!values.quick, counts: c, results, fork }, null, 2))

const full = !values.quick && !values.only && !values.workloads && rounds === 1
if (full || values.write) {
  const doc = `# Performance

rsksim measured side by side with the peers it is held against, in one run of \`npm run bench\` (\`bench/run.mjs\`;
how to run it: \`bench/README.md\`). Nothing here is a timed test (design habit 9): these are the numbers of one
run on one machine, to be re-measured, not asserted.

## Machine and run

- CPU: ${m.cpu}, ${m.cores} cores; RAM ${m.ramGiB} GiB; ${m.os}
- Node ${m.node}; run ${m.date}, ${minutes} min${values.quick ? ' (**--quick**: fewer iterations, smoke numbers only)' : ''}
- Load: ${m.load}
- Versions: rsksim ${v.rsksim}, Ganache ${v.ganache}, Hardhat ${v.hardhat} with EDR ${v.edr}, Anvil ${v.anvil}

## Results

${tbl}

¹ Ganache ran fewer iterations on this row (its JS VM is 10-100x slower per operation):
${gc.calls.toLocaleString('en-US')} \`eth_call\`s instead of ${c.calls.toLocaleString('en-US')}, ${gc.estimates.toLocaleString('en-US')} estimates per estimates row and ${gc.deploys} deployments instead of ${c.estimates.toLocaleString('en-US')} and ${c.deploys}, one timed compute call instead of the median of three, warm rows after
${gc.warmTransfers.toLocaleString('en-US')} transfers and ${gc.warmFixtures.toLocaleString('en-US')} cycles. Rates are per second, so they stay comparable.

### How to read

- Each cell is the target's value, and in brackets its ratio to the **best peer** (Ganache, Hardhat/EDR, Anvil) on
  that row, oriented so that **above 1x is better** than every peer and below 1x is worse than the best one
  (rates: value ÷ best; times: best ÷ value). The best peer itself shows 1.00x. Memory rows carry no ratio.
- "rsksim (in process)", Ganache and Hardhat are driven through their EIP-1193 \`request\` in the benchmark's own
  process; "rsksim (HTTP)" is rsksim's \`startServer\` in a child process (as \`npx rsksim\` runs) and Anvil is its
  npm binary, both reached by one keep-alive \`node:http\` client sending requests one after another. HTTP rows
  therefore include a loopback round trip per request, and are comparable with each other, not with in-process rows.
- Every target runs alone in a fresh process, one after the other. Startup is measured from the \`import\` of the
  library (in process) or the \`spawn\` of the server (HTTP) to the first \`eth_blockNumber\` answer.
- Transactions are legacy (type 0), EIP-155 signed with the target's chain id and \`eth_gasPrice\`, from the
  target's funded default account (rsksim: \`cow\`, chain 33; Hardhat/Anvil: \`test … junk\` account 0; Ganache:
  \`wallet.deterministic\`). They are signed before the clock starts: the simulator is timed, not ethers. Each
  transfer is \`eth_sendRawTransaction\` then \`eth_getTransactionReceipt\` (automine).
- "by eth_sendTransaction": the same transfers sent unsigned from that account, which the target holds the key of
  and signs with (as Hardhat's and Foundry's default signers have it do), then the receipt; measured after the
  \`eth_getLogs\` row, so in a process that has already run the raw transfers and the calls. "contract deployments"
  (after it): the \`Token\` fixture's 2,241 bytes of initcode, sent raw; each signed string is read once before the
  clock starts (ethers builds it by concatenation, and V8 flattens it at its first read, about 140 µs at this length
  for any reader). "eth_estimateGas": a token \`transfer\` to a new recipient each time, after the \`eth_call\` row;
  the row after it asks the same with the block \`pending\`, as Hardhat's ethers provider does (each request builds the
  pending block: the pool's transactions, then REMASC's payments).
- Compute rows use the \`Compute\` fixture contract with the largest n that fits every target's default 10M call
  gas; RSK's gas table differs (SSTORE 20,000, no EIP-2929), so \`storageLoop\` burns different gas on rsksim.
- HTTP throughput: autocannon in its own process, ${c.httpConnections} connections, ${c.httpSeconds} s, same body
  repeated; in-process targets have no HTTP server there (—).
- "warm" rows: the row above again, later in the same process, after that many more untimed operations of its
  kind (and the workloads run before it). The rows above them measure a fresh process's first operations, where
  rsksim's JavaScript is still being compiled by V8 (EDR and Anvil are native code).
- "16 per block": automine off, then blocks of ${c.perBlock} transfers (raw sends, one \`evm_mine\`, receipts).
- CPU rows ("…"): user + system CPU time per operation of the process that runs the simulator: the server process
  for HTTP targets (\`/proc/<pid>/stat\`), the whole benchmark process for in-process ones (client included; EDR's
  threads count). Unlike rates, they do not depend on how much CPU the load generator or other processes take.
  For rsksim's fresh rows about half of it is V8's compiler on its worker threads, which rsksim runs below the main
  thread (nineteenth round in the notes below; \`bench/threads.mjs\` splits it by thread).
- Memory: after a full GC (\`--expose-gc\`). "JS heap" is the V8 heap of the process that holds the chain (for
  rsksim over HTTP, the server process). Hardhat keeps its chain in Rust (EDR) and Anvil is native, so their
  growth shows in RSS, not in the heap. Fixture-cycle memory is heap where there is one, RSS for Anvil.
- One run, 2-core machine: expect ±10-30 % between runs on fast rows (sub-millisecond \`eth_getLogs\` most of all).
  The fresh-process rows (transfers, fixture cycles) move most with the machine's load ("Load" above):
  V8 compiles rsksim's JavaScript on the second core, and with that core taken the same code ran fresh transfers at
  half the rate (sixteenth round in the notes below; 0.58x EDR since the nineteenth).

### Details

${details(results, targets, c)}

## Forking

${forkSection(fork, c)}

## Targets

Issue 6 item 2, checked against the numbers above (rsksim in process unless the line says HTTP). "Memory flat" is
read as: heap growth over the mined blocks at most 2 KB per block (what the stored blocks themselves need) and
heap after the last fixture cycle within 10 % of the heap after the first ${c.cyclesCheck[0].toLocaleString('en-US')}.

${checksMarkdown(chk)}
`
  // A hand-written "## Notes" section at the end (profiles, analysis) survives re-runs.
  const docPath = path.join(repoDir, 'docs/performance.md')
  const old = existsSync(docPath) ? readFileSync(docPath, 'utf8') : ''
  const notes = old.indexOf('\n## Notes\n')
  writeFileSync(docPath, notes >= 0 ? doc + old.slice(notes) : doc)
  process.stderr.write(`wrote docs/performance.md (${minutes} min)\n`)
}

/** The fork workload's part of docs/performance.md (issue 16). */
function forkSection(fork, c) {
  const n = (x) => x.toLocaleString('en-US')
  return `A remote rsksim (\`startServer\` in a process of its own) with ${n(c.forkAccounts)} funded accounts and the \`Token\`
fixture, every account a holder, is forked at its head block through a counting HTTP proxy (HTTP requests and
JSON-RPC calls, each element of a batch once); then ${n(c.forkTransfers)} token transfers go through the fork, each from a
different remote account to another holder: \`eth_getTransactionCount\`, \`eth_sendRawTransaction\` of a legacy
transaction signed beforehand (the fork's chain id and \`eth_gasPrice\`), the receipt (status 1). Cold, every transfer
reads state the fork does not hold yet: the sender's account, its and the recipient's balance slots. "Cold" starts
with an empty fork cache, "warm" is a second process over the cache the cold one left (rsksim: \`fork.cache\`
directory; Anvil: \`~/.foundry/cache/rpc\` under a temporary HOME, written when Anvil exits). The reference column
runs the same transfers on rsksim without a fork, over the remote's state loaded with \`provider.loadState\`.
Details: \`bench/lib/fork.mjs\`.

${forkTable(fork) || 'Not run.'}

${forkDetails(fork)}`
}
