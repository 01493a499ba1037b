/** Domain records of the simulated chain: bytes and bigints only, never hex strings or JSON-RPC shapes. */
import type { LegacyTx } from '@ethereumjs/tx'
import type { RskHeader } from '../rsk/header/header.js'
import type { RlpInput } from '../rlp.js'

export interface LogRecord {
  address: Uint8Array
  topics: Uint8Array[]
  data: Uint8Array
}

export interface ReceiptRecord {
  /** 1 success, 0 failure. */
  status: 0 | 1
  gasUsed: bigint
  cumulativeGasUsed: bigint
  logs: LogRecord[]
  logsBloom: Uint8Array
  /** Created contract address for creation transactions (also when creation failed, as RSKj), else null. */
  contractAddress: Uint8Array | null
  /** Return data of a reverted execution (REVERT opcode), for error reporting. */
  revertData?: Uint8Array
  /** Engine error name for a failed execution (out of gas, invalid opcode, revert). */
  error?: string
  /**
   * The items of the RSK receipt RLP (tries.ts `receiptItems`), for records that give them without building their
   * logs (the REMASC receipt, one per block); absent on the others, which are encoded from their fields.
   */
  rlpItems?(): RlpInput
}

/** A signed transaction with its sender recovered once and its hash computed once. */
export interface TxRecord {
  tx: LegacyTx
  hash: Uint8Array
  hashHex: string
  from: Uint8Array
  fromHex: string
  /** Serialized (RLP) bytes, as received or as signed. */
  raw: Uint8Array
  /**
   * RSKj's pool refusal of a raw transaction's nonce (src/rpc/codecs/nonCanonicalTransaction.ts): its bytes
   * (`TxValidatorNonceEncodingValidator`: over 8 bytes, or a leading zero), or a number the engine cannot hold (2^64 - 1:
   * `transaction nonce too high`, the next step). Admission answers it at the pool's place for it: such a record never
   * enters the pool, and its `tx.nonce` may not be the one sent.
   */
  nonceRefusal?: string
  /**
   * The gas limit, gas price and value RSKj holds when the engine cannot (@ethereumjs/tx refuses a gas limit of 2^64
   * or more, a gas price or value of 2^256 or more, and a gas price × gas limit of 2^256 or more): `tx` then holds zero
   * for all three. RSKj's pool refuses such a transaction at its gas-limit check or, past it, at its funds check
   * (no balance reaches 2^256); admission answers that at the same place (src/node/pool/admission.ts), so it is never
   * mined.
   */
  unheld?: { gasLimit: bigint; gasPrice: bigint; value: bigint }
  /** Set on the unsigned REMASC system transaction that ends every block (src/node/rsk/remasc/remasc.ts). */
  system?: 'remasc'
}

export interface BlockRecord {
  header: RskHeader
  hash: Uint8Array
  hashHex: string
  number: bigint
  hashForMergedMining: Uint8Array
  transactions: TxRecord[]
  receipts: ReceiptRecord[]
  totalDifficulty: bigint
  /**
   * The difficulty plus its uncles' (RSKj `Block.getCumulativeDifficulty`), for the BlockHeader precompile; set only
   * on a fork's remote blocks (blocks mined here have no uncles: it is their difficulty).
   */
  cumulativeDifficulty?: bigint
  /** RLP length of the whole block (header, transactions, uncles). */
  size: number
}

/** Where a mined transaction lives. */
export interface TxLocation {
  block: BlockRecord
  index: number
}
