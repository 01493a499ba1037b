/**
 * RSKj's per-account transaction quota (`transaction.accountTxRateLimit`, on by default: rskj-core
 * src/main/resources/reference.conf lines 311-315) and `debug_accountTransactionQuota`. Every expected number is
 * worked out here from RSKj's Java (rskj-core/src/main/java/co/rsk/net/handler/quota/, cited by file and line),
 * never read from rsksim. `Date` is frozen (vitest fake timers, Date only) so that refills are exact; the node's
 * quota clock is its time or the head block's timestamp if later (docs/modules/tx-quota.md).
 */
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { JsonRpcProvider, Transaction, Wallet } from 'ethers'
import { createProvider, startServer, type Provider } from '../src/index.js'
import { COW, COW_KEY, rejects } from './helpers.js'

/** A whole second, so block timestamps (seconds) and the quota clock (ms) line up: 2033-05-18T03:33:20Z. */
const T = 2_000_000_000_000
const R = '0x' + '11'.repeat(20)
const GAS_LIMIT = 10_000_000 // rsksim's default block gas limit (the regtest genesis 0x989680)

// TxQuotaChecker.java 47-48, 203-209: refill per second = round(gasLimit * 0.9); maximum = 2000 seconds of it.
const PER_SECOND = Math.round(GAS_LIMIT * 0.9) // 9,000,000
const MAX_QUOTA = PER_SECOND * 2000

/**
 * TxVirtualGasCalculator.java 81-99 with the gas price factor skipped (the fee market is not working: fewer than
 * 50 blocks 90 % full, GasPriceTracker.isFeeMarketWorking). Factors multiplied in Java's order (line 97).
 */
function cost(gas: number, txNonce: number, accountNonce: number, size: number, replacedPrice?: number, price?: number): number {
  const futureNonceFactor = txNonce === accountNonce ? 1 : 2 // line 85
  const lowGasPriceFactor = 1 // line 87 (skipGasPriceFactor)
  const nonceFactor = 1 + 4 / (accountNonce + 1) // line 89, NONCE_WEIGHT 4
  const sizeFactor = 1 + size / 25000 // line 91, SIZE_FACTOR_DIVISOR
  const replacementFactor = replacedPrice === undefined ? 1 : 1 + 1 / (price! / replacedPrice) // lines 117-125
  const gasLimitFactor = 1 + (4 * gas) / GAS_LIMIT // lines 127-129, GAS_LIMIT_WEIGHT 4
  return gas * (futureNonceFactor * lowGasPriceFactor * nonceFactor * sizeFactor * replacementFactor * gasLimitFactor)
}

/** A legacy transaction signed as cow by ethers for chain 33, with its serialized size. */
async function signed(tx: { nonce: number; gas: number; to?: string; gasPrice?: number }): Promise<{ raw: string; size: number; hash: string }> {
  const raw = await new Wallet(COW_KEY).signTransaction({
    type: 0,
    chainId: 33,
    nonce: tx.nonce,
    gasLimit: tx.gas,
    gasPrice: tx.gasPrice ?? 0,
    to: tx.to ?? R,
    value: 1,
  })
  return { raw, size: (raw.length - 2) / 2, hash: Transaction.from(raw).hash! }
}

const quota = (p: Provider, a: string): Promise<unknown> => p.request({ method: 'debug_accountTransactionQuota', params: [a] })
const sendRaw = (p: Provider, raw: string): Promise<unknown> => p.request({ method: 'eth_sendRawTransaction', params: [raw] })

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(T)
})
afterEach(() => {
  vi.useRealTimers()
})

