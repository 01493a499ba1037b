// Installs rsksim the way a user does before it is published — from the `npm pack` tarball — and runs, against that
// install: `npx rsksim` in an empty project (one eth_chainId over HTTP), then each example project under examples/
// (its own package.json and `npm test`). Part of `npm test` (package.json), so CI (.ci/run) checks it.
// Every project installs through the same npm cache, so each package is downloaded once per run.
// Usage: node scripts/packed-examples.mjs [example ...]   (default: all of EXAMPLES)
import { execFileSync, spawn } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const EXAMPLES = ['node-test', 'vitest-fixture', 'hardhat3', 'hardhat2', 'foundry']
const work = mkdtempSync(join(tmpdir(), 'rsksim-packed-'))
const npmInstall = ['install', '--no-audit', '--no-fund', '--loglevel=error']

function run(command, args, cwd) {
  console.log(`[packed-examples] ${cwd}: ${command} ${args.join(' ')}`)
  execFileSync(command, args, { cwd, stdio: 'inherit' })
}

/** Starts `npx rsksim --port 0 ...args` in `dir`; resolves with its URL and a stop function (SIGTERM, awaited). */
async function startNpx(dir, args) {
  // detached: npx runs rsksim in a child of its own; the whole process group is stopped at the end.
  const child = spawn('npx', ['--no-install', 'rsksim', '--port', '0', ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'], detached: true })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const stop = async () => {
    process.kill(-child.pid, 'SIGTERM')
    await exited
    child.stdout.destroy()
  }
  try {
    const url = await new Promise((resolve, reject) => {
      let out = ''
      child.stdout.on('data', (chunk) => {
        out += chunk
        const match = /Listening on (http:\/\/\S+)/.exec(out)
        if (match) resolve(match[1])
      })
      child.once('exit', (code) => reject(new Error(`npx rsksim exited (${code}) before listening:\n${out}`)))
    })
    return { url, stop }
  } catch (e) {
    await stop().catch(() => undefined)
    throw e
  }
}

async function rpc(url, method, params = []) {
  const reply = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  const body = await reply.json()
  if (body.error) throw new Error(`${method}: ${body.error.message}`)
  return body.result
}

/**
 * `npx rsksim --port 0` in an empty project answers eth_chainId 0x21 over HTTP; with `--db` (classic-level, an
 * optional dependency, installed from the registry with the tarball) a transaction survives a restart.
 */
async function checkNpx(tarball) {
  const dir = join(work, 'empty')
  cpSync(join(root, 'examples/empty'), dir, { recursive: true })
  run('npm', [...npmInstall, tarball], dir)
  const plain = await startNpx(dir, [])
  try {
    const result = await rpc(plain.url, 'eth_chainId')
    if (result !== '0x21') throw new Error(`npx rsksim: eth_chainId answered ${result}, expected 0x21`)
    console.log(`[packed-examples] npx rsksim served ${plain.url}: eth_chainId ${result}`)
  } finally {
    await plain.stop()
  }
  const first = await startNpx(dir, ['--db', './chain'])
  let hash
  try {
    const [from] = await rpc(first.url, 'eth_accounts')
    hash = await rpc(first.url, 'eth_sendTransaction', [{ from, to: from, value: '0x1' }])
  } finally {
    await first.stop()
  }
  const second = await startNpx(dir, ['--db', './chain'])
  try {
    const receipt = await rpc(second.url, 'eth_getTransactionReceipt', [hash])
    if (receipt?.status !== '0x1') throw new Error(`npx rsksim --db: the receipt of ${hash} did not survive a restart`)
    console.log(`[packed-examples] npx rsksim --db ./chain kept ${hash} across a restart (block ${receipt.blockNumber})`)
    // A second npx rsksim forks the first one (the local remote docs/forking.md's examples stand for).
    // --accounts 1: only the first account is funded on the fork, so the second one's balance is the remote's.
    const other = (await rpc(second.url, 'eth_accounts'))[1]
    const balance = await rpc(second.url, 'eth_getBalance', [other, 'latest'])
    if (balance === '0x0') throw new Error('npx rsksim --db: the second account has no balance to read')
    const fork = await startNpx(dir, ['--fork-url', second.url, '--fork-block-number', receipt.blockNumber, '--no-fork-cache', '--accounts', '1'])
    try {
      const [head, chainId, theirs] = await Promise.all([rpc(fork.url, 'eth_blockNumber'), rpc(fork.url, 'eth_chainId'), rpc(fork.url, 'eth_getBalance', [other, 'latest'])])
      if (head !== receipt.blockNumber || chainId !== '0x21' || theirs !== balance) {
        throw new Error(`npx rsksim --fork-url: head ${head}, chain id ${chainId}, balance ${theirs}; expected ${receipt.blockNumber}, 0x21, ${balance}`)
      }
      console.log(`[packed-examples] npx rsksim --fork-url forked ${second.url} at block ${head}: balance of ${other} read from it`)
    } finally {
      await fork.stop()
    }
  } finally {
    await second.stop()
  }
}

try {
  execFileSync('npm', ['pack', '--silent', '--pack-destination', work], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
  const tarball = join(work, `rsksim-${JSON.parse(execFileSync('npm', ['pkg', 'get', 'version'], { cwd: root }).toString())}.tgz`)
  const wanted = process.argv.slice(2)
  let projects = 0
  if (wanted.length === 0) {
    await checkNpx(tarball)
    projects++
  }
  for (const name of wanted.length > 0 ? wanted : EXAMPLES) {
    const dir = join(work, name)
    cpSync(join(root, 'examples', name), dir, { recursive: true, filter: (p) => !p.includes('node_modules') })
    run('npm', [...npmInstall, tarball], dir)
    run('npm', ['test'], dir)
    projects++
  }
  // A failure above throws and exits non-zero; reaching here means every project passed. The last line counts the
  // example projects (each ran its own tests above) in the plain form CI reads.
  console.log(`packed-examples: ${projects} passed, 0 failed`)
} finally {
  rmSync(work, { recursive: true, force: true })
}
