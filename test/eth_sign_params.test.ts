/**
 * Whole parameters RSKj reads with its own classes through `JsonParser.getText()`: `HexAddressParam` (eth_sign,
 * personal_unlockAccount, personal_lockAccount, personal_dumpRawKey: `new RskAddress(text)`, i.e.
 * `HexUtils.stringHexToByteArray`, which removes only a lower-case `0x` and left-pads an odd digit count) and
 * `HexDataParam` (eth_sign's data, eth_sendRawTransaction). Expected values from that code (co/rsk/core/RskAddress.java,
 * co/rsk/util/HexUtils.java, org/ethereum/rpc/parameters/*), signatures from ethers.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { Transaction, Wallet, getBytes } from 'ethers'
import type { Provider } from '../src/index.js'
import { COW, COW1, COW_KEY, fresh, rejects, rq } from './helpers.js'

let p: Provider
beforeAll(async () => {
  p = await fresh()
})

describe('HexAddressParam', () => {
  it('only a lower-case 0x is a prefix: 0X… is `Invalid address format: invalid hex value.`', async () => {
    const upper = '0X' + COW.slice(2)
    await rejects(rq(p, 'eth_sign', [upper, '0x00']), -32602, 'Invalid address format: invalid hex value.')
    await rejects(rq(p, 'personal_lockAccount', [upper]), -32602, 'Invalid address format: invalid hex value.')
    await rejects(rq(p, 'personal_dumpRawKey', [upper]), -32602, 'Invalid address format: invalid hex value.')
    await rejects(rq(p, 'personal_unlockAccount', [upper, 'pw', null]), -32602, 'Invalid address format: invalid hex value.')
    // cow is still unlocked: the refused lock did nothing.
    expect(await rq(p, 'eth_sign', [COW, '0x00'])).toBe(await new Wallet(COW_KEY).signMessage(getBytes('0x00')))
  })

  it('39 digits after 0x are left-padded to 20 bytes', async () => {
    const addr = await rq(p, 'personal_newAccount', ['pw'])
    const short = '0x' + '1'.repeat(39)
    expect(await rq(p, 'personal_unlockAccount', [short, 'pw', null])).toBe(false)
    expect(await rq(p, 'personal_lockAccount', [short])).toBe(false)
    await rejects(rq(p, 'eth_sign', [short, '0x00']), -32602, 'Account not found')
    await rejects(rq(p, 'eth_sign', ['1'.repeat(41), '0x00']), -32602, 'Invalid address format: invalid hex value.') // 21 bytes once padded
    expect(addr).toMatch(/^0x[0-9a-f]{40}$/)
  })
})

describe('HexDataParam', () => {
  it("eth_sign: 0X… is refused; a JSON number is its digits read as hex; an odd count is left-padded", async () => {
    const cow = new Wallet(COW_KEY)
    await rejects(rq(p, 'eth_sign', [COW, '0X00']), -32602, 'Invalid data format: invalid hex value.')
    expect(await rq(p, 'eth_sign', [COW, 1234])).toBe(await cow.signMessage(getBytes('0x1234')))
    expect(await rq(p, 'eth_sign', [COW, '0x123'])).toBe(await cow.signMessage(getBytes('0x0123')))
    await rejects(rq(p, 'eth_sign', [COW, true]), -32602, 'Invalid data format: invalid hex value.')
    await rejects(rq(p, 'eth_sign', [COW, {}]), -32602, 'Invalid data format: invalid hex value.')
  })

  it('eth_sendRawTransaction: 0X… is refused before any decoding', async () => {
    const tx = Transaction.from({ type: 0, chainId: 33, gasPrice: 0, gasLimit: 21000, to: COW1, nonce: 0 })
    tx.signature = new Wallet(COW_KEY).signingKey.sign(tx.unsignedHash)
    await rejects(rq(p, 'eth_sendRawTransaction', ['0X' + tx.serialized.slice(2)]), -32602, 'Invalid data format: invalid hex value.')
  })
})
