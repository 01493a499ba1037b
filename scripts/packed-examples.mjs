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

/** `npx rsksim --port 0` in an empty project answers eth_chainId 0x21 over HTTP. */
async function checkNpx(tarball) {
  const dir = join(work, 'empty')
  cpSync(join(root, 'examples/empty'), dir, { recursive: true })
  run('npm', [...npmInstall, tarball], dir)
  // detached: npx runs rsksim in a child of its own; the whole process group is stopped at the end.
  const child = spawn('npx', ['--no-install', 'rsksim', '--port', '0'], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'], detached: true })
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
    const reply = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}' })
    const { result } = await reply.json()
    if (result !== '0x21') throw new Error(`npx rsksim: eth_chainId answered ${result}, expected 0x21`)
    console.log(`[packed-examples] npx rsksim served ${url}: eth_chainId ${result}`)
  } finally {
    process.kill(-child.pid, 'SIGTERM')
    child.stdout.destroy()
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
