/**
 * Impersonation (Anvil's model, Hardhat and Ganache-as-viem-names aliases) and `eth_sendUnsignedTransaction`
 * (Anvil): sending as an address the node holds no key for. Extensions: answered -32601 in hosted mode.
 */
import { bytesToHex } from '@ethereumjs/util'
import { invalidParams } from '../../../errors.js'
import { address, boolean } from '../../codecs/primitives.js'
import { txObject } from '../../codecs/transaction.js'
import { method, type MethodTable } from '../../method.js'
import { sendImpersonated } from '../eth/transactions.js'
import { aliases, ok } from './names.js'

export const devAccountMethods: MethodTable = {
  ...aliases(['anvil_impersonateAccount', 'hardhat_impersonateAccount', 'ganache_impersonateAccount'], method([address], (ctx, addr) => {
    ctx.node.impersonation.add(bytesToHex(addr))
    return ok(ctx)
  })),
  ...aliases(['anvil_stopImpersonatingAccount', 'hardhat_stopImpersonatingAccount', 'ganache_stopImpersonatingAccount'], method([address], (ctx, addr) => {
    ctx.node.impersonation.remove(bytesToHex(addr))
    return ok(ctx)
  })),
  /** Every sender is impersonated while on (Anvil `anvil_autoImpersonateAccount`). */
  ...aliases(['anvil_autoImpersonateAccount', 'hardhat_autoImpersonateAccount'], method([boolean], (ctx, on) => {
    ctx.node.impersonation.auto = on
    return ok(ctx)
  })),
  /** Anvil: sends from any `from` without a signature. */
  eth_sendUnsignedTransaction: method([txObject], (ctx, tx) => {
    if (tx.from === undefined) throw invalidParams('from is null')
    return sendImpersonated(ctx, tx, tx.from)
  }),
}
