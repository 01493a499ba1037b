/**
 * The state file of `anvil_dumpState` / `anvil_loadState` (and of a later `--state` option): every account's
 * balance, nonce, code and storage, with the head's number and time, as JSON.
 *
 * ```json
 * { "format": "rsksim-state", "version": 1, "chainId": "0x21",
 *   "block": { "number": "0x5", "timestamp": "0x6553f100" },
 *   "accounts": { "0x…": { "balance": "0x…", "nonce": "0x1", "code": "0x…", "storage": { "0x<32 bytes>": "0x<32 bytes>" } } } }
 * ```
 *
 * Loading writes these accounts into the live state of the current chain (accounts not in the file stay), moves
 * the clock so the next block is not older than `block.timestamp`, and refuses a file of another chain id. Block
 * history is not part of the file: loading does not recreate blocks (Anvil's dump does not either, by default).
 */
import { Buffer } from 'node:buffer'
import { Account, Address, KECCAK256_NULL, bytesToBigInt, bytesToHex, equalsBytes, hexToBytes, setLengthLeft, type PrefixedHexString } from '@ethereumjs/util'
import type { Chain } from '../chain/chain.js'
import type { Clock } from '../miner/clock.js'
import { editState } from './stateEdits.js'

export const STATE_FORMAT = 'rsksim-state'
export const STATE_VERSION = 1

export interface AccountDump {
  balance: string
  nonce: string
  code: string
  storage: Record<string, string>
}

export interface StateDump {
  format: typeof STATE_FORMAT
  version: number
  chainId: string
  block: { number: string; timestamp: string }
  accounts: Record<string, AccountDump>
}

/** A state file that cannot be loaded; the message says why (rpc/ answers -32602 with it). */
export class BadStateFile extends Error {
  override readonly name = 'BadStateFile'
}

/** Largest code accepted in a state file (twice EIP-170's 24,576: generous, and still bounded). */
const MAX_CODE_BYTES = 49_152

const q = (n: bigint): string => '0x' + n.toString(16)

/** LiveState.written keys are binary strings, one character per byte. */
const binHex = (k: string): string => '0x' + Buffer.from(k, 'latin1').toString('hex')

/** Every existing account of the live state, with its storage (slots whose value is zero are absent). */
export async function dumpState(chain: Chain): Promise<StateDump> {
  const state = chain.state
  const accounts: Record<string, AccountDump> = {}
  const written = [...state.written].map(([a, slots]) => [binHex(a), [...slots].map(binHex)] as const)
  for (const [addressHex, slots] of written.sort(([a], [b]) => (a < b ? -1 : 1))) {
    const address = new Address(hexToBytes(addressHex as PrefixedHexString))
    const account = await state.getAccount(address)
    if (account === undefined) continue
    const storage: Record<string, string> = {}
    for (const slot of [...slots].sort()) {
      const value = await state.getStorage(address, hexToBytes(slot as PrefixedHexString))
      if (value.length > 0 && bytesToBigInt(value) !== 0n) storage[slot] = bytesToHex(setLengthLeft(value, 32))
    }
    accounts[addressHex] = {
      balance: q(account.balance),
      nonce: q(account.nonce),
      code: bytesToHex(await state.getCode(address)),
      storage,
    }
  }
  const head = chain.head
  return {
    format: STATE_FORMAT,
    version: STATE_VERSION,
    chainId: q(chain.common.chainId()),
    block: { number: q(head.number), timestamp: q(head.header.timestamp) },
    accounts,
  }
}

const HEX = /^0x[0-9a-fA-F]*$/

function hexField(v: unknown, where: string, maxBytes: number): Uint8Array {
  if (typeof v !== 'string' || !HEX.test(v) || v.length > 2 + 2 * maxBytes) throw new BadStateFile(`${where}: expected 0x hex of at most ${maxBytes} bytes`)
  return hexToBytes((v.length % 2 === 1 ? '0x0' + v.slice(2) : v) as PrefixedHexString)
}

