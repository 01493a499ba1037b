/**
 * Test-runner fixture (`rsksim/testing`): one rsksim per test file (or worker), every test starting from the same
 * chain state, closed at teardown. Framework-agnostic: pass the runner's hook functions (vitest, mocha, node:test,
 * jest all have `beforeEach`/`afterEach` and either `beforeAll`/`afterAll` or `before`/`after`).
 *
 * State between tests is reset with `evm_snapshot` before each test and `evm_revert` after it (the `loadFixture`
 * pattern), which costs microseconds instead of a new chain. With `server`, the fixture also serves HTTP on port 0
 * by default: the operating system gives each worker its own free port, so parallel workers never collide.
 *
 * @example
 * ```ts
 * import { beforeAll, beforeEach, afterEach, afterAll, it } from 'vitest'
 * import { useRsksim } from 'rsksim/testing'
 * const rsksim = useRsksim({ beforeAll, beforeEach, afterEach, afterAll }, { server: true })
 * it('starts empty', async () => {
 *   await rsksim().provider.request({ method: 'eth_blockNumber' }) // '0x0' in every test
 * })
 * ```
 */
import { createProvider, type Provider } from '../provider/index.js'
import type { RsksimServer, ServerOptions } from '../server/index.js'
import { startServer } from '../server/load.js'
import type { ProviderOptions } from '../options/index.js'

export interface RsksimFixtureOptions extends ProviderOptions {
  /** Also serve HTTP: `true` (127.0.0.1, a free port) or server options (`port` defaults to 0 = a free port). */
  server?: boolean | Omit<ServerOptions, keyof ProviderOptions | 'provider'>
  /** Snapshot before each test and revert after it. Default true, in hosted mode too (the service has evm_snapshot). */
  isolate?: boolean
}

/** A running rsksim for tests. */
export interface RsksimFixture {
  /** The EIP-1193 provider (use it in process with ethers `BrowserProvider`, viem `custom`, web3.js). */
  readonly provider: Provider
  /** The HTTP server, when `server` was asked. */
  readonly server: RsksimServer | undefined
  /** The server's URL (with the API key when keys are set), or undefined without a server. */
  readonly url: string | undefined
  /** Takes a snapshot of the chain (evm_snapshot); `revert()` goes back to the latest one. */
  snapshot(): Promise<void>
  /** Reverts to the snapshot taken by the latest `snapshot()` (evm_revert). */
  revert(): Promise<void>
  /** Stops the server (if any) and disconnects the provider. */
  close(): Promise<void>
}

/**
 * Starts an rsksim provider (and server, with `server`) for a test file or a worker.
 *
 * @example
 * ```ts
 * const rsksim = await startRsksim({ server: true })
 * await fetch(rsksim.url!, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}' })
 * await rsksim.close()
 * ```
 */
export async function startRsksim(options: RsksimFixtureOptions = {}): Promise<RsksimFixture> {
  const { server: serverOption, isolate: _isolate, ...providerOptions } = options
  const provider = await createProvider(providerOptions)
  let server: RsksimServer | undefined
  if (serverOption !== undefined && serverOption !== false) {
    server = await startServer({ port: 0, ...(serverOption === true ? {} : serverOption), provider })
  }
  const snapshots: string[] = []
  return {
    provider,
    server,
    url: server?.url,
    async snapshot() {
      snapshots.push((await provider.request({ method: 'evm_snapshot' })) as string)
    },
    async revert() {
      const id = snapshots.pop()
      if (id === undefined) throw new Error('rsksim/testing: revert() without a snapshot()')
      const reverted = await provider.request({ method: 'evm_revert', params: [id] })
      if (reverted !== true) throw new Error(`rsksim/testing: evm_revert(${id}) answered ${String(reverted)}`)
    },
    async close() {
      // The server only disconnects providers it created; this one is ours.
      if (server !== undefined) await server.close()
      await provider.disconnect()
    },
  }
}

type Hook = (fn: () => Promise<void>) => unknown

/** The hook functions of a test runner: vitest/jest (`beforeAll`/`afterAll`) or mocha/node:test (`before`/`after`). */
export interface TestHooks {
  beforeAll?: Hook
  before?: Hook
  beforeEach: Hook
  afterEach: Hook
  afterAll?: Hook
  after?: Hook
}

/**
 * Registers the fixture with a test runner's hooks: start once before the file's tests, snapshot before each test,
 * revert after it, close after all. Returns a getter for the running fixture (valid inside tests and hooks).
 *
 * @example
 * ```ts
 * import { before, beforeEach, afterEach, after, test } from 'node:test'
 * const rsksim = useRsksim({ before, beforeEach, afterEach, after })
 * test('chain id', async () => { await rsksim().provider.request({ method: 'eth_chainId' }) }) // '0x21'
 * ```
 */
export function useRsksim(hooks: TestHooks, options: RsksimFixtureOptions = {}): () => RsksimFixture {
  const beforeAll = hooks.beforeAll ?? hooks.before
  const afterAll = hooks.afterAll ?? hooks.after
  if (beforeAll === undefined || afterAll === undefined) {
    throw new TypeError('rsksim/testing: pass beforeAll/afterAll (vitest, jest) or before/after (mocha, node:test)')
  }
  const isolate = options.isolate ?? true
  let fixture: RsksimFixture | undefined
  const current = (): RsksimFixture => {
    if (fixture === undefined) throw new Error('rsksim/testing: the fixture is used outside a test (it starts in beforeAll)')
    return fixture
  }
  beforeAll(async () => {
    fixture = await startRsksim(options)
  })
  if (isolate) {
    hooks.beforeEach(() => current().snapshot())
    hooks.afterEach(() => current().revert())
  }
  afterAll(async () => {
    await fixture?.close()
    fixture = undefined
  })
  return current
}
