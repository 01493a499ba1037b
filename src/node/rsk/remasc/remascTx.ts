/**
 * The REMASC system transaction that ends every mined block (`co/rsk/remasc/RemascTransaction.java`). Everything
 * in it but the block number is the same in every block, so its record keeps only the number and its hash
 * (the `txs` index key) and builds the bytes, the sender and the engine transaction when asked: a record
 * with all of them built costs about 2.5 KB of heap per mined block (a LegacyTx holds its own Common copy).
 */
import { createLegacyTx, type LegacyTx } from '@ethereumjs/tx'
import { Address, hexToBytes, type PrefixedHexString } from '@ethereumjs/util'
import type { Common } from '@ethereumjs/common'
import { keccak256 } from '../../crypto.js'
import { rlpEncode, unpaddedBytes } from '../../rlp.js'
import { flatHex } from '../../chain/flatHex.js'
import type { TxRecord } from '../../chain/types.js'

export const REMASC_ADDRESS_HEX = '0x0000000000000000000000000000000001000008'
export const REMASC = new Address(hexToBytes(REMASC_ADDRESS_HEX))
/** A one-byte 0 item: RLP encodes it as the byte itself (0x00), as RSKj writes the zero gas price and gas limit. */
const ZERO_BYTE = Uint8Array.of(0)
/** The unsigned transaction's sender: the zero address. */
const NO_SENDER_HEX = flatHex(new Uint8Array(20))

/**
 * RSKj's `getEncoded()` of the unsigned transaction, so its hash is the one RSKj gives:
 * [nonce, 0x00, 0x00, REMASC, "", "", "", "", ""] — the gas price and gas limit are the single byte 0
 * (`encodeCoinNonNullZero`, `encodeElement({0})`), not the empty string; value, data, v, r and s are empty.
 */
export function remascRaw(nonce: bigint): Uint8Array {
  const empty = new Uint8Array(0)
  return rlpEncode([unpaddedBytes(nonce), ZERO_BYTE, ZERO_BYTE, REMASC.bytes, empty, empty, empty, empty, empty])
}

/** A REMASC transaction record: number and hash stored, the rest rebuilt on each read (fresh copies). */
class RemascTxRecord implements TxRecord {
  constructor(
    /** The block's number (the header's own bigint); the nonce is one less. */
    private readonly number: bigint,
    private readonly common: Common,
    /** The hash, computed on first use (a packed block unpacked to read its header never needs it). */
    private knownHashHex?: string,
  ) {}

  get hashHex(): string {
    return (this.knownHashHex ??= remascTxHashHex(this.number))
  }

  get system(): 'remasc' {
    return 'remasc'
  }

  get raw(): Uint8Array {
    return remascRaw(this.number - 1n)
  }

  get hash(): Uint8Array {
    return hexToBytes(this.hashHex as PrefixedHexString)
  }

  get from(): Uint8Array {
    return new Uint8Array(20)
  }

  get fromHex(): string {
    return NO_SENDER_HEX
  }

  get tx(): LegacyTx {
    return createLegacyTx({ nonce: this.number - 1n, gasPrice: 0n, gasLimit: 0n, to: REMASC, value: 0n }, { common: this.common })
  }
}

/**
 * The REMASC transaction of block `number` (its nonce is `number - 1`). `hashHex`: its hash when known (a block read
 * back from the database), else computed.
 */
export function remascTransaction(number: bigint, engineCommon: Common, hashHex?: string): TxRecord {
  return new RemascTxRecord(number, engineCommon, hashHex)
}

/** The hash of block `number`'s REMASC transaction, as `0x` hex. */
export function remascTxHashHex(number: bigint): string {
  return flatHex(keccak256(remascRaw(number - 1n)))
}
