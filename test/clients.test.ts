/**
 * The same scenario through every real client, in process and over HTTP: deploy a contract, send a transfer,
 * wait for the receipt, read a view, query logs, see a revert reason. The outcomes must be identical.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { BrowserProvider, type Contract, ContractFactory, JsonRpcProvider, parseEther } from 'ethers'
import { createPublicClient, createWalletClient, custom, http, parseAbi, type EIP1193Provider } from 'viem'
import { Web3 } from 'web3'
import { createProvider, startServer, type RsksimServer } from '../src/index.js'
import { COW, COW1, NO_QUOTA } from './helpers.js'
import { Reverter, Token } from './fixtures/index.js'

const SUPPLY = parseEther('1000')
const ONE = parseEther('1')

interface Outcome {
  chainId: number
  receiptStatus: number
  tokenBalance: bigint
  recipientBalance: bigint
  transferLogs: number
  revertReason: string
}

const servers: RsksimServer[] = []
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()))
})

async function httpUrl(): Promise<string> {
  const server = await startServer({ port: 0, ...NO_QUOTA })
  servers.push(server)
  return server.url
}

async function withEthers(provider: BrowserProvider | JsonRpcProvider): Promise<Outcome> {
  const signer = await provider.getSigner(COW)
  const token = (await new ContractFactory(Token.abi as never, Token.bytecode, signer).deploy(SUPPLY, { gasLimit: 3_000_000 })) as Contract
  await token.waitForDeployment()
  const tx = await (token as any).transfer(COW1, ONE)
  const receipt = await tx.wait()
  const logs = await provider.getLogs({ address: await token.getAddress(), fromBlock: 0, toBlock: 'latest' })
  const reverter = (await new ContractFactory(Reverter.abi as never, Reverter.bytecode, signer).deploy({ gasLimit: 3_000_000 })) as Contract
  await reverter.waitForDeployment()
  let revertReason = ''
  try {
    await (reverter as any).revertWithReason.staticCall()
  } catch (e: any) {
    revertReason = e.reason
  }
  return {
    chainId: Number((await provider.getNetwork()).chainId),
    receiptStatus: receipt.status,
    tokenBalance: await (token as any).balanceOf(COW),
    recipientBalance: await (token as any).balanceOf(COW1),
    transferLogs: logs.length,
    revertReason,
  }
}

const tokenAbi = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function transfer(address,uint256) returns (bool)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
])
const reverterAbi = parseAbi(['function revertWithReason()'])

async function withViem(transport: ReturnType<typeof custom> | ReturnType<typeof http>): Promise<Outcome> {
  const pub = createPublicClient({ transport })
  const wallet = createWalletClient({ transport, account: COW as `0x${string}` })
  const chain = { id: 33, name: 'rsk-regtest', nativeCurrency: { name: 'RBTC', symbol: 'RBTC', decimals: 18 }, rpcUrls: { default: { http: [] } } } as const
  const deployHash = await wallet.deployContract({ abi: Token.abi as never, bytecode: Token.bytecode, args: [SUPPLY], gas: 3_000_000n, chain })
  const { contractAddress } = await pub.waitForTransactionReceipt({ hash: deployHash })
  const address = contractAddress!
  const hash = await wallet.writeContract({ address, abi: tokenAbi, functionName: 'transfer', args: [COW1, ONE], gas: 200_000n, chain })
  const receipt = await pub.waitForTransactionReceipt({ hash })
  const logs = await pub.getContractEvents({ address, abi: tokenAbi, eventName: 'Transfer', fromBlock: 0n })
  const rHash = await wallet.deployContract({ abi: Reverter.abi as never, bytecode: Reverter.bytecode, gas: 3_000_000n, chain })
  const reverter = (await pub.waitForTransactionReceipt({ hash: rHash })).contractAddress!
  let revertReason = ''
  try {
    await pub.readContract({ address: reverter, abi: reverterAbi, functionName: 'revertWithReason' })
  } catch (e: any) {
    revertReason = e.walk((x: any) => x.reason !== undefined)?.reason ?? e.details
  }
  return {
    chainId: await pub.getChainId(),
    receiptStatus: receipt.status === 'success' ? 1 : 0,
    tokenBalance: await pub.readContract({ address, abi: tokenAbi, functionName: 'balanceOf', args: [COW] }),
    recipientBalance: await pub.readContract({ address, abi: tokenAbi, functionName: 'balanceOf', args: [COW1] }),
    transferLogs: logs.length,
    revertReason,
  }
}

async function withWeb3(web3: Web3): Promise<Outcome> {
  web3.config.defaultTransactionType = '0x0'
  const token = new web3.eth.Contract(Token.abi as never)
  const deployed: any = await (token.deploy as any)({ data: Token.bytecode, arguments: [SUPPLY] }).send({ from: COW, gas: '3000000' })
  const receipt = await deployed.methods.transfer(COW1, ONE).send({ from: COW, gas: '200000' })
  const logs = await web3.eth.getPastLogs({ address: deployed.options.address, fromBlock: 0 })
  const reverter: any = await (new web3.eth.Contract(Reverter.abi as never).deploy as any)({ data: Reverter.bytecode }).send({ from: COW, gas: '3000000' })
  let revertReason = ''
  try {
    await reverter.methods.revertWithReason().call()
  } catch (e: any) {
    revertReason = e.cause?.message ?? e.message
  }
  return {
    chainId: Number(await web3.eth.getChainId()),
    receiptStatus: Number(receipt.status),
    tokenBalance: BigInt(await deployed.methods.balanceOf(COW).call()),
    recipientBalance: BigInt(await deployed.methods.balanceOf(COW1).call()),
    transferLogs: logs.length,
    revertReason,
  }
}

const expected: Omit<Outcome, 'revertReason'> = {
  chainId: 33,
  receiptStatus: 1,
  tokenBalance: SUPPLY - ONE,
  recipientBalance: ONE,
  transferLogs: 2,
}

describe('ethers v6', () => {
  it('BrowserProvider over the in-process provider', async () => {
    const out = await withEthers(new BrowserProvider(await createProvider(NO_QUOTA)))
    expect(out).toEqual({ ...expected, revertReason: 'nope' })
  })
  it('JsonRpcProvider over HTTP', async () => {
    const out = await withEthers(new JsonRpcProvider(await httpUrl(), undefined, { staticNetwork: true }))
    expect(out).toEqual({ ...expected, revertReason: 'nope' })
  })
})

describe('viem', () => {
  it('custom transport over the in-process provider', async () => {
    const provider = await createProvider(NO_QUOTA)
    const out = await withViem(custom(provider as unknown as EIP1193Provider, { retryCount: 0 }))
    expect(out).toMatchObject(expected)
    expect(out.revertReason).toMatch(/nope/)
  })
  it('http transport over the server', async () => {
    const out = await withViem(http(await httpUrl(), { retryCount: 0 }))
    expect(out).toMatchObject(expected)
    expect(out.revertReason).toMatch(/nope/)
  })
})

describe('web3.js v4', () => {
  it('Web3 over the in-process provider', async () => {
    const out = await withWeb3(new Web3(await createProvider(NO_QUOTA) as never))
    expect(out).toMatchObject(expected)
    expect(out.revertReason).toMatch(/revert nope/)
  })
  it('Web3 over HTTP', async () => {
    const out = await withWeb3(new Web3(await httpUrl()))
    expect(out).toMatchObject(expected)
    expect(out.revertReason).toMatch(/revert nope/)
  })
})
