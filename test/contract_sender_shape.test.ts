/**
 * A transaction whose sender has code leaves the live state object as V8 laid it out (enginePatches/contractSender.ts
 * wraps two of its methods for that transaction, then removes them in the reverse order, which V8 can undo). Checked
 * in a child process with V8's natives syntax (test/fixtures/shapeChild.ts), simulated and mined.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import path from 'node:path'
import { bundleChild } from './fixtures/bundleChild.js'

let dir = ''
let child = ''

beforeAll(async () => {
  // Inside node_modules, so that the external packages resolve from the bundle (as test/thread_priority.test.ts).
  mkdirSync(path.resolve('node_modules/.cache'), { recursive: true })
  dir = mkdtempSync(path.resolve('node_modules/.cache/rsksim-shape-'))
  child = await bundleChild('test/fixtures/shapeChild.ts', dir)
}, 60_000)

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('a sender with code and the live state object', () => {
  it('keeps its fast properties after a simulated and a mined transaction from a contract', () => {
    const out = spawnSync(process.execPath, ['--allow-natives-syntax', child], { encoding: 'utf8' })
    if (out.status !== 0) throw new Error(`child exited ${out.status}: ${out.stderr.slice(-800)}`)
    expect(JSON.parse(out.stdout.trim().split('\n').pop()!)).toEqual({ simulated: '0x1', mined: '0x1', before: true, afterSimulation: true, afterMined: true })
  })
})
