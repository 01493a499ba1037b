/**
 * chain_* raw data (reference §3.6): header RLP whose keccak is the block hash, RSK receipt RLP, receipt-trie
 * nodes that verify against `receiptsRoot`, protocol version, and the rsk_ aliases; in process and over HTTP.
 */
import { describe, expect, it } from 'vitest'
import { verifyMerkleProof } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { bytesToBigInt, bytesToHex, hexToBytes } from '@ethereumjs/util'
import { Interface, keccak256 } from 'ethers'
import type { Provider } from '../src/index.js'
import { COW, COW1, deploy, fresh, rejects, send, useHttpServer } from './helpers.js'
import { Events, Reverter } from './fixtures/index.js'

type Block = Record<string, any>
const block = (p: Provider, id: string): Promise<Block> => p.request({ method: 'eth_getBlockByNumber', params: [id, false] }) as Promise<Block>
const hex = (s: string) => hexToBytes(s as `0x${string}`)
const ZERO_HASH = '0x' + '00'.repeat(32)

describe('chain_getRawBlockHeaderByHash / chain_getRawBlockHeaderByNumber', async () => {
  const p = await fresh()
  await send(p, { to: COW1, value: '0x1' })

  for (const id of ['0x0', '0x1']) {
    it(`block ${id}: RSKj's BlockHeader.getEncoded() (uncompressed, bloom in field 6), and the hash derived from it`, async () => {
      const b = await block(p, id)
      const byNumber = (await p.request({ method: 'chain_getRawBlockHeaderByNumber', params: [id] })) as string
      const byHash = await p.request({ method: 'chain_getRawBlockHeaderByHash', params: [b.hash] })
      expect(byHash).toBe(byNumber)
      const f = RLP.decode(hex(byNumber)) as Uint8Array[]
      expect(bytesToHex(f[0]!)).toBe(b.parentHash)
      expect(bytesToHex(f[2]!)).toBe(b.miner)
      expect(bytesToHex(f[3]!)).toBe(b.stateRoot)
      expect(bytesToHex(f[4]!)).toBe(b.transactionsRoot)
      expect(bytesToHex(f[5]!)).toBe(b.receiptsRoot)
      // getEncoded() keeps the logs bloom in field 6 for every version (BlockHeader.getEncoded, compressed = false).
      expect(bytesToHex(f[6]!)).toBe(b.logsBloom)
      expect(bytesToBigInt(f[8]!)).toBe(BigInt(b.number))
      expect(bytesToBigInt(f[9]!)).toBe(BigInt(b.gasLimit))
      expect(bytesToBigInt(f[10]!)).toBe(BigInt(b.gasUsed))
      expect(bytesToBigInt(f[11]!)).toBe(BigInt(b.timestamp))
      if (id === '0x0') {
        // Genesis is version 0: the uncompressed form is also the one the hash is taken over.
        expect(keccak256(byNumber)).toBe(b.hash)
        return
      }
      // Version 2 (regtest from block 1): after uncleCount, the UMM root, then the version byte, the sublist edges
      // and the base event (addExtraFieldsToEncodedHeader), then the Bitcoin header (RSKIP92: no proof/coinbase).
      expect(f).toHaveLength(21)
      expect(bytesToHex(f[17]!)).toBe('0x02')
      expect(keccak256(byNumber)).not.toBe(b.hash)
      // The hash from the raw header, by RSKj's rules: getEncodedForHash() puts RLP[2, extensionHash] in the bloom's
      // place and drops version, edges and base event (BlockHeaderV2.createExtensionData); the extension hash is
      // keccak(RLP[keccak(bloom), baseEvent, edges]) (BlockHeaderExtensionV2/V1.getEncodedForHash).
      const [edges, baseEvent] = [f[18]!, f[19]!]
      const extensionHash = keccak256(RLP.encode([hex(keccak256(f[6]!)), baseEvent, edges]))
      const compressed = RLP.encode([...f.slice(0, 6), RLP.encode([Uint8Array.of(2), hex(extensionHash)]), ...f.slice(7, 17), f[20]!])
      expect(keccak256(compressed)).toBe(b.hash)
    })
  }

  it('reads tags and a hash as the block id', async () => {
    const latest = await block(p, 'latest')
    const raw = await p.request({ method: 'chain_getRawBlockHeaderByNumber', params: ['latest'] })
    expect(raw).toBe(await p.request({ method: 'chain_getRawBlockHeaderByHash', params: [latest.hash] }))
    expect(await p.request({ method: 'chain_getRawBlockHeaderByNumber', params: [latest.hash] })).toBe(raw)
    const earliest = await p.request({ method: 'chain_getRawBlockHeaderByNumber', params: ['earliest'] })
    expect(keccak256(earliest as string)).toBe((await block(p, '0x0')).hash)
  })

  it('answers null for unknown blocks and coded errors for bad ids', async () => {
    expect(await p.request({ method: 'chain_getRawBlockHeaderByHash', params: [ZERO_HASH] })).toBeNull()
    expect(await p.request({ method: 'chain_getRawBlockHeaderByNumber', params: ['0x99'] })).toBeNull()
    await rejects(p.request({ method: 'chain_getRawBlockHeaderByHash', params: ['0x12'] }), -32602, 'Invalid block hash: incorrect length.')
    await rejects(p.request({ method: 'chain_getRawBlockHeaderByNumber', params: ['safe'] }), -32602, 'invalid blocknumber safe')
    await rejects(p.request({ method: 'chain_getRawBlockHeaderByNumber', params: ['nope'] }), -32602, 'invalid blocknumber nope')
    // RskModuleImpl.getRawBlockHeaderByNumber hands its String to Web3InformationRetriever.getBlock: the tags are a
    // case-sensitive switch, a number is HexUtils.stringHexToBigInteger(x).longValue() (0x only, the low 64 bits).
    await rejects(p.request({ method: 'chain_getRawBlockHeaderByNumber', params: ['LATEST'] }), -32602, 'invalid blocknumber LATEST')
    await rejects(p.request({ method: 'chain_getRawBlockHeaderByNumber', params: ['0X0'] }), -32602, 'invalid blocknumber 0X0')
    expect(await p.request({ method: 'chain_getRawBlockHeaderByNumber', params: ['0x10000000000000000'] })).toBe(
      await p.request({ method: 'chain_getRawBlockHeaderByNumber', params: ['0x0'] }),
    )
    await rejects(p.request({ method: 'chain_getRawBlockHeaderByNumber', params: [] }), -32602, 'method parameters invalid')
  })
})

