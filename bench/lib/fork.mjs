// The fork workload (issue 16): fork a remote rsksim that holds 1,000 funded accounts and a token with 1,000 holders,
// then send 200 token transfers through the fork, each from a different remote account, cold (empty fork cache) and
// warm (the cache the cold run left), on rsksim (in process) and on Anvil forking the same remote in the same run;
// plus, as the reference, the same transfers on rsksim without a fork over the remote's state (loadState).
//
// One file, three roles, each its own process:
//   runFork()                       in bench/run.mjs: starts the remote, runs the measurements one after another
//   node fork.mjs remote            the remote: rsksim's startServer, set up, behind a counting HTTP proxy
//   node fork.mjs measure …         one measurement: one target, cold or warm (Anvil: spawned from here)
//
// The remote and its proxy live in a process of their own, so their CPU is neither the target's nor the client's
// (on 2 cores they still share the machine with it, as a real remote does not; they sit idle between requests). The
// proxy counts every HTTP request and every JSON-RPC call (a batch's elements one by one) it forwards, so the request
// counts are measured outside the target; a measurement reads them (GET /__counts, not counted) at the boundaries of
// its phases. Cold and warm run in fresh processes: "warm" is the next run (next test file, next `vitest`), which
// shares nothing with the cold one but the disk cache: rsksim's `fork.cache` directory, Anvil's
// `~/.foundry/cache/rpc/<chain>/<block>/storage.json` under a temporary HOME, written when Anvil exits.
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { Interface, Wallet, computeAddress, keccak256, toUtf8Bytes } from 'ethers'
import { NO_QUOTA, benchDir, repoDir, firstAnswer, freePort } from './targets.mjs'
import { httpRpc } from './rpc-http.mjs'
import { cpuMsOfPid, cpuMsOfSelf } from './cpu.mjs'

const here = fileURLToPath(import.meta.url)
const contracts = JSON.parse(readFileSync(path.join(repoDir, 'test/fixtures/contracts.json'), 'utf8'))
const tokenAbi = new Interface(contracts.Token.abi)
const ANVIL = path.join(benchDir, 'node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil')

/** The fork workload's targets, in the columns' order. */
export const FORK_TARGETS = ['rsksim', 'anvil']
/**
 * Column ids, target.phase. `rsksim.local` is the reference: the same 200 transfers on rsksim without a fork, over
 * the remote's state loaded from its dump (`provider.loadState`) in a fresh process, so the fork's own cost shows.
 */
export const FORK_CELLS = ['rsksim.cold', 'rsksim.warm', 'rsksim.local', 'anvil.cold', 'anvil.warm']
/** Which measurements each target makes, in order (warm reuses cold's directory). */
const PHASES = { rsksim: ['cold', 'warm', 'local'], anvil: ['cold', 'warm'] }

/** Balance of each of the remote's accounts, wei (10^6 RBTC). */
const ACCOUNT_BALANCE = 10n ** 24n
/** Tokens the deployer mints (Token's constructor) and what each holder gets from it. */
const SUPPLY = 10n ** 30n
const holderAmount = (i) => 10n ** 21n + BigInt(i)
/** Tokens moved by each measured transfer. */
const AMOUNT = 10n ** 18n
/** Transfers per block while the remote is set up (automine off): 16, what RSKj's pool takes of one sender (ACCOUNT_SLOTS). */
const SETUP_PER_BLOCK = 16
/** Empty blocks mined on the remote after the setup. */
const SETUP_TAIL_BLOCKS = 5

/** Private key of the remote's account i: keccak256("rsksim-bench-fork/i"), the same in every process. */
export function forkKey(i) {
  return keccak256(toUtf8Bytes(`rsksim-bench-fork/${i}`))
}

/** Which accounts send and receive: senders 1..n, recipients from the upper half (other holders). */
function roles(c) {
  if (c.forkTransfers >= c.forkAccounts / 2) throw new Error('fork: need fewer transfers than half the accounts')
  const senders = Array.from({ length: c.forkTransfers }, (_, i) => 1 + i)
  const recipients = senders.map((_, i) => Math.floor(c.forkAccounts / 2) + i)
  return { senders, recipients }
}

function quantity(n) {
  return '0x' + BigInt(n).toString(16)
}

