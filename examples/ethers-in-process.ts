/**
 * Deploy a contract and send a transfer with ethers v6 over the in-process provider.
 * Run: `npx vitest run test/examples.test.ts` (examples run in CI through that test).
 */
import { BrowserProvider, ContractFactory, parseEther } from 'ethers'
import { createProvider } from '../src/index.js'
import { Token } from '../test/fixtures/index.js'

export async function main(): Promise<{ balance: bigint; transferred: bigint }> {
  const provider = new BrowserProvider(await createProvider())
  const signer = await provider.getSigner(0) // 0xcd2a3d9f…d826, the regtest "cow" account
  const factory = new ContractFactory(Token.abi as never, Token.bytecode, signer)
  const token = (await factory.deploy(parseEther('1000'), { gasLimit: 3_000_000 })) as any
  await token.waitForDeployment()
  const recipient = '0x7986b3df570230288501eea3d890bd66948c9b79'
  await (await token.transfer(recipient, parseEther('1'))).wait()
  return { balance: await token.balanceOf(signer.address), transferred: await token.balanceOf(recipient) }
}
