// A user's TypeScript file importing each entry point; `npm test` compiles it with strict settings and
// skipLibCheck: false, so rsksim's declarations must type-check on their own (no engine types, no missing modules).
import { createProvider, startServer, type ProviderOptions } from 'rsksim'
import { useRsksim, startRsksim, type RsksimFixture } from 'rsksim/testing'
import rsksimPlugin, { rsksimNetwork } from 'rsksim/hardhat'

const options: ProviderOptions = { network: 'testnet', mining: { auto: true } }
export async function main(): Promise<string> {
  const provider = await createProvider(options)
  const server = await startServer({ port: 0, provider })
  const fixture: RsksimFixture = await startRsksim()
  const chainId = (await provider.request({ method: 'eth_chainId' })) as string
  await Promise.all([server.close(), fixture.close()])
  return `${chainId} ${rsksimPlugin.id} ${rsksimNetwork().type} ${typeof useRsksim}`
}