function reason(e) {
  return String(e?.message ?? e).split('\n')[0].slice(0, 200)
}

// --------------------------------------------------------------------------------------------------------------
// The remote (child process): rsksim with the accounts and the token, and the counting proxy in front of it.

async function remoteMain(c, dumpPath) {
  const t0 = performance.now()
  const { startServer } = await import(pathToFileURL(path.join(repoDir, 'dist/index.js')).href)
  const keys = Array.from({ length: c.forkAccounts }, (_, i) => forkKey(i))
  const addresses = keys.map((k) => computeAddress(k).toLowerCase())
  const server = await startServer({
    port: 0,
    host: '127.0.0.1',
    ...NO_QUOTA,
    accounts: keys.map((secretKey) => ({ secretKey, balance: ACCOUNT_BALANCE })),
  })
  const request = (method, params = []) => server.provider.request({ method, params })
  const deployer = addresses[0]
  const receipt = async (hash) => {
    const r = await request('eth_getTransactionReceipt', [hash])
    if (!r || r.status !== '0x1') throw new Error(`remote setup: ${hash} not mined or reverted`)
    return r
  }
  const deployHash = await request('eth_sendTransaction', [
    { from: deployer, data: contracts.Token.bytecode + tokenAbi.encodeDeploy([SUPPLY]).slice(2), gas: quantity(3_000_000) },
  ])
  const token = (await receipt(deployHash)).contractAddress
  // Every other account becomes a holder, in blocks of SETUP_PER_BLOCK transfers.
  await request('evm_setAutomine', [false])
  let pending = []
  for (let i = 1; i < c.forkAccounts; i++) {
    const data = tokenAbi.encodeFunctionData('transfer', [addresses[i], holderAmount(i)])
    pending.push(await request('eth_sendTransaction', [{ from: deployer, to: token, data, gas: quantity(100_000) }]))
    if (pending.length === SETUP_PER_BLOCK || i === c.forkAccounts - 1) {
      await request('evm_mine')
      for (const h of pending) await receipt(h)
      pending = []
    }
  }
  await request('evm_setAutomine', [true])
  for (let i = 0; i < SETUP_TAIL_BLOCKS; i++) await request('evm_mine')
  const head = Number(BigInt(await request('eth_blockNumber')))
  const chainId = Number(BigInt(await request('eth_chainId')))
  const { senders } = roles(c)
  for (const s of [senders[0], senders[senders.length - 1]]) {
    if (BigInt(await request('eth_getTransactionCount', [addresses[s], 'latest'])) !== 0n) throw new Error('remote setup: a sender has sent already')
  }

  // The state, for the no-fork reference (rsksim.local).
  writeFileSync(dumpPath, JSON.stringify(await server.provider.dumpState()))

  const proxy = await countingProxy(server.url)
  process.send({
    ready: true,
    url: proxy.url,
    countsUrl: proxy.countsUrl,
    block: head,
    chainId,
    token,
    accounts: c.forkAccounts,
    holders: c.forkAccounts,
    setupMs: performance.now() - t0,
  })
  process.on('message', async (m) => {
    if (m === 'close') {
      await proxy.close()
      await server.close()
      process.exit(0)
    }
  })
  process.on('disconnect', () => process.exit(0))
}

/**
 * An HTTP proxy to `target` that counts what it forwards: HTTP requests, JSON-RPC calls (each element of a batch
 * once) and calls per method. GET /__counts answers the counts so far, with this process's CPU time (the remote's
 * and the proxy's), and is not counted.
 */
