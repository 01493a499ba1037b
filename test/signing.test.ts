/**
 * Signing with the node's keys (personal_sign, eth_signTypedData_v4 / eth_signTypedData, eth_signTransaction) and
 * recovering a personal message's signer (personal_ecRecover),
 * through ethers' JsonRpcSigner and viem's wallet client; signatures checked with the other library's verifiers.
 */
import { describe, expect, it } from 'vitest'
import { BrowserProvider, Transaction, TypedDataEncoder, verifyMessage, verifyTypedData, Wallet } from 'ethers'
import { createWalletClient, custom, verifyMessage as viemVerifyMessage, verifyTypedData as viemVerifyTypedData, type Chain } from 'viem'
import { Web3 } from 'web3'
import { COW, COW1, COW_KEY, fresh, rejects } from './helpers.js'

const regtest: Chain = { id: 33, name: 'regtest', nativeCurrency: { name: 'RBTC', symbol: 'RBTC', decimals: 18 }, rpcUrls: { default: { http: [] } } }

/** EIP-2612 permit: the shape most dApps sign. */
const permit = {
  domain: { name: 'Token', version: '1', chainId: 33, verifyingContract: '0x00000000000000000000000000000000000c0de1' },
  types: {
    Permit: [
      { name: 'owner', type: 'address' },
      { name: 'spender', type: 'address' },
      { name: 'value', type: 'uint256' },
      { name: 'nonce', type: 'uint256' },
      { name: 'deadline', type: 'uint256' },
    ],
  },
  message: { owner: COW, spender: COW1, value: 10n ** 18n, nonce: 0n, deadline: 2n ** 40n },
}

/** Nested structs and arrays (EIP-712's Mail example, with arrays added). */
const mail = {
  domain: { name: 'Ether Mail', version: '1', chainId: 33, verifyingContract: '0xcccccccccccccccccccccccccccccccccccccccc' },
  types: {
    Person: [
      { name: 'name', type: 'string' },
      { name: 'wallets', type: 'address[]' },
    ],
    Mail: [
      { name: 'from', type: 'Person' },
      { name: 'to', type: 'Person[]' },
      { name: 'contents', type: 'string' },
      { name: 'tags', type: 'bytes32[2]' },
    ],
  },
  message: {
    from: { name: 'Cow', wallets: [COW, COW1] },
    to: [{ name: 'Bob', wallets: ['0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'] }],
    contents: 'Hello, Bob!',
    tags: ['0x' + '11'.repeat(32), '0x' + '22'.repeat(32)],
  },
}

describe('ethers JsonRpcSigner', () => {
  it('signMessage (personal_sign) verifies with ethers and viem', async () => {
    const signer = await new BrowserProvider(await fresh()).getSigner(COW)
    const sig = await signer.signMessage('hello rsksim')
    expect(verifyMessage('hello rsksim', sig).toLowerCase()).toBe(COW)
    expect(await viemVerifyMessage({ address: COW, message: 'hello rsksim', signature: sig as `0x${string}` })).toBe(true)
  })

  it('signTypedData (eth_signTypedData_v4): permit and nested structs with arrays verify with both libraries', async () => {
    const signer = await new BrowserProvider(await fresh()).getSigner(COW)
    for (const t of [permit, mail]) {
      const sig = await signer.signTypedData(t.domain, t.types, t.message)
      expect(verifyTypedData(t.domain, t.types, t.message, sig).toLowerCase()).toBe(COW)
      const primaryType = TypedDataEncoder.getPrimaryType(t.types)
      expect(await viemVerifyTypedData({ address: COW, ...t, primaryType, signature: sig as `0x${string}` } as never)).toBe(true)
    }
  })

  it('signTransaction (eth_signTransaction) gives a raw legacy transaction from the account, not sent', async () => {
    const p = await fresh()
    const signer = await new BrowserProvider(p).getSigner(COW)
    const raw = await signer.signTransaction({ to: COW1, value: 5n, gasLimit: 21_000n, gasPrice: 0n, nonce: 0, type: 0, chainId: 33 })
    const tx = Transaction.from(raw)
    expect(tx.from?.toLowerCase()).toBe(COW)
    expect(tx.to?.toLowerCase()).toBe(COW1)
    expect(tx.value).toBe(5n)
    expect(tx.chainId).toBe(33n)
    expect(await p.request({ method: 'eth_blockNumber' })).toBe('0x0')
    // Sending it later works: it is the transaction the node would have sent.
    expect(await p.request({ method: 'eth_sendRawTransaction', params: [raw] })).toBe(tx.hash)
  })
})

describe('viem wallet client', () => {
  it('signMessage and signTypedData with a JSON-RPC account verify with ethers', async () => {
    const wallet = createWalletClient({ account: COW, chain: regtest, transport: custom(await fresh(), { retryCount: 0 }) })
    const sig = await wallet.signMessage({ message: 'from viem' })
    expect(verifyMessage('from viem', sig).toLowerCase()).toBe(COW)
    const typed = await wallet.signTypedData({ ...permit, primaryType: 'Permit' } as never)
    expect(verifyTypedData(permit.domain, permit.types, permit.message, typed).toLowerCase()).toBe(COW)
  })
})

