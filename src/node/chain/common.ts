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
/** EIPs enabled on top of the hardfork: PUSH0, MCOPY, transient storage. */
export const ENGINE_EIPS = [3855, 5656, 1153]

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
  return new Common({ chain, hardfork: ENGINE_HARDFORK, eips: ENGINE_EIPS, customCrypto })
}