describe('debug_accountTransactionQuota and the quota at pool admission', () => {
  it('grants, charges, refills by the clock, refuses when short, and evm_increaseTime refills', async () => {
    const p = await createProvider()
    expect(await quota(p, COW)).toBeNull() // TxQuotaChecker.getTxQuota: no entry yet → null

    // First transaction of a nonce-0 account (TxQuotaChecker.java 123-132): forced through, lines 97-100. Its quota
    // starts at one second of refill (lines 186-200: new account → maxGasPerSecond), as does the receiver's
    // (lines 117-120: not a contract).
    const tx1 = await signed({ nonce: 0, gas: 21000 })
    expect(await sendRaw(p, tx1.raw)).toBe(tx1.hash)
    const c1 = cost(21000, 0, 0, tx1.size)
    expect(await quota(p, COW)).toEqual({ timestamp: T, availableVirtualGas: PER_SECOND - c1 })
    expect(await quota(p, R)).toEqual({ timestamp: T, availableVirtualGas: PER_SECOND })

    // 1.5 s later: both refreshed (TxQuota.java 126-132: + seconds × maxGasPerSecond), then nonce 1 is charged.
    vi.setSystemTime(T + 1500)
    const tx2 = await signed({ nonce: 1, gas: 100_000 })
    await sendRaw(p, tx2.raw)
    const afterTx2 = PER_SECOND - c1 + 1.5 * PER_SECOND - cost(100_000, 1, 1, tx2.size)
    expect(await quota(p, COW)).toEqual({ timestamp: T + 1500, availableVirtualGas: afterTx2 })
    expect(await quota(p, R)).toEqual({ timestamp: T + 1500, availableVirtualGas: 2.5 * PER_SECOND })

    // A whole block's gas at nonce 2 costs 10^7 × (1 + 4/3) × size × 5 ≈ 1.17 × 10^8: more than the quota holds.
    // TransactionPoolImpl.java 271-275 refuses it with "account exceeds quota" (-32010, the pool's code); nothing
    // is charged (TxQuota.java 82-88) and no block is mined.
    const tx3 = await signed({ nonce: 2, gas: GAS_LIMIT })
    const c3 = cost(GAS_LIMIT, 2, 2, tx3.size)
    expect(c3).toBeGreaterThan(afterTx2)
    // RSKj's text first; outside hosted mode, what happened and what to do (the numbers: the formulas above).
    await rejects(
      sendRaw(p, tx3.raw),
      -32010,
      `account exceeds quota: ${COW} has ${Math.floor(afterTx2)} virtual gas left and this transaction costs ${Math.ceil(c3)} (RSKj's per-account rate limit); it refills by ${PER_SECOND} per second of the node's clock (evm_increaseTime refills it), or turn the limit off with accountTxRateLimit: false (--no-tx-rate-limit)`,
    )
    expect(await quota(p, COW)).toEqual({ timestamp: T + 1500, availableVirtualGas: afterTx2 })
    expect(await p.request({ method: 'eth_blockNumber' })).toBe('0x2')

    // evm_increaseTime moves the node's clock: 20 s refill 1.8 × 10^8, enough for the same transaction.
    await p.request({ method: 'evm_increaseTime', params: [20] })
    expect(await sendRaw(p, tx3.raw)).toBe(tx3.hash)
    expect(await quota(p, COW)).toEqual({ timestamp: T + 21500, availableVirtualGas: afterTx2 + 20 * PER_SECOND - c3 })
  })

  it('a replacement pays the future-nonce and replacement factors; a queued transaction is not charged', async () => {
    const p = await createProvider({ mining: { auto: false } })
    const a = await signed({ nonce: 0, gas: 21000, gasPrice: 10 })
    await sendRaw(p, a.raw)
    const afterA = PER_SECOND - cost(21000, 0, 0, a.size)
    // 10 s later the same nonce at 20 wei (≥ 40 % bump): pending nonce is now 1, so the future-nonce factor is 2
    // (line 85), the nonce factor 1 + 4/2, and the replacement factor 1 + 1/(20/10) (lines 117-125).
    vi.setSystemTime(T + 10_000)
    const b = await signed({ nonce: 0, gas: 21000, gasPrice: 20 })
    await sendRaw(p, b.raw)
    const afterB = afterA + 10 * PER_SECOND - cost(21000, 0, 1, b.size, 10, 20)
    expect(await quota(p, COW)).toEqual({ timestamp: T + 10_000, availableVirtualGas: afterB })
    // A nonce gap goes to the queued set before the quota check (TransactionPoolImpl.java 263-269): accepted
    // however large, and the quota is neither refreshed nor charged.
    vi.setSystemTime(T + 11_000)
    const gap = await signed({ nonce: 5, gas: GAS_LIMIT })
    expect(await sendRaw(p, gap.raw)).toBe(gap.hash)
    expect(await quota(p, COW)).toEqual({ timestamp: T + 10_000, availableVirtualGas: afterB })
    expect(await p.request({ method: 'txpool_status' })).toEqual({ pending: 1, queued: 1 })
  })

  it('the 30-minute cleaner drops full quotas; an account that has sent before then starts at the maximum', async () => {
    const p = await createProvider()
    const tx0 = await signed({ nonce: 0, gas: 21000 })
    await sendRaw(p, tx0.raw)
    await p.request({ method: 'evm_increaseTime', params: [1000] })
    const tx1 = await signed({ nonce: 1, gas: 21000 })
    await sendRaw(p, tx1.raw)
    // TxQuota.java 132: min(maxQuota, …); 1000 s is half of the 2000 s cap, so nothing is capped yet.
    const afterTx1 = PER_SECOND - cost(21000, 0, 0, tx0.size) + 1000 * PER_SECOND - cost(21000, 1, 1, tx1.size)
    expect(await quota(p, COW)).toEqual({ timestamp: T + 1_000_000, availableVirtualGas: afterTx1 })
    // TransactionPoolImpl.java 119-121 runs cleanMaxQuotas every cleanerPeriod (30 minutes, reference.conf 315)
    // from the pool's start; TxQuotaChecker.java 146-171 refreshes every quota and removes those at maxQuota.
    // The run at 60 minutes finds both quotas full (2600 s more of refill): both gone, so null again.
    await p.request({ method: 'evm_increaseTime', params: [2600] })
    expect(await quota(p, COW)).toBeNull()
    expect(await quota(p, R)).toBeNull()
    // cow's pending nonce is now 2: a sender unknown to the checker with a nonce gets maxQuota (lines 197-201).
    const tx2 = await signed({ nonce: 2, gas: 21000 })
    await sendRaw(p, tx2.raw)
    expect(MAX_QUOTA).toBe(18_000_000_000)
    expect(await quota(p, COW)).toEqual({ timestamp: T + 3_600_000, availableVirtualGas: MAX_QUOTA - cost(21000, 2, 2, tx2.size) })
  })

  it('a block timestamp ahead of the wall clock moves the quota clock (a block a second, as RSKj regtest mines)', async () => {
    const p = await createProvider()
    const tx0 = await signed({ nonce: 0, gas: 21000 })
    const tx1 = await signed({ nonce: 1, gas: 21000 })
    const tx2 = await signed({ nonce: 2, gas: 21000 })
    await sendRaw(p, tx0.raw) // block 1 at T
    await sendRaw(p, tx1.raw) // checked at T, then block 2 at T + 1 s (its parent + 1, with the wall clock frozen)
    await sendRaw(p, tx2.raw) // checked at T + 1 s
    const expected = PER_SECOND - cost(21000, 0, 0, tx0.size) - cost(21000, 1, 1, tx1.size) + 1 * PER_SECOND - cost(21000, 2, 2, tx2.size)
    expect(await quota(p, COW)).toEqual({ timestamp: T + 1000, availableVirtualGas: expected })
  })

  it('the quota clock never runs back: a jump into the past (evm_setTime) is absorbed, not charged', async () => {
    const p = await createProvider()
    const tx0 = await signed({ nonce: 0, gas: 21000 })
    await sendRaw(p, tx0.raw)
    vi.setSystemTime(T + 10_000)
    expect(await quota(p, COW)).toEqual({ timestamp: T, availableVirtualGas: PER_SECOND - cost(21000, 0, 0, tx0.size) })
    // Back 5 s, then 2 s pass: the node's time reads T + 7 s, behind the T + 10 s the quota clock has seen, so the
    // quota clock holds at T + 10 s (RSKj's wall clock never runs back; a negative refill would drain the quota).
    await p.request({ method: 'evm_setTime', params: [T / 1000 + 5] })
    vi.setSystemTime(T + 12_000)
    const tx1 = await signed({ nonce: 1, gas: 21000 })
    await sendRaw(p, tx1.raw)
    const afterTx1 = PER_SECOND - cost(21000, 0, 0, tx0.size) + 10 * PER_SECOND - cost(21000, 1, 1, tx1.size)
    expect(await quota(p, COW)).toEqual({ timestamp: T + 10_000, availableVirtualGas: afterTx1 })
  })

  it('when the last 50 blocks are 90 % full, a price under the average pays the low gas price factor', async () => {
    // Blocks of 23,000 gas holding one 21,000-gas transfer are 91 % full (GasPriceTracker.java 138-149, 187-195).
    const blockGas = 23_000
    const p = await createProvider({ blockGasLimit: BigInt(blockGas), minimumGasPrice: 10n })
    const perSecond = Math.round(blockGas * 0.9)
    let sent = 0
    const next = async (): Promise<{ size: number }> => {
      vi.setSystemTime(T + (sent + 1) * 1_000_000) // 1000 s apart: every quota is refilled to its cap
      const tx = await signed({ nonce: sent, gas: 21000, gasPrice: 10 })
      await sendRaw(p, tx.raw)
      sent++
      return tx
    }
    for (let i = 0; i < 50; i++) await next()
    const head: any = await p.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })
    expect([head.number, head.gasUsed]).toEqual(['0x32', '0x5208'])
    // Now the fee market works: TxVirtualGasCalculator.java 106-115 with rsksim's average price, the minimum × 1.1
    // (11 wei): 1 + 3 × (11 − 10) / (11 − 10) = 4, between the nonce factor and the size factor (line 97).
    const tx = await next()
    const nonceFactor = 1 + 4 / (50 + 1)
    const composite = 1 * 4 * nonceFactor * (1 + tx.size / 25000) * 1 * (1 + (4 * 21000) / blockGas)
    expect(await quota(p, COW)).toEqual({ timestamp: T + 51_000_000, availableVirtualGas: perSecond * 2000 - 21000 * composite })
  })

  it('parameters: one address string (RskAddress rules); otherwise -32602 with what is wrong', async () => {
    const p = await createProvider()
    await sendRaw(p, (await signed({ nonce: 0, gas: 21000 })).raw)
    const q = await quota(p, COW)
    // RskAddress(String): `0x` optional, any case (Hex.decode), odd digit counts left-padded with 0.
    expect(await quota(p, COW.slice(2).toUpperCase())).toEqual(q)
    expect(await quota(p, '0x' + '0' + '11'.repeat(20).slice(1))).toBeNull()
    expect(await quota(p, '0x' + '1'.repeat(39))).toBeNull()
    // jsonrpc4j arity (reference §1.2): anything but one parameter.
    await rejects(p.request({ method: 'debug_accountTransactionQuota', params: [] }), -32602, 'method parameters invalid')
    await rejects(p.request({ method: 'debug_accountTransactionQuota' }), -32602, 'method parameters invalid')
    await rejects(p.request({ method: 'debug_accountTransactionQuota', params: [COW, 'latest'] }), -32602, 'method parameters invalid')
    // RskErrorResolver.java 29-33: InvalidRskAddressException → -32602 with the digit count of the text without 0x.
    await rejects(quota(p, '0x1234'), -32602, 'invalid argument 0: hex string has length 4, want 40 for RSK address')
    await rejects(quota(p, ''), -32602, 'invalid argument 0: hex string has length 0, want 40 for RSK address')
    await rejects(quota(p, COW + '00'), -32602, 'invalid argument 0: hex string has length 42, want 40 for RSK address')
    // Where RSKj fails with -32603 (Hex.decode of non-hex digits, null), rsksim says what is wrong, as -32602.
    await rejects(quota(p, '0x' + 'zz'.repeat(20)), -32602, /is not a hex address/)
    await rejects(quota(p, null as never), -32602, /must be a hex string/)
    await rejects(quota(p, { address: COW } as never), -32602, /must be a hex string/)
  })

  it('hosted mode: the method answers -32601 as an unknown one does, and the quota still refuses', async () => {
    const p = await createProvider({ hosted: true })
    const unknown = await rejects(p.request({ method: 'debug_noSuchMethod', params: [COW] }), -32601)
    const e = await rejects(quota(p, COW), -32601)
    expect(e.message).toBe(unknown.message)
    // The first full-block transaction is forced through and empties the quota (TxQuota.java 108-116); the
    // second, at the same instant (block 1 carries the frozen time), finds nothing refilled.
    await sendRaw(p, (await signed({ nonce: 0, gas: GAS_LIMIT })).raw)
    expect(await p.request({ method: 'eth_blockNumber' })).toBe('0x1')
    // Hosted mode answers the service's text exactly (TransactionPoolImpl.java 271-275).
    await rejects(sendRaw(p, (await signed({ nonce: 1, gas: GAS_LIMIT })).raw), -32010, 'account exceeds quota')
  })

  it('accountTxRateLimit: false turns the limit off, as transaction.accountTxRateLimit.enabled = false', async () => {
    const p = await createProvider({ accountTxRateLimit: false })
    await sendRaw(p, (await signed({ nonce: 0, gas: GAS_LIMIT })).raw)
    await sendRaw(p, (await signed({ nonce: 1, gas: GAS_LIMIT })).raw)
    expect(await quota(p, COW)).toBeNull()
  })
})

