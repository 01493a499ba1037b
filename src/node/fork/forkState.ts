/**
 * The remote's state at the forked block, value by value (`RemoteValues`, src/node/state/overlay.ts): an account is
 * its balance, nonce and code (three calls, sent as one batch by RemoteNode), a slot one `eth_getStorageAt`, all at
 * the forked block's number. Each value is asked once: answers (and calls in flight) are kept here for the life of
 * the fork, and by RemoteNode's disk cache across runs. A failed read is not kept, so it is tried again next time.
 */
import { bytesToHex, hexToBytes, unpadBytes, KECCAK256_NULL, type PrefixedHexString } from '@ethereumjs/util'
import type { Account } from '@ethereumjs/util'
import { keccak256 } from '../crypto.js'
import { binKey } from '../binKey.js'
import { remoteAccount, type RemoteValues } from '../state/overlay.js'
import type { RemoteNode } from './remote.js'
import { ForkError } from '../errors.js'

type Fetched = { account: Account; code: Uint8Array } | undefined

export class ForkState implements RemoteValues {
  private readonly accounts = new Map<string, Promise<Fetched>>()
  private readonly slots = new Map<string, Promise<Uint8Array>>()
  private readonly codes = new Map<string, Uint8Array>()

  /** The node's request deadline: a read waits for the remote no longer than it (set by the node, exec/guard.ts). */
  guard?: { wait<T>(pending: Promise<T>): Promise<T> }

  constructor(
    /** The fork (fork.ts ForkPoint): reads go to its remote, whichever it is now (anvil_setRpcUrl replaces it, switchRemote.ts). */
    private readonly fork: { readonly remote: RemoteNode },
    /** The forked block's number as `0x` hex. */
    private readonly blockTag: string,
  ) {}

  account(address: Uint8Array): Promise<Fetched> {
    return this.bounded(once(this.accounts, binKey(address), () => this.fetchAccount(address)))
  }

  code(codeHash: Uint8Array): Uint8Array | undefined {
    return this.codes.get(binKey(codeHash))
  }

  storage(address: Uint8Array, key: Uint8Array): Promise<Uint8Array> {
    return this.bounded(
      once(this.slots, binKey(address) + binKey(key), async () => {
        const word = await this.fork.remote.request<string>('eth_getStorageAt', [bytesToHex(address), bytesToHex(key), this.blockTag], { cache: true })
        return unpadBytes(hexBytes(word, 'eth_getStorageAt'))
      }),
    )
  }

  /** The read, waited for no longer than the request may run (the read itself goes on and is kept). */
  private bounded<T>(read: Promise<T>): Promise<T> {
    return this.guard === undefined ? read : this.guard.wait(read)
  }

  private async fetchAccount(address: Uint8Array): Promise<Fetched> {
    const a = bytesToHex(address)
    const [balance, nonce, codeHex] = await Promise.all([
      this.fork.remote.request<string>('eth_getBalance', [a, this.blockTag], { cache: true }),
      this.fork.remote.request<string>('eth_getTransactionCount', [a, this.blockTag], { cache: true }),
      this.fork.remote.request<string>('eth_getCode', [a, this.blockTag], { cache: true }),
    ])
    const code = hexBytes(codeHex, 'eth_getCode')
    const b = quantity(balance, 'eth_getBalance')
    const n = quantity(nonce, 'eth_getTransactionCount')
    if (b === 0n && n === 0n && code.length === 0) return undefined
    const codeHash = code.length === 0 ? KECCAK256_NULL : keccak256(code)
    if (code.length > 0) this.codes.set(binKey(codeHash), code)
    return { account: remoteAccount(n, b, codeHash), code }
  }
}

/** The answer kept in `map` for `key`, else `fetch`'s, kept (in flight too) and forgotten if it fails. */
export function once<K, T>(map: Map<K, Promise<T>>, key: K, fetch: () => Promise<T>): Promise<T> {
  const known = map.get(key)
  if (known !== undefined) return known
  const p = fetch()
  map.set(key, p)
  p.catch(() => map.delete(key))
  return p
}

/** A remote's hex quantity as a bigint; anything else is a remote that does not speak JSON-RPC as expected. */
export function quantity(v: unknown, method: string): bigint {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]+$/.test(v)) throw new ForkError(`the fork's remote answered ${method} with ${JSON.stringify(v)}, not a hex quantity`)
  return BigInt(v)
}

export function hexBytes(v: unknown, method: string): Uint8Array {
  if (typeof v !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(v)) throw new ForkError(`the fork's remote answered ${method} with ${JSON.stringify(v)}, not hex data`)
  return hexToBytes(v as PrefixedHexString)
}