describe('raw requests', () => {
  it('eth_signTypedData takes the address first and the typed data as JSON or an object', async () => {
    const p = await fresh()
    const json = JSON.stringify({ ...mail, primaryType: 'Mail', types: { ...mail.types, EIP712Domain: [{ name: 'name', type: 'string' }, { name: 'version', type: 'string' }, { name: 'chainId', type: 'uint256' }, { name: 'verifyingContract', type: 'address' }] } })
    const a = await p.request({ method: 'eth_signTypedData', params: [COW, json] })
    const b = await p.request({ method: 'eth_signTypedData_v4', params: [COW, JSON.parse(json)] })
    expect(a).toBe(b)
    expect(verifyTypedData(mail.domain, mail.types, mail.message, a as string).toLowerCase()).toBe(COW)
  })

  it("personal_ecRecover answers the signer of a personal message: an ethers wallet's, personal_sign's", async () => {
    const p = await fresh()
    const key = '0x' + '4f'.repeat(32)
    const signer = new Wallet(key)
    const message = 'hello rsksim'
    const hex = '0x' + Buffer.from(message).toString('hex')
    const signature = await signer.signMessage(message)
    expect(await p.request({ method: 'personal_ecRecover', params: [hex, signature] })).toBe(signer.address.toLowerCase())
    const ours = (await p.request({ method: 'personal_sign', params: [hex, COW] })) as string
    expect(await p.request({ method: 'personal_ecRecover', params: [hex, ours] })).toBe(COW)
    expect(ours).toBe(await new Wallet(COW_KEY).signMessage(message))
    // web3.js asks it through its personal module.
    expect((await new Web3(p as never).eth.personal.ecRecover(hex, signature)).toLowerCase()).toBe(signer.address.toLowerCase())
    // Another message: another address, not the signer's.
    expect(await p.request({ method: 'personal_ecRecover', params: ['0x00', signature] })).not.toBe(signer.address.toLowerCase())
    await rejects(p.request({ method: 'personal_ecRecover', params: [hex, signature.slice(0, -2)] }), -32602, 'signature must be 65 bytes long')
    await rejects(p.request({ method: 'personal_ecRecover', params: [hex, signature.slice(0, -2) + '01'] }), -32602, 'invalid Ethereum signature (V is not 27 or 28)')
    await rejects((await fresh({ hosted: true })).request({ method: 'personal_ecRecover', params: [hex, signature] }), -32601, 'method not found')
  })

  it("personal_sign takes geth's passphrase third, as web3.js sends it: an unlocked account signs, a locked one is opened with it", async () => {
    const p = await fresh()
    const hex = '0x' + Buffer.from('hello rsksim').toString('hex')
    const web3 = new Web3(p as never)
    expect(await web3.eth.personal.sign(hex, COW, '')).toBe(await new Wallet(COW_KEY).signMessage('hello rsksim'))
    const w = Wallet.createRandom()
    const addr = (await p.request({ method: 'personal_importRawKey', params: [w.privateKey, 'pw'] })) as string
    expect(await p.request({ method: 'personal_lockAccount', params: [addr] })).toBe(true)
    await rejects(p.request({ method: 'personal_sign', params: [hex, addr] }), -32602, `Could not find account for address: ${addr}`)
    await rejects(p.request({ method: 'personal_sign', params: [hex, addr, 'wrong'] }), -32603, 'Internal server error')
    expect(await web3.eth.personal.sign(hex, addr, 'pw')).toBe(await w.signMessage('hello rsksim'))
    await rejects(p.request({ method: 'personal_sign', params: [hex, '0x' + '12'.repeat(20), 'pw'] }), -32602, `Could not find account for address: 0x${'12'.repeat(20)}`)
  })

  it('refuses an unknown account, bad typed data, and everything in hosted mode (-32601)', async () => {
    const p = await fresh()
    await rejects(p.request({ method: 'personal_sign', params: ['0x00', '0x' + '12'.repeat(20)] }), -32602, /Could not find account/)
    await rejects(p.request({ method: 'eth_signTypedData_v4', params: [COW, '{nope'] }), -32602, 'Invalid typed data: not valid JSON')
    await rejects(p.request({ method: 'eth_signTypedData_v4', params: [COW, { types: {}, primaryType: 'X', message: {} }] }), -32602, /^Invalid typed data/)
    const hosted = await fresh({ hosted: true })
    for (const method of ['personal_sign', 'eth_signTypedData_v4', 'eth_signTypedData', 'eth_signTransaction']) {
      await rejects(hosted.request({ method, params: [] }), -32601, 'method not found')
    }
  })
})
