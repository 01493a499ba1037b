/**
 * Session 34's changed answers through a real client: ethers' JsonRpcProvider over HTTP.
 * - The extensions that now answer `pending` from the pending block (docs/extensions.md "`pending` in the
 *   extensions"): expected values come from ethers (the deployment's address from `getCreateAddress`, the raw
 *   transaction's keccak from the hash the node gave) and from the block then mined.
 * - eth_sendRawTransaction's RSKj answers (docs/compatibility.md "Raw transactions as RSKj reads them"): codes and texts
 *   are RSKj's (VETIVER-9.0.3), as test/eth_sendRawTransaction_rskjReading.test.ts gives their sources.
 */
import { describe, expect, it } from 'vitest'
import { SigningKey, encodeRlp, getCreateAddress, keccak256, toBeHex } from 'ethers'
import { COW, COW1, COW_KEY, useHttpServer } from './helpers.js'
import { Compute } from './fixtures/index.js'

/**
 * The JSON-RPC error of a refused request, as ethers carries it: `error` of its thrown Error for an HTTP 200 reply, the
 * reply's body in `info` for the service's HTTP 400 (-32602).
 */
async function refusal(request: Promise<unknown>): Promise<{ code: number; message: string }> {
  const e = (await request.then(
    () => undefined,
    (err: unknown) => err,
  )) as { error?: { code: number; message: string }; info?: { responseBody?: string } } | undefined
  const error = e?.error ?? (e?.info?.responseBody === undefined ? undefined : JSON.parse(e.info.responseBody).error)
  if (error === undefined) throw new Error(`the request was not refused with a JSON-RPC error: ${String(e)}`)
  return { code: error.code, message: error.message }
}

describe('`pending` in the extensions, through ethers over HTTP', () => {
  const http = useHttpServer()

  it('ots_hasCode, erigon_getHeaderByNumber, eth_getRawTransactionByBlockNumberAndIndex and trace_replayBlockTransactions read the pending block', async () => {
    const { rpc } = http
    await rpc.send('evm_setAutomine', [false])
    const nonce = Number(await rpc.send('eth_getTransactionCount', [COW, 'latest']))
    const hash: string = await rpc.send('eth_sendTransaction', [{ from: COW, data: Compute.bytecode, gas: '0x4c4b40' }])
    const created = getCreateAddress({ from: COW, nonce })
    const head = Number(await rpc.send('eth_blockNumber', []))

    expect(await rpc.send('ots_hasCode', [created, 'pending'])).toBe(true)
    expect(await rpc.send('ots_hasCode', [created, 'latest'])).toBe(false)
    expect(Number((await rpc.send('erigon_getHeaderByNumber', ['pending'])).number)).toBe(head + 1)
    expect(keccak256(await rpc.send('eth_getRawTransactionByBlockNumberAndIndex', ['pending', '0x0']))).toBe(hash)
    const pendingReplay = await rpc.send('trace_replayBlockTransactions', ['pending', ['trace']])
    expect(pendingReplay[0].transactionHash).toBe(hash)

    await rpc.send('evm_mine', [])
    await rpc.send('evm_setAutomine', [true])
    expect(await rpc.send('ots_hasCode', [created, 'latest'])).toBe(true)
    // The block then mined holds what the pending one did: the deployment, then REMASC's system transaction.
    expect(pendingReplay.map((t: { transactionHash: string }) => t.transactionHash)).toEqual((await rpc.send('eth_getBlockByNumber', [toBeHex(head + 1), false])).transactions)
    // The replay of the block then mined has the same traces as the pending one.
    expect(await rpc.send('trace_replayBlockTransactions', [toBeHex(head + 1), ['trace']])).toEqual(pendingReplay)
  })
})

describe("eth_sendRawTransaction's RSKj answers, through ethers over HTTP", () => {
  const http = useHttpServer()
  const transfer = ['0x', '0x', '0x5208', COW1, '0x01', '0x']

  /** The transfer signed by cow: for chain 33 (EIP-155), or over the six fields alone (`preEip155`). */
  function signed(preEip155 = false): { raw: string; v: number; r: string; s: string } {
    const message = preEip155 ? encodeRlp(transfer) : encodeRlp([...transfer, toBeHex(33), '0x', '0x'])
    const sig = new SigningKey(COW_KEY).sign(keccak256(message))
    const v = preEip155 ? 27 + sig.yParity : 33 * 2 + 35 + sig.yParity
    return { raw: encodeRlp([...transfer, toBeHex(v), sig.r, sig.s]), v, r: sig.r, s: sig.s }
  }

  it('bytes after the list: -32603; an item that does not fit: -32602 with RLP.java text; no key recovered: -32010', async () => {
    const { rpc } = http
    const { raw, v, s } = signed()
    expect(await refusal(rpc.send('eth_sendRawTransaction', [raw + '80']))).toEqual({ code: -32603, message: 'Internal server error' })
    expect(await refusal(rpc.send('eth_sendRawTransaction', [raw + '85']))).toEqual({
      code: -32602,
      message: "Invalid input: The RLP byte array doesn't have enough space to hold an element with the specified length",
    })
    // r = 5 is no curve point's x (ethers recovers no key from it either: rskjReading's test).
    expect(await refusal(rpc.send('eth_sendRawTransaction', [encodeRlp([...transfer, toBeHex(v), '0x05', s])]))).toEqual({
      code: -32010,
      message: "the sender account doesn't exist",
    })
  })

  it('v 35 or 36 names chain id 0: taken from cow, answered with the hash of its v-27/28 encoding', async () => {
    const { rpc } = http
    const pre = signed(true)
    const sent = encodeRlp([...transfer.slice(0, 6), toBeHex(pre.v === 27 ? 35 : 36), pre.r, pre.s])
    const hash: string = await rpc.send('eth_sendRawTransaction', [sent])
    expect(hash).toBe(keccak256(pre.raw))
    const tx = await rpc.send('eth_getTransactionByHash', [hash])
    expect([tx.from, Number(tx.v)]).toEqual([COW, pre.v])
  })
})
