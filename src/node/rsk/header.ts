/**
 * INTERIM stand-in written by the lead so the rest of the node can run while the full RSK header codec
 * (helper-1) is finished; that work replaces this file. Encoding per reference §3.6.
 */
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'

export interface RskHeader {
  parentHash: Uint8Array
  unclesHash: Uint8Array
  coinbase: Uint8Array
  stateRoot: Uint8Array
  txTrieRoot: Uint8Array
  receiptTrieRoot: Uint8Array
  logsBloom: Uint8Array
  difficulty: bigint
  number: bigint
  gasLimit: bigint
  gasUsed: bigint
  timestamp: bigint
  extraData: Uint8Array
  paidFees: bigint
  minimumGasPrice: bigint
  uncleCount: number
  ummRoot?: Uint8Array
  version: number
  txExecutionSublistsEdges?: number[]
  baseEvent?: Uint8Array
  bitcoinMergedMiningHeader: Uint8Array
  bitcoinMergedMiningMerkleProof: Uint8Array
  bitcoinMergedMiningCoinbaseTransaction: Uint8Array
}

function fields(h: RskHeader): (Uint8Array | Uint8Array[])[] {
  const f: (Uint8Array | Uint8Array[])[] = [
    h.parentHash, h.unclesHash, h.coinbase, h.stateRoot, h.txTrieRoot, h.receiptTrieRoot, h.logsBloom,
    bigIntToUnpaddedBytes(h.difficulty), bigIntToUnpaddedBytes(h.number), bigIntToUnpaddedBytes(h.gasLimit),
    bigIntToUnpaddedBytes(h.gasUsed), bigIntToUnpaddedBytes(h.timestamp), h.extraData, bigIntToUnpaddedBytes(h.paidFees),
    bigIntToUnpaddedBytes(h.minimumGasPrice), bigIntToUnpaddedBytes(BigInt(h.uncleCount)),
  ]
  if (h.version > 0) f.push(Uint8Array.of(h.version), (h.txExecutionSublistsEdges ?? []).map((e) => bigIntToUnpaddedBytes(BigInt(e))))
  return f
}

export function encodeRskHeader(h: RskHeader): Uint8Array {
  return RLP.encode([...fields(h), h.bitcoinMergedMiningHeader])
}

export function rskBlockHash(h: RskHeader): Uint8Array {
  return keccak_256(encodeRskHeader(h))
}

export function hashForMergedMining(h: RskHeader): Uint8Array {
  return keccak_256(RLP.encode(fields(h)))
}
