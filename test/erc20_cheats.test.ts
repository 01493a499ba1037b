/**
 * Anvil's ERC-20 cheats, `anvil_dealERC20(holder, token, amount)` and `anvil_setERC20Allowance(owner, spender, token,
 * amount)` (parameter order and answers as Anvil 1.7.1 takes and gives them). Expected values: the Token fixture's
 * storage layout from its Solidity source (name 0, symbol 1, totalSupply 2, balanceOf 3, allowance 4; a mapping's
 * value at keccak256(key . slot), computed with ethers), and what the token itself answers through ethers.
 */
import { describe, expect, it } from 'vitest'
import { Contract, Interface, JsonRpcSigner, BrowserProvider, solidityPackedKeccak256, toBeHex, zeroPadValue } from 'ethers'
import type { Provider } from '../src/index.js'
import { COW, COW1, deploy, deployCode, fresh, rejects, send, useHttpServer, rq } from './helpers.js'
import { Token } from './fixtures/index.js'

const ti = new Interface(Token.abi as never)
const HOLDER = '0x00000000000000000000000000000000000ba5ed'
const view = async (p: Provider, token: string, fn: string, args: unknown[]): Promise<bigint> =>
  BigInt(await rq(p, 'eth_call', [{ to: token, data: ti.encodeFunctionData(fn, args) }, 'latest']))

/** A proxy that DELEGATECALLs every call to `impl` and returns what it returned (the token's storage is the proxy's). */
const proxyOf = (impl: string): string =>
  '366000600037' + '6000600036600073' + impl.slice(2).toLowerCase() + '5af4' + '3d600060003e' + '3d6000f3'

describe('anvil_dealERC20', () => {
  it("sets balanceOf(holder): the token's balances mapping slot holds the amount; nothing else changes", async () => {
    const p = await fresh()
    const token = await deploy(p, Token, [1000n])
    const supply = await view(p, token, 'totalSupply', [])
    expect(await rq(p, 'anvil_dealERC20', [HOLDER, token, '0x4d2'])).toBeNull()
    expect(await view(p, token, 'balanceOf', [HOLDER])).toBe(1234n)
    const slot = solidityPackedKeccak256(['uint256', 'uint256'], [HOLDER, 3])
    expect(await rq(p, 'eth_getStorageAt', [token, slot, 'latest'])).toBe(zeroPadValue(toBeHex(1234), 32))
    expect(await view(p, token, 'totalSupply', [])).toBe(supply)
    // An existing balance is replaced, to zero too.
    expect(await rq(p, 'anvil_dealERC20', [COW, token, '0x0'])).toBeNull()
    expect(await view(p, token, 'balanceOf', [COW])).toBe(0n)
    // The holder can spend it: a real transfer moves it.
    await rq(p, 'anvil_dealERC20', [COW, token, '0x64'])
    const r = await send(p, { to: token, data: ti.encodeFunctionData('transfer', [COW1, 40]) })
    expect(r.status).toBe('0x1')
    expect(await view(p, token, 'balanceOf', [COW])).toBe(60n)
    expect(await view(p, token, 'balanceOf', [COW1])).toBe(40n)
  })

  it("a token behind a DELEGATECALL proxy: the proxy's storage is written", async () => {
    const p = await fresh()
    const impl = await deploy(p, Token, [0n])
    const proxy = await deployCode(p, proxyOf(impl))
    await rq(p, 'anvil_dealERC20', [HOLDER, proxy, '0x2a'])
    expect(await view(p, proxy, 'balanceOf', [HOLDER])).toBe(42n)
    expect(await view(p, impl, 'balanceOf', [HOLDER])).toBe(0n)
    const slot = solidityPackedKeccak256(['uint256', 'uint256'], [HOLDER, 3])
    expect(BigInt(await rq(p, 'eth_getStorageAt', [proxy, slot, 'latest']))).toBe(42n)
  })

  it('another slot the view reads is not taken for the balance, even when the holder already has the amount', async () => {
    const p = await fresh()
    // balanceOf reads slot 0 and drops it, then answers slot 7: PUSH1 0, SLOAD, POP, PUSH1 7, SLOAD, PUSH1 0, MSTORE,
    // PUSH1 32, PUSH1 0, RETURN. With slot 7 at 5, dealing 5 finds 5 coming back with slot 0 set to 5 too: only a
    // second value (4) tells the two apart. (Anvil 1.7.1, tried by hand, writes 5 into slot 0 here.)
    const token = await deployCode(p, '6000545060075460005260206000f3')
    await rq(p, 'anvil_setStorageAt', [token, '0x7', zeroPadValue(toBeHex(5), 32)])
    await rq(p, 'anvil_dealERC20', [HOLDER, token, '0x5'])
    expect(await rq(p, 'eth_getStorageAt', [token, '0x0', 'latest'])).toBe(zeroPadValue('0x', 32))
    await rq(p, 'anvil_dealERC20', [HOLDER, token, '0x9'])
    expect(await rq(p, 'eth_getStorageAt', [token, '0x7', 'latest'])).toBe(zeroPadValue(toBeHex(9), 32))
    expect(await rq(p, 'eth_getStorageAt', [token, '0x0', 'latest'])).toBe(zeroPadValue('0x', 32))
  })

  it('refuses what it cannot do, with the reason', async () => {
    const p = await fresh()
    // balanceOf answered by code, from no slot: PUSH1 0x2a, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN.
    const constant = await deployCode(p, '602a60005260206000f3')
    await rejects(rq(p, 'anvil_dealERC20', [HOLDER, constant, '0x1']), -32602, /^Unable to set ERC20 balance, no slot found: balanceOf of the token at 0x/)
    // An account without code answers nothing.
    await rejects(rq(p, 'anvil_dealERC20', [HOLDER, COW1, '0x1']), -32602, /^Unable to set ERC20 balance, no slot found/)
    const token = await deploy(p, Token, [0n])
    await rejects(rq(p, 'anvil_dealERC20', [HOLDER, token, '0x1' + '0'.repeat(64)]), -32602, /^Invalid param 0x10{64}: value must be a valid hex or string number\.$/)
    await rejects(rq(p, 'anvil_dealERC20', [HOLDER, token]), -32602)
    await rejects(rq(p, 'anvil_dealERC20', ['0x12', token, '0x1']), -32602)
  })

  it('a view that reads thousands of slots is stopped by the request deadline (-32011), nothing written', async () => {
    const p = await fresh({ rpcTimeout: 300 })
    // balanceOf reads slots 0 … 19,999 and answers slot 20,000: every slot read is a candidate, each tried by a call.
    const token = await deployCode(p, '60005b8054506001018062004e2011600257614e205460005260206000f3')
    await rejects(rq(p, 'anvil_dealERC20', [HOLDER, token, '0x5']), -32011, 'Execution has got timeout out.')
    expect(await rq(p, 'eth_getStorageAt', [token, '0x4e20', 'latest'])).toBe(zeroPadValue('0x', 32))
  })

  it('hosted mode: not the service', async () => {
    const p = await fresh({ hosted: true })
    await rejects(rq(p, 'anvil_dealERC20', [HOLDER, COW1, '0x1']), -32601)
    await rejects(rq(p, 'anvil_setERC20Allowance', [HOLDER, COW1, COW1, '0x1']), -32601)
  })
})

