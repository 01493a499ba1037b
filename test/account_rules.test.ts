/**
 * RSK's account rules where Ethereum applies EIP-161 (src/node/enginePatches/accountRules.ts, docs/modules/evm-profile.md),
 * with expected values from RSKj's sources and addresses from ethers' `getCreateAddress`:
 *
 * - a contract a transaction deploys starts at nonce 0 (`TransactionExecutor.create` never raises it), one that
 *   CREATE makes starts at 1 (RSKIP125, `Program.createContract`), and CREATE uses the creator's nonce before
 *   raising it (`Program.createContract`: `calcNewAddr(owner, getNonce(owner))`);
 * - no state clearing: a 0-value CALL or transfer to a missing address creates it (`MutableRepository.addBalance`),
 *   so a second CALL costs no new-account gas (`VM`: 25,000 only when `!isExist`), and EXTCODEHASH answers
 *   keccak256("") for it, 0 for a missing account, keccak256("") for a precompile (`VM.doEXTCODEHASH`);
 * - SELFDESTRUCT moves the balance only when there is one (`Program.suicide`): with none, a missing beneficiary
 *   stays missing;
 * - with REMASC, fees never touch the coinbase (`TransactionExecutor.finalization` pays REMASC);
 * - a CREATE2 to an address an earlier transaction of the same block self-destructed fails as a collision: the gas it
 *   holds spent, 0 pushed, nothing created (RSKIP125, `Program.createContract`'s `deletedAccountsInBlock`); in a later
 *   block it succeeds.
 *
 * Each rule is checked with the engine patches on and off: they are not speed patches.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { getCreate2Address, getCreateAddress, keccak256 } from 'ethers'
import type { Provider } from '../src/index.js'
import { setEnginePatches, engineMatchesPin } from '../src/node/enginePatches/index.js'
import { COW, MINER, deployCode, fresh, send, sendFailing, rq } from './helpers.js'

const used = (r: Record<string, any>) => Number(BigInt(r.gasUsed))
const EMPTY_CODE_HASH = keccak256('0x')
const ZERO_WORD = '0x' + '00'.repeat(32)

/** CREATE of an empty initcode (PUSH1 0 ×3, CREATE), its address left on the stack. */
const CREATE_EMPTY = '600060006000f0'
/** Stores the word on the stack at 0 and returns it: PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN. */
const RETURN_WORD = '60005260206000f3'
/** CALL `to` with no value and all gas: 4 × PUSH1 0, PUSH1 0 (value), PUSH20 to, GAS, CALL, STOP (20 gas + CALL). */
const callerOf = (to: string) => '60006000600060006000' + '73' + to.slice(2) + '5af100'

/** EXTCODEHASH of `address`, read by an eth_call of a creation whose initcode returns it. */
async function extcodehash(p: Provider, address: string): Promise<string> {
  return rq(p, 'eth_call', [{ from: COW, data: '0x73' + address.slice(2).toLowerCase() + '3f' + RETURN_WORD }, 'latest'])
}

const count = (p: Provider, address: string) => rq(p, 'eth_getTransactionCount', [address, 'latest'])

