/**
 * The engine's chain configuration (@ethereumjs/common) for a network of the Rootstock family.
 *
 * The EVM profile follows reference §7.4: Istanbul-era opcodes (CHAINID, SELFBALANCE, CREATE2, EXTCODEHASH)
 * plus PUSH0 (RSKIP398), MCOPY (RSKIP445) and TLOAD/TSTORE (RSKIP446). No access lists, no EIP-1559, no
 * PREVRANDAO. Gas-schedule differences that the engine cannot express are listed in docs/compatibility.md.
 */
import { Common, Hardfork, Mainnet, type ChainConfig } from '@ethereumjs/common'
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
  return new RskCommon({ chain, hardfork: ENGINE_HARDFORK, eips: ENGINE_EIPS, customCrypto })
}