describe('anvil_setERC20Allowance', () => {
  it('sets allowance(owner, spender): the spender can then transferFrom through ethers', async () => {
    const p = await fresh()
    const token = await deploy(p, Token, [0n])
    await rq(p, 'anvil_dealERC20', [COW, token, '0x3e8'])
    expect(await rq(p, 'anvil_setERC20Allowance', [COW, COW1, token, '0x64'])).toBeNull()
    expect(await view(p, token, 'allowance', [COW, COW1])).toBe(100n)
    const slot = solidityPackedKeccak256(['uint256', 'bytes32'], [COW1, solidityPackedKeccak256(['uint256', 'uint256'], [COW, 4])])
    expect(BigInt(await rq(p, 'eth_getStorageAt', [token, slot, 'latest']))).toBe(100n)
    const spender = new JsonRpcSigner(new BrowserProvider(p as never), COW1)
    const asSpender = new Contract(token, Token.abi as never, spender)
    await (await asSpender.getFunction('transferFrom')(COW, HOLDER, 70n, { gasLimit: 200_000n })).wait()
    expect(await view(p, token, 'balanceOf', [HOLDER])).toBe(70n)
    expect(await view(p, token, 'allowance', [COW, COW1])).toBe(30n)
  })

  describe('over HTTP through ethers', () => {
    const http = useHttpServer()
    it('deals and approves', async () => {
      const [from] = await http.rpc.send('eth_accounts', [])
      const deployed = await http.rpc.send('eth_sendTransaction', [{ from, data: Token.bytecode + ti.encodeDeploy([0n]).slice(2), gas: '0x2dc6c0' }])
      const token = (await http.rpc.getTransactionReceipt(deployed))!.contractAddress!
      expect(await http.rpc.send('anvil_dealERC20', [HOLDER, token, '0x7'])).toBeNull()
      expect(await http.rpc.send('anvil_setERC20Allowance', [HOLDER, from, token, '0x5'])).toBeNull()
      const t = new Contract(token, Token.abi as never, http.rpc)
      expect(await t.getFunction('balanceOf')(HOLDER)).toBe(7n)
      expect(await t.getFunction('allowance')(HOLDER, from)).toBe(5n)
    })
  })
})
