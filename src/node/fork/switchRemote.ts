/**
 * Moves a fork to another URL of the same remote chain (anvil_setRpcUrl): later remote reads go there. Anvil 1.7.1
 * takes any URL as it is; here the new URL must first answer the fork's chain id and the forked block's hash, so a
 * URL of another chain (or a remote that reorganised below the forked block) never mixes its state into the fork.
 */
import { RemoteNode } from './remote.js'
import type { ForkPoint } from './fork.js'
import { hexNumber } from './fork.js'

/** Why a URL was refused, in words for the user (the URLs in it redacted); undefined once switched. */
export type SwitchRefused = string

/** At most this long per probe of the new URL (the request waits for it, outside the node's queue). */
const PROBE_TIMEOUT_MS = 10_000

/**
 * Checks `url` against `fork`: one attempt each of eth_chainId and eth_getBlockByNumber at the forked block, never from
 * the fork's cache. Answers why it is refused, or undefined when both agree. Touches nothing of the node: the caller
 * runs it outside the node's queue (a URL that does not answer holds no other request) and then `switchRemote`.
 */
export async function checkRemote(fork: ForkPoint, url: string): Promise<SwitchRefused | undefined> {
  const probe = new RemoteNode({ url, headers: headersFor(fork, url), retries: 0, timeout: Math.min(fork.config.timeout, PROBE_TIMEOUT_MS) })
  const keeps = `; the fork keeps reading from ${fork.remote.url}`
  try {
    let chainId: unknown
    let block: unknown
    try {
      ;[chainId, block] = await Promise.all([probe.request('eth_chainId', []), probe.request('eth_getBlockByNumber', [hexNumber(fork.number), false])])
    } catch (e) {
      return `${probe.url} did not answer: ${e instanceof Error ? e.message : String(e)}${keeps}`
    }
    if (typeof chainId !== 'string' || !/^0x[0-9a-fA-F]+$/.test(chainId)) return `${probe.url} answered eth_chainId with ${JSON.stringify(chainId)}, not a chain id${keeps}`
    if (BigInt(chainId) !== fork.chainId) return `${probe.url} serves chain id ${BigInt(chainId)}, the fork's chain id is ${fork.chainId}${keeps}`
    const hash = (block as { hash?: unknown } | null)?.hash
    if (typeof hash !== 'string') return `${probe.url} has no block ${fork.number} (the forked block, ${fork.block.hashHex})${keeps}`
    if (hash.toLowerCase() !== fork.block.hashHex) return `${probe.url} has block ${fork.number} with hash ${hash.toLowerCase()}, the forked block's hash is ${fork.block.hashHex}: not the same chain${keeps}`
    return undefined
  } finally {
    probe.close()
  }
}

/**
 * Makes `url` (checked by `checkRemote`) the fork's remote: the fork's state, routed requests and block reads use it from
 * then on. The old remote is closed once calls in flight have had time to end. Headers given for the old URL go to the
 * new one only when it has the same origin (scheme, host, port): credentials for one host are not sent to another.
 */
export function switchRemote(fork: ForkPoint, url: string): void {
  const headers = headersFor(fork, url)
  const remote = new RemoteNode({ url, headers, retries: fork.config.retries, timeout: fork.config.timeout, cache: fork.cache })
  const old = fork.remote
  fork.remote = remote
  // The node's options.fork itself (fork.ts ForkPoint): a reset without a URL forks again from this one.
  fork.config.url = url
  fork.config.headers = headers
  // Routed requests run outside the node's queue and may still wait on the old remote: give them their timeout.
  setTimeout(() => old.close(), fork.config.timeout).unref()
}

const headersFor = (fork: ForkPoint, url: string): Record<string, string> => (sameOrigin(fork.config.url, url) ? fork.config.headers : {})

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin
  } catch {
    return false
  }
}
