// Foundry against a running rsksim (started here in process; `npx rsksim` in another shell works the same):
// forge script --broadcast deploys, forge test --fork-url reads it, cast calls and sends. `--legacy` everywhere a
// transaction is sent: RSK has no EIP-1559 fee market, and forge/cast otherwise ask for eth_feeHistory,
// which the service does not have (-32601 "method not found").
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { readFileSync } from 'node:fs'
import { startServer } from 'rsksim'

const server = await startServer({ port: 0 })
const rpc = server.url
// Account 0 of the regtest genesis (the RSKj "cow" account), printed by `npx rsksim`.
const key = server.provider.initialAccounts[0].secretKey
const bin = (name) => `node_modules/@foundry-rs/${name}-linux-amd64/bin/${name}`
// Asynchronous: the server answers from this process's event loop while forge and cast run.
const run = promisify(execFile)
const forge = async (...args) => (await run(bin('forge'), args, { env: { ...process.env, FOUNDRY_DISABLE_NIGHTLY_WARNING: '1' } })).stdout
const cast = async (...args) => (await run(bin('cast'), args)).stdout.trim()

function expectEqual(actual, expected, what) {
  if (actual !== expected) throw new Error(`${what}: got ${actual}, expected ${expected}`)
  console.log(`ok - ${what}: ${actual}`)
}

try {
  expectEqual(await cast('chain-id', '--rpc-url', rpc), '33', 'cast chain-id')
  await forge('script', 'script/Deploy.s.sol', '--rpc-url', rpc, '--private-key', key, '--broadcast', '--legacy', '--slow')
  const broadcast = JSON.parse(readFileSync('broadcast/Deploy.s.sol/33/run-latest.json', 'utf8'))
  const counter = broadcast.transactions.find((t) => t.transactionType === 'CREATE').contractAddress
  expectEqual(await cast('call', counter, 'number()(uint256)', '--rpc-url', rpc), '42', 'forge script deployed and set the Counter')

  process.env.COUNTER = counter // read by the test's setUp (vm.envAddress)
  const tests = await forge('test', '--fork-url', rpc, '-vv')
  console.log(tests)

  await cast('send', counter, 'increment()', '--rpc-url', rpc, '--private-key', key, '--legacy')
  expectEqual(await cast('call', counter, 'number()(uint256)', '--rpc-url', rpc), '43', 'cast send increment()')
} finally {
  await server.close()
}
