/**
 * Ethereum's precompiles that can fail, as RSKj runs them (`org/ethereum/vm/program/Program.callToPrecompiledAddress`):
 * the engine's own implementations, with RSKj's rules for their input and for a failure.
 *
 * - **A failure costs the price, not the call's gas** (RSKIP197, `executePrecompiledAndHandleError`): RSKj charges
 *   `getGasForData(input)` first (all the call's gas when that is more than it has), runs the precompile, and on an
 *   error pushes 0 and gives the caller back the rest. The engine's failing alt_bn128 and blake2f consume all the
 *   gas given to the call, which on RSK (no 63/64 rule) is usually nearly all the caller has.
 * - **Input cut to the precompile's maximum** (RSKIP516, `getInputLength`): alt_bn128 addition reads at most 128
 *   bytes, multiplication 96, blake2f 213 (ecrecover 128, which changes nothing there). A blake2f input longer than
 *   213 bytes is run on its first 213 (the engine refuses it); a shorter one is priced 0 and fails
 *   (`Blake2F.getGasForData`). The cut is the calling program's: a transaction or local call straight to blake2f
 *   (`TransactionExecutor.call`) is priced and run on its whole data, so more than 213 bytes is priced 0 and fails
 *   there (kept: evmProfile.ts `failureKeptByRskj`). For the others the cut changes no answer.
 *
 * Prices (`PrecompiledContracts.java`, `co/rsk/pcc/altBN128/`): addition 150, multiplication 6,000, pairing
 * 45,000 + 34,000 per whole 192-byte pair, blake2f one per round (the first four bytes, big-endian) when the input
 * is 213 bytes, else 0. On well-formed input they are the engine's, and the engine's result is returned unchanged.
 * Only the engine's public precompile table (`getActivePrecompiles`) and `customPrecompiles` option are used; the
 * rules themselves are precompileCall.ts's, shared with RSK's own precompiles.
 */
import { getActivePrecompiles, type CustomPrecompile } from '@ethereumjs/evm'
import type { Common } from '@ethereumjs/common'
import { rskjPrecompile, type PrecompileRule } from './precompileCall.js'

/** A rule for the precompile at `address`, as the engine's table keys it (40 hex digits, no 0x). */
interface Rule extends PrecompileRule {
  address: string
}

const at = (n: number): string => n.toString(16).padStart(40, '0')

const RULES: readonly Rule[] = [
  { address: at(6), maxInput: 128, price: () => 150n },
  { address: at(7), maxInput: 96, price: () => 6_000n },
  { address: at(8), price: (data) => 45_000n + 34_000n * BigInt(Math.floor(data.length / 192)) },
  {
    address: at(9),
    maxInput: 213,
    cutOnlyFromCode: true,
    price: (data) => (data.length === 213 ? BigInt(new DataView(data.buffer, data.byteOffset, 4).getUint32(0)) : 0n),
  },
]

/** Ethereum's failing precompiles with RSKj's input and failure rules, for `createEVM({ customPrecompiles })`. */
export function ethereumPrecompilesAsRskj(common: Common): CustomPrecompile[] {
  const engine = getActivePrecompiles(common)
  const out: CustomPrecompile[] = []
  for (const rule of RULES) {
    const fn = engine.get(rule.address)
    if (fn !== undefined) out.push({ address: `0x${rule.address}`, function: rskjPrecompile(fn, rule) })
  }
  return out
}
