import { describe, expect, it, beforeAll } from 'vitest'
import { keccak256 } from 'ethers'
import type { Provider } from '../src/index.js'
import { COW, COW1, MINER, fresh, rejects } from './helpers.js'

let p: Provider
beforeAll(async () => {
  p = await fresh()
})

describe('network identity', () => {
  it('eth_chainId / net_version per network', async () => {
    expect(await p.request({ method: 'eth_chainId' })).toBe('0x21')
    expect(await p.request({ method: 'net_version' })).toBe('33')
    for (const [network, chainId, netVersion] of [
      ['mainnet', '0x1e', '30'],
      ['testnet', '0x1f', '31'],
      ['devnet', '0x20', '32'],
    ] as const) {
      const q = await fresh({ network })
      expect(await q.request({ method: 'eth_chainId' })).toBe(chainId)
      expect(await q.request({ method: 'net_version' })).toBe(netVersion)
    }
  })

  it('web3_clientVersion, eth_protocolVersion, net_*, eth_syncing, eth_mining, eth_hashrate', async () => {
    // RSKj: RskJ/<version>/<os.name>/Java<n>/<modifier>-<hash> (reference §3.2); RSK tooling keys on the `RskJ/` prefix.
    expect(await p.request({ method: 'web3_clientVersion' })).toMatch(/^RskJ\/9\.0\.3\/[^/]+\/Node\d+\/RSKSIM-\d+\.\d+\.\d+$/)
    expect(await p.request({ method: 'eth_protocolVersion' })).toBe('0x3e')
    expect(await p.request({ method: 'net_listening' })).toBe(true)
    expect(await p.request({ method: 'net_peerCount' })).toBe('0x0')
    expect(await p.request({ method: 'net_peerList' })).toEqual([])
    expect(await p.request({ method: 'eth_syncing' })).toBe(false)
    expect(await p.request({ method: 'eth_mining' })).toBe(true)
    expect(await p.request({ method: 'eth_hashrate' })).toBe('0x0')
    expect(await p.request({ method: 'eth_gasPrice' })).toBe('0x0')
    expect(await p.request({ method: 'eth_coinbase' })).toBe(MINER)
  })

  it('web3_sha3 hashes with keccak-256 and wants a 0x prefix', async () => {
    expect(await p.request({ method: 'web3_sha3', params: ['0x68656c6c6f'] })).toBe(keccak256('0x68656c6c6f'))
    await rejects(p.request({ method: 'web3_sha3', params: ['68656c6c6f'] }), -32602, "Parameter must be hexadecimal encoded with the '0x' prefix.")
    // Web3Impl.web3_sha3: HexUtils.isHexWithPrefix wants a digit after the prefix and reads the text lower-cased; then
    // HexUtils.decode removes a lower-case 0x only, and Bouncy Castle's Hex.decode throws at the X (-32603).
    await rejects(p.request({ method: 'web3_sha3', params: ['0x'] }), -32602, "Parameter must be hexadecimal encoded with the '0x' prefix.")
    await rejects(p.request({ method: 'web3_sha3', params: ['0X68656c6c6f'] }), -32603, 'Internal server error')
    expect(await p.request({ method: 'web3_sha3', params: ['0x68656C6C6F'] })).toBe(keccak256('0x68656c6c6f'))
    expect(await p.request({ method: 'web3_sha3', params: ['0x123'] })).toBe(keccak256('0x0123'))
  })
})

describe('eth_accounts', () => {
  it('lists the ten cow accounts then the miner, as RSKj regtest', async () => {
    const accounts = (await p.request({ method: 'eth_accounts' })) as string[]
    expect(accounts).toHaveLength(11)
    expect(accounts[0]).toBe(COW)
    expect(accounts[1]).toBe(COW1)
    expect(accounts[9]).toBe('0x09a1eda29f664ac8f68106f6567276df0c65d859')
    expect(accounts[10]).toBe(MINER)
  })

  it('is empty in hosted mode, where signing is refused', async () => {
    const hosted = await fresh({ hosted: true })
    expect(await hosted.request({ method: 'eth_accounts' })).toEqual([])
    await rejects(hosted.request({ method: 'eth_sendTransaction', params: [{ from: COW, to: COW1 }] }), -32602, 'Local wallet is disabled in this node')
  })
})

describe('genesis (reference §7.2)', () => {
  it('funds cow accounts with 1e30 wei and the Bridge with 21M RBTC', async () => {
    expect(await p.request({ method: 'eth_getBalance', params: [COW, 'latest'] })).toBe('0x' + (10n ** 30n).toString(16))
    expect(await p.request({ method: 'eth_getBalance', params: ['0x0000000000000000000000000000000001000006', 'latest'] })).toBe(
      '0x' + (21_000_000n * 10n ** 18n).toString(16),
    )
    expect(await p.request({ method: 'eth_getBalance', params: [MINER] })).toBe('0x0')
  })

  it('genesis block has RSKj regtest header values', async () => {
    const g = (await p.request({ method: 'eth_getBlockByNumber', params: ['earliest', false] })) as Record<string, any>
    expect(g.number).toBe('0x0')
    expect(g.extraData).toBe('0x686f727365')
    expect(g.gasLimit).toBe('0x989680')
    expect(g.difficulty).toBe('0x1')
    expect(g.miner).toBe('0x3333333333333333333333333333333333333333')
    expect(g.parentHash).toBe('0x' + '00'.repeat(32))
    expect(g.timestamp).toBe('0x0')
    expect(g.rskPteEdges).toBeNull()
  })

  it('accepts replacement accounts, gas limit and minimum gas price', async () => {
    const key = '0x' + '11'.repeat(32)
    const q = await fresh({ accounts: [{ secretKey: key, balance: 5n }], blockGasLimit: 6_800_000n, minimumGasPrice: 60_000_000n })
    const [addr] = (await q.request({ method: 'eth_accounts' })) as string[]
    expect(addr).toBe('0x19e7e376e7c213b7e7e7e46cc70a5dd086daff2a')
    expect(await q.request({ method: 'eth_getBalance', params: [addr, 'latest'] })).toBe('0x5')
    const g = (await q.request({ method: 'eth_getBlockByNumber', params: ['latest', false] })) as Record<string, any>
    expect(g.gasLimit).toBe('0x67c280')
    expect(g.minimumGasPrice).toBe('0x' + (60_000_000n).toString(16))
    expect(await q.request({ method: 'eth_gasPrice' })).toBe('0x' + (66_000_000n).toString(16))
  })

  it('refuses bad options with a clear error', async () => {
    await expect(fresh({ network: 'moon' as never })).rejects.toThrow(/unknown network/)
    await expect(fresh({ accounts: [{ secretKey: '0x12' }] })).rejects.toThrow(/secretKey/)
  })
})