const quantityField = (v: unknown, where: string): bigint => bytesToBigInt(hexField(v, where, 32))

/** Checks a parsed state file; throws `BadStateFile` naming the first problem. */
export function checkStateDump(v: unknown, chainId: bigint): StateDump {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new BadStateFile('a state file is a JSON object')
  const d = v as Record<string, unknown>
  if (d.format !== STATE_FORMAT) throw new BadStateFile(`not an rsksim state file (format must be "${STATE_FORMAT}")`)
  if (d.version !== STATE_VERSION) throw new BadStateFile(`state file version ${String(d.version)} is not supported (this rsksim reads version ${STATE_VERSION})`)
  const fileChain = quantityField(d.chainId, 'chainId')
  if (fileChain !== chainId) throw new BadStateFile(`the state file was made on chain id ${fileChain}, this node is chain id ${chainId}`)
  const block = d.block as Record<string, unknown> | undefined
  if (typeof block !== 'object' || block === null) throw new BadStateFile('block: expected { number, timestamp }')
  quantityField(block.number, 'block.number')
  quantityField(block.timestamp, 'block.timestamp')
  if (typeof d.accounts !== 'object' || d.accounts === null || Array.isArray(d.accounts)) throw new BadStateFile('accounts: expected an object keyed by address')
  for (const [address, a] of Object.entries(d.accounts as Record<string, unknown>)) {
    hexField(address, 'account address', 20)
    if (address.length !== 42) throw new BadStateFile(`account address ${address}: expected 20 bytes`)
    if (typeof a !== 'object' || a === null) throw new BadStateFile(`accounts.${address}: expected an object`)
    const acc = a as Record<string, unknown>
    quantityField(acc.balance, `accounts.${address}.balance`)
    quantityField(acc.nonce, `accounts.${address}.nonce`)
    hexField(acc.code ?? '0x', `accounts.${address}.code`, MAX_CODE_BYTES)
    const storage = acc.storage ?? {}
    if (typeof storage !== 'object' || storage === null || Array.isArray(storage)) throw new BadStateFile(`accounts.${address}.storage: expected an object`)
    for (const [k, val] of Object.entries(storage)) {
      hexField(k, `accounts.${address}.storage key`, 32)
      hexField(val, `accounts.${address}.storage.${k}`, 32)
    }
  }
  return v as StateDump
}

/** Writes the accounts of a checked state file into the live state and moves the clock up to its time. */
export async function loadState(chain: Chain, clock: Clock, dump: StateDump): Promise<void> {
  await editState(chain, async (state) => {
    for (const [addressHex, a] of Object.entries(dump.accounts)) {
      const address = new Address(hexField(addressHex, 'address', 20))
      const existing = (await state.getAccount(address)) ?? new Account()
      existing.balance = quantityField(a.balance, 'balance')
      // Anvil 1.7.1 (`load_state`): the larger of the two nonces, so that transactions sent since the dump are not
      // signed again with the same nonces (and hashes); balance and code are the file's.
      const nonce = quantityField(a.nonce, 'nonce')
      if (nonce > existing.nonce) existing.nonce = nonce
      const hadCode = !equalsBytes(existing.codeHash, KECCAK256_NULL)
      await state.putAccount(address, existing)
      const code = hexField(a.code ?? '0x', 'code', MAX_CODE_BYTES)
      if (code.length > 0 || hadCode) await state.putCode(address, code)
      for (const [slot, value] of Object.entries(a.storage ?? {})) {
        await state.putStorage(address, setLengthLeft(hexField(slot, 'slot', 32), 32), setLengthLeft(hexField(value, 'value', 32), 32))
      }
    }
  })
  const time = quantityField(dump.block.timestamp, 'block.timestamp')
  const behind = time - clock.time()
  if (behind > 0n) clock.drift += behind
}
