/** web3_* (reference §3.2). */
import { keccak256 } from '../../node/crypto.js'
import type { RskNode } from '../../node/node.js'
import { prefixedData } from '../codecs/primitives.js'
import { data } from '../format/hex.js'
import { method, noParams, type MethodTable } from '../method.js'
import { VERSION } from '../../version.js'

/** The RSKj release whose behaviour rsksim simulates (reference: master equals VETIVER-9.0.3 for the RPC). */
export const RSKJ_VERSION = '9.0.3'

/** Java's `os.name` for this platform, as RSKj writes it. */
const OS_NAME: Record<string, string> = { linux: 'Linux', darwin: 'Mac OS X', win32: 'Windows' }

/**
 * RSKj answers `RskJ/<version>/<os.name>/Java<n>/<modifier>-<hash>` (reference §3.2), and RSK tooling recognises the
 * node by the `RskJ/` prefix; rsksim answers the same shape, `RskJ/9.0.3/Linux/Node20/RSKSIM-0.1.0`, naming itself
 * where RSKj names its build. The `clientVersion` option replaces it (Hardhat's network helpers need a name
 * starting with `HardhatNetwork`, `anvil` or `zksync`).
 */
export function clientVersion(node: RskNode): string {
  return (
    node.options.clientVersion ??
    `RskJ/${RSKJ_VERSION}/${OS_NAME[process.platform] ?? process.platform}/Node${process.versions.node.split('.')[0]}/RSKSIM-${VERSION}`
  )
}

export const web3Methods: MethodTable = {
  web3_clientVersion: noParams(({ node }) => clientVersion(node)),
  web3_sha3: method([prefixedData], (_ctx, input) => data(keccak256(input))),
}
