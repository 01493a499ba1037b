// CPU time of a process, for figures that do not depend on how busy the shared machine is: user + system time from
// /proc/<pid>/stat (fields 14 and 15, in clock ticks of 1/100 s on Linux) or, for this process, process.cpuUsage().
import { readFileSync } from 'node:fs'

const TICK_MS = 10 // sysconf(_SC_CLK_TCK) = 100 on Linux x86-64 (checked with `getconf CLK_TCK` on the bench machine)

/** User + system CPU time of process `pid` so far, in ms (10 ms resolution). */
export function cpuMsOfPid(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // The command name (field 2) may contain spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS
}

/** User + system CPU time of this process so far, in ms (µs resolution). */
export function cpuMsOfSelf() {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
