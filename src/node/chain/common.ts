/**
 * The engine's chain configuration (@ethereumjs/common) for a network of the Rootstock family.
 *
 * The EVM profile follows reference §7.4: Istanbul-era opcodes (CHAINID, SELFBALANCE, CREATE2, EXTCODEHASH)
 * plus PUSH0 (RSKIP398), MCOPY (RSKIP445) and TLOAD/TSTORE (RSKIP446). No access lists, no EIP-1559, no
 * PREVRANDAO. Gas-schedule differences that the engine cannot express are listed in docs/compatibility.md.
 */
import { Common, Hardfork, Mainnet, type ChainConfig, type ParamsDict } from '@ethereumjs/common'
import { paramsTx } from '@ethereumjs/tx'
import { paramsBlock } from '@ethereumjs/block'
import { paramsVM } from '@ethereumjs/vm'
import { paramsEVM } from '@ethereumjs/evm'
import { customCrypto } from '../crypto.js'
import type { NetworkProfile } from '../../options/index.js'

/** Hardfork whose rules the engine runs. */
export const ENGINE_HARDFORK = Hardfork.Istanbul
/** EIPs the engine lets us enable on Istanbul: PUSH0 and transient storage. */
export const ENGINE_EIPS = [3855, 1153]

/**
 * RSK activates MCOPY (RSKIP445) without the rest of Shanghai, which @ethereumjs/common refuses to combine
 * with Istanbul (EIP-5656 names Shanghai as its minimum). Answering for it here is the one supported way to
 * enable an opcode outside a hardfork: the EVM asks `isActivatedEIP` when it builds its opcode table.
 */
class RskCommon extends Common {
  override isActivatedEIP(eip: number): boolean {
    return eip === 5656 || super.isActivatedEIP(eip)
  }

  override param(name: string): bigint {
    return name === 'mcopyGas' ? 3n : super.param(name)
  }

  /**
   * Every transaction and block the engine builds calls `updateParams` with the same module-level dictionary, and
   * each call deep-copies it and rebuilds the parameter cache (about a tenth of a transfer's cost). When every value
   * is already in place the merge would change nothing, so it is skipped. `createRskCommon` merges the four
   * dictionaries once up front, before any copy exists (copies share the parameters but not their cache).
   */
  override updateParams(params: ParamsDict): void {
    if (!this.holds(params)) super.updateParams(params)
  }

  private holds(params: ParamsDict): boolean {
    for (const [eip, values] of Object.entries(params)) {
      const have = this._params[eip]
      if (have === undefined) return false
      for (const [k, v] of Object.entries(values)) if (have[k] !== v) return false
    }
    return true
  }
}

/** Builds the Common for `network`. One instance is shared by the whole node (it is read-only after creation). */
export function createRskCommon(network: NetworkProfile): Common {
  const chain: ChainConfig = {
    ...Mainnet,
    name: `rsk-${network.name}`,
    chainId: Number(network.chainId),
    defaultHardfork: ENGINE_HARDFORK,
    bootstrapNodes: [],
    dnsNetworks: [],
  }
  const common = new RskCommon({ chain, hardfork: ENGINE_HARDFORK, eips: ENGINE_EIPS, customCrypto })
  for (const params of [paramsTx, paramsBlock, paramsVM, paramsEVM]) common.updateParams(params)
  return common
}
