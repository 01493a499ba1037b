// The workloads of issue 6, written once and run unchanged against every target through `t.request`.
// Each returns { value, detail? }; the row table in report.mjs says which way is better.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { spawn } from 'node:child_process'
import { Interface, Wallet, getCreateAddress } from 'ethers'
import { repoDir, benchDir } from './targets.mjs'

const contracts = JSON.parse(readFileSync(path.join(repoDir, 'test/fixtures/contracts.json'), 'utf8'))
const tokenAbi = new Interface(contracts.Token.abi)
const computeAbi = new Interface(contracts.Compute.abi)

/** Gas limit for every transaction and eth_call of the benchmark (rsksim's default call cap and block gas limit). */
export const GAS = 10_000_000n
const TRANSFER_GAS = 100_000n

/** How many operations one run of workload `id` performs with counts `c` (undefined for a workload not counted so). */
export function operationsOf(id, c) {
  return { transfers: c.transfers, sends: c.transfers, deploys: c.deploys, estimates: c.estimates, estimatesPending: c.estimates, fixtures: c.fixtures, mine: c.mineBlocks, calls: c.calls, keccak: c.computeReps, arith: c.computeReps, storage: c.computeReps }[id]
}

/** Iteration counts: full run, --quick, and the Ganache scaling (its JS VM takes ~20 ms per transaction). */
export function counts({ quick, target }) {
  const c = {
    transfers: 500,
    calls: 2_000,
    estimates: 1_000,
    deploys: 200,
    fixtures: 100,
    // Warm rows: the same operations again after this many untimed ones in the same process (V8 has compiled the
    // hot code by then; the rows above measure a fresh process's first operations).
    warmTransfers: 1_500,
    warmFixtures: 500,
    logsRange: 500,
    blockNumber: 5_000,
    // Compute-heavy eth_calls: the largest round n that fits every target's default 10M call gas (keccakLoop's
    // memory grows with n, so its gas is superlinear: 15,000 = 7.1M gas; arithLoop 75,000 = 9.3M; storageLoop
    // 400 = 8.1M on RSK's gas table, 8.9M on Ethereum's). rsksim takes 0.05-0.4 s on them.
    keccakN: 15_000,
    arithN: 75_000,
    storageN: 400,
    computeReps: 3,
    mineBlocks: 10_000,
    cyclesCheck: [100, 1_000],
    httpSeconds: 10,
    httpConnections: 10,
    // Manual mining (issue 13 item 5): blocks of `perBlock` ERC-20 transfers each, `evm_mine`d.
    multiBlocks: 32,
    perBlock: 16,
    // Forking (issue 16, lib/fork.mjs): the remote's funded accounts (each a token holder) and the transfers sent
    // through the fork, each from a different account.
    forkAccounts: 1_000,
    forkTransfers: 200,
  }
  if (quick) {
    Object.assign(c, { forkAccounts: 100, forkTransfers: 20, multiBlocks: 4, transfers: 50, deploys: 20, estimates: 100, calls: 200, fixtures: 10, warmTransfers: 50, warmFixtures: 10, logsRange: 50, blockNumber: 500, computeReps: 1, mineBlocks: 500, cyclesCheck: [10, 100], httpSeconds: 2, keccakN: 2_000, arithN: 5_000, storageN: 100 })
  } else if (target === 'ganache') {
    // Ganache is 10-100x slower per operation; fewer iterations keep the run short. Rates are per second, so they
    // stay comparable; the cells say when a count was scaled.
    Object.assign(c, { calls: 500, estimates: 200, deploys: 50, computeReps: 1, warmTransfers: 300, warmFixtures: 100 })
    c.scaled = ['calls', 'estimates', 'estimatesPending', 'deploys', 'keccak', 'arith', 'storage', 'transfersWarm', 'fixturesWarm']
  }
  c.scaled ??= []
  return c
}

