/**
 * Hosted mode is exactly the service: every extension of the method table (dev-chain methods under all three
 * naming families, signing) answers -32601 `method not found`, as an unknown method does, over HTTP as in process.
 * And the clear error for the 90,000-gas default of eth_sendTransaction.
 */
import { describe, expect, it } from 'vitest'
import { EXTENSIONS, METHODS } from '../src/rpc/methods.js'
import { startServer } from '../src/index.js'
import { COW, fresh, rejects } from './helpers.js'
import { Token } from './fixtures/index.js'

describe('hosted mode', () => {
  it('answers every extension exactly as an unknown method', async () => {
    const p = await fresh({ hosted: true })
    const unknown = (await p.request({ method: 'no_suchMethod' }).catch((e: unknown) => e)) as { code: number; message: string }
    expect(EXTENSIONS.size).toBeGreaterThan(60)
    for (const name of EXTENSIONS) {
      expect(Object.hasOwn(METHODS, name)).toBe(true)
      const e = (await p.request({ method: name, params: [] }).catch((x: unknown) => x)) as { code: number; message: string }
      expect({ name, code: e.code, message: e.message }).toEqual({ name, code: unknown.code, message: unknown.message })
    }
  })

  it('answers them -32601 over HTTP too, with the same envelope as an unknown name', async () => {
    const server = await startServer({ port: 0, hosted: true })
    try {
      const post = (method: string) =>
        fetch(server.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }) }).then((r) => r.text())
      const unknown = await post('no_suchMethod')
      for (const name of ['anvil_setBalance', 'hardhat_impersonateAccount', 'evm_setAccountBalance', 'personal_sign', 'eth_signTypedData_v4', 'eth_getBlockReceipts', 'anvil_metadata', 'evm_mine_detailed', 'anvil_mine_detailed', 'debug_storageRangeAt', 'txpool_contentFrom', 'anvil_setRpcUrl', 'ots_getApiLevel', 'erigon_getHeaderByNumber', 'anvil_dealERC20', 'eth_simulateV1', 'eth_sendRawTransactionSync', 'eth_createAccessList']) {
        expect(await post(name)).toBe(unknown)
      }
    } finally {
      await server.close()
    }
  })

  it('keeps the service methods, evm_* included', async () => {
    const p = await fresh({ hosted: true })
    expect(await p.request({ method: 'evm_snapshot' })).toBe('0x1')
    expect(await p.request({ method: 'eth_chainId' })).toBe('0x21')
  })
})

describe('eth_sendTransaction without gas', () => {
  it('keeps the service default of 90,000 and says so when the transaction runs out of it', async () => {
    const p = await fresh()
    // A token deployment needs far more than 90,000 gas.
    await rejects(
      p.request({ method: 'eth_sendTransaction', params: [{ from: COW, data: Token.bytecode }] }),
      -32015,
      "VM Exception while processing transaction: out of gas: no gas was given, so the service's default of 90000 was used; pass gas (eth_estimateGas tells how much)",
    )
    const block = (await p.request({ method: 'eth_getBlockByNumber', params: ['latest', true] })) as { transactions: { gas: string }[] }
    expect(block.transactions[0]!.gas).toBe('0x15f90')
  })

  it('keeps RSKj\'s text when gas was given', async () => {
    const p = await fresh()
    await rejects(
      p.request({ method: 'eth_sendTransaction', params: [{ from: COW, data: Token.bytecode, gas: '0x15f90' }] }),
      -32015,
      'VM Exception while processing transaction: transaction reverted',
    )
  })
})
