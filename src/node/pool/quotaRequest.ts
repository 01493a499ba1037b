/**
 * RSKj `TxQuotaChecker.CurrentContext` resolved for one transaction: the best block (gas limit, minimum gas
 * price), the pending state (the sender's pending nonce), the repository (is the receiver a contract) and the gas
 * price tracker (does the fee market work, and its average price), as `TransactionPoolImpl.internalAddTransaction`
 * passes them to `acceptTx` (src/node/pool/txQuota.ts).
 */
import { Address, bytesToHex } from '@ethereumjs/util'
import type { Chain } from '../chain/chain.js'
import type { TxRecord } from '../chain/types.js'
import type { TxPool } from './pool.js'
import { FEE_MARKET_BLOCK_WINDOW, FEE_MARKET_COMPLETENESS, type QuotaRequest } from './txQuota.js'

export async function quotaRequest(chain: Chain, pool: TxPool, t: TxRecord, pendingNonce: bigint): Promise<QuotaRequest> {
  const head = chain.head
  const to = t.tx.to?.bytes
  const replaced = pool.find(t.fromHex, t.tx.nonce)
  return {
    sender: t.fromHex,
    receiver: to === undefined ? '' : bytesToHex(to),
    receiverIsContract: to !== undefined && (await chain.state.getCode(new Address(to))).length > 0,
    gasLimit: t.tx.gasLimit,
    nonce: t.tx.nonce,
    gasPrice: t.tx.gasPrice,
    size: t.raw.length,
    ...(replaced !== undefined ? { replacedGasPrice: replaced.tx.gasPrice } : {}),
    accountNonce: pendingNonce,
    blockGasLimit: head.header.gasLimit,
    blockMinGasPrice: head.header.minimumGasPrice,
    ...(feeMarketWorking(chain) ? { avgGasPrice: (head.header.minimumGasPrice * 11n) / 10n } : {}),
  }
}

/**
 * RSKj `GasPriceTracker.isFeeMarketWorking`: the last 50 blocks are on average at least 90 % full (fewer than 50
 * blocks: not working). Its average price is then taken as the node's gas price, what eth_gasPrice answers
 * (minimum × 1.1; docs/modules/tx-quota.md).
 */
function feeMarketWorking(chain: Chain): boolean {
  const head = chain.head.number
  // On a fork only rsksim's own blocks count (the window must lie above the forked block).
  if (head - BigInt(FEE_MARKET_BLOCK_WINDOW) + 1n <= chain.store.first.number && chain.store.first.number > 0n) return false
  if (head < BigInt(FEE_MARKET_BLOCK_WINDOW - 1)) return false
  let sum = 0
  for (let n = head - BigInt(FEE_MARKET_BLOCK_WINDOW) + 1n; n <= head; n++) {
    const h = chain.store.byNumber(n)!.header
    sum += Number(h.gasUsed) / Number(h.gasLimit)
  }
  return sum / FEE_MARKET_BLOCK_WINDOW >= FEE_MARKET_COMPLETENESS
}
