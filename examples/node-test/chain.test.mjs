// rsksim/testing with node:test (mocha takes the same hooks: before, beforeEach, afterEach, after).
import { after, afterEach, before, beforeEach, test } from 'node:test'
import assert from 'node:assert/strict'
import { useRsksim } from 'rsksim/testing'

const rsksim = useRsksim({ before, beforeEach, afterEach, after })
const request = (method, params = []) => rsksim().provider.request({ method, params })

test('mines a block', async () => {
  await request('evm_mine')
  assert.equal(await request('eth_blockNumber'), '0x1')
})

test('starts again from block 0 on chain 33', async () => {
  assert.equal(await request('eth_blockNumber'), '0x0')
  assert.equal(await request('eth_chainId'), '0x21')
})
