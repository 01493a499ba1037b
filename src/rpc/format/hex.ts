/** Hex encodings of RSKj's `HexUtils` (reference §2.1). Pure. */
import { flatHex } from '../../node/chain/flatHex.js'

/**
 * `0x0` … `0x3ff`, made once: indexes, counts and small block numbers are most of the quantities a reply holds
 * (a log's `logIndex` and `transactionIndex`, a receipt's), and formatting one builds two strings.
 */
const SMALL: readonly string[] = Array.from({ length: 1024 }, (_, i) => '0x' + i.toString(16))

/** QUANTITY: minimal lowercase hex, zero = `0x0`. */
export const quantity = (n: bigint | number): string =>
  typeof n === 'number' && n >= 0 && n < SMALL.length && (n | 0) === n ? SMALL[n]! : '0x' + n.toString(16)

/**
 * DATA: two digits per byte, empty = `0x`. Written as one flat string: `bytesToHex` of @ethereumjs/util builds a
 * rope of ~30 nodes per 32-byte word, which was most of the garbage (and 40 % GC time) of an eth_getLogs over 500
 * logs, and which JSON.stringify then has to flatten again.
 */
export const data = (b: Uint8Array): string => flatHex(b)

/** RSKj `toJsonHex(byte[])`: like DATA but empty = `0x00`. */
export const jsonHex = (b: Uint8Array): string => (b.length === 0 ? '0x00' : flatHex(b))

/** 32-byte zero hash, the block hash of pending entries. */
export const ZERO_HASH = '0x' + '00'.repeat(32)
