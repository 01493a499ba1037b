/**
 * Revert reporting as RSKj does it (`EthModule.decodeProgramRevert`, reference §5.1): an `Error(string)` payload
 * gives `VM Exception while processing transaction: revert <reason>`; any other payload (custom errors, panics,
 * empty) gives `VM Exception while processing transaction: transaction reverted`. The raw bytes go in `data`.
 */
import { bytesToHex } from '@ethereumjs/util'
import { reverted, type RpcError } from '../errors.js'

const ERROR_SELECTOR = [0x08, 0xc3, 0x79, 0xa0]
const PREFIX = 'VM Exception while processing transaction: '

/** Decodes the reason of an `Error(string)` revert payload, or returns undefined for any other payload. */
export function decodeErrorString(data: Uint8Array): string | undefined {
  if (data.length < 68 || ERROR_SELECTOR.some((b, i) => data[i] !== b)) return undefined
  const body = data.subarray(4)
  const offset = readWord(body, 0)
  if (offset === undefined || offset + 32 > body.length) return undefined
  const length = readWord(body, offset)
  if (length === undefined || offset + 32 + length > body.length) return undefined
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(body.subarray(offset + 32, offset + 32 + length))
  } catch {
    return undefined
  }
}

function readWord(b: Uint8Array, at: number): number | undefined {
  for (let i = at; i < at + 26; i++) if (b[i] !== 0) return undefined
  let n = 0
  for (let i = at + 26; i < at + 32; i++) n = n * 256 + b[i]!
  return n
}

/** The -32015 error for a revert with return data `data`. */
export function revertError(data: Uint8Array): RpcError {
  const reason = decodeErrorString(data)
  return reverted(PREFIX + (reason === undefined ? 'transaction reverted' : `revert ${reason}`), bytesToHex(data))
}
