/**
 * console.log from contracts (issue "test author's toolkit" 4): decoded for the console library's signatures,
 * delivered as the provider's `console` event with the transaction hash, printed by the CLI, and free of any effect
 * on execution: a call to the console address costs what a call to any other empty account costs on RSK.
 */
import { describe, expect, it } from 'vitest'
import { Interface, getAddress } from 'ethers'
import { COW, deploy, fresh, send } from './helpers.js'
import { ConsoleUser, DeadConsoleUser } from './fixtures/index.js'
import type { ConsoleLogEvent } from '../src/index.js'
import { runCli } from '../src/server/cliMain.js'

const ci = new Interface(ConsoleUser.abi as never)

describe('console.log', () => {
  it('emits each line of a mined transaction with its hash, formatted as Hardhat prints it', async () => {
    const p = await fresh()
    const user = await deploy(p, ConsoleUser)
    const lines: ConsoleLogEvent[] = []
    p.on('console', (e) => lines.push(e))
    const r = await send(p, { to: user, data: ci.encodeFunctionData('run', [7]) })
    expect(r.status).toBe('0x1')
    expect(lines).toEqual(
      [
        'hello from rsksim',
        'counter is 7',
        `sender ${getAddress(COW)}`,
        'true -5',
        '7',
        '0x000000000000000000000000000000000000000000000000000000000000abcd',
      ].map((message) => ({ message, transactionHash: r.transactionHash })),
    )
  })

  it('emits eth_call lines with a null hash, and nothing for eth_estimateGas', async () => {
    const p = await fresh()
    const user = await deploy(p, ConsoleUser)
    const lines: ConsoleLogEvent[] = []
    p.on('console', (e) => lines.push(e))
    const data = ci.encodeFunctionData('peek', [3])
    expect(await p.request({ method: 'eth_call', params: [{ to: user, data }, 'latest'] })).toBe('0x' + '3'.padStart(64, '0'))
    expect(lines).toEqual([{ message: 'peek 3', transactionHash: null }])
    await p.request({ method: 'eth_estimateGas', params: [{ to: user, data }] })
    expect(lines).toHaveLength(1)
    // At `pending` (src/node/miner/pending.ts) too; a pooled transaction's lines are
    // not reported by the call: they belong to the block that will mine it.
    await p.request({ method: 'evm_setAutomine', params: [false] })
    await send(p, { to: user, data: ci.encodeFunctionData('run', [7]) })
    // peek returns counter + x: the pooled run(7) counts at pending (7 + 4), not at latest.
    expect(await p.request({ method: 'eth_call', params: [{ to: user, data: ci.encodeFunctionData('peek', [4]) }, 'pending'] })).toBe('0x' + 'b'.padStart(64, '0'))
    expect(lines.slice(1)).toEqual([{ message: 'peek 4', transactionHash: null }])
  })

  it('costs what a call to any empty account costs: gas equals the same contract calling the next address', async () => {
    const p = await fresh()
    const user = await deploy(p, ConsoleUser)
    const dead = await deploy(p, DeadConsoleUser)
    const a = await send(p, { to: user, data: ci.encodeFunctionData('run', [7]) })
    const b = await send(p, { to: dead, data: ci.encodeFunctionData('run', [7]) })
    expect(a.gasUsed).toBe(b.gasUsed)
    // With the console silenced (anvil_setLoggingEnabled false), the second runs (counter 7 → 14) agree too.
    await p.request({ method: 'anvil_setLoggingEnabled', params: [false] })
    const c = await send(p, { to: user, data: ci.encodeFunctionData('run', [7]) })
    const d = await send(p, { to: dead, data: ci.encodeFunctionData('run', [7]) })
    expect(c.gasUsed).toBe(d.gasUsed)
  })

  it('is printed by the CLI with the transaction hash, and silenced by --quiet', async () => {
    let out = ''
    const io = { stdout: { write: (s: string) => ((out += s), true) }, stderr: { write: () => true } }
    const result = await runCli(['--port', '0', '--no-tx-rate-limit'], io as never)
    if (result.kind !== 'serving') throw new Error('the CLI did not start')
    try {
      const p = result.server.provider
      const user = await deploy(p, ConsoleUser)
      const r = await send(p, { to: user, data: ci.encodeFunctionData('run', [1]) })
      expect(out).toContain(`console.log (${r.transactionHash}): hello from rsksim\n`)
      expect(out).toContain(`console.log (${r.transactionHash}): counter is 1\n`)
    } finally {
      await result.server.close()
    }
    let quietOut = ''
    const quietIo = { stdout: { write: (s: string) => ((quietOut += s), true) }, stderr: { write: () => true } }
    const quiet = await runCli(['--port', '0', '--quiet', '--no-tx-rate-limit'], quietIo as never)
    if (quiet.kind !== 'serving') throw new Error('the CLI did not start')
    try {
      const user = await deploy(quiet.server.provider, ConsoleUser)
      await send(quiet.server.provider, { to: user, data: ci.encodeFunctionData('run', [1]) })
      expect(quietOut).not.toContain('console.log')
    } finally {
      await quiet.server.close()
    }
  })

  it('is not reported in hosted mode', async () => {
    const p = await fresh({ hosted: true })
    const lines: ConsoleLogEvent[] = []
    p.on('console', (e) => lines.push(e))
    const key = '0xc85ef7d79691fe79573b1a7064c19c1a9819ebdbd1faaab1a8ec92344438aaf4'
    const { Wallet } = await import('ethers')
    const w = new Wallet(key)
    const raw = await w.signTransaction({ data: ConsoleUser.bytecode, gasLimit: 3_000_000, gasPrice: 0, nonce: 0, chainId: 33, type: 0 })
    await p.request({ method: 'eth_sendRawTransaction', params: [raw] })
    expect(lines).toEqual([])
  })
})