describe('over HTTP with ethers', () => {
  const servers: { close: () => Promise<void> }[] = []
  afterAll(async () => {
    for (const s of servers) await s.close()
  })

  it('answers the quota object and refuses with -32010 account exceeds quota', async () => {
    const server = await startServer({ port: 0 })
    servers.push(server)
    const rpc = new JsonRpcProvider(server.url, undefined, { staticNetwork: true })
    try {
      const tx1 = await signed({ nonce: 0, gas: 21000 })
      await rpc.send('eth_sendRawTransaction', [tx1.raw])
      expect(await rpc.send('debug_accountTransactionQuota', [COW])).toEqual({ timestamp: T, availableVirtualGas: PER_SECOND - cost(21000, 0, 0, tx1.size) })
      expect(await rpc.send('debug_accountTransactionQuota', ['0x' + '22'.repeat(20)])).toBeNull()
      const wallet = new Wallet(COW_KEY, rpc)
      const err: any = await wallet.sendTransaction({ to: R, gasLimit: GAS_LIMIT, gasPrice: 0, nonce: 1, type: 0 }).catch((e: unknown) => e)
      expect(err?.error ?? err?.info?.error).toMatchObject({ code: -32010, message: expect.stringMatching(/^account exceeds quota: /) })
      const body = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'debug_accountTransactionQuota', params: ['0x12'] }),
      })
      expect(await body.json()).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32602, message: 'invalid argument 0: hex string has length 2, want 40 for RSK address' },
      })
    } finally {
      rpc.destroy()
    }
  })
})
