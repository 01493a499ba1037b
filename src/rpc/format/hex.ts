/** Hex encodings of RSKj's `HexUtils` (reference §2.1). Pure. */
import { bytesToHex } from '@ethereumjs/util'

/** QUANTITY: minimal lowercase hex, zero = `0x0`. */
export const quantity = (n: bigint | number): string => '0x' + n.toString(16)

/** DATA: two digits per byte, empty = `0x`. */
export const data = (b: Uint8Array): string => bytesToHex(b)

/** RSKj `toJsonHex(byte[])`: like DATA but empty = `0x00`. */
export const jsonHex = (b: Uint8Array): string => (b.length === 0 ? '0x00' : bytesToHex(b))

/** 32-byte zero hash, the block hash of pending entries. */
export const ZERO_HASH = '0x' + '00'.repeat(32)
