#!/usr/bin/env node
// eth_getLogs over a long chain, in process: a Token deployed, N automined transfers (one per block), then the median
// of 7 queries from block 0 for the token's logs (every block matches), for an address no block has (the blooms
// answer), and for the token over the last 500 blocks. Blocks past the newest 4,096 are kept packed (docs/state-layer.md):
// run with more blocks than that to time unpacking.
//
//   node bench/logs-old-blocks.mjs [--blocks 6000] [--repo /path/to/other/checkout]
import path from 'node:path'
import { parseArgs } from 'node:util'
import { repoDir } from './lib/targets.mjs'
import { deployToken } from './lib/token.mjs'

const { values } = parseArgs({ options: { blocks: { type: 'string', default: '6000' }, repo: { type: 'string', default: repoDir } } })
const { createProvider } = await import(path.join(path.resolve(values.repo), 'dist/index.js'))
const provider = await createProvider({ accountTxRateLimit: false })
const { rq, tokenAddress, transfer } = await deployToken(provider)
const blocks = Number(values.blocks)
const raws = []
for (let i = 0; i < blocks; i++) raws.push(await transfer('0x' + '12'.repeat(20)))
for (const raw of raws) await rq('eth_sendRawTransaction', [raw])
const head = Number(await rq('eth_blockNumber'))

async function time(label, filter) {
  const ms = []
  let logs = 0
  for (let i = 0; i < 7; i++) {
    const t = process.hrtime.bigint()
    logs = (await rq('eth_getLogs', [filter])).length
    ms.push(Number(process.hrtime.bigint() - t) / 1e6)
  }
  ms.sort((a, b) => a - b)
  return { query: label, logs, medianMs: Number(ms[3].toFixed(1)) }
}
console.log(
  JSON.stringify({
    blocks: head + 1,
    results: [
      await time('token, from block 0', { fromBlock: '0x0', toBlock: 'latest', address: tokenAddress }),
      await time('an address no block has, from block 0', { fromBlock: '0x0', toBlock: 'latest', address: '0x' + '34'.repeat(20) }),
      await time('token, last 500 blocks', { fromBlock: `0x${Math.max(0, head - 499).toString(16)}`, toBlock: 'latest', address: tokenAddress }),
    ],
  }),
)
await provider.disconnect()
