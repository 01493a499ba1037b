/**
 * `EVM._generateAddress` through rsksim's keccak-256 (written against @ethereumjs/evm 10.1.3, dist/esm/evm.js).
 *
 * Why: the engine names a new contract with @ethereumjs/util's `generateAddress` (CREATE) and `generateAddress2`
 * (CREATE2), which hash with @noble/hashes' keccak in JavaScript; every other keccak of the engine goes through
 * `customCrypto.keccak256` (hash-wasm, src/node/crypto.ts), which these two do not take. In a fresh process that
 * JavaScript is cold: noble's keccak was 15 ms of a profile of 300 deployments (51 µs a deployment, with the receipt's
 * own address, which src/node/miner/miner.ts now takes from crypto.ts too), and CREATE2 hashes the whole initcode
 * with it (docs/performance.md "Twenty-fourth round").
 *
 * How: the same two formulas (crypto.ts `createAddress`, `create2Address`) on the same inputs the engine's method
 * reads: the message's salt, caller and code, and for CREATE the caller's nonce less one (the nonce was raised before
 * the address is made). Where an input is not of the shape those take (no account nonce above 0, a salt not 32 bytes,
 * code that is not bytes), and with the switch off, the engine's method runs. The load check looks for those reads
 * in the engine's method; test/crypto.test.ts compares the formulas with ethers' on random inputs, and
 * test/engine_differential.test.ts runs deployments and CREATE2 with the patches on and off.
 */
import { EVM } from '@ethereumjs/evm'
import { Account, Address } from '@ethereumjs/util'
import { create2Address, createAddress } from '../crypto.js'
import { enginePatches } from './switch.js'
import { sourceHasAll, sourceOf } from './sourceText.js'

/** The message fields read here (a `Message` of @ethereumjs/evm). */
interface Message {
  caller: Address
  salt?: Uint8Array
  code?: unknown
}

interface EvmInternals {
  stateManager: { getAccount(address: Address): Promise<Account | undefined> }
  _generateAddress(message: Message): Promise<Address>
}

function patch(proto: EvmInternals): void {
  const original = proto._generateAddress
  proto._generateAddress = async function (this: EvmInternals, message: Message) {
    if (!enginePatches.active) return original.call(this, message)
    const caller = message.caller.bytes
    if (message.salt) {
      const code = message.code
      if (!(code instanceof Uint8Array) || message.salt.length !== 32 || caller.length !== 20) return original.call(this, message)
      return new Address(create2Address(caller, message.salt, code))
    }
    const account = (await this.stateManager.getAccount(message.caller)) ?? new Account()
    if (account.nonce === 0n) return original.call(this, message)
    return new Address(createAddress(caller, account.nonce - 1n))
  }
}

const evmProto: unknown = EVM.prototype
const isEvm = (p: unknown): p is EvmInternals => typeof p === 'object' && p !== null && typeof (p as Record<string, unknown>)._generateAddress === 'function'

/** What the copy reproduces, looked for in the engine's own method (property names survive bundling). */
const COPIED = ['if(message.salt)', 'message.caller.bytes,message.salt,message.code', 'this.stateManager.getAccount(message.caller)', 'acc.nonce-', 'message.caller.bytes,bigIntToBytes(newNonce)']

/** Whether `_generateAddress` hashes through rsksim's keccak (false when the engine's method was not recognised). */
export let generateAddressPatched = false
if (enginePatches.installable && isEvm(evmProto) && sourceHasAll(sourceOf(evmProto._generateAddress), COPIED)) {
  patch(evmProto)
  generateAddressPatched = true
}
