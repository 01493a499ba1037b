/**
 * IP addresses and CIDR blocks as RSKj's peer scoring reads and prints them (`co/rsk/scoring/InetAddressUtils.java`,
 * `InetAddressCidrBlock.java`, reference §3.9). Pure.
 *
 * RSKj resolves the text with `InetAddress.getByName`, which also accepts host names (a DNS lookup) and short IPv4
 * forms such as `10.1`; a simulated node does no DNS, so only IPv4 dotted quads and IPv6 literals (optionally in
 * brackets, without a zone id) are accepted. Loopback and wildcard addresses are refused, as RSKj refuses them.
 *
 * @example
 * ```ts
 * parseBan('192.168.51.1/16') // { kind: 'block', text: '192.168.51.1/16', … }
 * parseBan('2001:db8::1')     // { kind: 'address', text: '2001:db8:0:0:0:0:0:1', … }
 * ```
 */
import { nodeNet } from '../builtins.js'

export type Ban =
  | { kind: 'address'; bytes: Uint8Array; text: string }
  | { kind: 'block'; bytes: Uint8Array; bits: number; text: string }

/** Thrown for text that is not a bannable address or block (RSKj `InvalidInetAddressException`). */
export class InvalidInetAddressError extends Error {
  override readonly name = 'InvalidInetAddressError'
}

function ipv4Bytes(text: string): Uint8Array {
  return Uint8Array.from(text.split('.').map(Number))
}

function ipv6Bytes(text: string): Uint8Array {
  let body = text
  const tail: number[] = []
  const lastColon = body.lastIndexOf(':')
  if (body.includes('.')) {
    tail.push(...ipv4Bytes(body.slice(lastColon + 1)))
    body = body.slice(0, lastColon + 1) + '0:0'
  }
  const [head = '', rest] = body.split('::')
  const a = head === '' ? [] : head.split(':')
  const b = rest === undefined || rest === '' ? [] : rest.split(':')
  const groups = rest === undefined ? a : [...a, ...new Array<string>(8 - a.length - b.length).fill('0'), ...b]
  const out = new Uint8Array(16)
  groups.forEach((g, i) => {
    const v = parseInt(g, 16)
    out[2 * i] = v >> 8
    out[2 * i + 1] = v & 0xff
  })
  if (tail.length === 4) out.set(tail, 12)
  return out
}

/** Java `getHostAddress`: dotted quad, or eight lowercase hex groups without zero compression. */
export function formatAddress(bytes: Uint8Array): string {
  if (bytes.length === 4) return [...bytes].join('.')
  const groups: string[] = []
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16))
  return groups.join(':')
}

/** Bytes of an IP literal, or undefined. IPv4-mapped IPv6 becomes IPv4, as Java's `InetAddress` does. */
export function parseAddress(raw: string): Uint8Array | undefined {
  let text = raw.trim()
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1)
  if (nodeNet().isIPv4(text)) return ipv4Bytes(text)
  if (!nodeNet().isIPv6(text) || text.includes('%')) return undefined
  const bytes = ipv6Bytes(text)
  const mapped = bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff
  return mapped ? bytes.slice(12) : bytes
}

const isLoopback = (b: Uint8Array): boolean =>
  b.length === 4 ? b[0] === 127 : b.subarray(0, 15).every((x) => x === 0) && b[15] === 1
const isAnyLocal = (b: Uint8Array): boolean => b.every((x) => x === 0)

/** RSKj `InetAddressUtils.getAddressForBan`. */
function addressForBan(text: string): Uint8Array {
  if (text.trim() === '') throw new InvalidInetAddressError('empty address')
  const bytes = parseAddress(text)
  if (bytes === undefined) throw new InvalidInetAddressError(`unknown host: '${text.trim()}'`)
  if (isLoopback(bytes) || isAnyLocal(bytes)) throw new InvalidInetAddressError(`local address: '${text.trim()}'`)
  return bytes
}

/** Java's `String.split("/")`: trailing empty strings are dropped. */
function javaSplit(text: string): string[] {
  const parts = text.split('/')
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop()
  return parts
}

/** Parses the argument of sco_banAddress / sco_unbanAddress (`PeerScoringManager.banAddress(String)`). */
export function parseBan(text: string): Ban {
  const parts = javaSplit(text)
  // `InetAddressUtils.hasMask`: exactly two non-empty parts.
  if (parts.length === 2 && parts[0]!.length > 0 && parts[1]!.length > 0) {
    const bytes = addressForBan(parts[0]!)
    if (!/^[+-]?\d{1,10}$/.test(parts[1]!)) throw new InvalidInetAddressError('Invalid mask')
    const bits = Number(parts[1])
    if (bits <= 0 || bits > bytes.length * 8) throw new InvalidInetAddressError('Invalid mask')
    // `InetAddressCidrBlock.getDescription`: the address as given (not masked) and the bit count.
    return { kind: 'block', bytes, bits, text: `${formatAddress(bytes)}/${bits}` }
  }
  const bytes = addressForBan(text)
  return { kind: 'address', bytes, text: formatAddress(bytes) }
}
