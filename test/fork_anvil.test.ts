/**
 * Forking speaks plain Ethereum JSON-RPC too (issue 16): rsksim forks an Anvil node (chain id 31337, no RSK block
 * fields). Expected values are Anvil's own answers at the forked block.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Interface, type JsonRpcProvider, Wallet, ContractFactory } from 'ethers'
import { COW, fresh, send, rq as rpc } from './helpers.js'
import { ANVIL_KEY, startAnvil, type RunningAnvil } from './anvil.js'
import { Token } from './fixtures/index.js'

const HOLDER = '0x00000000000000000000000000000000000ba5ed'
const token = new Interface(Token.abi as never)

describe('forking an Anvil node', () => {
  let anvil: RunningAnvil
  let url: string
  let eth: JsonRpcProvider
  const at: Record<string, any> = {}

  beforeAll(async () => {
    anvil = await startAnvil()
    ;({ url, eth } = anvil)
    const wallet = new Wallet(ANVIL_KEY, eth)
    const deployed = await new ContractFactory(Token.abi as never, Token.bytecode, wallet).deploy(10n ** 21n)
    await deployed.waitForDeployment()
    at.token = (await deployed.getAddress()).toLowerCase()
    await (await wallet.sendTransaction({ to: at.token, data: token.encodeFunctionData('transfer', [HOLDER, 777n]), nonce: 1 })).wait()
    // Asked directly: ethers' getBlockNumber() may answer a cached, older number.
    at.forkNumber = Number(await eth.send('eth_blockNumber', []))
    expect(at.forkNumber).toBe(2)
    at.forkBlock = await eth.send('eth_getBlockByNumber', ['0x' + at.forkNumber.toString(16), false])
  }, 60_000)

  afterAll(async () => {
    anvil?.stop()
  })

  it('reads Anvil\'s state at the forked block, and runs transactions on it with RSK rules', async () => {
    const f = await fresh({ fork: { url, blockNumber: at.forkNumber, cache: false } })
    const tag = '0x' + at.forkNumber.toString(16)
    expect(await rpc(f, 'eth_chainId')).toBe('0x7a69')
    expect(await rpc(f, 'eth_getBlockByNumber', ['latest', false])).toEqual(at.forkBlock)
    expect(await rpc(f, 'eth_getCode', [at.token, 'latest'])).toBe(await eth.send('eth_getCode', [at.token, tag]))
    const balanceOf = { to: at.token, data: token.encodeFunctionData('balanceOf', [HOLDER]) }
    expect(await rpc(f, 'eth_call', [balanceOf, 'latest'])).toBe(await eth.send('eth_call', [balanceOf, tag]))
    expect(await rpc(f, 'eth_getStorageAt', [at.token, '0x2', 'latest'])).toBe(await eth.send('eth_getStorageAt', [at.token, '0x2', tag]))
    // Anvil's deployer account is the remote's; rsksim's funded accounts send on top of it.
    const deployer = new Wallet(ANVIL_KEY).address
    expect(await rpc(f, 'eth_getTransactionCount', [deployer, 'latest'])).toBe(await eth.send('eth_getTransactionCount', [deployer, tag]))
    await rpc(f, 'anvil_impersonateAccount', [deployer])
    const hash = await rpc(f, 'eth_sendTransaction', [{ from: deployer, to: at.token, data: token.encodeFunctionData('transfer', [COW, 5n]), gas: '0x30000' }])
    const receipt = await rpc(f, 'eth_getTransactionReceipt', [hash])
    expect(receipt.status).toBe('0x1')
    expect(Number(receipt.blockNumber)).toBe(at.forkNumber + 1)
    expect(BigInt(await rpc(f, 'eth_call', [{ to: at.token, data: token.encodeFunctionData('balanceOf', [COW]) }, 'latest']))).toBe(5n)
    // Anvil's history below the fork, as Anvil answers it.
    expect(await rpc(f, 'eth_getBlockByNumber', ['0x1', true])).toEqual(await eth.send('eth_getBlockByNumber', ['0x1', true]))
    // eth_getBlockReceipts of Anvil's blocks, built from its block and receipts, is what Anvil's own answers.
    for (const n of ['0x1', tag]) expect(await rpc(f, 'eth_getBlockReceipts', [n])).toEqual(await eth.send('eth_getBlockReceipts', [n]))
    const r = await send(f, { to: HOLDER, value: '0x1' })
    expect(r.status).toBe('0x1')
    await f.disconnect()
  })

  it("eth_sendTransaction naming the fork's chain id (31337, as viem, ethers and cast send it) is sent, signed for it", async () => {
    const f = await fresh({ fork: { url, blockNumber: at.forkNumber, cache: false } })
    for (const chainId of ['0x7a69', '31337']) {
      const hash = await rpc(f, 'eth_sendTransaction', [{ from: COW, to: HOLDER, value: '0x1', chainId }])
      const tx = await rpc(f, 'eth_getTransactionByHash', [hash])
      expect(BigInt(tx.v)).toBeGreaterThanOrEqual(35n + 2n * 31337n)
      expect((await rpc(f, 'eth_getTransactionReceipt', [hash])).status).toBe('0x1')
    }
    // Another chain id is still refused, quoted as written.
    await expect(rpc(f, 'eth_sendTransaction', [{ from: COW, to: HOLDER, chainId: '0x21' }])).rejects.toMatchObject({ code: -32602, message: 'Invalid chainId: 0x21' })
    await f.disconnect()
  })
})