describe.each([true, false])('RSK account rules (engine patches %s)', (patches) => {
  afterAll(() => setEnginePatches(true))
  const on = async () => {
    setEnginePatches(patches)
    return fresh()
  }

  it('a contract a transaction deploys is at nonce 0, and its first CREATE uses nonce 0', async () => {
    if (!engineMatchesPin) return
    const p = await on()
    const factory = await deployCode(p, CREATE_EMPTY + '00')
    expect(await count(p, factory)).toBe('0x0')
    expect((await send(p, { to: factory })).status).toBe('0x1')
    expect(await count(p, factory)).toBe('0x1')
    // The child, made by CREATE, starts at nonce 1 (RSKIP125); nothing is at the nonce-1 address.
    expect(await count(p, getCreateAddress({ from: factory, nonce: 0 }))).toBe('0x1')
    expect(await count(p, getCreateAddress({ from: factory, nonce: 1 }))).toBe('0x0')
  })

  it('a constructor creates at nonce 0 too, in a transaction and in eth_call', async () => {
    if (!engineMatchesPin) return
    const p = await on()
    // Initcode: CREATE an empty child, return its address as the new contract's code.
    const initcode = '0x' + CREATE_EMPTY + RETURN_WORD
    const nonce = Number(await count(p, COW))
    const predicted = getCreateAddress({ from: COW, nonce })
    const child = getCreateAddress({ from: predicted, nonce: 0 })
    expect(await rq(p, 'eth_call', [{ from: COW, data: initcode }, 'latest'])).toBe('0x' + child.slice(2).toLowerCase().padStart(64, '0'))
    const r = await send(p, { data: initcode })
    expect(r.contractAddress).toBe(predicted.toLowerCase())
    expect(await rq(p, 'eth_getCode', [predicted, 'latest'])).toBe('0x' + child.slice(2).toLowerCase().padStart(64, '0'))
    expect(await count(p, predicted)).toBe('0x1')
    expect(await count(p, child)).toBe('0x1')
  })

  it('a 0-value CALL creates a missing account: the next CALL to it costs no new-account gas', async () => {
    if (!engineMatchesPin) return
    const p = await on()
    const target = '0x' + 'ab'.repeat(20)
    const a = await deployCode(p, callerOf(target))
    expect(await extcodehash(p, target)).toBe(ZERO_WORD)
    expect(used(await send(p, { to: a }))).toBe(21_000 + 20 + 700 + 25_000)
    expect(used(await send(p, { to: a }))).toBe(21_000 + 20 + 700)
    expect(await extcodehash(p, target)).toBe(EMPTY_CODE_HASH)
  })

  it('a 0-value transfer creates its recipient; EXTCODEHASH of accounts, missing ones and precompiles', async () => {
    if (!engineMatchesPin) return
    const p = await on()
    const recipient = '0x' + 'cd'.repeat(20)
    expect((await send(p, { to: recipient, value: '0x0' })).status).toBe('0x1')
    expect(await extcodehash(p, recipient)).toBe(EMPTY_CODE_HASH)
    expect(await extcodehash(p, '0x' + 'ef'.repeat(20))).toBe(ZERO_WORD)
    expect(await extcodehash(p, COW)).toBe(EMPTY_CODE_HASH)
    expect(await extcodehash(p, '0x0000000000000000000000000000000000000001')).toBe(EMPTY_CODE_HASH)
    expect(await extcodehash(p, '0x0000000000000000000000000000000001000008')).toBe(EMPTY_CODE_HASH)
    const code = await deployCode(p, '00')
    expect(await extcodehash(p, code)).toBe(keccak256('0x00'))
  })

  it('SELFDESTRUCT with no balance leaves a missing beneficiary missing; with a balance it creates it', async () => {
    if (!engineMatchesPin) return
    const p = await on()
    const [empty, funded] = ['0x' + '5a'.repeat(20), '0x' + '5b'.repeat(20)]
    // PUSH20 beneficiary (3), SELFDESTRUCT 5,000 + 25,000 (missing beneficiary, whatever the balance); refund 24,000
    // (under half of 51,003).
    const a = await deployCode(p, '73' + empty.slice(2) + 'ff')
    expect(used(await send(p, { to: a }))).toBe(21_000 + 3 + 5_000 + 25_000 - 24_000)
    expect(await extcodehash(p, empty)).toBe(ZERO_WORD)
    const b = await deployCode(p, '73' + funded.slice(2) + 'ff')
    expect(used(await send(p, { to: b, value: '0x7' }))).toBe(21_000 + 3 + 5_000 + 25_000 - 24_000)
    expect(await rq(p, 'eth_getBalance', [funded, 'latest'])).toBe('0x7')
    expect(await extcodehash(p, funded)).toBe(EMPTY_CODE_HASH)
  })

  it('with REMASC, fees do not create the coinbase account', async () => {
    if (!engineMatchesPin) return
    const p = await on()
    for (const gasPrice of ['0x0', '0x1']) expect((await send(p, { to: '0x' + '12'.repeat(20), value: '0x1', gasPrice })).status).toBe('0x1')
    const block = await rq(p, 'eth_getBlockByNumber', ['latest', false])
    expect(block.miner).toBe(MINER)
    expect(await extcodehash(p, MINER)).toBe(ZERO_WORD)
  })

  it('with REMASC, a transaction that itself sends 0 to the missing coinbase creates it (RSKj transfer: addBalance)', async () => {
    if (!engineMatchesPin) return
    const p = await on()
    expect(await extcodehash(p, MINER)).toBe(ZERO_WORD)
    expect((await send(p, { to: MINER, value: '0x0' })).status).toBe('0x1')
    expect(await extcodehash(p, MINER)).toBe(EMPTY_CODE_HASH)
    expect(await rq(p, 'eth_getBalance', [MINER, 'latest'])).toBe('0x0')
  })

  it("with REMASC, a contract's own 0-value CALL to the missing coinbase creates it, unless its transaction reverts", async () => {
    if (!engineMatchesPin) return
    const p = await on()
    // The engine's fee payment creates the coinbase too; RSKj's CALL does (Program.callToAddress: addBalance of the
    // endowment, 0 included) and its fees do not, so the account must survive only the contract's CALL.
    const reverting = await deployCode(p, callerOf(MINER).slice(0, -2) + '60006000fd') // the same CALL, then REVERT
    const failed = await sendFailing(p, { to: reverting, gas: '0x186a0', gasPrice: '0x1' })
    expect((await rq(p, 'eth_getTransactionReceipt', [failed])).status).toBe('0x0')
    expect(await extcodehash(p, MINER)).toBe(ZERO_WORD)
    const caller = await deployCode(p, callerOf(MINER))
    expect(used(await send(p, { to: caller, gasPrice: '0x1' }))).toBe(21_000 + 20 + 700 + 25_000)
    expect(await extcodehash(p, MINER)).toBe(EMPTY_CODE_HASH)
    expect(await rq(p, 'eth_getBalance', [MINER, 'latest'])).toBe('0x0')
    // Existing now: the next CALL costs no new-account gas.
    expect(used(await send(p, { to: caller }))).toBe(21_000 + 20 + 700)
  })

  it('RSKIP125: CREATE2 of an address deleted earlier in the same block fails as a collision; in the next block it succeeds', async () => {
    if (!engineMatchesPin) return
    const p = await on()
    // Factory: CREATE2 (salt 0, value 0) of its call data as initcode, the address (or 0) stored at slot 0, STOP.
    const factory = await deployCode(p, '36600060003760003660006000f560005500')
    // Child initcode: returns the runtime CALLER SELFDESTRUCT (0x33ff).
    const initcode = '0x6133ff6000526002601ef3'
    const child = getCreate2Address(factory, ZERO_WORD, keccak256(initcode)).toLowerCase()
    expect((await send(p, { to: factory, data: initcode })).status).toBe('0x1')
    expect(await rq(p, 'eth_getCode', [child, 'latest'])).toBe('0x33ff')
    // One block: the child self-destructs, then the factory makes it again. RSKj fails the CREATE2 as a collision,
    // spending all the gas it holds, so the SSTORE after it runs out of gas: the transaction fails, all its gas used.
    await rq(p, 'evm_setAutomine', [false])
    const destroy = await rq(p, 'eth_sendTransaction', [{ from: COW, to: child, gas: '0x186a0' }])
    const again = await rq(p, 'eth_sendTransaction', [{ from: COW, to: factory, data: initcode, gas: '0x30d40' }])
    await rq(p, 'evm_mine')
    const [r1, r2] = [await rq(p, 'eth_getTransactionReceipt', [destroy]), await rq(p, 'eth_getTransactionReceipt', [again])]
    expect(r1.blockNumber).toBe(r2.blockNumber)
    expect(r1.status).toBe('0x1')
    expect([r2.status, used(r2)]).toEqual(['0x0', 200_000])
    expect(await rq(p, 'eth_getCode', [child, 'latest'])).toBe('0x')
    // A trace replays the block's first transaction before it, so the CREATE2 fails there too: 0 pushed.
    const ops = (await rq(p, 'debug_traceTransaction', [again])).structLogs as { op: string; gas: number; stack: string[] }[]
    const after = ops[ops.findIndex((o) => o.op === 'CREATE2') + 1]!
    expect([after.gas, after.stack]).toEqual([0, ['0'.repeat(64)]])
    // The next block has no such deletion: the same CREATE2 makes the child again.
    await rq(p, 'evm_setAutomine', [true])
    const r3 = await send(p, { to: factory, data: initcode, gas: '0x30d40' })
    expect(r3.status).toBe('0x1')
    expect(await rq(p, 'eth_getCode', [child, 'latest'])).toBe('0x33ff')
    expect(await rq(p, 'eth_getStorageAt', [factory, '0x0', 'latest'])).toBe('0x' + child.slice(2).padStart(64, '0'))
  })
})
