/**
 * Crash safety of the database (issue 15): a child process writing as fast as it can (transfers, a contract with
 * storage and logs, blocks of several transactions, dev-chain edits) is killed with SIGKILL at random moments, 50
 * times over the same directory. Each restart must open the database, find every transaction it had answered
 * with a receipt before the kill, and read the head's state (crashChild.ts checks and reports).
 */
import { describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { bundleChild } from './fixtures/bundleChild.js'

/** Runs the child until `killAfterMs` past its CHECK line, then SIGKILLs it. Resolves with its lines. */
function runAndKill(child: string, db: string, acked: string, killAfterMs: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [child, db, acked], { stdio: ['ignore', 'pipe', 'pipe'] })
    const lines: string[] = []
    let buf = ''
    let err = ''
    p.stdout.on('data', (d: Buffer) => {
      buf += d.toString()
      let i
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i)
        buf = buf.slice(i + 1)
        lines.push(line)
        if (line.startsWith('CHECK')) setTimeout(() => p.kill('SIGKILL'), killAfterMs)
      }
    })
    p.stderr.on('data', (d: Buffer) => (err += d.toString()))
    p.on('error', reject)
    p.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL' && !lines.some((l) => l.startsWith('OPENFAIL'))) reject(new Error(`child exited ${code}: ${err.slice(-500)}`))
      else resolve(lines)
    })
  })
}

describe('database crash safety', () => {
  it('50 SIGKILLs at random moments: every restart opens, with every acknowledged receipt and the head state', async () => {
    mkdirSync(path.resolve('node_modules/.cache'), { recursive: true })
    const work = mkdtempSync(path.resolve('node_modules/.cache/rsksim-crash-'))
    try {
      const child = await bundleChild('test/fixtures/crashChild.ts', work)
      const db = path.join(work, 'chain')
      const acked = path.join(work, 'acked.txt')
      writeFileSync(acked, '')
      let ackCount = 0
      let previousRunAcks = 0
      let seed = 12345
      const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff)
      const kills = Number(process.env.CRASH_KILLS ?? 50)
      for (let kill = 0; kill < kills; kill++) {
        const lines = await runAndKill(child, db, acked, 20 + Math.floor(random() * 400))
        const check = lines.find((l) => l.startsWith('CHECK') || l.startsWith('OPENFAIL'))
        // On a failure the message says which kill, how many acknowledgements the run before it added, and the places
        // of the missing hashes in the acknowledged list.
        expect({ kill, previousRunAcks, check }).toEqual({ kill, previousRunAcks, check: expect.stringMatching(new RegExp(`^CHECK 0x[0-9a-f]+ ${ackCount} ok$`)) })
        const acks = lines.filter((l) => l.startsWith('ACK ')).map((l) => l.slice(4))
        appendFileSync(acked, acks.map((h) => h + '\n').join(''))
        ackCount += acks.length
        previousRunAcks = acks.length
      }
      // The final restart checks the last kill.
      const last = await runAndKill(child, db, acked, 0)
      expect(last.find((l) => l.startsWith('CHECK'))).toMatch(new RegExp(`^CHECK 0x[0-9a-f]+ ${ackCount} ok$`))
      console.log(`acknowledged: ${ackCount}`)
      expect(ackCount).toBeGreaterThan(4 * kills)
    } finally {
      rmSync(work, { recursive: true, force: true })
    }
  }, 300_000)
})
