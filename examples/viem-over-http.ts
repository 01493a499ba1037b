/**
 * Start the HTTP server with an API key and read chain data with viem's http transport.
 * Run: `npx vitest run test/examples.test.ts` (examples run in CI through that test).
 */
import { createPublicClient, http } from 'viem'
import { startServer } from '../src/index.js'

export async function main(): Promise<{ chainId: number; blockNumber: bigint; mergedMining: string }> {
  const server = await startServer({ port: 0, apiKeys: ['my-key'] })
  try {
    const client = createPublicClient({ transport: http(`${server.url}/my-key`) })
    const chainId = await client.getChainId()
    const blockNumber = await client.getBlockNumber()
    // RSK blocks carry merged-mining fields that Ethereum clients pass through untouched.
    const block = (await client.request({ method: 'eth_getBlockByNumber' as never, params: ['latest', false] as never })) as Record<string, string>
    return { chainId, blockNumber, mergedMining: block.hashForMergedMining! }
  } finally {
    await server.close()
  }
}
