/** Transactions: lookups, receipts, sending and signing (spec "Method reference: calls, gas and sending"). */
import { bytesToHex } from '@ethereumjs/util'
import { blockHash, foundBlockIndex, hexIndex, orNull, txHash } from '../../codecs/primitives.js'
import { numberBlockIdText } from '../../codecs/rskjBlock.js'
import { retrieverBlockId } from '../../codecs/rskjText.js'
import { txObject, type TxObject } from '../../codecs/transaction.js'
import { rskjAddress, rskjData, signedByte, transactionArguments } from '../../codecs/callArgumentsParam.js'
import { invalidParams, revertError, RpcError, ErrorCode } from '../../../errors.js'
import { method, noParams, type HandlerContext, type MethodTable } from '../../method.js'
import { data, ZERO_HASH } from '../../format/hex.js'
import { formatTransaction } from '../../format/transaction.js'
import { formatReceipt } from '../../format/receipt.js'
import { blockById } from '../../resolve.js'
import { impersonatedPlainTransaction, signRskjTransaction, signTransaction, type PlainTxData } from '../../../node/chain/txRecord.js'
import { decodeRawTransaction } from '../../codecs/rawTransaction.js'
import type { TxRecord } from '../../../node/chain/types.js'
import { signMessage } from '../../../node/accounts.js'
import { privateKeyToAddress } from '../../../node/crypto.js'

/** RSKj `GasCost.TRANSACTION_DEFAULT`: gas of an eth_sendTransaction that names none. */
export const DEFAULT_TX_GAS = 90_000n

/**
 * Submits and, under automine, mines. Like RSKj's instant autominer (`EthModuleTransactionInstant`), a mined
 * transaction that failed answers -32015 (with the revert data) although it stays mined. When the gas was the
 * 90,000 default because the request named none, an out-of-gas failure says so: the default is the service's and
 * stays, but "transaction reverted" would hide why a deployment failed.
 */
async function submit({ node }: HandlerContext, t: TxRecord, defaultedGas = false): Promise<string> {
  const block = await node.submit(t)
  if (block !== undefined) {
    const r = block.receipts[block.transactions.indexOf(t)]!
    if (r.status === 0) {
      if (r.error === 'revert') throw revertError(r.revertData ?? new Uint8Array())
      if (defaultedGas && r.error === 'out of gas') {
        throw new RpcError(
          ErrorCode.Reverted,
          `VM Exception while processing transaction: out of gas: no gas was given, so the service's default of ${DEFAULT_TX_GAS} was used; pass gas (eth_estimateGas tells how much)`,
        )
      }
      throw new RpcError(ErrorCode.Reverted, 'VM Exception while processing transaction: transaction reverted')
    }
  }
  return t.hashHex
}

export function walletKey(ctx: HandlerContext, from: Uint8Array, notFound: string): Uint8Array {
  if (ctx.node.options.hosted) throw invalidParams('Local wallet is disabled in this node')
  const key = ctx.node.accounts.unlockedKey(bytesToHex(from))
  if (key === undefined) {
    if (ctx.node.impersonation.has(bytesToHex(from))) {
      throw invalidParams(`${bytesToHex(from)} is impersonated: the node holds no key for it, so it can send transactions but not sign`)
    }
    throw invalidParams(notFound)
  }
  return key.privateKey
}

/**
 * How a refused chain id is named: eth_sendTransaction (`EthModuleTransactionBase.sendTransaction`) quotes the text
 * the request gave (`args.getChainId()`); personal_sendTransaction (`PersonalModuleWalletEnabled.sendTransaction`)
 * prints the byte the transaction holds (`tx.getChainId()`, a Java byte: 0xa1 is -95).
 */
export type ChainIdQuote = 'text' | 'byte'

/**
 * The transaction eth_sendTransaction builds from `tx` for `from`, with its defaults (reference §5.3;
 * `TransactionArgumentsUtil.processArguments`, read after the sender's checks): gas 90,000, gasPrice 0, value 0,
 * nonce = the pool's pending nonce of the sender (or `nonce`, when the caller chose it), chain id 0 = the node's.
 * A chain id that is neither: -32602 `Invalid chainId: …` (`acceptTransactionSignature`), quoted as `quote` says.
 */
async function transactionData(ctx: HandlerContext, tx: TxObject, from: Uint8Array, nonce?: bigint, quote: ChainIdQuote = 'text'): Promise<PlainTxData> {
  const { node } = ctx
  const chainId = node.chain.common.chainId()
  const args = transactionArguments(tx, DEFAULT_TX_GAS, chainId)
  if (BigInt(args.chainId) !== 0n && BigInt(args.chainId) !== chainId) {
    throw invalidParams(`Invalid chainId: ${quote === 'text' ? tx.chainId! : signedByte(args.chainId)}`)
  }
  return {
    nonce: args.nonce ?? nonce ?? node.pool.nextNonce(bytesToHex(from), await node.chain.nonceAt(from, node.chain.head)),
    gasLimit: args.gasLimit,
    gasPrice: args.gasPrice,
    value: args.value,
    data: tx.data ?? new Uint8Array(),
    ...(tx.to !== undefined ? { to: tx.to } : {}),
  }
}