function quantity(n) {
  return '0x' + BigInt(n).toString(16)
}

/** Per-target context: signer, chain id, gas price, current nonce. */
export async function prepare(t) {
  const wallet = new Wallet(t.key)
  const chainId = BigInt(await t.request('eth_chainId'))
  const gasPrice = BigInt(await t.request('eth_gasPrice'))
  const nonce = Number(BigInt(await t.request('eth_getTransactionCount', [wallet.address, 'latest'])))
  // clock: hooks around each timed section (bench/profile.mjs records a CPU profile there; no-ops otherwise).
  const clock = { start: async () => {}, stop: async () => {} }
  return { t, wallet, from: wallet.address.toLowerCase(), chainId, gasPrice, nonce, clock }
}

/** Signs a legacy (type 0) EIP-155 transaction with the target's chain id; consumes a nonce. */
function sign(ctx, { to, data, gasLimit = TRANSFER_GAS, nonce = ctx.nonce++ }) {
  return ctx.wallet.signTransaction({ type: 0, chainId: ctx.chainId, nonce, gasPrice: ctx.gasPrice, gasLimit, to, data, value: 0n })
}

function sendAndReceipt(t, raw) {
  return receiptOf(t, 'eth_sendRawTransaction', raw)
}

/** Sends one transaction by `method` and reads its receipt, waiting for it where the target mines after answering (Anvil). */
async function receiptOf(t, method, param) {
  const hash = await t.request(method, [param])
  let receipt = await t.request('eth_getTransactionReceipt', [hash])
  for (let i = 0; !receipt && i < 1000; i++) {
    await new Promise((r) => setTimeout(r, 1))
    receipt = await t.request('eth_getTransactionReceipt', [hash])
  }
  if (!receipt) throw new Error(`no receipt for ${hash} (automine off?)`)
  return receipt
}

async function deploy(ctx, artifact, args = []) {
  const iface = new Interface(artifact.abi)
  const data = artifact.bytecode + iface.encodeDeploy(args).slice(2)
  const nonce = ctx.nonce
  const raw = await sign(ctx, { to: null, data, gasLimit: 3_000_000n })
  const receipt = await sendAndReceipt(ctx.t, raw)
  if (receipt.status !== '0x1') throw new Error(`deploy failed: ${JSON.stringify(receipt)}`)
  return receipt.contractAddress ?? getCreateAddress({ from: ctx.from, nonce })
}

function recipient(i) {
  return '0x' + (0x1000 + i).toString(16).padStart(40, '0')
}

function transferData(i) {
  return tokenAbi.encodeFunctionData('transfer', [recipient(i), 1n])
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]
}

const mb = (bytes) => bytes / 1024 / 1024

// ---------------------------------------------------------------------------------------------------------------

export async function deployContracts(ctx) {
  ctx.token = await deploy(ctx, contracts.Token, [10n ** 30n])
  ctx.compute = await deploy(ctx, contracts.Compute)
}

/** `n` ERC-20 transfers to the recipients `recipient(0..n-1)`, signed at the next nonces. */
async function signTransfers(ctx, n) {
  const raws = []
  for (let i = 0; i < n; i++) raws.push(await sign(ctx, { to: ctx.token, data: transferData(i) }))
  return raws
}

/** 500 ERC-20 transfers, each sent raw and its receipt read. Signed before the clock starts: the simulator is timed, not ethers. */
export async function transfers(ctx, c, id = 'transfers') {
  const raws = await signTransfers(ctx, c.transfers)
  const { s, cpuUsPerTx, failed } = await timedSends(ctx, id, 'eth_sendRawTransaction', raws)
  if (failed) throw new Error(`${failed} transfers reverted`)
  return { value: c.transfers / s, cpuUsPerTx, detail: `${c.transfers} tx` }
}

/**
 * Sends each of `items` by `method` and reads its receipt, between the clock's hooks: the seconds taken, the CPU time
 * per transaction of the target's process, and how many did not succeed.
 */
