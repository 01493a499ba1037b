/**
 * Who may talk to the server from a browser (issue "safe browser access"). A web page can send requests to any
 * address its visitor's machine reaches, so without these rules any site could read the node's private keys
 * (`personal_dumpRawKey`) or have it sign for them. Two checks, shared by HTTP and WebSocket upgrades:
 *
 * 1. Host (against DNS rebinding, where evil.example is made to resolve to 127.0.0.1): the `Host` header must be
 *    an IP literal, `localhost` (or a `*.localhost` name), the bound host, or a name in `allowedHosts`; else HTTP
 *    400. RSKj applies the same rule with its `rpc.providers.web.http.hosts` list (reference §1.1).
 * 2. Origin: reads are answered to every origin with `Access-Control-Allow-Origin: *`, as Ganache, Hardhat and
 *    Anvil do (a dApp on http://localhost:3000 needs them). The wallet methods below (key export, signing, sending
 *    from the node's keys, account management) are answered only to requests without an `Origin` (not from a
 *    browser page), from a loopback origin (http://localhost:…, http://127.0.0.1:…, http://[::1]:…), or from an
 *    origin in `allowedOrigins`; others get -32600 naming the method, the origin and the option.
 */
import { invalidRequest, type RpcError } from '../errors.js'

/** Methods that reveal keys, sign, or spend from the node's accounts. */
export const WALLET_METHODS: ReadonlySet<string> = new Set([
  'personal_dumpRawKey',
  'personal_importRawKey',
  'personal_newAccount',
  'personal_newAccountWithSeed',
  'personal_unlockAccount',
  'personal_lockAccount',
  'personal_sendTransaction',
  'personal_sign',
  'eth_sign',
  'eth_sendTransaction',
  'eth_signTransaction',
  'eth_signTypedData',
  'eth_signTypedData_v3',
  'eth_signTypedData_v4',
])

export interface AccessConfig {
  /** Extra names accepted in the `Host` header; `'*'` accepts any. */
  allowedHosts: readonly string[] | '*'
  /** Origins (`scheme://host[:port]`) whose pages may call wallet methods; `'*'` allows every origin. */
  allowedOrigins: readonly string[] | '*'
  /** The interface the server is bound to (its name is always an accepted host). */
  boundHost: string
}

/** The host part of a `Host` header (`[::1]:4444` → `::1`, `localhost:4444` → `localhost`), lowercased. */
function hostName(header: string): string {
  const h = header.trim().toLowerCase()
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined)
  const colon = h.lastIndexOf(':')
  return colon >= 0 && h.indexOf(':') === colon ? h.slice(0, colon) : h
}

const IPV4 = /^(\d{1,3})(\.\d{1,3}){3}$/
const isIpLiteral = (name: string): boolean => IPV4.test(name) || name.includes(':')
const isLoopbackName = (name: string): boolean =>
  name === 'localhost' || name.endsWith('.localhost') || name === '::1' || /^127(\.\d{1,3}){3}$/.test(name)

/**
 * Whether a request's `Host` header is accepted. A missing header (HTTP/1.0 clients) is accepted: DNS rebinding
 * needs a browser, and browsers always send it.
 *
 * @example
 * ```ts
 * hostAllowed('localhost:4444', { allowedHosts: [], allowedOrigins: [], boundHost: '127.0.0.1' }) // true
 * hostAllowed('evil.example:4444', { allowedHosts: [], allowedOrigins: [], boundHost: '127.0.0.1' }) // false
 * ```
 */
export function hostAllowed(header: string | undefined, config: AccessConfig): boolean {
  if (header === undefined || config.allowedHosts === '*') return true
  const name = hostName(header)
  if (isIpLiteral(name) || isLoopbackName(name) || name === config.boundHost.toLowerCase()) return true
  return config.allowedHosts.some((h) => h.toLowerCase() === name)
}

/** Whether a page of `origin` (the `Origin` header; undefined = not a browser page) may call wallet methods. */
export function originTrusted(origin: string | undefined, config: AccessConfig): boolean {
  if (origin === undefined || config.allowedOrigins === '*') return true
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false
  }
  if ((url.protocol === 'http:' || url.protocol === 'https:') && isLoopbackName(hostName(url.host))) return true
  return config.allowedOrigins.some((o) => o.replace(/\/+$/, '').toLowerCase() === origin.toLowerCase())
}

/**
 * The refusal of wallet methods to an untrusted origin, for the dispatcher: undefined for methods anyone may call.
 */
export function walletRefusal(origin: string | undefined, config: AccessConfig): ((method: string) => RpcError | undefined) | undefined {
  if (originTrusted(origin, config)) return undefined
  return (method) =>
    WALLET_METHODS.has(method)
      ? invalidRequest(
          `${method} is refused to pages from ${origin}: wallet methods answer only localhost pages and non-browser clients (allow an origin with the allowedOrigins option / --allow-origin)`,
        )
      : undefined
}