async function countingProxy(target) {
  const counts = { httpRequests: 0, calls: 0, methods: {} }
  const agent = new http.Agent({ keepAlive: true })
  const to = new URL(target)
  const server = http.createServer((req, res) => {
    const chunks = []
    req.on('data', (d) => chunks.push(d))
    req.on('end', () => {
      if (req.method === 'GET' && req.url === '/__counts') {
        const u = process.cpuUsage()
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...counts, cpuMs: (u.user + u.system) / 1000 }))
        return
      }
      const body = Buffer.concat(chunks)
      counts.httpRequests++
      let calls = []
      try {
        const parsed = JSON.parse(body.toString('utf8'))
        calls = Array.isArray(parsed) ? parsed : [parsed]
      } catch {
        calls = [{ method: '(not JSON)' }]
      }
      for (const call of calls) {
        counts.calls++
        const m = typeof call?.method === 'string' ? call.method : '(no method)'
        counts.methods[m] = (counts.methods[m] ?? 0) + 1
      }
      const out = http.request(
        { hostname: to.hostname, port: to.port, path: to.pathname, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': body.length } },
        (up) => {
          const parts = []
          up.on('data', (d) => parts.push(d))
          up.on('end', () => {
            const reply = Buffer.concat(parts)
            res.writeHead(up.statusCode ?? 502, { 'content-type': up.headers['content-type'] ?? 'application/json', 'content-length': reply.length }).end(reply)
          })
          up.on('error', () => res.writeHead(502).end())
        },
      )
      out.on('error', () => res.writeHead(502).end())
      out.end(body)
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address()
  return {
    url: `http://127.0.0.1:${port}/`,
    countsUrl: `http://127.0.0.1:${port}/__counts`,
    close: () =>
      new Promise((resolve) => {
        agent.destroy()
        server.closeAllConnections?.()
        server.close(() => resolve())
      }),
  }
}

// --------------------------------------------------------------------------------------------------------------
// One measurement (child process): start the target forking the proxy, then the transfers.

async function getCounts(url) {
  const r = await fetch(url)
  if (!r.ok) throw new Error(`counting proxy answered ${r.status}`)
  return r.json()
}

/** What the proxy saw between two readings. */
function diff(a, b) {
  const methods = {}
  for (const [m, n] of Object.entries(b.methods)) if (n - (a.methods[m] ?? 0) > 0) methods[m] = n - (a.methods[m] ?? 0)
  return { httpRequests: b.httpRequests - a.httpRequests, calls: b.calls - a.calls, methods, remoteCpuMs: b.cpuMs - a.cpuMs }
}

/** Bytes under `dir`, all files. */
function du(dir) {
  let n = 0
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) n += statSync(path.join(e.parentPath ?? e.path, e.name)).size
  }
  return n
}

/** Starts a forking target; the clock runs from just before the import (rsksim) or spawn (Anvil) to its first answer. */
async function startForked(target, phase, remote, dir) {
  if (target === 'rsksim' && phase === 'local') {
    const { createProvider } = await import(pathToFileURL(path.join(repoDir, 'dist/index.js')).href)
    const provider = await createProvider(NO_QUOTA)
    const request = (method, params = []) => provider.request({ method, params })
    await request('eth_blockNumber')
    // After the startup clock: the remote's accounts, token and holders, loaded from its dump.
    const loadState = async () => {
      const t0 = performance.now()
      await provider.loadState(JSON.parse(readFileSync(remote.dumpPath, 'utf8')))
      return performance.now() - t0
    }
    return { request, loadState, cpuMs: cpuMsOfSelf, cpuOf: 'whole process (simulator and client)', close: () => provider.disconnect() }
  }
  if (target === 'rsksim') {
    const { createProvider } = await import(pathToFileURL(path.join(repoDir, 'dist/index.js')).href)
    const provider = await createProvider({ ...NO_QUOTA, fork: { url: remote.url, blockNumber: remote.block, cache: dir } })
    const request = (method, params = []) => provider.request({ method, params })
    await request('eth_blockNumber')
    return { request, cpuMs: cpuMsOfSelf, cpuOf: 'whole process (simulator and client)', close: () => provider.disconnect() }
  }
  if (target === 'anvil') {
    const port = await freePort()
    // HOME is the measurement's temporary directory: Anvil keeps its fork cache in ~/.foundry/cache/rpc (written
    // when it exits) and reads no foundry.toml of the user's.
    const child = spawn(ANVIL, ['--fork-url', remote.url, '--fork-block-number', String(remote.block), '--port', String(port), '--host', '127.0.0.1', '--quiet'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, HOME: dir, XDG_CONFIG_HOME: path.join(dir, '.config'), XDG_CACHE_HOME: path.join(dir, '.cache') },
    })
    let stderr = ''
    child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-2000)))
    const exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => resolve({ code, signal }))
      child.once('error', (e) => resolve({ code: e.message }))
    })
    const rpc = httpRpc(`http://127.0.0.1:${port}/`)
    try {
      await Promise.race([
        firstAnswer(rpc, 60_000),
        exited.then(({ code, signal }) => {
          throw new Error(`anvil exited (${code ?? signal}): ${stderr.trim().split('\n').pop() ?? ''}`)
        }),
      ])
    } catch (e) {
      child.kill('SIGKILL')
      throw e
    }
    return {
      request: rpc.request,
      cpuMs: () => cpuMsOfPid(child.pid),
      cpuOf: 'anvil process',
      close: async () => {
        rpc.close()
        // SIGTERM: Anvil writes its fork cache (storage.json) on the way out; the warm run needs it.
        child.kill('SIGTERM')
        const t = setTimeout(() => child.kill('SIGKILL'), 15_000)
        await exited
        clearTimeout(t)
      },
    }
  }
  throw new Error(`fork: unknown target ${target}`)
}

