/**
 * V8's background threads below the JavaScript thread (Linux only).
 *
 * rsksim is JavaScript: in a fresh process, V8 compiles it with TurboFan on the four worker threads Node's platform
 * starts (`--v8-pool-size`), beside the main thread that runs the chain. On Node 20, over a fresh process's first 500
 * transfers, those threads ran about as much CPU as the main thread (docs/performance.md, nineteenth round), and on a
 * 2-core machine the main thread then waited for a core about a fifth of the time. Node runs its platform's threads at
 * the main thread's priority (every thread of a Node process starts with the main thread's nice value). Here, the
 * first provider a process creates gives each of the platform's threads a nice value 10 above the main thread's (at
 * most 19), so that the thread answering requests runs first when the cores are busy and the
 * compiler uses the rest. On an idle core nothing changes (a nice value only matters when threads wait for a core).
 *
 * Which threads: Node starts its platform's threads (its delayed-task scheduler, then V8's workers, as many as
 * `--v8-pool-size`, 4 by default) right after the main thread, before any JavaScript runs and before any other thread
 * (the signal inspector, libuv's pool, `worker_threads`, a native addon's threads come later). So the threads changed
 * are the first 1 + pool-size threads after the main one, ordered by start time (`/proc/self/task/<tid>/stat`, field
 * 22) then thread id. Threads started later are left alone.
 *
 * Only on Linux, where a thread id names one thread (`setpriority(PRIO_PROCESS, tid)`), only from the main thread (a
 * provider inside a worker leaves the process alone), once per process, and never raising a thread's priority (an
 * unprivileged process cannot undo this: a raised nice value stays for the process's life).
 * `RSKSIM_BACKGROUND_PRIORITY=off` in the environment turns it off.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { availableParallelism, getPriority, setPriority } from 'node:os'
import { isMainThread } from 'node:worker_threads'
import { offInEnvironment } from './envSwitch.js'

/** How much lower than the main thread the background threads run (nice values; 19 is the lowest priority). */
const NICE_STEP = 10
const LOWEST = 19

/** What `lowerBackgroundThreads` did, for tests and docs. */
export interface BackgroundPriority {
  /** Why nothing was changed, or undefined when it ran. */
  skipped?: 'not Linux' | 'not the main thread' | 'turned off' | 'done before' | 'unreadable'
  /** Thread ids whose nice value was raised. */
  lowered: number[]
  /** The nice value they got. */
  nice?: number
}

let done = false

export interface ThreadInfo {
  tid: number
  /** Start time in clock ticks since boot. */
  start: number
}

function threadsOfThisProcess(): ThreadInfo[] {
  const out: ThreadInfo[] = []
  for (const entry of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${entry}/stat`, 'utf8')
      // The name (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      out.push({ tid: Number(entry), start: Number(fields[19]) })
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out
}

/**
 * The platform's threads among `threads`: the first `1 + poolSize` after the main thread (the header's rule).
 *
 * @example
 * platformThreads([{ tid: 9, start: 5 }, { tid: 10, start: 7 }, { tid: 11, start: 7 }, { tid: 12, start: 9 }], 9, 1) // [10, 11]
 */
export function platformThreads(threads: readonly ThreadInfo[], mainTid: number, poolSize: number): number[] {
  return threads
    .filter((t) => t.tid !== mainTid && Number.isFinite(t.start))
    .sort((a, b) => a.start - b.start || a.tid - b.tid)
    .slice(0, 1 + poolSize)
    .map((t) => t.tid)
}

/**
 * V8's pool size as Node sets it: `--v8-pool-size` (command line or NODE_OPTIONS), default 4, 0 = cores - 1.
 *
 * @example
 * v8PoolSize(['--v8-pool-size=2']) // 2
 */
export function v8PoolSize(flags: readonly string[] = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)]): number {
  let size = 4
  for (let i = 0; i < flags.length; i++) {
    const f = flags[i]!
    const value = f.startsWith('--v8-pool-size=') ? f.slice('--v8-pool-size='.length) : f === '--v8-pool-size' ? flags[i + 1] : undefined
    if (value !== undefined && /^\d+$/.test(value)) size = Number(value)
  }
  return size > 0 ? size : Math.max(1, availableParallelism() - 1)
}

/**
 * Gives V8's background threads a lower priority than the main thread (see the header); called by `createProvider`.
 *
 * @example
 * lowerBackgroundThreads() // { lowered: [4812, 4813, 4814, 4815, 4816], nice: 10 } on Linux, the first time
 */
export function lowerBackgroundThreads(): BackgroundPriority {
  if (process.platform !== 'linux') return { skipped: 'not Linux', lowered: [] }
  if (!isMainThread) return { skipped: 'not the main thread', lowered: [] }
  if (offInEnvironment('RSKSIM_BACKGROUND_PRIORITY')) return { skipped: 'turned off', lowered: [] }
  if (done) return { skipped: 'done before', lowered: [] }
  done = true
  try {
    // On Linux the main thread's id is the process id, and 0 names the calling thread.
    const nice = Math.min(LOWEST, getPriority(0) + NICE_STEP)
    const lowered: number[] = []
    for (const tid of platformThreads(threadsOfThisProcess(), process.pid, v8PoolSize())) {
      try {
        if (getPriority(tid) >= nice) continue
        setPriority(tid, nice)
        lowered.push(tid)
      } catch {
        // The thread ended, or the system refused: it keeps its priority.
      }
    }
    return { lowered, nice }
  } catch {
    return { skipped: 'unreadable', lowered: [] }
  }
}
