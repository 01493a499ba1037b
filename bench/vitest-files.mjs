#!/usr/bin/env node
// The measurement behind docs/integrations.md "Speed: many test files in one process": six vitest test files, each
// creating an rsksim provider (dist/) and sending 300 value transfers signed beforehand (eth_sendRawTransaction, then
// eth_getTransactionReceipt), run under vitest's four combinations of --no-isolate and --no-file-parallelism. Prints,
// per run, the whole run's wall time and each file's milliseconds per transfer, in the order the files ended, with the
// process that ran it.
//
//   npm run build && node bench/vitest-files.mjs [--runs 2]
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const root = fileURLToPath(new URL('..', import.meta.url))
const { values } = parseArgs({ options: { runs: { type: 'string', default: '2' } } })
const FILES = 6
const TRANSFERS = 300

// One test file: the timing covers the sends and receipts only (signing is done before, with ethers).
const testFile = (n) => `import { it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { Wallet } from 'ethers'
import { createProvider } from ${JSON.stringify(path.join(root, 'dist/index.js'))}

it('file ${n}: ${TRANSFERS} transfers', async () => {
  const provider = await createProvider({ accountTxRateLimit: false })
  const [account] = provider.initialAccounts
  const wallet = new Wallet(account.secretKey)
  const raws = []
  for (let nonce = 0; nonce < ${TRANSFERS}; nonce++) {
    raws.push(await wallet.signTransaction({ type: 0, chainId: 33, nonce, gasLimit: 21000n, gasPrice: 0n, to: '0x7986b3df570230288501eea3d890bd66948c9b79', value: 1n }))
  }
  const start = performance.now()
  for (const raw of raws) {
    const hash = await provider.request({ method: 'eth_sendRawTransaction', params: [raw] })
    const receipt = await provider.request({ method: 'eth_getTransactionReceipt', params: [hash] })
    if (receipt.status !== '0x1') throw new Error('transfer failed')
  }
  const ms = (performance.now() - start) / ${TRANSFERS}
  writeFileSync(new URL('./result-${n}.json', import.meta.url), JSON.stringify({ file: ${n}, ms, pid: process.pid, end: Date.now() }))
  await provider.disconnect()
})
`

const MODES = [
  ['default (a new process per file)', []],
  ['--no-isolate', ['--no-isolate']],
  ['--no-file-parallelism', ['--no-file-parallelism']],
  ['--no-file-parallelism --no-isolate', ['--no-file-parallelism', '--no-isolate']],
]

const dir = mkdtempSync(path.join(tmpdir(), 'rsksim-vitest-files-'))
try {
  symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'))
  writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n')
  writeFileSync(path.join(dir, 'vitest.config.mjs'), "export default { test: { testTimeout: 120000 } }\n")
  for (let n = 1; n <= FILES; n++) writeFileSync(path.join(dir, `f${n}.test.mjs`), testFile(n))
  const vitest = path.join(root, 'node_modules/.bin/vitest')
  for (let run = 1; run <= Number(values.runs); run++) {
    for (const [name, flags] of MODES) {
      for (const f of readdirSync(dir)) if (f.startsWith('result-')) rmSync(path.join(dir, f))
      const start = performance.now()
      execFileSync(vitest, ['run', ...flags], { cwd: dir, stdio: 'ignore' })
      const wall = (performance.now() - start) / 1000
      const results = Array.from({ length: FILES }, (_, i) => JSON.parse(readFileSync(path.join(dir, `result-${i + 1}.json`), 'utf8')))
      results.sort((a, b) => a.end - b.end)
      const pids = [...new Set(results.map((r) => r.pid))]
      // Files in the order they ended, each with the process that ran it (p1, p2, ... in order of first appearance).
      const perFile = results.map((r) => `${r.ms.toFixed(2)} (p${pids.indexOf(r.pid) + 1})`).join(', ')
      console.log(`run ${run} | ${name} | ${wall.toFixed(1)} s | ms per transfer, files in the order they ended: ${perFile}`)
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
