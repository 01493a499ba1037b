/** Block objects in RSKj's field order (`BlockResultDTO`, reference §2.2). Pure. */
import type { BlockRecord } from '../../node/chain/types.js'
import { data, quantity } from './hex.js'
import { formatTransaction, type TransactionJson } from './transaction.js'

const ZERO_32 = '0x' + '00'.repeat(32)
/** RSKj always answers this literal for `nonce` (reference §2.2). */
const NONCE = '0x0000000000000000'

export function formatBlock(block: BlockRecord, fullTransactions: boolean): Record<string, unknown> {
  const h = block.header
  const transactions: (string | TransactionJson)[] = fullTransactions
    ? block.transactions.map((t, i) => formatTransaction(t, block, i))
    : block.transactions.map((t) => t.hashHex)
  return {
    number: quantity(block.number),
    hash: block.hashHex,
    parentHash: data(h.parentHash),
    mixHash: ZERO_32,
    nonce: NONCE,
    sha3Uncles: data(h.unclesHash),
    logsBloom: data(h.logsBloom),
    transactionsRoot: data(h.txTrieRoot),
    stateRoot: data(h.stateRoot),
    receiptsRoot: data(h.receiptTrieRoot),
    miner: data(h.coinbase),
    difficulty: quantity(h.difficulty),
    totalDifficulty: quantity(block.totalDifficulty),
    extraData: data(h.extraData),
    size: quantity(block.size),
    gasLimit: quantity(h.gasLimit),
    gasUsed: quantity(h.gasUsed),
    timestamp: quantity(h.timestamp),
    transactions,
    uncles: [],
    minimumGasPrice: quantity(h.minimumGasPrice),
    bitcoinMergedMiningHeader: data(h.bitcoinMergedMiningHeader),
    bitcoinMergedMiningCoinbaseTransaction: data(h.bitcoinMergedMiningCoinbaseTransaction),
    bitcoinMergedMiningMerkleProof: data(h.bitcoinMergedMiningMerkleProof),
    hashForMergedMining: data(block.hashForMergedMining),
    paidFees: quantity(h.paidFees),
    cumulativeDifficulty: quantity(h.difficulty),
    rskPteEdges: block.number === 0n ? null : (h.txExecutionSublistsEdges ?? []),
    baseEvent: h.baseEvent === undefined || h.baseEvent.length === 0 ? null : data(h.baseEvent),
  }
}
