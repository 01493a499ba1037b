/**
 * Every method of the table, called with junk of every shape: each call answers (a result or a coded JSON-RPC
 * error), none is an unexpected internal error, and the provider keeps working afterwards.
 */
import { describe, expect, it } from 'vitest'
import { METHODS } from '../src/rpc/methods.js'
import { ErrorCode, RpcError } from '../src/index.js'
import { fresh } from './helpers.js'

const JUNK: unknown[][] = [
  [null],
  [1],
  [-1],
  [1.5],
  ['x'],
  ['0x'],
  ['0xzz'],
  ['0x' + 'f'.repeat(200)],
  [{}],
  [[]],
  [true],
  [{ from: 5, to: [], data: {} }],
  ['latest', 'latest', 'latest', 'latest', 'latest', 'latest'],
]

/**
 * Internal errors RSKj itself answers for some bad input (reference §3.5, §3.10; raw transactions RSKj's RLP.decodeList
 * cannot read as one list of nine items, e.g. `0x`, src/rpc/codecs/lenientRlp.ts, which eth_sendRawTransactionSync
 * decodes as eth_sendRawTransaction does): allowed, but only there.
 */
const INTERNAL_ALLOWED = new Set([
  'personal_dumpRawKey', 'personal_unlockAccount', 'personal_sendTransaction', 'debug_traceTransaction', 'debug_traceBlockByHash', 'debug_traceBlockByNumber',
  'eth_sendRawTransaction', 'eth_sendRawTransactionSync',
])

/** Codes a well-formed request for a known method may answer (errors.ts ErrorCode, less parse and envelope errors). */
const ANSWERABLE = new Set<number>(Object.values(ErrorCode).filter((c) => c !== ErrorCode.ParseError && c !== ErrorCode.InvalidRequest))

describe('bad input to every method', () => {
  it('answers a coded error (never an unexpected -32603) and never breaks the provider', async () => {
    const p = await fresh({ mining: { auto: false } })
    const unexpected: string[] = []
    const wrong: string[] = []
    for (const method of Object.keys(METHODS)) {
      for (const params of JUNK) {
        try {
          await p.request({ method, params })
        } catch (e) {
          expect(e).toBeInstanceOf(RpcError)
          const { code, message } = e as RpcError
          // A request that parsed and named a method never answers -32700 or -32600, and every error says what is wrong.
          if (!ANSWERABLE.has(code) || message === '') wrong.push(`${method}(${JSON.stringify(params)}): ${code} ${message}`)
          if (code === -32603 && !INTERNAL_ALLOWED.has(method)) unexpected.push(`${method}(${JSON.stringify(params)}): ${(e as Error).cause}`)
        }
      }
    }
    expect(unexpected).toEqual([])
    expect(wrong).toEqual([])
    expect(await p.request({ method: 'eth_chainId' })).toBe('0x21')
  })
})
