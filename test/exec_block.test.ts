/**
 * The execution blocks the engine runs against (src/node/chain/execBlock.ts) are shared by blocks built again with
 * the same values (a fixture cycle re-mines the numbers and timestamps it reverted): a block built again with another
 * coinbase or timestamp must still show its own values to the code that runs in it.
 */
import { describe, expect, it } from 'vitest'
import { fresh, send } from './helpers.js'

// Init code that returns COINBASE, TIMESTAMP and NUMBER as three words (run by a call without `to`).
const BLOCK_VALUES = '0x41600052426020524360405260606000f3'
const X = '0x00000000000000000000000000000000000000aa'

describe('execution blocks built again', () => {
  it('show each block its own coinbase, timestamp and number, in mined transactions and in calls', async () => {
    const p = await fresh()
    const rq = (method: string, params: unknown[] = []) => p.request({ method, params }) as Promise<any>
    const values = async (tag: string) => {
      const out = (await rq('eth_call', [{ data: BLOCK_VALUES }, tag])) as string
      return [`0x${out.slice(26, 66)}`, BigInt(`0x${out.slice(66, 130)}`), BigInt(`0x${out.slice(130, 194)}`)]
    }
    const id = await rq('evm_snapshot')
    const at = BigInt((await rq('eth_getBlockByNumber', ['latest', false])).timestamp) + 100n
    await rq('evm_setNextBlockTimestamp', [`0x${at.toString(16)}`])
    await rq('evm_mine')
    const head = await rq('eth_getBlockByNumber', ['latest', false])
    const first = await values('latest')
    expect(first).toEqual([head.miner, BigInt(head.timestamp), BigInt(head.number)])

    // The same number and timestamp again, another coinbase.
    expect(await rq('evm_revert', [id])).toBe(true)
    const id2 = await rq('evm_snapshot')
    await rq('anvil_setCoinbase', [X])
    await rq('evm_setNextBlockTimestamp', [`0x${at.toString(16)}`])
    await rq('evm_mine')
    const again = await rq('eth_getBlockByNumber', ['latest', false])
    expect([again.number, again.timestamp]).toEqual([head.number, head.timestamp])
    expect(again.miner).toBe(X)
    expect(await values('latest')).toEqual([X, BigInt(again.timestamp), BigInt(again.number)])

    // And another timestamp, read by a transaction mined in the block: the init code's answer becomes the code of
    // the contract it creates, so the code is what the transaction saw.
    expect(await rq('evm_revert', [id2])).toBe(true)
    const later = at + 1000n
    await rq('evm_setNextBlockTimestamp', [`0x${later.toString(16)}`])
    const receipt = await send(p, { data: BLOCK_VALUES })
    expect(receipt.status).toBe('0x1')
    expect(BigInt(receipt.blockNumber)).toBe(BigInt(head.number))
    const seen = (await rq('eth_getCode', [receipt.contractAddress, 'latest'])) as string
    const word = (i: number) => BigInt(`0x${seen.slice(2 + 64 * i, 66 + 64 * i)}`)
    expect([word(0), word(1), word(2)]).toEqual([BigInt(X), later, BigInt(head.number)])
    expect(await values(receipt.blockNumber)).toEqual([X, later, BigInt(receipt.blockNumber)])
  })
})