async function timedSends(ctx, id, method, items) {
  await ctx.clock.start(id)
  const cpu0 = ctx.t.cpuMs()
  const t0 = performance.now()
  let failed = 0
  for (const item of items) if ((await receiptOf(ctx.t, method, item)).status !== '0x1') failed++
  const s = (performance.now() - t0) / 1000
  // Every thread of the process: in a fresh process V8's compiler threads are a large part of it (docs/performance.md,
  // nineteenth round).
  const cpuMs = ctx.t.cpuMs() - cpu0
  await ctx.clock.stop(id)
  return { s, cpuUsPerTx: (cpuMs * 1000) / items.length, failed }
}

/**
 * The transfers row again after `c.warmTransfers` untimed transfers in the same process (signed in batches of 500
 * before each batch is sent: ethers is not timed).
 */
export async function transfersWarm(ctx, c) {
  for (let done = 0; done < c.warmTransfers; done += 500) {
    for (const raw of await signTransfers(ctx, Math.min(500, c.warmTransfers - done))) {
      if ((await sendAndReceipt(ctx.t, raw)).status !== '0x1') throw new Error('warm-up transfer reverted')
    }
  }
  const r = await transfers(ctx, c, 'transfersWarm')
  ctx.cycle = undefined // the fixture cycle's transactions were signed at nonces these transfers have now used
  return { ...r, detail: `${c.transfers} tx after ${c.warmTransfers.toLocaleString('en-US')} untimed` }
}

/**
 * ERC-20 transfers sent with `eth_sendTransaction` from the target's funded account, which the node holds and signs
 * for (as Hardhat tests' signers do), each with its receipt read. Same count as `transfers`.
 */
export async function sends(ctx, c) {
  // Encoded before the clock starts: the simulator is timed, not ethers' ABI encoder.
  const txs = Array.from({ length: c.transfers }, (_, i) => ({ from: ctx.from, to: ctx.token, data: transferData(30_000 + i), gas: quantity(TRANSFER_GAS), gasPrice: quantity(ctx.gasPrice) }))
  const { s, cpuUsPerTx, failed } = await timedSends(ctx, 'sends', 'eth_sendTransaction', txs)
  ctx.nonce += c.transfers
  ctx.cycle = undefined // signed at nonces these transfers have now used
  if (failed) throw new Error(`${failed} transfers failed`)
  return { value: c.transfers / s, cpuUsPerTx, detail: `${c.transfers} tx` }
}

/**
 * Contract deployments: the `Token` fixture (2,241 bytes of initcode with its argument) sent raw, signed beforehand,
 * each with its receipt (status 1). The client's signed strings are read once before the clock starts: ethers builds
 * them by concatenation, and the first read of each (V8 flattening it, about 140 µs for this length) would be timed
 * on every target alike without being the simulator's work.
 */
export async function deploys(ctx, c) {
  const iface = new Interface(contracts.Token.abi)
  const data = contracts.Token.bytecode + iface.encodeDeploy([10n ** 30n]).slice(2)
  const raws = []
  for (let i = 0; i < c.deploys; i++) raws.push(await sign(ctx, { to: null, data, gasLimit: 3_000_000n }))
  for (const raw of raws) raw.charCodeAt(raw.length - 1)
  const { s, cpuUsPerTx, failed } = await timedSends(ctx, 'deploys', 'eth_sendRawTransaction', raws)
  ctx.cycle = undefined // signed at nonces these deployments have now used
  if (failed) throw new Error(`${failed} deployments failed`)
  return { value: c.deploys / s, cpuUsPerTx, detail: `${c.deploys} deployments, ${(data.length - 2) / 2} bytes each` }
}

