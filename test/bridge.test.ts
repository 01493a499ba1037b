/** eth_bridgeState and the Bridge precompile's read methods (reference §3.2, §7.6), in process and over HTTP. */
import { beforeAll, describe, expect, it } from 'vitest'
import { BrowserProvider, Contract, Interface, getBytes, type ContractRunner } from 'ethers'
import { createPublicClient, custom, parseAbi } from 'viem'
import { COW, deploy, fresh, rejects, useHttpServer } from './helpers.js'
import { Caller } from './fixtures/index.js'
import type { Provider } from '../src/index.js'

const hexGas = (n: number) => '0x' + n.toString(16)
const BRIDGE = '0x0000000000000000000000000000000001000006'
/** P2SH-P2WSH of RSKj's regtest genesis ERP federation (FederationRegTestConstants), computed from its keys. */
const FEDERATION_ADDRESS = '2MvQSG61B4LtKLECeo1dRDeDWXgJfnr3fC7'
const REDEEM_SCRIPT =
  '0x64522102cd53fc53a07f211641a677d250f6de99caf620e8e77071e811a28b3bcddf0be1210362634ab57dae9cb373a5d536e66a8c4f67468bbcfb063809bab643072d78a1242103c5946b3fbae03a654237da863c9ed534e0878657175b132b8ca630f245df04db53ae6702f401b2755321029cecea902067992d52c38b28bf0bb2345bda9b21eca76b16a17c477a64e433012103284178e5fbcc63c54c3b38e3ef88adf2da6c526313650041b0ef955763634ebd2103ab0e2cd7ed158687fc13b88019990860cdb72b1f5777b58513312550ea1584bc2103b9fc46657cf72a1afa007ecf431de1cd27ff5cc8829fa625b66ca47b967e6b2454ae68'

const ABI = [
  'function getBtcBlockchainBestChainHeight() view returns (int256)',
  'function getFederationAddress() view returns (string)',
  'function getFederationSize() view returns (int256)',
  'function getFederationThreshold() view returns (int256)',
  'function getMinimumLockTxValue() view returns (int256)',
  'function getFeePerKb() view returns (int256)',
  'function getLockingCap() view returns (int256)',
  'function getFederationCreationTime() view returns (int256)',
  'function getFederatorPublicKeyOfType(int256 index, string atype) view returns (bytes)',
  'function getActivePowpegRedeemScript() view returns (bytes)',
  'function getRetiringFederationSize() view returns (int256)',
  'function getRetiringFederationAddress() view returns (string)',
  'function isBtcTxHashAlreadyProcessed(string hash) view returns (bool)',
  'function getBtcTxHashProcessedHeight(string hash) view returns (int64)',
]
const iface = new Interface(ABI)
const call = (p: Provider, method: string, params: unknown[] = []): Promise<any> => p.request({ method, params })

async function readAll(runner: ContractRunner): Promise<Record<string, unknown>> {
  const bridge = new Contract(BRIDGE, ABI, runner)
  return {
    height: await bridge.getBtcBlockchainBestChainHeight!(),
    address: await bridge.getFederationAddress!(),
    size: await bridge.getFederationSize!(),
    threshold: await bridge.getFederationThreshold!(),
    minLock: await bridge.getMinimumLockTxValue!(),
    feePerKb: await bridge.getFeePerKb!(),
    lockingCap: await bridge.getLockingCap!(),
  }
}

const EXPECTED = {
  height: 0n,
  address: FEDERATION_ADDRESS,
  size: 3n,
  threshold: 2n,
  minLock: 500_000n,
  feePerKb: 100_000n,
  lockingCap: 100_000_000_000n,
}

/** RSK intrinsic gas of a call with `data` (21,000 + 4 per zero byte + 16 per other byte). */
const intrinsic = (data: string): bigint => getBytes(data).reduce((g, b) => g + (b === 0 ? 4n : 16n), 21_000n)