describe('chain_getRawTransactionReceiptByHash and chain_getTransactionReceiptNodesByHash', async () => {
  const p = await fresh()
  const events = await deploy(p, Events)
  const reverter = await deploy(p, Reverter)
  const ev = new Interface(Events.abi as never)
  const rv = new Interface(Reverter.abi as never)
  // Several transactions in one block, one of them failed, so the trie has branches and a failed receipt.
  await p.request({ method: 'evm_stopMining' })
  const hashes: string[] = []
  const sendTx = async (tx: Record<string, unknown>) =>
    hashes.push((await p.request({ method: 'eth_sendTransaction', params: [{ from: COW, gas: '0x2dc6c0', ...tx }] })) as string)
  await sendTx({ to: events, data: ev.encodeFunctionData('emitOne', [5]) })
  await sendTx({ to: COW1, value: '0x10' })
  await sendTx({ to: reverter, data: rv.encodeFunctionData('revertWithReason') })
  // RSKj's pool caps one sender's nonce gap (16), so the filler comes from two senders.
  for (let i = 0; i < 10; i++) await sendTx({ to: COW1, value: '0x1' })
  for (let i = 0; i < 7; i++) await sendTx({ from: COW1, to: COW, value: '0x1' })
  await p.request({ method: 'evm_mine' })
  await p.request({ method: 'evm_startMining' })
  const mined = await block(p, 'latest')

  it('raw receipt is the RSK receipt RLP with the fields of eth_getTransactionReceipt', async () => {
    const r = (await p.request({ method: 'eth_getTransactionReceipt', params: [hashes[0]] })) as Record<string, any>
    expect(r.status).toBe('0x1')
    const raw = (await p.request({ method: 'chain_getRawTransactionReceiptByHash', params: [hashes[0]] })) as string
    const [postState, cumulative, bloom, logs, gasUsed, status] = RLP.decode(hex(raw)) as any[]
    expect(bytesToHex(postState)).toBe('0x01')
    expect(bytesToHex(status)).toBe('0x01')
    expect(bytesToBigInt(cumulative)).toBe(BigInt(r.cumulativeGasUsed))
    expect(bytesToBigInt(gasUsed)).toBe(BigInt(r.gasUsed))
    expect(bytesToHex(bloom)).toBe(r.logsBloom)
    expect(logs).toHaveLength(5)
    expect(logs.map((l: Uint8Array[][]) => [bytesToHex(l[0] as unknown as Uint8Array), l[1]!.map(bytesToHex), bytesToHex(l[2] as unknown as Uint8Array)])).toEqual(
      r.logs.map((l: any) => [l.address, l.topics, l.data]),
    )
  })

  it('a failed transaction has empty postTxState and status', async () => {
    const r = (await p.request({ method: 'eth_getTransactionReceipt', params: [hashes[2]] })) as Record<string, any>
    expect(r.status).toBe('0x0')
    const raw = (await p.request({ method: 'chain_getRawTransactionReceiptByHash', params: [hashes[2]] })) as string
    const f = RLP.decode(hex(raw)) as Uint8Array[]
    expect(f[0]).toHaveLength(0)
    expect(f[5]).toHaveLength(0)
  })

  it('receipt nodes verify against receiptsRoot and prove the raw receipt, for every transaction of the block', async () => {
    // The block ends with the REMASC system transaction (reference §2.2).
    expect(mined.transactions.slice(0, -1)).toEqual(hashes)
    expect(mined.transactions).toHaveLength(hashes.length + 1)
    for (let i = 0; i < hashes.length; i++) {
      const nodes = (await p.request({ method: 'chain_getTransactionReceiptNodesByHash', params: [mined.hash, hashes[i]] })) as string[]
      const raw = await p.request({ method: 'chain_getRawTransactionReceiptByHash', params: [hashes[i]] })
      const value = await verifyMerkleProof(RLP.encode(i), nodes.map(hex), { root: hex(mined.receiptsRoot) })
      expect(value && bytesToHex(value)).toBe(raw)
    }
  })

  it('the nodes do not verify against another block root', async () => {
    const nodes = (await p.request({ method: 'chain_getTransactionReceiptNodesByHash', params: [mined.hash, hashes[0]] })) as string[]
    const other = await block(p, '0x1')
    await expect(verifyMerkleProof(RLP.encode(0), nodes.map(hex), { root: hex(other.receiptsRoot) })).rejects.toThrow()
  })

  it('answers null for unknown transactions, a transaction of another block, and an unknown block', async () => {
    expect(await p.request({ method: 'chain_getRawTransactionReceiptByHash', params: [ZERO_HASH] })).toBeNull()
    expect(await p.request({ method: 'chain_getTransactionReceiptNodesByHash', params: [(await block(p, '0x1')).hash, hashes[0]] })).toBeNull()
    expect(await p.request({ method: 'chain_getTransactionReceiptNodesByHash', params: [ZERO_HASH, hashes[0]] })).toBeNull()
    // RskModuleImpl.getRawTransactionReceiptByHash takes a plain String: HexUtils.stringHexToByteArray, then the receipt
    // store's lookup of those bytes, which finds nothing for another length than 32 bytes.
    expect(await p.request({ method: 'chain_getRawTransactionReceiptByHash', params: ['0x1234'] })).toBeNull()
    expect(await p.request({ method: 'rsk_getRawTransactionReceiptByHash', params: [hashes[0]!.slice(0, 64)] })).toBeNull()
    await rejects(p.request({ method: 'chain_getRawTransactionReceiptByHash', params: ['0xzz'] }), -32602, 'Invalid transaction hash format: invalid hex value')
    // rsk_getRawBlockHeaderByHash / getTransactionReceiptNodesByHash take plain Strings (HexUtils.stringHexToByteArray
    // left-pads an odd digit count, then Keccak256 wants 32 bytes): 63 digits without 0x name the block.
    // 63 digits without 0x are 32 bytes: an unknown block (null), and a transaction not in the block (null).
    expect(await p.request({ method: 'rsk_getRawBlockHeaderByHash', params: ['1'.repeat(63)] })).toBeNull()
    expect(await p.request({ method: 'chain_getTransactionReceiptNodesByHash', params: [mined.hash, '1'.repeat(63)] })).toBeNull()
    await rejects(p.request({ method: 'chain_getRawBlockHeaderByHash', params: ['0x1234'] }), -32602, 'Invalid block hash: incorrect length.')
    await rejects(p.request({ method: 'chain_getTransactionReceiptNodesByHash', params: [mined.hash, '0x1234'] }), -32602, 'Invalid transaction hash: incorrect length.')
    await rejects(p.request({ method: 'chain_getTransactionReceiptNodesByHash', params: [mined.hash] }), -32602, 'method parameters invalid')
  })

  it('chain_protocolVersion and the rsk_ aliases', async () => {
    expect(await p.request({ method: 'chain_protocolVersion' })).toBe('0x3e')
    expect(await p.request({ method: 'rsk_protocolVersion' })).toBe('0x3e')
    expect(await p.request({ method: 'rsk_getRawBlockHeaderByHash', params: [mined.hash] })).toBe(
      await p.request({ method: 'chain_getRawBlockHeaderByNumber', params: [mined.number] }),
    )
    expect(await p.request({ method: 'rsk_getRawTransactionReceiptByHash', params: [hashes[1]] })).toBe(
      await p.request({ method: 'chain_getRawTransactionReceiptByHash', params: [hashes[1]] }),
    )
  })
})

describe('chain_* over HTTP (ethers JsonRpcProvider)', () => {
  const http = useHttpServer()

  it('raw header of the head hashes to its block hash', async () => {
    const { rpc: client } = http
    const head = await client.send('eth_getBlockByNumber', ['latest', false])
    expect(keccak256(await client.send('rsk_getRawBlockHeaderByNumber', ['latest']))).toBe(head.hash)
    expect(await client.send('chain_protocolVersion', [])).toBe('0x3e')
    client.destroy()
  })
})