/** Automine off or on: `evm_setAutomine` (rsksim, Hardhat, Anvil), or Ganache's `miner_stop` / `miner_start`. */
async function setAutomine(t, on) {
  try {
    await t.request('evm_setAutomine', [on])
  } catch {
    await t.request(on ? 'miner_start' : 'miner_stop')
  }
}

/**
 * Manual mining (issue 13 item 5): automine off, then per block 16 ERC-20 transfers sent raw, one `evm_mine`, and
 * the 16 receipts read (each must be mined in that block and succeed). tx/s, and the CPU time per transaction of
 * the process that runs the simulator (in process: this one, the client's share included; HTTP: the server's).
 */
export async function multiTxBlocks(ctx, c) {
  const blocks = []
  for (let b = 0; b < c.multiBlocks; b++) {
    const raws = []
    for (let i = 0; i < c.perBlock; i++) raws.push(await sign(ctx, { to: ctx.token, data: transferData(20_000 + b * c.perBlock + i) }))
    blocks.push(raws)
  }
  await setAutomine(ctx.t, false)
  try {
    await ctx.clock.start('multiTxBlocks')
    const cpu0 = ctx.t.cpuMs()
    const t0 = performance.now()
    for (const raws of blocks) {
      const hashes = []
      for (const raw of raws) hashes.push(await ctx.t.request('eth_sendRawTransaction', [raw]))
      await ctx.t.request('evm_mine')
      let block
      for (const hash of hashes) {
        const r = await ctx.t.request('eth_getTransactionReceipt', [hash])
        if (!r || r.status !== '0x1') throw new Error(`transfer ${hash} not mined or reverted`)
        if (block !== undefined && r.blockNumber !== block) throw new Error(`the ${c.perBlock} transfers went into more than one block`)
        block = r.blockNumber
      }
    }
    const s = (performance.now() - t0) / 1000
    const cpuMs = ctx.t.cpuMs() - cpu0
    await ctx.clock.stop('multiTxBlocks')
    const n = c.multiBlocks * c.perBlock
    return { value: n / s, cpuUsPerTx: (cpuMs * 1000) / n, detail: `${c.multiBlocks} blocks × ${c.perBlock} tx` }
  } finally {
    await setAutomine(ctx.t, true)
  }
}

export async function calls(ctx, c) {
  const data = tokenAbi.encodeFunctionData('balanceOf', [ctx.from])
  const call = { from: ctx.from, to: ctx.token, data }
  const first = await ctx.t.request('eth_call', [call, 'latest'])
  if (BigInt(first) === 0n) throw new Error('balanceOf returned 0')
  await ctx.clock.start('calls')
  const t0 = performance.now()
  for (let i = 0; i < c.calls; i++) await ctx.t.request('eth_call', [call, 'latest'])
  await ctx.clock.stop('calls')
  return { value: c.calls / ((performance.now() - t0) / 1000), detail: `${c.calls} calls` }
}

/**
 * `eth_estimateGas` of a token `transfer` to a new recipient each time (what ethers and viem ask before sending a
 * contract write without a gas limit): without a block (the head), or at block `tag` when given.
 */
export async function estimates(ctx, c, tag) {
  const reqs = Array.from({ length: c.estimates }, (_, i) => ({ from: ctx.from, to: ctx.token, data: transferData((tag === undefined ? 20_000 : 40_000) + i) }))
  const params = (req) => (tag === undefined ? [req] : [req, tag])
  const first = BigInt(await ctx.t.request('eth_estimateGas', params(reqs[0])))
  if (first < 21_000n) throw new Error(`estimate ${first}`)
  const id = tag === undefined ? 'estimates' : 'estimatesPending'
  await ctx.clock.start(id)
  const t0 = performance.now()
  for (const req of reqs) await ctx.t.request('eth_estimateGas', params(req))
  await ctx.clock.stop(id)
  return { value: c.estimates / ((performance.now() - t0) / 1000), detail: `${c.estimates} estimates` }
}

