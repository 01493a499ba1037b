// rsksim/testing with vitest: one rsksim per file (and per worker: vitest runs files in parallel, each server on
// its own free port), every test starting from the same chain.
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest'
import { BrowserProvider, JsonRpcProvider } from 'ethers'
import { useRsksim } from 'rsksim/testing'

const rsksim = useRsksim({ beforeAll, beforeEach, afterEach, afterAll }, { server: true })
const recipient = '0x00000000000000000000000000000000000000aa'

it('a transfer changes the chain', async () => {
  const signer = await new BrowserProvider(rsksim().provider).getSigner(0)
  await (await signer.sendTransaction({ to: recipient, value: 5n })).wait()
  expect(await signer.provider.getBalance(recipient)).toBe(5n)
})

it('the next test starts from the snapshot again (over HTTP)', async () => {
  const http = new JsonRpcProvider(rsksim().url, undefined, { staticNetwork: true })
  expect(await http.getBalance(recipient)).toBe(0n)
  expect(await http.getBlockNumber()).toBe(0)
  http.destroy()
})
