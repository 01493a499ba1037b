/**
 * A block built on a state the dev-chain methods edited after its parent (anvil_setBalance, anvil_setStorageAt, an
 * evm_revert to a snapshot taken after an edit) is replayed from that state, not from the parent's stateRoot: its
 * traces are those of the block as it ran. Before, the replay started from the parent's root, so a transaction the
 * edit paid for failed in the replay (-32603 "sender doesn't have enough funds") and the tracers answered errors or
 * other values. Expected values: the balance and slot the edits set, and the state API at the block before (which,
 * as the parent's post-state, does not hold the edit).
 */
import { describe, expect, it } from 'vitest'
import { MemoryLevel } from 'memory-level'
import { zeroPadValue, toBeHex } from 'ethers'
import { createProvider, type Provider } from '../src/index.js'
import { COW, NO_QUOTA, deployCode, fresh, rq } from './helpers.js'

const FUNDED = '0x00000000000000000000000000000000000fee01'
const TO = '0x0000000000000000000000000000000000000b0b'
const ONE_RBTC = '0xde0b6b3a7640000'

/** Funds FUNDED by anvil_setBalance and sends 5 wei from it (impersonated): the edit pays for the transaction. */
async function sendFromEdited(p: Provider): Promise<{ hash: string; block: string }> {
  await rq(p, 'anvil_setBalance', [FUNDED, ONE_RBTC])
  await rq(p, 'anvil_impersonateAccount', [FUNDED])
  const hash = await rq(p, 'eth_sendTransaction', [{ from: FUNDED, to: TO, value: '0x5', gas: '0x5208' }])
  const receipt = await rq(p, 'eth_getTransactionReceipt', [hash])
  expect(receipt.status).toBe('0x1')
  return { hash, block: receipt.blockNumber }
}

/** The traces a replay gives of `hash`, each asserting it ran as mined: a call of 5 wei from FUNDED, funded by the edit. */
async function expectReplayedAsMined(p: Provider, hash: string, block: string): Promise<void> {
  const before = '0x' + (BigInt(block) - 1n).toString(16)
  // The parent's post-state does not hold the edit: the replay must not start there.
  expect(await rq(p, 'eth_getBalance', [FUNDED, before])).toBe('0x0')
  const call = await rq(p, 'debug_traceTransaction', [hash, { tracer: 'callTracer' }])
  expect(call).toMatchObject({ type: 'CALL', from: FUNDED, to: TO, value: '0x5', gasUsed: '0x5208' })
  expect(call.error).toBeUndefined()
  const [parity] = await rq(p, 'trace_transaction', [hash])
  expect(parity.result).toEqual({ gasUsed: '0x5208', output: '0x' })
  const pre = await rq(p, 'debug_traceTransaction', [hash, { tracer: 'prestateTracer' }])
  expect(pre[FUNDED]).toEqual({ balance: ONE_RBTC })
  const struct = await rq(p, 'debug_traceTransaction', [hash])
  expect(struct.error).toBe('')
}

describe('replays of a block built on an edited state', () => {
  it('anvil_setBalance then a transaction the edit pays for: every tracer replays it as mined', async () => {
    const p = await fresh()
    const { hash, block } = await sendFromEdited(p)
    await expectReplayedAsMined(p, hash, block)
    // The blocks after it, with no edit, replay from their parents as before.
    const later = await rq(p, 'eth_sendTransaction', [{ from: FUNDED, to: TO, value: '0x6', gas: '0x5208' }])
    expect((await rq(p, 'debug_traceTransaction', [later, { tracer: 'callTracer' }])).value).toBe('0x6')
  })

  it('debug_storageRangeAt before the first transaction sees a slot anvil_setStorageAt wrote before the block', async () => {
    const p = await fresh()
    // Runtime: STOP (a contract with storage only edits give).
    const contract = await deployCode(p, '00')
    await rq(p, 'anvil_setStorageAt', [contract, '0x3', zeroPadValue(toBeHex(0x63), 32)])
    const hash = await rq(p, 'eth_sendTransaction', [{ from: COW, to: contract, gas: '0x7530' }])
    const { blockHash, blockNumber } = await rq(p, 'eth_getTransactionReceipt', [hash])
    expect(await rq(p, 'eth_getStorageAt', [contract, '0x3', '0x' + (BigInt(blockNumber) - 1n).toString(16)])).toBe(zeroPadValue('0x', 32))
    const range = await rq(p, 'debug_storageRangeAt', [blockHash, 0, contract, '0x00', 10])
    expect(Object.values(range.storage)).toEqual([{ key: zeroPadValue('0x03', 32), value: zeroPadValue(toBeHex(0x63), 32) }])
  })

  it('a snapshot taken after an edit, reverted to, then mined on: the block replays from the snapshot', async () => {
    const p = await fresh()
    await rq(p, 'anvil_setBalance', [FUNDED, ONE_RBTC])
    await rq(p, 'anvil_impersonateAccount', [FUNDED])
    const id = await rq(p, 'evm_snapshot')
    await rq(p, 'evm_mine')
    await rq(p, 'evm_revert', [id])
    // The head is the block before the edit again, and the live state is the edited one.
    const hash = await rq(p, 'eth_sendTransaction', [{ from: FUNDED, to: TO, value: '0x5', gas: '0x5208' }])
    await expectReplayedAsMined(p, hash, (await rq(p, 'eth_getTransactionReceipt', [hash])).blockNumber)
  })

  it('kept in the database: a reopened node replays the block from the edited state', async () => {
    const level = new MemoryLevel()
    const a = await createProvider({ ...NO_QUOTA, database: { level } })
    const { hash, block } = await sendFromEdited(a)
    await a.disconnect()
    const b = await createProvider({ ...NO_QUOTA, database: { level } })
    await expectReplayedAsMined(b, hash, block)
    // An edit made before the node closed, then a block mined after it reopened.
    await rq(b, 'anvil_setBalance', [FUNDED, ONE_RBTC])
    await b.disconnect()
    const c = await createProvider({ ...NO_QUOTA, database: { level } })
    await rq(c, 'anvil_impersonateAccount', [FUNDED])
    const next = await rq(c, 'eth_sendTransaction', [{ from: FUNDED, to: TO, value: '0x5', gas: '0x5208' }])
    const pre = await rq(c, 'debug_traceTransaction', [next, { tracer: 'prestateTracer' }])
    expect(pre[FUNDED].balance).toBe(ONE_RBTC)
    await c.disconnect()
  })
})