/** The estimates row at `pending`, as hardhat-ethers asks before every write (`HardhatEthersProvider.estimateGas`). */
export const estimatesPending = (ctx, c) => estimates(ctx, c, 'pending')

/** eth_getLogs over the last `logsRange` blocks (the transfer blocks): median of 5 requests, ms. */
export async function getLogs(ctx, c) {
  const head = Number(BigInt(await ctx.t.request('eth_blockNumber')))
  const range = Math.min(c.logsRange, head)
  const filter = { fromBlock: quantity(head - range + 1), toBlock: quantity(head), address: ctx.token }
  const times = []
  let n = 0
  await ctx.clock.start('getLogs')
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now()
    n = (await ctx.t.request('eth_getLogs', [filter])).length
    times.push(performance.now() - t0)
  }
  await ctx.clock.stop('getLogs')
  if (n < Math.min(range, c.transfers)) throw new Error(`only ${n} logs over ${range} blocks`)
  return { value: median(times), detail: `${range} blocks, ${n} logs` }
}

export async function blockNumber(ctx, c) {
  const t0 = performance.now()
  for (let i = 0; i < c.blockNumber; i++) await ctx.t.request('eth_blockNumber')
  return { value: c.blockNumber / ((performance.now() - t0) / 1000), detail: `${c.blockNumber} calls` }
}

/** The three transfers of a fixture cycle, signed once: after evm_revert the nonces are the same again. */
async function cycleTxs(ctx) {
  if (!ctx.cycle) {
    const base = ctx.nonce
    ctx.cycle = []
    for (let i = 0; i < 3; i++) ctx.cycle.push(await sign(ctx, { to: ctx.token, data: transferData(10_000 + i), nonce: base + i }))
    ctx.nonce = base // reverted every time: the nonces are never consumed
  }
  return ctx.cycle
}

async function fixtureCycle(ctx) {
  const txs = await cycleTxs(ctx)
  const id = await ctx.t.request('evm_snapshot')
  for (const raw of txs) if ((await sendAndReceipt(ctx.t, raw)).status !== '0x1') throw new Error('cycle transfer reverted')
  const ok = await ctx.t.request('evm_revert', [id])
  if (ok !== true) throw new Error(`evm_revert answered ${JSON.stringify(ok)}`)
}

export async function fixtures(ctx, c, id = 'fixtures') {
  await fixtureCycle(ctx) // warm-up and check
  await ctx.clock.start(id)
  const t0 = performance.now()
  for (let i = 0; i < c.fixtures; i++) await fixtureCycle(ctx)
  await ctx.clock.stop(id)
  return { value: c.fixtures / ((performance.now() - t0) / 1000), detail: `${c.fixtures} cycles` }
}

/** The fixture-cycle row again after `c.warmFixtures` untimed cycles in the same process. */
export async function fixturesWarm(ctx, c) {
  for (let i = 0; i < c.warmFixtures; i++) await fixtureCycle(ctx)
  const r = await fixtures(ctx, c, 'fixturesWarm')
  return { ...r, detail: `${c.fixtures} cycles after ${c.warmFixtures.toLocaleString('en-US')} untimed` }
}

async function computeCall(ctx, c, fn, n) {
  const call = { from: ctx.from, to: ctx.compute, data: computeAbi.encodeFunctionData(fn, [n]), gas: quantity(GAS) }
  await ctx.t.request('eth_call', [call, 'latest']) // also checks it fits the gas
  const times = []
  await ctx.clock.start(fn)
  for (let i = 0; i < c.computeReps; i++) {
    const t0 = performance.now()
    await ctx.t.request('eth_call', [call, 'latest'])
    times.push(performance.now() - t0)
  }
  await ctx.clock.stop(fn)
  return { value: median(times), detail: `n=${n}, median of ${c.computeReps}` }
}
export const keccak = (ctx, c) => computeCall(ctx, c, 'keccakLoop', c.keccakN)
export const arith = (ctx, c) => computeCall(ctx, c, 'arithLoop', c.arithN)
export const storage = (ctx, c) => computeCall(ctx, c, 'storageLoop', c.storageN)