describe('eth_bridgeState', () => {
  it('answers RSKj BridgeState.stateToMap: height as a JSON number, no txs waiting', async () => {
    const p = await fresh()
    const state = await call(p, 'eth_bridgeState')
    expect(state).toEqual({ btcBlockchainBestChainHeight: 0, rskTxsWaitingForSignatures: [] })
    expect(Object.keys(state)).toEqual(['btcBlockchainBestChainHeight', 'rskTxsWaitingForSignatures'])
    await rejects(call(p, 'eth_bridgeState', ['latest']), -32602, 'method parameters invalid')
  })
})

describe('Bridge precompile in process', () => {
  let p: Provider
  beforeAll(async () => {
    p = await fresh()
  })

  it('ethers Contract reads the regtest values', async () => {
    expect(await readAll(new BrowserProvider(p))).toEqual(EXPECTED)
  })

  it('viem readContract reads the federation address', async () => {
    const client = createPublicClient({ transport: custom(p) })
    const abi = parseAbi(['function getFederationAddress() view returns (string)', 'function getFederationSize() view returns (int256)'])
    expect(await client.readContract({ address: BRIDGE, abi, functionName: 'getFederationAddress' })).toBe(FEDERATION_ADDRESS)
    expect(await client.readContract({ address: BRIDGE, abi, functionName: 'getFederationSize' })).toBe(3n)
  })

  it('federation keys, redeem script, creation time, no retiring federation, no processed BTC txs', async () => {
    const bridge = new Contract(BRIDGE, ABI, new BrowserProvider(p))
    expect(await bridge.getFederatorPublicKeyOfType!(0, 'btc')).toBe('0x02cd53fc53a07f211641a677d250f6de99caf620e8e77071e811a28b3bcddf0be1')
    expect(await bridge.getFederatorPublicKeyOfType!(2, 'rsk')).toBe('0x03c5946b3fbae03a654237da863c9ed534e0878657175b132b8ca630f245df04db')
    expect(await bridge.getActivePowpegRedeemScript!()).toBe(REDEEM_SCRIPT)
    expect(await bridge.getFederationCreationTime!()).toBe(1_451_606_400n)
    expect(await bridge.getRetiringFederationSize!()).toBe(-1n)
    expect(await bridge.getRetiringFederationAddress!()).toBe('')
    expect(await bridge.isBtcTxHashAlreadyProcessed!('ab'.repeat(32))).toBe(false)
    expect(await bridge.getBtcTxHashProcessedHeight!('ab'.repeat(32))).toBe(-1n)
  })

  it('unknown selectors, short data and bad arguments fail without REVERT: eth_call answers 0x, as RSKj', async () => {
    const raw = (data: string, gas?: string) => call(p, 'eth_call', [{ to: BRIDGE, data, ...(gas ? { gas } : {}) }, 'latest'])
    expect(await raw('0x12345678')).toBe('0x')
    expect(await raw('0x1234')).toBe('0x')
    expect(await raw(iface.encodeFunctionData('getFederatorPublicKeyOfType', [3, 'btc']))).toBe('0x')
    expect(await raw(iface.encodeFunctionData('getFederatorPublicKeyOfType', [0, 'xyz']))).toBe('0x')
    expect(await raw(iface.encodeFunctionData('getBtcTxHashProcessedHeight', ['abc']))).toBe('0x')
    const size = iface.encodeFunctionData('getFederationSize')
    expect(await raw(size)).toBe('0x' + '3'.padStart(64, '0'))
    // Fixed cost 10,000 + 2 per data byte. One gas short of it, RSKj's TransactionExecutor subtracts the intrinsic
    // gas and the price from the call's limit with GasCost.subtract, whose exception is a bare -32603; rsksim refuses
    // the call with -32602 saying why (docs/compatibility.md).
    const need = intrinsic(size) + 10_000n + 8n
    await rejects(raw(size, '0x' + (need - 1n).toString(16)), -32602, /^Invalid gas: .* plus the precompile's price/)
    expect(await raw(size, '0x' + need.toString(16))).toBe('0x' + '3'.padStart(64, '0'))
    expect(await call(p, 'eth_estimateGas', [{ to: BRIDGE, data: size }])).toBe('0x' + need.toString(16))
  })

  it('a contract whose call to the Bridge fails reverts (the CALL returns 0, no return data)', async () => {
    const caller = await deploy(p, Caller)
    const peek = new Interface(Caller.abi as never).encodeFunctionData('peek', [BRIDGE])
    const e = await rejects(call(p, 'eth_call', [{ to: caller, data: peek }, 'latest']), -32015, 'VM Exception while processing transaction: transaction reverted')
    expect(e.data).toBe('0x')
  })

  it('a transaction with an unknown selector: the Bridge fails, which RSKj keeps without an execution error (status 0x1, the value not sent); a plain transfer stays at the Bridge', async () => {
    // Bridge.execute throws for data it cannot parse; TransactionExecutor.call keeps that in the result, never as an
    // execution error. Gas: 21,000, 4 non-zero data bytes (64) and getGasForData's price for unparsable data, RELEASE_BTC's 23,000.
    const bridgeBefore = BigInt(await call(p, 'eth_getBalance', [BRIDGE, 'latest']))
    const kept = await call(p, 'eth_sendTransaction', [{ from: COW, to: BRIDGE, data: '0xdeadbeef', gas: '0x30d40', value: '0x3e8' }])
    const receipt = await call(p, 'eth_getTransactionReceipt', [kept])
    expect(receipt.to).toBe(BRIDGE)
    expect([receipt.status, Number(receipt.gasUsed)]).toEqual(['0x1', 21_000 + 64 + 23_000])
    expect(BigInt(await call(p, 'eth_getBalance', [BRIDGE, 'latest']))).toBe(bridgeBefore)
    // Below that price the transaction fails (execError), all its gas used.
    await rejects(call(p, 'eth_sendTransaction', [{ from: COW, to: BRIDGE, data: '0xdeadbeef', gas: hexGas(21_000 + 64 + 22_999) }]), -32015)
    const failed = await call(p, 'eth_getTransactionReceipt', [(await call(p, 'eth_getBlockByNumber', ['latest', false])).transactions[0]])
    expect([failed.status, Number(failed.gasUsed)]).toEqual(['0x0', 21_000 + 64 + 22_999])

    const before = BigInt(await call(p, 'eth_getBalance', [BRIDGE, 'latest']))
    const hash = await call(p, 'eth_sendTransaction', [{ from: COW, to: BRIDGE, value: '0x3e8' }])
    expect((await call(p, 'eth_getTransactionReceipt', [hash])).status).toBe('0x1')
    expect(BigInt(await call(p, 'eth_getBalance', [BRIDGE, 'latest']))).toBe(before + 1000n)
  })

  it('answers at historical blocks too', async () => {
    await call(p, 'evm_mine')
    const data = iface.encodeFunctionData('getFederationAddress')
    const result = await call(p, 'eth_call', [{ to: BRIDGE, data }, '0x0'])
    expect(iface.decodeFunctionResult('getFederationAddress', result)[0]).toBe(FEDERATION_ADDRESS)
  })
})

describe('Bridge precompile over HTTP', () => {
  const http = useHttpServer()

  it('ethers JsonRpcProvider reads the same values; eth_bridgeState has the same shape', async () => {
    expect(await readAll(http.rpc)).toEqual(EXPECTED)
    const res = await fetch(http.server.url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"jsonrpc":"2.0","id":3,"method":"eth_bridgeState","params":[]}' })
    expect(await res.text()).toMatch(/^\{"jsonrpc":"2\.0","id":3,"result":\{"btcBlockchainBestChainHeight":0,"rskTxsWaitingForSignatures":\[\]\}\}\n?$/)
  })
})
