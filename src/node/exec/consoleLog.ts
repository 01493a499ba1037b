/**
 * console.log from contracts: Hardhat's `console.sol` and forge-std's `console`/`console2` call
 * `0x000000000000000000636F6e736F6c652e6c6f67` ("console.log") with the ABI-encoded arguments of one of their
 * `log…` functions. RSK has no contract there, so the call runs exactly as a call to an empty account: this module
 * only watches the EVM's `beforeMessage` events, decodes the calldata and hands the text on. It never changes what
 * runs, the gas used or a trace.
 *
 * The selector table is generated rather than copied: every `log` overload of one to four parameters over uint256,
 * int256, string, bool and address (a superset of both libraries), each also under the short spelling `uint`/`int`
 * that older console.sol versions hashed (`abi.encodeWithSignature("log(uint)", …)`), plus the one-type functions
 * (`logUint`, `logInt`, `logString`, `logBool`, `logAddress`, `logBytes`, `logBytes1` … `logBytes32`).
 */
import { format } from 'node:util'
import * as AbiParameters from 'ox/AbiParameters'
import * as OxAddress from 'ox/Address'

type AbiParameter = AbiParameters.Parameter
import type { EVM, Message } from '@ethereumjs/evm'
import { bytesToHex, equalsBytes, hexToBytes } from '@ethereumjs/util'
import { keccak256 } from '../crypto.js'

export const CONSOLE_ADDRESS = '0x000000000000000000636f6e736f6c652e6c6f67'
/** Its bytes: every call frame is compared against them, so no hex string is made per message. */
const CONSOLE_BYTES = hexToBytes(CONSOLE_ADDRESS)

const BASE = ['uint256', 'int256', 'string', 'bool', 'address'] as const

let table: Map<number, AbiParameter[]> | undefined

function selectorOf(signature: string): number {
  const h = keccak256(new TextEncoder().encode(signature))
  return ((h[0]! << 24) | (h[1]! << 16) | (h[2]! << 8) | h[3]!) >>> 0
}

function add(map: Map<number, AbiParameter[]>, name: string, types: readonly string[]): void {
  const params = types.map((type) => ({ type }))
  map.set(selectorOf(`${name}(${types.join(',')})`), params)
  const short = types.map((t) => (t === 'uint256' ? 'uint' : t === 'int256' ? 'int' : t))
  map.set(selectorOf(`${name}(${short.join(',')})`), params)
}

/** Builds the selector table on first use (about 1,600 hashes, a few milliseconds). */
function selectors(): Map<number, AbiParameter[]> {
  if (table !== undefined) return table
  const map = new Map<number, AbiParameter[]>()
  add(map, 'log', [])
  let combos: string[][] = [[]]
  for (let n = 1; n <= 4; n++) {
    combos = combos.flatMap((c) => BASE.map((t) => [...c, t]))
    for (const types of combos) add(map, 'log', types)
  }
  for (const [name, type] of [['logUint', 'uint256'], ['logInt', 'int256'], ['logString', 'string'], ['logBool', 'bool'], ['logAddress', 'address'], ['logBytes', 'bytes']] as const) {
    add(map, name, [type])
  }
  for (let n = 1; n <= 32; n++) add(map, `logBytes${n}`, [`bytes${n}`])
  return (table = map)
}

/** The text console.log prints for `calldata`, as Hardhat formats it; undefined when it is no known log call. */
export function decodeConsoleCall(calldata: Uint8Array): string | undefined {
  if (calldata.length < 4) return undefined
  const selector = ((calldata[0]! << 24) | (calldata[1]! << 16) | (calldata[2]! << 8) | calldata[3]!) >>> 0
  const params = selectors().get(selector)
  if (params === undefined) return undefined
  let values: readonly unknown[]
  try {
    values = AbiParameters.decode(params, bytesToHex(calldata.subarray(4)))
  } catch {
    return undefined
  }
  const shown = values.map((v, i) => (params[i]!.type === 'address' ? OxAddress.checksum(v as `0x${string}`) : typeof v === 'bigint' ? v.toString() : v))
  // A first string argument is a format string (`console.log("x = %s", x)`), as Hardhat and forge print it.
  return typeof shown[0] === 'string' ? format(...(shown as [string, ...unknown[]])) : shown.map(String).join(' ')
}

/**
 * Collects console.log calls made by an EVM while transactions or calls run; the node takes them after each one
 * (`take`). Calls made in a frame that later reverts are kept, as Hardhat prints them too.
 */
export class ConsoleCollector {
  private lines: string[] = []
  enabled = true

  private readonly onMessage = (message: Message): void => {
    if (!this.enabled || message.to === undefined || !equalsBytes(message.to.bytes, CONSOLE_BYTES)) return
    const text = decodeConsoleCall(message.data)
    if (text !== undefined && this.lines.length < MAX_LINES) this.lines.push(text)
  }

  attach(evm: EVM): void {
    evm.events.on('beforeMessage', this.onMessage)
  }

  /** The lines collected since the last call, and forgets them. */
  take(): string[] {
    const out = this.lines
    this.lines = []
    return out
  }
}

/** Most lines kept for one transaction or call (a loop logging without end must not grow memory without bound). */
const MAX_LINES = 10_000