const namesGas = (tx: TxObject): boolean => tx.gas !== undefined || tx.gasLimit !== undefined

/** Signs `tx` with `key` and submits it. Shared with personal_sendTransaction. */
export async function sendWithKey(ctx: HandlerContext, tx: TxObject, key: Uint8Array, quote: ChainIdQuote = 'text'): Promise<string> {
  const from = tx.from ?? privateKeyToAddress(key)
  const record = signRskjTransaction(await transactionData(ctx, tx, from, undefined, quote), key, ctx.node.chain.common)
  return submit(ctx, record, !namesGas(tx))
}

/** Submits `tx` from `from` without a signature: impersonation (Anvil's and Hardhat's), and eth_sendUnsignedTransaction. */
export async function sendImpersonated(ctx: HandlerContext, tx: TxObject, from: Uint8Array): Promise<string> {
  const record = impersonatedPlainTransaction(await transactionData(ctx, tx, from), from, ctx.node.chain.common)
  return submit(ctx, record, !namesGas(tx))
}

/**
 * The transaction eth_sendTransaction sends for `tx` from `from`, not yet sent: signed with the node's key, or, from an
 * impersonated sender (outside hosted mode) the node holds no key for, without one. `nonce`: the nonce when `tx`
 * names none (default: the sender's pending one). Shared with anvil_reorg (dev/reorg.ts).
 */
export async function transactionFrom(ctx: HandlerContext, tx: TxObject, from: Uint8Array, nonce?: bigint): Promise<TxRecord> {
  const { node } = ctx
  const fromHex = bytesToHex(from)
  const impersonated = !node.options.hosted && node.accounts.unlockedKey(fromHex) === undefined && node.impersonation.has(fromHex)
  const key = impersonated ? undefined : walletKey(ctx, from, `Could not find account for address: ${fromHex}`)
  const data = await transactionData(ctx, tx, from, nonce)
  return key === undefined ? impersonatedPlainTransaction(data, from, node.chain.common) : signRskjTransaction(data, key, node.chain.common)
}

/** Signs `tx` with the node's key for its sender without sending it (eth_signTransaction). */
export async function signWithKey(ctx: HandlerContext, tx: TxObject, key: Uint8Array): Promise<TxRecord> {
  const from = tx.from ?? privateKeyToAddress(key)
  return signTransaction(await transactionData(ctx, tx, from), key, ctx.node.chain.common)
}

export const ethTransactionMethods: MethodTable = {
  eth_getTransactionByHash: method([txHash], ({ node }, hash) => {
    const hex = bytesToHex(hash)
    const at = node.chain.store.getTx(hex)
    if (at !== undefined) return formatTransaction(at.block.transactions[at.index]!, at.block, at.index)
    const pending = node.pool.get(hex)
    return pending === undefined ? null : formatTransaction(pending)
  }),

  /** JSON `null`s reach the method, which refuses them after both parameters are read (`Web3Impl`). */
  eth_getTransactionByBlockHashAndIndex: method([orNull(blockHash), orNull(hexIndex)], ({ node }, hash, index) => {
    if (hash === null) throw invalidParams('blockHash is null')
    if (index === null) throw invalidParams('index is null')
    const block = node.chain.store.getByHash(bytesToHex(hash))
    const t = block?.transactions[Number(index)]
    return t === undefined ? null : formatTransaction(t, block, Number(index))
  }),

  /** A `null` index: null where no block is found, else -32602 (`foundBlockIndex`). */
  eth_getTransactionByBlockNumberAndIndex: method([numberBlockIdText, orNull(hexIndex)], ({ node, method: name }, id, given) => {
    const block = blockById(node, retrieverBlockId(id), name)
    if (block === undefined) return null
    const index = Number(foundBlockIndex(given))
    const t = block.transactions[index]
    return t === undefined ? null : formatTransaction(t, block, index)
  }),

  eth_getTransactionReceipt: method([txHash], ({ node }, hash) => {
    const at = node.chain.store.getTx(bytesToHex(hash))
    return at === undefined ? null : formatReceipt(at)
  }),

  eth_sendRawTransaction: method([rskjData], (ctx, raw) => submit(ctx, decodeRawTransaction(raw, ctx.node.chain.common))),

  eth_sendTransaction: method([txObject], async (ctx, tx) => {
    // A node without a wallet answers this before anything else (EthModuleTransactionDisabled.sendTransaction).
    if (ctx.node.options.hosted) throw invalidParams('Local wallet is disabled in this node')
    if (tx.from === undefined) throw invalidParams('from is null')
    return submit(ctx, await transactionFrom(ctx, tx, tx.from), !namesGas(tx))
  }),

  eth_sign: method([rskjAddress, rskjData], (ctx, from, message) => data(signMessage(message, walletKey(ctx, from, 'Account not found')))),

  /** Pending pool transactions sent from accounts this node holds, with the all-zero block hash (spec). */
  eth_pendingTransactions: noParams(({ node }) => {
    const out = []
    for (const [sender, byNonce] of node.pool.content().pending) {
      if (!node.accounts.has(sender)) continue
      for (const t of byNonce.values()) out.push({ ...formatTransaction(t), blockHash: ZERO_HASH })
    }
    return out
  }),
}