async function sendAndReceipt(request, raw) {
  const hash = await request('eth_sendRawTransaction', [raw])
  let receipt = await request('eth_getTransactionReceipt', [hash])
  for (let i = 0; !receipt && i < 1000; i++) {
    await new Promise((r) => setTimeout(r, 1))
    receipt = await request('eth_getTransactionReceipt', [hash])
  }
  if (!receipt) throw new Error(`no receipt for ${hash}`)
  return receipt
}

async function measureMain(target, phase, dir, remote, c) {
  const emit = (r) => process.stdout.write('RESULT ' + JSON.stringify({ target, phase, ...r }) + '\n')
  const { senders, recipients } = roles(c)
  // Keys and addresses before the clock: they are the client's work, not the target's.
  const wallets = senders.map((i) => new Wallet(forkKey(i)))
  const to = recipients.map((i) => computeAddress(forkKey(i)))

  const c0 = await getCounts(remote.countsUrl)
  const t0 = performance.now()
  let t
  try {
    t = await startForked(target, phase, remote, dir)
  } catch (e) {
    emit({ na: reason(e) })
    return
  }
  const startupMs = performance.now() - t0
  const c1 = await getCounts(remote.countsUrl)
  try {
    const loadMs = t.loadState ? await t.loadState() : undefined
    // Before the clock: chain id and gas price from the target, the 200 transactions signed (each sender's first:
    // the remote set-up checked they have sent nothing).
    const chainId = BigInt(await t.request('eth_chainId'))
    if (chainId !== BigInt(remote.chainId)) throw new Error(`the fork has chain id ${chainId}, the remote ${remote.chainId}`)
    const gasPrice = BigInt(await t.request('eth_gasPrice'))
    const raws = []
    for (let i = 0; i < wallets.length; i++) {
      const data = tokenAbi.encodeFunctionData('transfer', [to[i], AMOUNT])
      raws.push(await wallets[i].signTransaction({ type: 0, chainId, nonce: 0, gasPrice, gasLimit: 100_000n, to: remote.token, data, value: 0n }))
    }
    const c2 = await getCounts(remote.countsUrl)
    const cpu0 = t.cpuMs()
    const t1 = performance.now()
    // Per transfer, as a wallet sends from an account it has not used on this chain: its nonce, the raw
    // transaction, the receipt.
    let gasUsed
    for (let i = 0; i < raws.length; i++) {
      const nonce = BigInt(await t.request('eth_getTransactionCount', [wallets[i].address, 'latest']))
      if (nonce !== 0n) throw new Error(`sender ${wallets[i].address} has nonce ${nonce} on the fork, 0 on the remote`)
      const r = await sendAndReceipt(t.request, raws[i])
      if (r.status !== '0x1') throw new Error(`transfer ${i} reverted`)
      gasUsed ??= Number(BigInt(r.gasUsed))
    }
    const transfersMs = performance.now() - t1
    const cpuMs = t.cpuMs() - cpu0
    const c3 = await getCounts(remote.countsUrl)
    // After the clock: the balances moved as they should (first and last transfer), read on the fork.
    const balanceOf = async (who) => BigInt(await t.request('eth_call', [{ to: remote.token, data: tokenAbi.encodeFunctionData('balanceOf', [who]) }, 'latest']))
    for (const k of [0, raws.length - 1]) {
      const got = [await balanceOf(wallets[k].address), await balanceOf(to[k])]
      const want = [holderAmount(senders[k]) - AMOUNT, holderAmount(recipients[k]) + AMOUNT]
      if (got[0] !== want[0] || got[1] !== want[1]) throw new Error(`balances after transfer ${k}: ${got} on the fork, expected ${want}`)
    }
    const cpuOf = t.cpuOf
    await t.close()
    t = undefined
    emit({
      startupMs,
      startup: diff(c0, c1),
      prepare: diff(c1, c2),
      transfersMs,
      transfers: diff(c2, c3),
      tps: raws.length / (transfersMs / 1000),
      cpuUsPerTx: (cpuMs * 1000) / raws.length,
      cpuOf,
      gasPrice: gasPrice.toString(),
      gasUsed,
      cacheBytes: phase === 'local' ? undefined : du(dir),
      loadMs,
      n: raws.length,
    })
  } catch (e) {
    emit({ na: reason(e), startupMs, startup: diff(c0, c1) })
  } finally {
    await t?.close()
  }
}

