/**
 * Start the HTTP server with an API key and read chain data with viem's http transport.
 * Run: `npx vitest run test/examples.test.ts` (examples run in CI through that test).
 */
import { createPublicClient, http } from 'viem'
import { startServer } from '../src/index.js'

export async function main(): Promise<{ url: string; chainId: number; blockNumber: bigint; mergedMining: string }> {
  const server = await startServer({ port: 0, apiKeys: ['my-key'] })
  try {
    // server.url already ends with the first key: http://127.0.0.1:<port>/my-key
    const client = createPublicClient({ transport: http(server.url) })
    const chainId = await client.getChainId()
    const blockNumber = await client.getBlockNumber()
    // RSK blocks carry merged-mining fields that Ethereum clients pass through untouched.
    const block = (await client.request({ method: 'eth_getBlockByNumber' as never, params: ['latest', false] as never })) as Record<string, string>
    return { url: server.url, chainId, blockNumber, mergedMining: block.hashForMergedMining! }
  } finally {
    await server.close()
  }
}
