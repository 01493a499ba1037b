/**
 * V8's background threads below the main thread (src/node/threadPriority.ts). A child process creates a provider
 * and reports every thread's nice value as the kernel gives it (`os.getPriority` per thread id): the platform's
 * threads Node started before any JavaScript end 10 above the main thread; the main thread, a `worker_threads`
 * worker and libuv's pool keep theirs; the environment switch and a provider created inside a worker change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import path from 'node:path'
import { platformThreads, v8PoolSize } from '../src/node/threadPriority.js'
import { bundleChild } from './fixtures/bundleChild.js'

interface Thread {
  tid: number
  name: string
  nice: number
  main: boolean
  atStart: boolean
}
interface Report {
  threads: Thread[]
  again: { skipped?: string; lowered: number[] }
}

let child = ''
let dir = ''

afterAll(() => rmSync(dir, { recursive: true, force: true }))

beforeAll(async () => {
  // Inside node_modules, so that the external packages resolve from the bundle (as test/engine_bundle.test.ts).
  mkdirSync(path.resolve('node_modules/.cache'), { recursive: true })
  dir = mkdtempSync(path.resolve('node_modules/.cache/rsksim-priority-'))
  child = await bundleChild('test/fixtures/priorityChild.ts', dir)
})

/** Runs the child with Node options `nodeArgs`; `where` = 'worker' creates the provider inside a worker. */
function run(nodeArgs: string[], env: Record<string, string> = {}, where = 'main'): Report {
  const out = spawnSync(process.execPath, [...nodeArgs, child, where], { encoding: 'utf8', env: { ...process.env, RSKSIM_BACKGROUND_PRIORITY: '', ...env } })
  if (out.status !== 0) throw new Error(`child exited ${out.status}: ${out.stderr.slice(-800)}`)
  return JSON.parse(out.stdout.trim().split('\n').pop()!) as Report
}
const main = (r: Report): Thread => r.threads.find((t) => t.main)!
const lowered = (r: Report): Thread[] => r.threads.filter((t) => t.nice !== main(r).nice)

describe.skipIf(process.platform !== 'linux')('V8 background threads below the main thread (Linux)', () => {
  it('lowers the scheduler and the four V8 workers Node started before any JavaScript by 10, and only those', () => {
    const r = run([])
    const down = lowered(r)
    // Node's platform: one delayed-task scheduler and V8's pool, 4 workers unless --v8-pool-size says otherwise.
    expect(down.length).toBe(5)
    for (const t of down) {
      expect(t.nice).toBe(Math.min(19, main(r).nice + 10))
      expect(t.atStart).toBe(true)
    }
    // The worker thread (and libuv's pool, when it starts after the script) keep the main thread's priority.
    const later = r.threads.filter((t) => !t.atStart)
    expect(later.length).toBeGreaterThanOrEqual(1)
    for (const t of later) expect(t.nice).toBe(main(r).nice)
    // The main thread and the signal inspector are among the threads left alone.
    expect(r.threads.length - down.length).toBeGreaterThanOrEqual(3)
    // Once per process.
    expect(r.again).toEqual({ skipped: 'done before', lowered: [] })
  })

  it('follows the size of V8 pool: the scheduler and two workers with --v8-pool-size=2', () => {
    expect(lowered(run(['--v8-pool-size=2'])).length).toBe(3)
    expect(lowered(run([], { NODE_OPTIONS: '--v8-pool-size=3' })).length).toBe(4)
  })

  it('changes nothing with RSKSIM_BACKGROUND_PRIORITY=off or from a provider inside a worker', () => {
    const off = run([], { RSKSIM_BACKGROUND_PRIORITY: 'off' })
    expect(off.threads.length).toBeGreaterThanOrEqual(7)
    expect(lowered(off)).toEqual([])
    expect(off.again).toEqual({ skipped: 'turned off', lowered: [] })
    const inWorker = run([], {}, 'worker')
    expect(lowered(inWorker)).toEqual([])
    // The report's own call is made on the main thread after the worker's provider: it is the first there.
    expect(inWorker.again.lowered.length).toBeGreaterThanOrEqual(4)
  })
})

describe('platformThreads: the rule on thread lists recorded from /proc', () => {
  // Node 20.20.2: main 11285, then its delayed-task scheduler and four V8 workers at one start time, the signal
  // inspector two ticks later, libuv's pool and a worker thread after (recorded on this machine, 2026-11-27).
  const node20 = [
    { tid: 11285, name: 'node', start: 2251426 },
    ...[11286, 11287, 11288, 11289, 11290].map((tid) => ({ tid, name: 'node', start: 2251432 })),
    { tid: 11291, name: 'node', start: 2251434 },
    ...[11292, 11293, 11294, 11295].map((tid) => ({ tid, name: 'node', start: 2251435 })),
    { tid: 11296, name: 'node', start: 2251436 },
  ]
  // Node 24.21.0 names its threads; one V8 worker started a tick after the others.
  const node24 = [
    { tid: 11297, name: 'MainThread', start: 2251447 },
    { tid: 11298, name: 'DelayedTaskSche', start: 2251449 },
    { tid: 11299, name: 'V8Worker', start: 2251449 },
    { tid: 11300, name: 'V8Worker', start: 2251449 },
    { tid: 11301, name: 'V8Worker', start: 2251449 },
    { tid: 11302, name: 'V8Worker', start: 2251450 },
    { tid: 11303, name: 'SignalInspector', start: 2251452 },
    ...[11304, 11305, 11306, 11307].map((tid) => ({ tid, name: 'libuv-worker', start: 2251453 })),
    { tid: 11308, name: 'WorkerThread', start: 2251453 },
  ]

  it('picks the scheduler and the V8 workers', () => {
    expect(platformThreads(node20, 11285, 4)).toEqual([11286, 11287, 11288, 11289, 11290])
    expect(platformThreads(node24, 11297, 4)).toEqual([11298, 11299, 11300, 11301, 11302])
    expect(platformThreads(node24, 11297, 2)).toEqual([11298, 11299, 11300])
    // The JSDoc example of platformThreads.
    expect(platformThreads([{ tid: 9, start: 5 }, { tid: 10, start: 7 }, { tid: 11, start: 7 }, { tid: 12, start: 9 }], 9, 1)).toEqual([10, 11])
  })

  it('picks nothing in a process with no other thread', () => {
    expect(platformThreads([{ tid: 7, start: 1 }], 7, 4)).toEqual([])
  })

  it("reads V8's pool size as Node does", () => {
    expect(v8PoolSize([])).toBe(4)
    expect(v8PoolSize(['--v8-pool-size=2'])).toBe(2)
    expect(v8PoolSize(['--v8-pool-size', '6', '--max-old-space-size=100'])).toBe(6)
    expect(v8PoolSize(['--v8-pool-size=0'])).toBeGreaterThanOrEqual(1)
  })
})