/** HTTP throughput under concurrency: autocannon in its own process (so it does not share a core's event loop with the server). */
async function cannon(ctx, c, body) {
  if (ctx.t.kind !== 'http') return { skip: 'in process: no HTTP server' }
  const bin = path.join(benchDir, 'node_modules/autocannon/autocannon.js')
  const args = [bin, '-c', String(c.httpConnections), '-d', String(c.httpSeconds), '-m', 'POST', '-H', 'content-type=application/json', '-b', JSON.stringify(body), '--json', ctx.t.url]
  const cpu0 = ctx.t.cpuMs()
  const out = await new Promise((resolve, reject) => {
    const p = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] })
    let s = ''
    p.stdout.on('data', (d) => (s += d))
    p.on('exit', (code) => (code === 0 ? resolve(s) : reject(new Error(`autocannon exited ${code}`))))
  })
  const cpuUs = ((ctx.t.cpuMs() - cpu0) * 1000) / JSON.parse(out).requests.total
  const r = JSON.parse(out)
  if (r.non2xx || r.errors) throw new Error(`${r.non2xx} non-2xx, ${r.errors} errors`)
  return { value: r.requests.average, cpuUsPerReq: cpuUs, detail: `${c.httpConnections} connections, ${c.httpSeconds} s, p99 ${r.latency.p99} ms` }
}
export const httpBlockNumber = (ctx, c) => cannon(ctx, c, { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] })
export const httpCall = (ctx, c) =>
  cannon(ctx, c, { jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ from: ctx.from, to: ctx.token, data: tokenAbi.encodeFunctionData('balanceOf', [ctx.from]) }, 'latest'] })

/** Mines 10,000 empty blocks with evm_mine; memory before/after (heap after a full GC; RSS), and blocks/s. */
export async function mine(ctx, c) {
  const before = await ctx.t.memory()
  const t0 = performance.now()
  await ctx.clock.start('mine')
  for (let i = 0; i < c.mineBlocks; i++) await ctx.t.request('evm_mine')
  await ctx.clock.stop('mine')
  const s = (performance.now() - t0) / 1000
  const after = await ctx.t.memory()
  const out = {
    rate: { value: c.mineBlocks / s, detail: `${c.mineBlocks} blocks` },
    rssGrowth: { value: mb(after.rss - before.rss), detail: `RSS ${mb(before.rss).toFixed(0)} → ${mb(after.rss).toFixed(0)} MB` },
  }
  if (before.heapUsed === undefined) out.heap = { skip: 'native process: no JS heap' }
  else
    out.heap = { value: mb(after.heapUsed - before.heapUsed), detail: `heap ${mb(before.heapUsed).toFixed(1)} → ${mb(after.heapUsed).toFixed(1)} MB`, before: mb(before.heapUsed), after: mb(after.heapUsed), blocks: c.mineBlocks }
  return out
}

/** Issue 3's memory check: memory after 1,000 fixture cycles (snapshot, 3 transfers, revert) vs after 100. */
export async function cyclesMemory(ctx, c) {
  const [first, last] = c.cyclesCheck
  for (let i = 0; i < first; i++) await fixtureCycle(ctx)
  const a = await ctx.t.memory()
  for (let i = first; i < last; i++) await fixtureCycle(ctx)
  const b = await ctx.t.memory()
  const field = b.heapUsed !== undefined ? 'heapUsed' : 'rss'
  const label = field === 'heapUsed' ? 'heap' : 'RSS'
  return { value: mb(b[field] - a[field]), detail: `${label} ${mb(a[field]).toFixed(1)} → ${mb(b[field]).toFixed(1)} MB (${first} → ${last} cycles)`, before: mb(a[field]), after: mb(b[field]), field }
}
