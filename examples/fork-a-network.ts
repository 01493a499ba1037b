/**
 * Fork a running network and test against its state. Here the "network" is a second rsksim served over HTTP with a
 * token on it (in real use: `fork: { url: 'https://public-node.testnet.rsk.co', blockNumber }`, or the hosted
 * service's URL with your API key). The fork reads the token's code and balances from it when first touched, and
 * what happens on the fork stays on the fork.
 * Run: `npx vitest run test/examples.test.ts` (examples run in CI through that test).
 */
import { BrowserProvider, Contract, ContractFactory, JsonRpcProvider, parseEther } from 'ethers'
import { createProvider, startServer } from '../src/index.js'
import { Token } from '../test/fixtures/index.js'

export async function main(): Promise<{ forkedAt: number; onFork: bigint; onRemote: bigint; remoteHolder: bigint }> {
  // The network to fork, with a token whose holder is the cow account.
  const remote = await startServer({ port: 0 })
  const live = new JsonRpcProvider(remote.url, undefined, { staticNetwork: true })
  const owner = await live.getSigner(0)
  const deployed = await new ContractFactory(Token.abi as never, Token.bytecode, owner).deploy(parseEther('1000'), { gasLimit: 3_000_000 })
  await deployed.waitForDeployment()
  const address = await deployed.getAddress()
  const blockNumber = Number(await live.send('eth_blockNumber', [])) // not getBlockNumber(): ethers caches it

  // The fork: its chain id, blocks and state come from the remote at `blockNumber`; no disk cache for this demo.
  const forked = await createProvider({ fork: { url: remote.url, blockNumber, cache: false } })
  const provider = new BrowserProvider(forked)
  const signer = await provider.getSigner(0) // the same cow account: its tokens are on the remote
  const token = new Contract(address, Token.abi as never, signer)
  const recipient = '0x7986b3df570230288501eea3d890bd66948c9b79'
  await (await token.getFunction('transfer')(recipient, parseEther('5'))).wait()
  const onFork = (await token.getFunction('balanceOf')(recipient)) as bigint
  const onRemote = (await new Contract(address, Token.abi as never, live).getFunction('balanceOf')(recipient)) as bigint
  const remoteHolder = (await token.getFunction('balanceOf')(await signer.getAddress())) as bigint

  await forked.disconnect()
  live.destroy()
  await remote.close()
  return { forkedAt: blockNumber, onFork, onRemote, remoteHolder }
}
