// The five targets. Each factory starts its simulator and returns a uniform handle:
//   { request(method, params), close(), key, kind, memory(), cpuMs(), pid? }
// where `key` is the private key of the target's funded default account and memory() reports the simulator's
// own process memory (in-process: this process after a full GC; HTTP: the server process) and cpuMs() the CPU time
// (user + system, ms) of the process that runs the simulator (in process: this one, client included).
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { httpRpc } from './rpc-http.mjs'
import { cpuMsOfPid, cpuMsOfSelf } from './cpu.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
export const benchDir = path.resolve(here, '..')
export const repoDir = path.resolve(benchDir, '..')

/** Regtest `cow` account 0 of RSKj: keccak256("cow"). */
const COW_KEY = '0xc85ef7d79691fe79573b1a7064c19c1a9819ebdbd1faaab1a8ec92344438aaf4'
/** Account 0 of the `test test … junk` mnemonic (Hardhat and Anvil default). */
const JUNK_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
/** Account 0 of Ganache's `wallet.deterministic` mnemonic (myth like bonus scare over problem client lizard pioneer submit female collect). */
const GANACHE_KEY = '0x4f3edf983ac636a65a842ce7c78d9aa706d3b113bce9c46f30d7d21715b23b1d'

export const TARGETS = ['rsksim', 'rsksim-http', 'ganache', 'hardhat', 'anvil']
export const PEERS = ['ganache', 'hardhat', 'anvil']
export const LABELS = {
  rsksim: 'rsksim (in process)',
  'rsksim-http': 'rsksim (HTTP)',
  ganache: 'Ganache 7.9.2',
  hardhat: 'Hardhat 3.18/EDR',
  anvil: 'Anvil 1.7.1 (HTTP)',
}

export function versions() {
  const v = (p) => {
    try {
      return JSON.parse(readFileSync(p, 'utf8')).version
    } catch {
      return '?'
    }
  }
  return {
    rsksim: v(path.join(repoDir, 'package.json')),
    ganache: v(path.join(benchDir, 'node_modules/ganache/package.json')),
    hardhat: v(path.join(benchDir, 'node_modules/hardhat/package.json')),
    edr: v(path.join(benchDir, 'node_modules/@nomicfoundation/edr/package.json')),
    anvil: v(path.join(benchDir, 'node_modules/@foundry-rs/anvil-linux-amd64/package.json')),
  }
}

function heapOfThisProcess() {
  globalThis.gc?.()
  const m = process.memoryUsage()
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external }
}

function rssOfPid(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)[1])
  return { rss: kb * 1024 }
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer()
    s.on('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })
}

export async function firstAnswer(rpc, deadlineMs = 30_000) {
  const until = Date.now() + deadlineMs
  for (;;) {
    try {
      return await rpc.request('eth_blockNumber')
    } catch (e) {
      if (Date.now() > until) throw e
      await new Promise((r) => setTimeout(r, 2))
    }
  }
}

/** rsksim options for every benchmark run: see `factories.rsksim`. */
export const NO_QUOTA = { accountTxRateLimit: false }

const factories = {
  async rsksim() {
    const { createProvider } = await import('../../dist/index.js')
    // RSKj's per-account transaction quota (on by default, as on RSKj) would refuse the benchmark's back-to-back
    // 10M-gas deployments; the peers have no such limit, and this measures execution, so it is off here.
    const provider = await createProvider(NO_QUOTA)
    const request = (method, params = []) => provider.request({ method, params })
    await request('eth_blockNumber')
    return { kind: 'inproc', key: COW_KEY, request, memory: heapOfThisProcess, cpuMs: cpuMsOfSelf, close: () => provider.disconnect() }
  },

  async 'rsksim-http'() {
    // RSKSIM_SERVER_PROFILE=dir: the server writes a CPU profile there when it closes (read it with
    // `node bench/profile.mjs --report dir/<file>.cpuprofile`).
    const profile = process.env.RSKSIM_SERVER_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.RSKSIM_SERVER_PROFILE] : []
    const child = spawn(process.execPath, ['--expose-gc', ...profile, path.join(here, 'rsksim-server.mjs')], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    })
    const url = await new Promise((resolve, reject) => {
      child.once('message', (m) => resolve(m.url))
      child.once('exit', (code) => reject(new Error(`rsksim server exited with ${code}`)))
    })
    const rpc = httpRpc(url)
    await firstAnswer(rpc)
    const memory = () =>
      new Promise((resolve) => {
        child.once('message', (m) => resolve({ rss: m.mem.rss, heapUsed: m.mem.heapUsed, external: m.mem.external }))
        child.send('mem')
      })
    return {
      kind: 'http',
      url,
      pid: child.pid,
      cpuMs: () => cpuMsOfPid(child.pid),
      key: COW_KEY,
      request: rpc.request,
      memory,
      close: async () => {
        rpc.close()
        // A profiled server exits by itself (rsksim-server.mjs 'close'), so that its profile is written.
        if (profile.length === 0) child.kill()
        else await new Promise((resolve) => (child.once('exit', resolve), child.send('close')))
      },
    }
  },

  async ganache() {
    const { default: ganache } = await import('ganache')
    const provider = ganache.provider({ wallet: { deterministic: true }, logging: { quiet: true } })
    const request = (method, params = []) => provider.request({ method, params })
    await request('eth_blockNumber')
    return { kind: 'inproc', key: GANACHE_KEY, request, memory: heapOfThisProcess, cpuMs: cpuMsOfSelf, close: () => provider.disconnect() }
  },

  async hardhat() {
    const { createHardhatRuntimeEnvironment } = await import('hardhat/hre')
    // Hardhat 3's default network is an in-process EDR chain (type edr-simulated, automine, test…junk accounts).
    const hre = await createHardhatRuntimeEnvironment({}, {}, benchDir)
    const { provider } = await hre.network.connect()
    const request = (method, params = []) => provider.request({ method, params })
    await request('eth_blockNumber')
    return { kind: 'inproc', key: JUNK_KEY, request, memory: heapOfThisProcess, cpuMs: cpuMsOfSelf, close: () => provider.close() }
  },

  async anvil() {
    const port = await freePort()
    const bin = path.join(benchDir, 'node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil')
    const child = spawn(bin, ['--port', String(port), '--host', '127.0.0.1', '--quiet'], { stdio: 'ignore' })
    child.on('error', () => {})
    const rpc = httpRpc(`http://127.0.0.1:${port}/`)
    await firstAnswer(rpc)
    return {
      kind: 'http',
      url: `http://127.0.0.1:${port}/`,
      pid: child.pid,
      cpuMs: () => cpuMsOfPid(child.pid),
      key: JUNK_KEY,
      request: rpc.request,
      memory: async () => rssOfPid(child.pid),
      close: async () => {
        rpc.close()
        child.kill()
      },
    }
  },
}

/** Starts a target and times it from just before its module is imported (or its process spawned) to its first answer. */
export async function startTarget(name) {
  const factory = factories[name]
  if (!factory) throw new Error(`unknown target ${name}; known: ${TARGETS.join(', ')}`)
  const t0 = performance.now()
  const handle = await factory()
  handle.startupMs = performance.now() - t0
  return handle
}
