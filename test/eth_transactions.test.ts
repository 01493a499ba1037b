import { describe, expect, it, beforeAll } from 'vitest'
import { Interface, Transaction, Wallet, keccak256, toUtf8Bytes, hashMessage, recoverAddress, Signature, decodeRlp, encodeRlp, toBeHex } from 'ethers'
import type { Provider } from '../src/index.js'
import { COW, COW1, COW_KEY, deploy, fresh, rejects, send, rq } from './helpers.js'
import { Events, Reverter, Token } from './fixtures/index.js'


let p: Provider
beforeAll(async () => {
  p = await fresh()
})

/** Signs a legacy EIP-155 transaction for regtest (chain id 33) with ethers. */
async function rawTx(fields: Record<string, unknown>, key = COW_KEY): Promise<string> {
  const tx = Transaction.from({ type: 0, chainId: 33, gasPrice: 0, gasLimit: 21000, ...fields } as never)
  tx.signature = new Wallet(key).signingKey.sign(tx.unsignedHash)
  return tx.serialized
}

describe('eth_sendTransaction / eth_getTransactionReceipt', () => {
  it('mines a transfer in its own block (automine) with a receipt in RSKj shape', async () => {
    const before = BigInt(await rq(p, 'eth_blockNumber'))
    const hash = await rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1, value: '0x3e8' }])
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/)
    const r = await rq(p, 'eth_getTransactionReceipt', [hash])
    expect(Object.keys(r)).toEqual([
      'transactionHash', 'transactionIndex', 'blockHash', 'blockNumber', 'cumulativeGasUsed', 'gasUsed', 'contractAddress',
      'logs', 'from', 'to', 'status', 'logsBloom', 'type', 'effectiveGasPrice',
    ])
    expect(r.status).toBe('0x1')
    expect(r.gasUsed).toBe('0x5208')
    expect(r.blockNumber).toBe('0x' + (before + 1n).toString(16))
    expect(r.from).toBe(COW)
    expect(r.to).toBe(COW1)
    expect(r.contractAddress).toBeNull()
    expect(r.type).toBe('0x0')
    expect(r.effectiveGasPrice).toBe('0x0')
    expect(r.logsBloom).toHaveLength(2 + 512)
  })

  it('uses the defaults gas 90000 and gasPrice 0', async () => {
    const hash = await rq(p, 'eth_sendTransaction', [{ from: COW, to: COW1 }])
    const tx = await rq(p, 'eth_getTransactionByHash', [hash])
    expect(tx.gas).toBe('0x15f90')
    expect(tx.gasPrice).toBe('0x0')
    expect(tx.value).toBe('0x0')
    expect(tx.v).toMatch(/^0x6[56]$/)
  })

  it('deploys a contract: receipt has contractAddress and code is there', async () => {
    const address = await deploy(p, Token, [10n ** 24n])
    expect(await rq(p, 'eth_getCode', [address, 'latest'])).toBe(Token.deployedBytecode)
    const iface = new Interface(Token.abi as never)
    const out = await rq(p, 'eth_call', [{ to: address, data: iface.encodeFunctionData('balanceOf', [COW]) }, 'latest'])
    expect(BigInt(out)).toBe(10n ** 24n)
  })

  it('refuses unknown senders and a missing from', async () => {
    await rejects(rq(p, 'eth_sendTransaction', [{ to: COW1 }]), -32602, 'from is null')
    await rejects(rq(p, 'eth_sendTransaction', [{ from: '0x' + '12'.repeat(20), to: COW1 }]), -32602, /Could not find account for address/)
  })

  it('answers -32015 with the revert data when an automined transaction reverts, and keeps it mined', async () => {
    const address = await deploy(p, Reverter)
    const iface = new Interface(Reverter.abi as never)
    const head = BigInt(await rq(p, 'eth_blockNumber'))
    const e = await rejects(
      rq(p, 'eth_sendTransaction', [{ from: COW, to: address, gas: '0x30d40', data: iface.encodeFunctionData('revertWithReason') }]),
      -32015,
      'VM Exception while processing transaction: revert nope',
    )
    expect(iface.parseError(e.data)?.args[0]).toBe('nope')
    expect(BigInt(await rq(p, 'eth_blockNumber'))).toBe(head + 1n)
    const block = await rq(p, 'eth_getBlockByNumber', ['latest', true])
    const r = await rq(p, 'eth_getTransactionReceipt', [block.transactions[0].hash])
    expect(r.status).toBe('0x0')
  })
})