// --------------------------------------------------------------------------------------------------------------
// The orchestration, called by run.mjs.

const live = new Set()
function killAll() {
  for (const child of live) {
    try {
      // Measurements run in a process group of their own (Anvil included): one signal ends both.
      if (child.group) process.kill(-child.pid, 'SIGKILL')
      else child.kill('SIGKILL')
    } catch {}
  }
}
let hooked = false
function hookExit() {
  if (hooked) return
  hooked = true
  process.on('exit', killAll)
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.on(sig, () => {
      killAll()
      process.exit(130)
    })
  }
}

function startRemote(c, dumpPath, timeoutMs) {
  return new Promise((resolve, reject) => {
    const args = [here, 'remote', '--accounts', String(c.forkAccounts), '--transfers', String(c.forkTransfers), '--dump', dumpPath]
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] })
    live.add(child)
    let err = ''
    child.stderr.on('data', (d) => (err = (err + d).slice(-4000)))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`remote set-up timed out after ${timeoutMs / 1000} s`))
    }, timeoutMs)
    child.once('message', (m) => {
      clearTimeout(timer)
      resolve({ ...m, dumpPath, child })
    })
    child.once('exit', (code) => {
      clearTimeout(timer)
      live.delete(child)
      reject(new Error(`remote exited with ${code}: ${err.trim().split('\n').pop() ?? ''}`))
    })
  })
}

function stopRemote(remote) {
  return new Promise((resolve) => {
    const { child } = remote
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const t = setTimeout(() => child.kill('SIGKILL'), 5_000)
    child.once('exit', () => {
      clearTimeout(t)
      live.delete(child)
      resolve()
    })
    child.send('close')
  })
}

function measure(target, phase, dir, remote, c, timeoutMs) {
  return new Promise((resolve) => {
    const args = [
      '--expose-gc', here, 'measure', '--target', target, '--phase', phase, '--dir', dir,
      '--remote', JSON.stringify({ url: remote.url, countsUrl: remote.countsUrl, block: remote.block, chainId: remote.chainId, token: remote.token, dumpPath: remote.dumpPath }),
      '--accounts', String(c.forkAccounts), '--transfers', String(c.forkTransfers),
    ]
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    child.group = true
    live.add(child)
    let out = ''
    let err = ''
    let result
    child.stdout.on('data', (d) => {
      out += d
      let i
      while ((i = out.indexOf('\n')) >= 0) {
        const line = out.slice(0, i)
        out = out.slice(i + 1)
        if (line.startsWith('RESULT ')) result = JSON.parse(line.slice(7))
      }
    })
    child.stderr.on('data', (d) => (err = (err + d).slice(-4000)))
    const timer = setTimeout(() => {
      err += `\ntimed out after ${timeoutMs / 60_000} min`
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {}
    }, timeoutMs)
    child.on('exit', (code) => {
      clearTimeout(timer)
      live.delete(child)
      // Nothing left of the group (Anvil if the measurement died before stopping it).
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {}
      resolve(result ?? { target, phase, na: (err.trim().split('\n').pop() || `measurement exited with ${code}`).slice(0, 200) })
    })
  })
}

/**
 * Runs the fork workload: one remote, then for each round and each target (order reversed every other round) a cold
 * measurement in a fresh temporary directory and a warm one over the same directory. Each cell is the round with the
 * median transfer time. `log(line)` prints progress.
 */
