/**
 * RSK's Environment precompile (0x01000011, RSKIP203; src/node/rsk/evm/environmentPrecompile.ts). Expected values from
 * RSKj's `GetCallStackDepth` (the caller's call depth + 1; 1 for a transaction straight to it) and `NativeContract`
 * (methods by ABI selector, computed here with ethers; price 0), engine patches on and off.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { id } from 'ethers'
import { engineMatchesPin, setEnginePatches } from '../src/node/enginePatches/index.js'
import { deployCode, fresh, relayTo, send, rq } from './helpers.js'

const ENVIRONMENT = '0x0000000000000000000000000000000001000011'
const SELECTOR = id('getCallStackDepth()').slice(0, 10)
const word = (n: number) => n.toString(16).padStart(64, '0')

describe.each([true, false])('Environment.getCallStackDepth (engine patches %s)', (patches) => {
  afterAll(() => setEnginePatches(true))

  it("answers the caller's depth + 1: 1 from a contract a transaction calls, 2 one level down, 1 at the top", async () => {
    if (!engineMatchesPin) return
    setEnginePatches(patches)
    const p = await fresh()
    const direct = await deployCode(p, relayTo(ENVIRONMENT))
    const nested = await deployCode(p, relayTo(direct))
    // direct: [depth word][its CALL's result]
    expect(await rq(p, 'eth_call', [{ to: direct, data: SELECTOR }, 'latest'])).toBe('0x' + word(1) + word(1))
    // nested: [direct's answer: depth word, result][nested's CALL result]
    expect(await rq(p, 'eth_call', [{ to: nested, data: SELECTOR }, 'latest'])).toBe('0x' + word(2) + word(1) + word(1))
    expect(await rq(p, 'eth_call', [{ to: ENVIRONMENT, data: SELECTOR }, 'latest'])).toBe('0x' + word(1))
    // Bytes after the selector are ignored (a method without arguments decodes none).
    expect(await rq(p, 'eth_call', [{ to: direct, data: SELECTOR + 'ff'.repeat(8) }, 'latest'])).toBe('0x' + word(1) + word(1))
  })

  it('a call that never reached it (value it could not pay) leaves nothing behind for the next caller', async () => {
    if (!engineMatchesPin) return
    setEnginePatches(patches)
    const p = await fresh()
    // PUSH1 0 ×2, PUSH1 4, PUSH1 0, PUSH1 1 (value: 1 wei, which the contract does not have), PUSH20, GAS, CALL, STOP
    const payer = await deployCode(p, '6000600060046000600173' + ENVIRONMENT.slice(2) + '5af100')
    const outer = await deployCode(p, relayTo(payer))
    expect((await send(p, { to: outer })).status).toBe('0x1')
    expect(await rq(p, 'eth_call', [{ to: ENVIRONMENT, data: SELECTOR }, 'latest'])).toBe('0x' + word(1))
  })

  it('fails for an unknown selector, no data or 1-3 bytes, at no cost', async () => {
    if (!engineMatchesPin) return
    setEnginePatches(patches)
    const p = await fresh()
    const direct = await deployCode(p, relayTo(ENVIRONMENT))
    for (const data of ['0x12345678', '0x', '0x' + SELECTOR.slice(2, 8)]) {
      expect(await rq(p, 'eth_call', [{ to: direct, data }, 'latest'])).toBe('0x' + word(0))
    }
    // A wrong selector of the same byte make-up as the right one costs what the right one costs, less the answer the
    // relay copies (RETURNDATACOPY, 3 for one word) and stores past it (one more word of memory, 3). The failing call
    // goes first: it leaves the precompile's account missing, so both pay the 25,000 of a CALL to a missing account.
    const last = SELECTOR.slice(8)
    const wrong = SELECTOR.slice(0, 8) + (last === 'ff' ? 'fe' : 'ff')
    expect(last).not.toBe('00')
    const failed = await send(p, { to: direct, data: wrong })
    const ok = await send(p, { to: direct, data: SELECTOR })
    expect(failed.status).toBe('0x1')
    expect(Number(BigInt(ok.gasUsed)) - Number(BigInt(failed.gasUsed))).toBe(6)
  })
})
