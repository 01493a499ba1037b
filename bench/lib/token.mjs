// A Token deployed from regtest's funded `cow` account on an in-process rsksim provider, and a signer of legacy
// transactions from it (nonces counted here), for the memory and log scripts (heap-blocks.mjs, logs-old-blocks.mjs).
import path from 'node:path'
import { readFileSync } from 'node:fs'
import { Interface, Wallet } from 'ethers'
import { repoDir } from './targets.mjs'

export async function deployToken(provider) {
  const contracts = JSON.parse(readFileSync(path.join(repoDir, 'test/fixtures/contracts.json'), 'utf8'))
  const rq = (method, params = []) => provider.request({ method, params })
  const wallet = new Wallet('0xc85ef7d79691fe79573b1a7064c19c1a9819ebdbd1faaab1a8ec92344438aaf4') // regtest's `cow`
  const chainId = BigInt(await rq('eth_chainId'))
  let nonce = Number(await rq('eth_getTransactionCount', [wallet.address, 'latest']))
  const sign = (fields) => wallet.signTransaction({ type: 0, chainId, nonce: nonce++, gasPrice: 0n, gasLimit: 100_000n, value: 0n, ...fields })
  const token = new Interface(contracts.Token.abi)
  const deployed = await rq('eth_sendRawTransaction', [await sign({ data: contracts.Token.bytecode + token.encodeDeploy([10n ** 30n]).slice(2), gasLimit: 3_000_000n })])
  const tokenAddress = (await rq('eth_getTransactionReceipt', [deployed])).contractAddress
  /** A signed transfer of 1 token unit to `to`. */
  const transfer = (to) => sign({ to: tokenAddress, data: token.encodeFunctionData('transfer', [to, 1n]) })
  return { rq, tokenAddress, transfer }
}
