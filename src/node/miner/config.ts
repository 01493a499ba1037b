/** What the miner is configured with (the node's options): shared by the block builder, the pending block and sealing. */
import type { TxRecord } from '../chain/types.js'
import type { RemascConfig } from '../rsk/remasc/remasc.js'

export interface MinerConfig {
  coinbase: Uint8Array
  blockGasLimit: bigint
  minimumGasPrice: bigint
  /** Called after each transaction ran while a block is assembled (the node collects console.log output). */
  afterTransaction?: (t: TxRecord) => void
  /** Called after the pool's transactions ran in a pending block (the node drops their console.log output). */
  afterPendingTransactions?: () => void
  /** REMASC constants of the network, or undefined when blocks carry no REMASC transaction (option `remasc: false`). */
  remasc?: RemascConfig
}
