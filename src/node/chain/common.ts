/**
 * The engine's chain configuration (@ethereumjs/common) for a network of the Rootstock family.
 *
 * The EVM profile follows reference §7.4: Istanbul-era opcodes (CHAINID, SELFBALANCE, CREATE2, EXTCODEHASH)
 * plus PUSH0 (RSKIP398), MCOPY (RSKIP445), TLOAD/TSTORE (RSKIP446), the EIP-3860 initcode limit and word cost
 * (RSKIP438) and EIP-3541 (RSKIP544). No access lists, no EIP-1559, no PREVRANDAO. Prices follow RSKj
 * `GasCost.java` (§7.5); the rules a parameter cannot express (SSTORE, CALL gas, BASEFEE) are custom opcodes in
 * src/node/rsk/evm/evmProfile.ts. What still differs is in docs/modules/evm-profile.md.
 */
import { Common, Hardfork, Mainnet, type ChainConfig, type ParamsDict } from '@ethereumjs/common'
import { paramsTx } from '@ethereumjs/tx'
import { paramsBlock } from '@ethereumjs/block'
import { paramsVM } from '@ethereumjs/vm'
import { paramsEVM } from '@ethereumjs/evm'
import { customCrypto } from '../crypto.js'
import type { NetworkProfile } from '../../options/index.js'
import { activatedEipsArray, enginePatches, paramsAlreadyMerged } from '../enginePatches/index.js'

/** Hardfork whose rules the engine runs. */
export const ENGINE_HARDFORK = Hardfork.Istanbul
/** EIPs the engine lets us enable on Istanbul: PUSH0, transient storage, initcode limit and word cost. */
export const ENGINE_EIPS = [3855, 1153, 3860]

/**
 * RSKj `GasCost.java` prices where Istanbul's differ (EIP-1884 raised SLOAD, BALANCE and EXTCODEHASH; RSK did
 * not): SLOAD 200, BALANCE 400, EXTCODEHASH 400. MCOPY's base price is not in Istanbul's tables at all.
 */
const RSK_PRICES = new Map<string, bigint>([
  ['sloadGas', 200n],
  ['balanceGas', 400n],
  ['extcodehashGas', 400n],
  ['mcopyGas', 3n],
  // Not a price: the call depth limit. RSKj `Program.getMaxDepth()` answers 400 once RSKIP150 is active (every
  // network profile here); the engine reads `stackLimit` for CALL, CALLCODE, DELEGATECALL, STATICCALL, CREATE and
  // CREATE2 (a frame at depth 400 is refused, as RSKj's `getCallDeep() == getMaxDepth()`). The operand stack's own
  // 1,024-item limit is a separate constant of the engine and stays.
  ['stackLimit', 400n],
])

/**
 * EIPs that @ethereumjs/common refuses to combine with Istanbul although RSK has them: MCOPY (EIP-5656 names
 * Shanghai as its minimum) and EIP-3541 (Berlin). The EVM asks `isActivatedEIP` when it builds its opcode table
 * and when it deploys code, so answering here enables them without the rest of those hardforks.
 */
const RSK_EXTRA_EIPS = new Set([5656, 3541])

/** The engine's four parameter dictionaries, merged into every RskCommon when it is created. */
const PREMERGED = new WeakSet<ParamsDict>([paramsTx, paramsBlock, paramsVM, paramsEVM])

/** The Common of an RSK network: RSK prices and EIPs, and the minimum gas price BASEFEE pushes (RSKIP412). */
class RskCommon extends Common {
  /** The `minimumGasPrice` of the blocks being built (a node option; `anvil_setMinGasPrice` changes it). */
  minimumGasPrice = 0n

  /** Common's array the lookup table below was built from (src/node/enginePatches/common.ts). */
  private eipsSource: readonly number[] | undefined
  private eipTable: Set<number> = RSK_EXTRA_EIPS

  /** RSK's EIPs beyond the engine's hardfork and EIP list, with an O(1) lookup when the engine patches allow it. */
  override isActivatedEIP(eip: number): boolean {
    const source = activatedEipsArray(this)
    if (source === undefined) return RSK_EXTRA_EIPS.has(eip) || super.isActivatedEIP(eip)
    if (source !== this.eipsSource) {
      this.eipTable = new Set([...RSK_EXTRA_EIPS, ...source])
      this.eipsSource = source
    }
    return this.eipTable.has(eip)
  }

  override param(name: string): bigint {
    return RSK_PRICES.get(name) ?? super.param(name)
  }

  /**
   * Every transaction and block the engine builds calls `updateParams` with the same module-level dictionary, and
   * each call deep-copies it and rebuilds the parameter cache (about a tenth of a transfer's cost). When every value
   * is already in place the merge would change nothing, so it is skipped. `createRskCommon` merges the four
   * dictionaries once up front, before any copy exists (copies share the parameters but not their cache).
   */
  override updateParams(params: ParamsDict): void {
    if (PREMERGED.has(params) && enginePatches.active) return
    if (!paramsAlreadyMerged(this, params)) super.updateParams(params)
  }

  /** Merges the engine's dictionaries once, before any copy of this Common exists. */
  mergeEngineParams(): void {
    for (const params of [paramsTx, paramsBlock, paramsVM, paramsEVM]) super.updateParams(params)
  }
}

/** Sets the `minimumGasPrice` of the blocks built from now on (BASEFEE reads it). */
export function setMinimumGasPrice(common: Common, price: bigint): void {
  if (common instanceof RskCommon) common.minimumGasPrice = price
}

/** The `minimumGasPrice` of the blocks a Common builds (0 for a Common not made by `createRskCommon`). */
export function minimumGasPriceOf(common: Common): bigint {
  return common instanceof RskCommon ? common.minimumGasPrice : 0n
}

/**
 * Builds the Common for `network`; `minimumGasPrice` is what BASEFEE pushes. One instance is shared by the whole
 * node (it is read-only after creation).
 */
export function createRskCommon(network: NetworkProfile, minimumGasPrice = 0n): Common {
  const chain: ChainConfig = {
    ...Mainnet,
    name: `rsk-${network.name}`,
    chainId: Number(network.chainId),
    defaultHardfork: ENGINE_HARDFORK,
    bootstrapNodes: [],
    dnsNetworks: [],
  }
  const common = new RskCommon({ chain, hardfork: ENGINE_HARDFORK, eips: ENGINE_EIPS, customCrypto })
  common.mergeEngineParams()
  common.minimumGasPrice = minimumGasPrice
  return common
}