describe('eth_sendRawTransaction', () => {
  it('accepts an EIP-155 legacy transaction signed by ethers', async () => {
    const nonce = await rq(p, 'eth_getTransactionCount', [COW, 'pending'])
    const raw = await rawTx({ nonce: Number(nonce), to: COW1, value: 5 })
    const hash = await rq(p, 'eth_sendRawTransaction', [raw])
    expect(hash).toBe(keccak256(raw))
    const tx = await rq(p, 'eth_getTransactionByHash', [hash])
    expect(Object.keys(tx)).toEqual(['hash', 'nonce', 'blockHash', 'blockNumber', 'transactionIndex', 'from', 'to', 'gas', 'gasPrice', 'value', 'input', 'v', 'r', 's', 'type'])
    expect(tx.from).toBe(COW)
    expect(tx.input).toBe('0x')
    expect(tx.transactionIndex).toBe('0x0')
  })

  it('the same signed bytes sent again after evm_revert mine again, from the sender ethers recovers; another chain still refuses them', async () => {
    const q = await fresh()
    const nonce = Number(BigInt(await rq(q, 'eth_getTransactionCount', [COW, 'latest'])))
    const raw = await rawTx({ nonce, to: COW1, value: 7 })
    const sender = Transaction.from(raw).from!.toLowerCase()
    for (let i = 0; i < 3; i++) {
      const id = await rq(q, 'evm_snapshot')
      expect(await rq(q, 'eth_sendRawTransaction', [raw])).toBe(keccak256(raw))
      const receipt = await rq(q, 'eth_getTransactionReceipt', [keccak256(raw)])
      expect([receipt.status, receipt.from]).toEqual(['0x1', sender])
      expect((await rq(q, 'eth_getTransactionByHash', [keccak256(raw)])).from).toBe(COW)
      expect(await rq(q, 'evm_revert', [id])).toBe(true)
      expect(await rq(q, 'eth_getTransactionReceipt', [keccak256(raw)])).toBeNull()
    }
    // Decoded transactions are remembered per chain: a chain with another id refuses the bytes as RSKj does.
    const other = await fresh({ network: 'testnet' })
    await rejects(rq(other, 'eth_sendRawTransaction', [raw]), -32602, 'Invalid chainId: 33')
  })

  it('refuses typed transactions, wrong chain ids and garbage', async () => {
    const typed = Transaction.from({ type: 2, chainId: 33, nonce: 0, to: COW1, gasLimit: 21000, maxFeePerGas: 1, maxPriorityFeePerGas: 1 })
    typed.signature = new Wallet(COW_KEY).signingKey.sign(typed.unsignedHash)
    await rejects(rq(p, 'eth_sendRawTransaction', [typed.serialized]), -32602, /typed transactions/)
    const wrongChain = Transaction.from({ type: 0, chainId: 31, nonce: 0, to: COW1, gasLimit: 21000, gasPrice: 0 })
    wrongChain.signature = new Wallet(COW_KEY).signingKey.sign(wrongChain.unsignedHash)
    await rejects(rq(p, 'eth_sendRawTransaction', [wrongChain.serialized]), -32602, 'Invalid chainId: 31')
    // The same transfer with s replaced by n - s (and the parity flipped) still recovers a key, but RSKj takes only
    // low s: -32602 with its chain-id text (reference: rskj.md, "s must be ≤ n/2").
    const low = Transaction.from({ type: 0, chainId: 33, nonce: 0, to: COW1, gasLimit: 21000, gasPrice: 0 })
    low.signature = new Wallet(COW_KEY).signingKey.sign(low.unsignedHash)
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
    const [nonce, gasPrice, gasLimit, to, value, data] = decodeRlp(low.serialized) as string[]
    const highS = encodeRlp([nonce!, gasPrice!, gasLimit!, to!, value!, data!, toBeHex(low.signature.v === 27 ? 102 : 101), low.signature.r, toBeHex(n - BigInt(low.signature.s))])
    await rejects(rq(p, 'eth_sendRawTransaction', [highS]), -32602, 'Invalid chainId: 33')
    await rejects(rq(p, 'eth_sendRawTransaction', ['0xc0ffee']), -32602, /Invalid input/)
    await rejects(rq(p, 'eth_sendRawTransaction', ['zz']), -32602, 'Invalid data format: invalid hex value.')
  })

  it('answers the pool rejections with -32010 and RSKj texts', async () => {
    const nonce = Number(await rq(p, 'eth_getTransactionCount', [COW, 'latest']))
    await rejects(rq(p, 'eth_sendRawTransaction', [await rawTx({ nonce: 0, to: COW1 })]), -32010, 'transaction nonce too low')
    await rejects(rq(p, 'eth_sendRawTransaction', [await rawTx({ nonce, to: COW1, gasLimit: 20_000_000 })]), -32010,
      "transaction's gas limit of 20000000 is higher than the block's gas limit of 10000000")
    await rejects(rq(p, 'eth_sendRawTransaction', [await rawTx({ nonce, to: COW1, gasLimit: 20_000 })]), -32010,
      "transaction's basic cost is above the gas limit")
    // A sender with no state is refused whatever the price (RSKj TxPendingValidator: `state == null` and a cost).
    const fresh0 = Wallet.createRandom()
    await rejects(rq(p, 'eth_sendRawTransaction', [await rawTx({ nonce: 0, to: COW1 }, fresh0.privateKey)]), -32010, "the sender account doesn't exist")
    await rejects(rq(p, 'eth_sendRawTransaction', [await rawTx({ nonce: 0, to: COW1, gasPrice: 1 }, fresh0.privateKey)]), -32010, "the sender account doesn't exist")
    // One with state but short of the value: insufficient funds.
    const poor = Wallet.createRandom()
    await send(p, { to: poor.address, value: '0x1' })
    await rejects(rq(p, 'eth_sendRawTransaction', [await rawTx({ nonce: 0, to: COW1, value: 2 }, poor.privateKey)]), -32010, 'insufficient funds')
    const priced = await fresh({ minimumGasPrice: 10n })
    await rejects(priced.request({ method: 'eth_sendRawTransaction', params: [await rawTx({ nonce: 0, to: COW1, gasPrice: 1 })] }), -32010,
      "transaction's gas price lower than block's minimum")
    // RSKIP252 (RSKj TxGasPriceCap.FOR_TRANSACTION): over 80 times the blocks' minimum is refused; 80 times is taken.
    await rejects(priced.request({ method: 'eth_sendRawTransaction', params: [await rawTx({ nonce: 0, to: COW1, gasPrice: 801 })] }), -32010,
      "transaction's gas price exceeds cap")
    const hash = await priced.request({ method: 'eth_sendRawTransaction', params: [await rawTx({ nonce: 0, to: COW1, gasPrice: 800 })] })
    expect((await priced.request({ method: 'eth_getTransactionReceipt', params: [hash] }) as any).status).toBe('0x1')
  })

  it('refuses a pending transaction its sender cannot pay with the others waiting (RSKj: insufficient funds to pay for pending and new transactions)', async () => {
    const q = await fresh()
    const rqq = (method: string, params: unknown[] = []) => q.request({ method, params }) as Promise<any>
    // A new account with 1,000,000 wei; transfers at gas price 1 and 21,000 gas each cost value + 21,000.
    const payer = Wallet.createRandom()
    await rqq('eth_sendTransaction', [{ from: COW, to: payer.address, value: '0xf4240' }])
    await rqq('evm_setAutomine', [false])
    const t0 = await rawTx({ nonce: 0, to: COW1, gasPrice: 1, value: 400_000 }, payer.privateKey) // 421,000
    const t1 = await rawTx({ nonce: 1, to: COW1, gasPrice: 1, value: 500_000 }, payer.privateKey) // 521,000: 942,000 in all
    await rqq('eth_sendRawTransaction', [t0])
    await rqq('eth_sendRawTransaction', [t1])
    // 942,000 + 58,001 > 1,000,000: refused; 58,000 fits exactly.
    await rejects(rqq('eth_sendRawTransaction', [await rawTx({ nonce: 2, to: COW1, gasPrice: 1, value: 37_001 }, payer.privateKey)]), -32010,
      'insufficient funds to pay for pending and new transactions')
    await rqq('eth_sendRawTransaction', [await rawTx({ nonce: 2, to: COW1, gasPrice: 1, value: 37_000 }, payer.privateKey)])
    // A replacement is counted instead of the one it replaces (RSKj leaves the replaced one out of the sum).
    await rqq('eth_sendRawTransaction', [await rawTx({ nonce: 2, to: COW1, gasPrice: 2, value: 16_000 }, payer.privateKey)])
    // Bound for the queued set (a nonce gap): not checked, as in RSKj.
    await rqq('eth_sendRawTransaction', [await rawTx({ nonce: 5, to: COW1, gasPrice: 1, value: 900_000 }, payer.privateKey)])
    await rqq('evm_mine')
    expect(BigInt(await rqq('eth_getBalance', [payer.address, 'latest']))).toBe(1_000_000n - 421_000n - 521_000n - (16_000n + 42_000n))
  })

  it("the miner leaves out, and drops from the pool, what is priced under the block's minimum or over 100 times it", async () => {
    // RSKj MinerUtils.filterTransactions with TxGasPriceCap.FOR_BLOCK: transactions admitted under the head's minimum,
    // which anvil_setMinGasPrice then moved for the next block.
    const q = await fresh({ minimumGasPrice: 100n })
    const rqq = (method: string, params: unknown[] = []) => q.request({ method, params }) as Promise<any>
    await rqq('evm_setAutomine', [false])
    const cow1 = keccak256(toUtf8Bytes('cow1')) // RSKj's regtest accounts: keccak256 of their seed word
    const low = await rqq('eth_sendRawTransaction', [await rawTx({ nonce: 0, to: COW1, gasPrice: 100, value: 1 })])
    const fine = await rqq('eth_sendRawTransaction', [await rawTx({ nonce: 0, to: COW, gasPrice: 8_000, value: 2 }, cow1)])
    // In the pending block and in the next block, at a minimum of 150: cow's 100 is under it, cow1's 8,000 fits.
    await rqq('anvil_setMinGasPrice', ['0x96'])
    const before = BigInt(await rqq('eth_getBalance', [COW1, 'latest']))
    expect(BigInt(await rqq('eth_getBalance', [COW1, 'pending']))).toBe(before - 8_000n * 21_000n - 2n)
    await rqq('evm_mine')
    expect((await rqq('eth_getBlockByNumber', ['latest', false])).transactions).toEqual([fine, expect.any(String)]) // and REMASC's
    expect(await rqq('eth_getTransactionByHash', [low])).toBeNull()
    // At a minimum of 50, a block may hold nothing over 5,000: cow1's next at 8,000 (admitted at 150: under 12,000) is left out.
    const high = await rqq('eth_sendRawTransaction', [await rawTx({ nonce: 1, to: COW, gasPrice: 8_000, value: 2 }, cow1)])
    await rqq('anvil_setMinGasPrice', ['0x32'])
    await rqq('evm_mine')
    expect((await rqq('eth_getBlockByNumber', ['latest', false])).transactions).toHaveLength(1) // REMASC's only
    expect(await rqq('eth_getTransactionByHash', [high])).toBeNull()
    expect(await rqq('txpool_content')).toEqual({ pending: {}, queued: {} })
  })
})

