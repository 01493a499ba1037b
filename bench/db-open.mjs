#!/usr/bin/env node
// Opening an on-disk database (issue 15): writes a chain of N empty blocks (hardhat_mine) and 200 transfers with
// --db semantics into a temporary directory, closes it, then opens it three times, printing each open's time to
// the first answer and the JS heap after it.
//
//   node --expose-gc bench/db-open.mjs --blocks 10000
//   node --expose-gc bench/db-open.mjs --blocks 50000 --dist ../other-checkout/dist    another build
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { repoDir } from './lib/targets.mjs'

const { values } = parseArgs({ options: { blocks: { type: 'string', default: '10000' }, dist: { type: 'string' } } })
const dist = path.resolve(values.dist ?? path.join(repoDir, 'dist'))
const { createProvider } = await import(pathToFileURL(path.join(dist, 'index.js')).href)
const COW = '0xcd2a3d9f938e13cd947ec05abc7fe734df8dd826'
const rq = (p, method, params = []) => p.request({ method, params })
const blocks = Number(values.blocks)
const dir = mkdtempSync(path.join(tmpdir(), 'rsksim-open-'))
try {
  let p = await createProvider({ accountTxRateLimit: false, database: { path: dir } })
  let t = performance.now()
  // In requests of 10,000 blocks (hardhat_mine takes at most 100,000: MAX_MINED_BLOCKS, src/rpc/namespaces/dev/mining.ts).
  for (let left = blocks; left > 0; left -= 10_000) await rq(p, 'hardhat_mine', ['0x' + Math.min(left, 10_000).toString(16)])
  for (let i = 0; i < 200; i++) await rq(p, 'eth_sendTransaction', [{ from: COW, to: '0x' + 'ab'.repeat(20), value: '0x1' }])
  console.log(`${dist}: wrote ${blocks} empty blocks and 200 transfers in ${(performance.now() - t).toFixed(0)} ms`)
  await p.disconnect()
  for (let r = 0; r < 3; r++) {
    t = performance.now()
    p = await createProvider({ accountTxRateLimit: false, database: { path: dir } })
    const head = BigInt(await rq(p, 'eth_blockNumber'))
    const ms = performance.now() - t
    globalThis.gc?.()
    console.log(`open to the first answer ${ms.toFixed(0)} ms (head ${head}), JS heap ${(process.memoryUsage().heapUsed / 1e6).toFixed(1)} MB`)
    await p.disconnect()
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
process.exit(0)
