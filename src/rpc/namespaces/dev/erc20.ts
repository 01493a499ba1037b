/**
 * Anvil's ERC-20 cheats: `anvil_dealERC20(holder, token, amount)` sets what `balanceOf(holder)` answers, and
 * `anvil_setERC20Allowance(owner, spender, token, amount)` what `allowance(owner, spender)` answers, by finding the
 * token's storage slot behind the view (src/node/dev/erc20Slot.ts) and writing it as `anvil_setStorageAt` does
 * (the live state, between blocks). Nothing else changes: no Transfer event, no total supply. A token whose view
 * does not read its value from one slot of its own storage is refused (-32602, Anvil's text). Extensions: -32601 in
 * hosted mode (src/rpc/methods.ts).
 */
import { bytesToHex, concatBytes, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import { invalidParams } from '../../../errors.js'
import { address, quantity, type Codec } from '../../codecs/primitives.js'
import { method, type HandlerContext, type MethodTable } from '../../method.js'
import { findViewSlot } from '../../../node/dev/erc20Slot.js'
import { setStorageAt, word32 } from '../../../node/dev/stateEdits.js'
import { ok } from './names.js'

/** A uint256: `quantity` takes at most 64 hex digits or 66 decimal ones, both below 2^256. */
const uint256: Codec<bigint> = quantity

async function setView(ctx: HandlerContext, token: Uint8Array, view: Uint8Array, amount: bigint, what: 'balance' | 'allowance'): Promise<null | true> {
  const { node } = ctx
  const slot = await findViewSlot(node.chain, token, view, amount, node.options.callGasCap)
  if (slot === undefined) {
    throw invalidParams(
      `Unable to set ERC20 ${what}, no slot found: ${what === 'balance' ? 'balanceOf' : 'allowance'} of the token at ${bytesToHex(token)} ` +
        'does not answer the value of one slot of its own storage (set the slot with anvil_setStorageAt)',
    )
  }
  await setStorageAt(node.chain, token, word32(slot), word32(amount))
  return ok(ctx)
}

/** `balanceOf(address)`'s selector (keccak256 of the signature, first 4 bytes; test/erc20_cheats.test.ts checks it). */
const BALANCE_OF = hexToBytes('0x70a08231')
/** `allowance(address,address)`'s selector. */
const ALLOWANCE = hexToBytes('0xdd62ed3e')

const word = (a: Uint8Array): Uint8Array => setLengthLeft(a, 32)

export const devErc20Methods: MethodTable = {
  anvil_dealERC20: method([address, address, uint256], (ctx, holder, token, amount) =>
    setView(ctx, token, concatBytes(BALANCE_OF, word(holder)), amount, 'balance'),
  ),
  anvil_setERC20Allowance: method([address, address, address, uint256], (ctx, owner, spender, token, amount) =>
    setView(ctx, token, concatBytes(ALLOWANCE, word(owner), word(spender)), amount, 'allowance'),
  ),
}
