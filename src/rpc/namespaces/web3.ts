/** web3_* (reference §3.2). */
import { keccak256 } from '../../node/crypto.js'
import { prefixedData } from '../codecs/primitives.js'
import { data } from '../format/hex.js'
import { method, noParams, type MethodTable } from '../method.js'
import { VERSION } from '../../version.js'

export const web3Methods: MethodTable = {
  /** RSKj answers `RskJ/<version>/<os>/Java<n>/<modifier>-<hash>`; rsksim names itself in the same shape. */
  web3_clientVersion: noParams(() => `RskSim/${VERSION}/${process.platform}/Node${process.versions.node.split('.')[0]}/RSKSIM`),
  web3_sha3: method([prefixedData], (_ctx, input) => data(keccak256(input))),
}
