/**
 * The text RSKj gives a revert (`EthModule.decodeProgramRevert`, reference §5.1): an `Error(string)` payload gives
 * `VM Exception while processing transaction: revert <reason>`; any other payload (custom errors, panics, empty)
 * gives `VM Exception while processing transaction: transaction reverted`. Pure decoding of the return data: the
 * -32015 error that carries it (the raw bytes in `data`) is src/errors.ts `revertError`, and the tracers' `trace_*`
 * output reads the reason through `decodeErrorString`.
 */

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

/** RSKj's message for a revert with return data `data`. */
export function revertMessage(data: Uint8Array): string {
  const reason = decodeErrorString(data)
  return PREFIX + (reason === undefined ? 'transaction reverted' : `revert ${reason}`)
}
