/**
 * A count of the times running code could have acted on how much gas it held: a GAS opcode, or a call whose gas
 * the amount held decides (RSK gives a callee what it asks for, capped to what is left: evmProfile.ts `callGas`), or
 * a call that moves value (the caller must hold the 2,300 stipend, returned when unused, so its peak is above the gas
 * it ends up using). Code that did none of these takes the same path at any gas limit its peak fits in, which lets
 * eth_estimateGas stop after one run (src/node/exec/estimate.ts). Only ever counted up: a reader compares two
 * readings, and another request's code running between them can only add reads, never hide one.
 */
let reads = 0

/** Notes that the running code may have acted on its gas. */
export function noteGasRead(): void {
  reads++
}

/** The count so far. */
export function gasReads(): number {
  return reads
}
