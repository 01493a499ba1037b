// Starts rsksim with a client version Hardhat's network helpers accept, then runs the Hardhat 2 tests against it.
import { spawn } from 'node:child_process'
import { startServer } from 'rsksim'

const server = await startServer({ port: 0, clientVersion: 'HardhatNetwork/rsksim' })
try {
  // spawn, not spawnSync: the server answers from this process's event loop while Hardhat runs.
  const code = await new Promise((resolve) => {
    const child = spawn('npx', ['--no-install', 'hardhat', 'test', '--network', 'rsksim', '--no-compile'], {
      stdio: 'inherit',
      env: { ...process.env, RSKSIM_URL: server.url, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true' },
    })
    child.once('exit', resolve)
  })
  process.exitCode = code ?? 1
} finally {
  await server.close()
}
