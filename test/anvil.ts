/**
 * Anvil 1.7.1 (the `@foundry-rs/anvil-linux-amd64` dev dependency) as a reference node for tests: started on a free
 * port, answering through an ethers JsonRpcProvider, killed by `stop`.
 */
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { JsonRpcProvider } from 'ethers'

const require = createRequire(import.meta.url)
const anvilBin = join(dirname(require.resolve('@foundry-rs/anvil-linux-amd64/package.json')), 'bin/anvil')

/** Anvil's first default account (mnemonic "test test … junk") and its key. */
export const ANVIL_SENDER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
export const ANVIL_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'

export interface RunningAnvil {
  url: string
  eth: JsonRpcProvider
  stop(): void
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

/**
 * Starts Anvil with `args` and waits until it answers (at most about 10 s a try). The free port is found by binding
 * and releasing it, so another process may take it before Anvil binds it: an Anvil that exits before answering is
 * started again on another port (three tries).
 */
export async function startAnvil(args: string[] = []): Promise<RunningAnvil> {
  for (let attempt = 1; ; attempt++) {
    const started = await startOnce(args)
    if (started !== 'exited') return started
    if (attempt === 3) throw new Error('anvil exited before answering, three times')
  }
}

async function startOnce(args: string[]): Promise<RunningAnvil | 'exited'> {
  const port = await freePort()
  const child = spawn(anvilBin, ['--port', String(port), '--host', '127.0.0.1', '--quiet', ...args], { stdio: 'ignore' })
  let exited = false
  child.once('exit', () => (exited = true))
  const url = `http://127.0.0.1:${port}`
  const eth = new JsonRpcProvider(url, undefined, { staticNetwork: true, polling: false })
  const stop = (): void => {
    eth.destroy()
    child.kill()
  }
  for (let i = 0; ; i++) {
    try {
      await eth.getBlockNumber()
      return { url, eth, stop }
    } catch (e) {
      if (exited) {
        eth.destroy()
        return 'exited'
      }
      if (i > 100) {
        stop()
        throw e
      }
      await new Promise((r) => setTimeout(r, 100))
    }
  }
}

/**
 * Anvil for the tests of a file or a describe block: started before them, stopped after them. Read `anvil.eth` and
 * `anvil.url` inside the tests (they are set once it answers).
 */
export function useAnvil(args: string[] = []): RunningAnvil {
  const anvil = {} as RunningAnvil
  beforeAll(async () => {
    Object.assign(anvil, await startAnvil(args))
  })
  afterAll(() => anvil.stop?.())
  return anvil
}

/**
 * Anvil's receipt of `hash`, waiting for it: Anvil answers eth_sendRawTransaction once the transaction is in its
 * pool and mines it on its own task, so a receipt asked right after can be null (seen once in a full run). At most
 * about 5 s.
 */
export async function anvilReceipt(eth: JsonRpcProvider, hash: string): Promise<Record<string, any>> {
  for (let i = 0; ; i++) {
    const receipt = (await eth.send('eth_getTransactionReceipt', [hash])) as Record<string, any> | null
    if (receipt !== null) return receipt
    if (i === 250) throw new Error(`Anvil mined no receipt for ${hash}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/**
 * Sends the signed transaction `raw` to Anvil and answers its hash once Anvil has mined it (anvilReceipt). What a
 * test asks Anvil next then sees it mined: asked before, Anvil answers `eth_getTransactionCount` 'latest' without it,
 * and `debug_traceTransaction` (any tracer) with the empty default trace `{ failed: false, gas: 0, returnValue: '0x',
 * structLogs: [] }`; debug_prestate's comparison with Anvil failed that way under load.
 */
export async function sendRawMined(eth: JsonRpcProvider, raw: string): Promise<string> {
  const hash = (await eth.send('eth_sendRawTransaction', [raw])) as string
  await anvilReceipt(eth, hash)
  return hash
}
