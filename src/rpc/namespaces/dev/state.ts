/**
 * Dev-chain state edits under the three peers' names (issue "test author's toolkit"): Anvil's `anvil_set*` (the
 * model), Hardhat's `hardhat_set*` aliases, Ganache's `evm_setAccount*`, and the `ganache_set*` names viem's test
 * client sends in ganache mode. Each edit changes the live state between blocks (src/node/dev/stateEdits.ts).
 * Extensions: answered -32601 in hosted mode (src/rpc/methods.ts).
 */
import { nodeZlib } from '../../../node/builtins.js'
import { bytesToHex, setLengthLeft } from '@ethereumjs/util'
import { invalidParams } from '../../../errors.js'
import { address, data, quantity, type Codec } from '../../codecs/primitives.js'
import { method, noParams, type HandlerContext, type MethodSpec, type MethodTable } from '../../method.js'
import { addBalance, BalanceOverflow, setBalance, setCode, setNonce, setStorageAt, word32 } from '../../../node/dev/stateEdits.js'
import { BadStateFile, checkStateDump, dumpState, loadState } from '../../../node/dev/stateDump.js'
import { settlePool } from './pool.js'
import { aliases, ok } from './names.js'

/** A storage value: at most 32 bytes of hex, left-padded (Anvil and Hardhat take a 32-byte word). */
const word: Codec<Uint8Array> = (v) => {
  const bytes = data(v)
  if (bytes.length > 32) throw invalidParams('Invalid storage value: at most 32 bytes.')
  return setLengthLeft(bytes, 32)
}

/** Contract code: hex bytes, at most 49,152 (twice EIP-170's limit: generous, but bounded). */
const code: Codec<Uint8Array> = (v) => {
  const bytes = data(v)
  if (bytes.length > 49_152) throw invalidParams('Invalid code: at most 49152 bytes.')
  return bytes
}

/** A nonce: RSKj and the engine keep it in 64 bits. */
const nonce: Codec<bigint> = (v) => {
  const n = quantity(v)
  if (n >= 2n ** 64n) throw invalidParams('Invalid nonce: at most 2^64 - 1.')
  return n
}

const setBalanceSpec = method([address, quantity], async (ctx, addr, wei) => {
  await setBalance(ctx.node.chain, addr, wei)
  await settlePool(ctx.node)
  return ok(ctx)
})

/**
 * Anvil's `anvil_addBalance(address, amount)`: the balance plus `amount`, answered `null` as Anvil answers. Anvil
 * 1.7.1 caps a sum past 2^256 - 1 at that value (tried by hand); here it is refused and nothing changes, since the
 * balance asked for cannot be held.
 */
const addBalanceSpec = method([address, quantity], async (ctx, addr, wei) => {
  try {
    await addBalance(ctx.node.chain, addr, wei)
  } catch (e) {
    if (e instanceof BalanceOverflow) throw invalidParams(`Invalid amount: ${e.message}; the balance is unchanged.`)
    throw e
  }
  await settlePool(ctx.node)
  return null
})

const setCodeSpec = method([address, code], async (ctx, addr, bytes) => {
  await setCode(ctx.node.chain, addr, bytes)
  return ok(ctx)
})

const setNonceSpec = method([address, nonce], async (ctx, addr, n) => {
  await setNonce(ctx.node.chain, addr, n)
  await settlePool(ctx.node)
  return ok(ctx)
})

const setStorageSpec = method([address, quantity, word], async (ctx, addr, slot, value) => {
  await setStorageAt(ctx.node.chain, addr, word32(slot), value)
  return ok(ctx)
})

/**
 * `anvil_dumpState`: the state file (src/node/dev/stateDump.ts) as Anvil returns its dump: `0x` + hex of the
 * gzipped JSON. viem's `dumpState` / `loadState` pass it through unchanged.
 */
async function dump({ node }: HandlerContext): Promise<string> {
  const json = JSON.stringify(await dumpState(node.chain))
  return bytesToHex(nodeZlib().gzipSync(json))
}

/**
 * Largest state accepted by anvil_loadState once unzipped: a 5 MiB body of gzip could otherwise expand to hundreds
 * of MiB of JSON to parse inside one request. Larger state files load through `provider.loadState` or `--load-state`.
 */
const MAX_STATE_BYTES = 32 * 1024 * 1024

/** `anvil_loadState`: the hex of a gzipped state file (what anvil_dumpState returns), or the file's JSON object. */
const stateFile: Codec<unknown> = (v) => {
  if (typeof v === 'object' && v !== null) return v
  const bytes = data(v)
  let text: string
  try {
    text = nodeZlib().gunzipSync(bytes, { maxOutputLength: MAX_STATE_BYTES }).toString('utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw invalidParams(`Invalid state: more than ${MAX_STATE_BYTES} bytes once unzipped; load larger files with --load-state or provider.loadState`)
    }
    text = Buffer.from(bytes).toString('utf8')
  }
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw invalidParams('Invalid state: expected the hex of a gzipped rsksim state file (anvil_dumpState) or its JSON')
  }
}

const loadSpec: MethodSpec = method([stateFile], async (ctx, file) => {
  let checked
  try {
    checked = checkStateDump(file, ctx.node.chain.common.chainId())
  } catch (e) {
    if (e instanceof BadStateFile) throw invalidParams(`Invalid state: ${e.message}`)
    throw e
  }
  await loadState(ctx.node.chain, ctx.node.clock, checked)
  await settlePool(ctx.node)
  return ctx.method.startsWith('anvil_') ? true : ok(ctx)
})

export const devStateMethods: MethodTable = {
  ...aliases(['anvil_setBalance', 'hardhat_setBalance', 'evm_setAccountBalance', 'ganache_setBalance'], setBalanceSpec),
  anvil_addBalance: addBalanceSpec,
  ...aliases(['anvil_setCode', 'hardhat_setCode', 'evm_setAccountCode', 'ganache_setCode'], setCodeSpec),
  ...aliases(['anvil_setNonce', 'hardhat_setNonce', 'evm_setAccountNonce', 'ganache_setNonce'], setNonceSpec),
  ...aliases(['anvil_setStorageAt', 'hardhat_setStorageAt', 'evm_setAccountStorageAt', 'ganache_setStorageAt'], setStorageSpec),
  ...aliases(['anvil_dumpState', 'hardhat_dumpState', 'ganache_dumpState'], noParams(dump)),
  ...aliases(['anvil_loadState', 'hardhat_loadState', 'ganache_loadState'], loadSpec),
}
