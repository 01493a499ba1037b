#!/usr/bin/env node
// A fresh process's start with rsksim in process, for one or more builds, interleaved: the import of the library, the
// first `createProvider()`, its first answer (`eth_blockNumber`: what the `startup` row of bench/run.mjs times), then
// one raw transfer sent and its receipt read (signed with ethers before the clock starts), and the process's CPU time
// (all threads) over all of it. Each run is a process of its own; each round runs every build once, the order
// reversed every other round; the report gives each build's medians.
//
//   node bench/startup.mjs --builds ../old-checkout,. --rounds 15
//   node bench/startup.mjs --instructions --builds ../old-checkout,.   also count the instructions of one run of each
//                                                                      (valgrind's callgrind; all threads, one at a time)
//   node bench/startup.mjs --http --builds ../old-checkout,.           the server instead: from the spawn of a process
//                                                                      running startServer (lib/rsksim-server.mjs, as
//                                                                      the benchmark's HTTP column) to its first HTTP answer
//
// A build is a checkout with `dist/` built (as for bench/ab.mjs). --instructions needs valgrind on the PATH.
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import http from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: {
    builds: { type: 'string', default: '.' },
    rounds: { type: 'string', default: '15' },
    instructions: { type: 'boolean', default: false },
    http: { type: 'boolean', default: false },
    run: { type: 'string' },
  },
})

/** cow (regtest's first funded account) and a transfer of 1 wei, signed for chain 33. */
const COW_KEY = '0xc85ef7d79691fe79573b1a7064c19c1a9819ebdbd1faaab1a8ec92344438aaf4'

if (values.run !== undefined) {
  // One run, in this process: the build's dist/index.js.
  const { Wallet } = await import('ethers')
  const raw = await new Wallet(COW_KEY).signTransaction({ to: '0x' + '11'.repeat(20), value: 1n, gasLimit: 21_000n, gasPrice: 0n, nonce: 0, chainId: 33, type: 0 })
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  const { createProvider } = await import(pathToFileURL(path.join(values.run, 'dist/index.js')).href)
  const t1 = performance.now()
  const provider = await createProvider()
  const t2 = performance.now()
  await provider.request({ method: 'eth_blockNumber' })
  const t3 = performance.now()
  const hash = await provider.request({ method: 'eth_sendRawTransaction', params: [raw] })
  const receipt = await provider.request({ method: 'eth_getTransactionReceipt', params: [hash] })
  const t4 = performance.now()
  const cpu = process.cpuUsage(cpu0)
  if (receipt.status !== '0x1') throw new Error('the transfer failed')
  console.log(JSON.stringify({ import: t1 - t0, provider: t2 - t1, firstAnswer: t3 - t0, transfer: t4 - t3, total: t4 - t0, cpu: (cpu.user + cpu.system) / 1000 }))
  process.exit(0)
}

const self = fileURLToPath(import.meta.url)
const builds = values.builds.split(',').map((b) => path.resolve(b))
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]

if (values.http) {
  // Spawn to the first answer of eth_blockNumber over HTTP, one server process per run, builds interleaved.
  const server = path.join(path.dirname(self), 'lib/rsksim-server.mjs')
  const post = (url) =>
    new Promise((resolve, reject) => {
      const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        let body = ''
        res.on('data', (d) => (body += d))
        res.on('end', () => resolve(JSON.parse(body)))
      })
      req.on('error', reject)
      req.end('{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}')
    })
  const times = builds.map(() => [])
  for (let r = 0; r < Number(values.rounds); r++) {
    for (const k of r % 2 === 0 ? [...builds.keys()] : [...builds.keys()].reverse()) {
      const t0 = performance.now()
      const child = spawn(process.execPath, [server], { env: { ...process.env, RSKSIM_DIST: path.join(builds[k], 'dist') }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
      const url = await new Promise((resolve) => child.once('message', (m) => resolve(m.url)))
      const answer = await post(url)
      times[k].push(performance.now() - t0)
      if (answer.result !== '0x0') throw new Error(`unexpected answer ${JSON.stringify(answer)}`)
      child.kill()
      await new Promise((resolve) => child.once('exit', resolve))
    }
  }
  console.log(`spawn to the first HTTP answer, medians of ${values.rounds} rounds, ms`)
  for (const [k, build] of builds.entries()) console.log(`${build}: ${median(times[k]).toFixed(1)}  (${times[k].map((t) => t.toFixed(0)).join(' ')})`)
  process.exit(0)
}

const fields = ['import', 'provider', 'firstAnswer', 'transfer', 'total', 'cpu']
const runs = builds.map(() => [])
for (let r = 0; r < Number(values.rounds); r++) {
  const order = r % 2 === 0 ? [...builds.keys()] : [...builds.keys()].reverse()
  for (const k of order) runs[k].push(JSON.parse(execFileSync(process.execPath, [self, '--run', builds[k]], { encoding: 'utf8' })))
}
console.log(`medians of ${values.rounds} rounds, ms: ${fields.join(', ')} (cpu: the process, all threads)`)
for (const [k, build] of builds.entries()) {
  console.log(`${build}: ${fields.map((f) => `${f} ${median(runs[k].map((x) => x[f])).toFixed(1)}`).join('  ')}`)
}

if (values.instructions) {
  if (spawnSync('valgrind', ['--version']).status !== 0) throw new Error('--instructions needs valgrind on the PATH')
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rsksim-startup-'))
  try {
    for (const build of builds) {
      const out = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${path.join(dir, 'cg.out')}`, '--smc-check=all-non-file', process.execPath, self, '--run', build], { encoding: 'utf8' })
      const collected = /Collected : (\d+)/.exec(out.stderr)
      console.log(`${build}: ${collected === null ? 'not counted' : `${Number(collected[1]).toLocaleString('en-US')} instructions`} (import to receipt, ethers' signing before it included)`)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