export async function runFork({ targets, c, rounds = 1, timeoutMin = 20, log = () => {} }) {
  const forkTargets = FORK_TARGETS.filter((t) => targets.includes(t))
  if (forkTargets.length === 0) return { skip: `measures ${FORK_TARGETS.join(' and ')} only` }
  hookExit()
  const timeoutMs = timeoutMin * 60_000
  log(`fork: setting up the remote (${c.forkAccounts.toLocaleString('en-US')} accounts, Token, ${c.forkAccounts - 1} holder transfers) …`)
  const runDir = mkdtempSync(path.join(os.tmpdir(), 'rsksim-bench-fork-'))
  let remote
  try {
    remote = await startRemote(c, path.join(runDir, 'remote-state.json'), timeoutMs)
  } catch (e) {
    rmSync(runDir, { recursive: true, force: true })
    return { na: reason(e) }
  }
  log(`fork: remote ready in ${(remote.setupMs / 1000).toFixed(1)} s, chain id ${remote.chainId}, forking block ${remote.block}`)
  const loadBefore = os.loadavg()[0]
  const perCell = Object.fromEntries(FORK_CELLS.map((id) => [id, []]))
  try {
    for (let r = 0; r < rounds; r++) {
      for (const target of r % 2 === 0 ? forkTargets : [...forkTargets].reverse()) {
        const dir = mkdtempSync(path.join(runDir, `${target}-`))
        try {
          for (const phase of PHASES[target]) {
            const res = await measure(target, phase, dir, remote, c, timeoutMs)
            perCell[`${target}.${phase}`].push(res)
            log(`  fork ${`${target} ${phase}`.padEnd(12)} ${res.na ? `n/a: ${res.na}` : summary(res)}`)
          }
        } finally {
          rmSync(dir, { recursive: true, force: true })
        }
      }
    }
  } finally {
    await stopRemote(remote)
    rmSync(runDir, { recursive: true, force: true })
  }
  const cells = {}
  for (const [id, list] of Object.entries(perCell)) {
    if (list.length === 0) continue
    const measured = list.filter((x) => x.transfersMs !== undefined).sort((a, b) => a.transfersMs - b.transfersMs)
    cells[id] = measured.length ? { ...measured[Math.floor(measured.length / 2)], rounds: list.filter((x) => x.tps !== undefined).map((x) => x.tps) } : list[0]
  }
  const { setupMs, block, chainId, token, accounts, holders } = remote
  // The machine's 1-minute load average before and after: other processes on the 2 shared cores slow every cell.
  const load = [loadBefore, os.loadavg()[0]]
  return { remote: { setupMs, block, chainId, token, accounts, holders, transfers: c.forkTransfers }, targets: forkTargets, cells, rounds, load }
}

function summary(r) {
  return (
    `startup ${r.startupMs.toFixed(0)} ms (${r.startup.calls} calls / ${r.startup.httpRequests} HTTP), ` +
    `${r.n} transfers ${(r.transfersMs / 1000).toFixed(2)} s = ${r.tps.toFixed(1)} tx/s (${r.transfers.calls} calls / ${r.transfers.httpRequests} HTTP), ` +
    (r.cacheBytes !== undefined ? `cache ${(r.cacheBytes / 1024).toFixed(0)} KB` : `state loaded in ${r.loadMs.toFixed(0)} ms`)
  )
}

// --------------------------------------------------------------------------------------------------------------

if (process.argv[1] === here) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      target: { type: 'string' },
      phase: { type: 'string' },
      dir: { type: 'string' },
      remote: { type: 'string' },
      accounts: { type: 'string' },
      transfers: { type: 'string' },
      dump: { type: 'string' },
    },
  })
  const c = { forkAccounts: Number(values.accounts), forkTransfers: Number(values.transfers) }
  if (positionals[0] === 'remote') {
    await remoteMain(c, values.dump)
  } else if (positionals[0] === 'measure') {
    await measureMain(values.target, values.phase, values.dir, JSON.parse(values.remote), c)
    process.exit(0)
  } else {
    console.error('usage: node fork.mjs remote | measure … (started by bench/run.mjs --workloads fork)')
    process.exit(2)
  }
}