describe('eth_sign', () => {
  it('signs with the Ethereum message prefix, v = 27/28', async () => {
    const sig = await rq(p, 'eth_sign', [COW, '0x68656c6c6f'])
    expect(sig).toHaveLength(132)
    expect(['1b', '1c']).toContain(sig.slice(-2))
    expect(recoverAddress(hashMessage(new TextEncoder().encode('hello')), Signature.from(sig)).toLowerCase()).toBe(COW)
    await rejects(rq(p, 'eth_sign', ['0x' + '12'.repeat(20), '0x00']), -32602, 'Account not found')
  })
})

describe('eth_getLogs', () => {
  it('finds logs by address, topic OR-lists and null positions, and by blockHash', async () => {
    const address = await deploy(p, Events)
    const iface = new Interface(Events.abi as never)
    const r = await send(p, { to: address, data: iface.encodeFunctionData('emitOne', [7]) })
    expect(r.logs.length).toBeGreaterThan(0)
    const valueTopic = iface.getEvent('Value')!.topicHash
    const logs = await rq(p, 'eth_getLogs', [{ address, fromBlock: '0x0', toBlock: 'latest', topics: [valueTopic] }])
    expect(logs).toHaveLength(1)
    expect(Object.keys(logs[0])).toEqual(['logIndex', 'blockNumber', 'blockHash', 'transactionHash', 'transactionIndex', 'address', 'data', 'topics'])
    expect(BigInt(logs[0].topics[1])).toBe(7n)
    expect(await rq(p, 'eth_getLogs', [{ address: [address, COW], topics: [[valueTopic, keccak256('0x01')], null] }])).toHaveLength(1)
    expect(await rq(p, 'eth_getLogs', [{ blockHash: r.blockHash, topics: [null, '0x' + '00'.repeat(31) + '07'] }])).toHaveLength(2)
    expect(await rq(p, 'eth_getLogs', [{ address: COW, fromBlock: '0x0' }])).toEqual([])
    await rejects(rq(p, 'eth_getLogs', [{ blockHash: r.blockHash, fromBlock: '0x1' }]), -32602, 'Cannot specify both blockHash and fromBlock/toBlock')
  })
})
