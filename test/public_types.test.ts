/**
 * The published types are the provider, options, server, errors and event payloads, nothing of the engine: a user's
 * file that imports rsksim type-checks under `strict` with `skipLibCheck: false` (engine declarations would fail
 * there), and the provider is assignable to viem's `EIP1193Provider`. Builds the declarations as `npm run build`
 * does (tsup's bundled index.d.ts) into a scratch folder and compiles a user file against them.
 */
import { describe, expect, it } from 'vitest'
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'

const USER_FILE = `
import { createProvider, startServer, RpcError, type Provider, type ProviderOptions, type ConsoleLogEvent } from './index.js'
import type { EIP1193Provider } from 'viem'

export async function main(): Promise<string> {
  const options: ProviderOptions = { network: 'regtest', hosted: false, rpcTimeout: 5_000 }
  const provider: Provider = await createProvider(options)
  const eip1193: EIP1193Provider = provider
  provider.on('console', (e: ConsoleLogEvent) => e.message)
  const server = await startServer({ port: 0, provider })
  const id = (await eip1193.request({ method: 'eth_chainId' })) as string
  await server.close()
  try {
    await provider.request({ method: 'eth_call', params: [] })
  } catch (e) {
    if (e instanceof RpcError) return String(e.code)
  }
  return id
}
`

describe('published types', () => {
  it('name no engine type, and a strict user file with skipLibCheck: false compiles against them', () => {
    mkdirSync(path.resolve('node_modules/.cache'), { recursive: true })
    const dir = mkdtempSync(path.resolve('node_modules/.cache/rsksim-types-'))
    try {
      execFileSync(process.execPath, [path.resolve('node_modules/tsup/dist/cli-default.js'), '--dts-only', '-d', dir], { stdio: 'pipe' })
      // Every declaration file of the build (the entries re-export shared chunks) except the Hardhat plugin's, which
      // names Hardhat's own types on purpose.
      const dts = readdirSync(dir)
        .filter((f) => f.endsWith('.d.ts') && !f.startsWith('hardhat'))
        .map((f) => readFileSync(path.join(dir, f), 'utf8'))
        .join('\n')
      expect(dts).not.toMatch(/@ethereumjs/)
      expect(dts).not.toMatch(/RskNode|TxPool|Miner\b/)
      writeFileSync(path.join(dir, 'user.ts'), USER_FILE)
      writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false, noEmit: true, types: ['node'] },
          files: ['user.ts'],
        }),
      )
      const tsc = spawnSync(process.execPath, [path.resolve('node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' })
      expect(tsc.stdout + tsc.stderr).toBe('')
      expect(tsc.status).toBe(0)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
