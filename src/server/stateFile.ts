/**
 * State files on disk, with Anvil's semantics (`--state`, `--load-state`, `--dump-state`, `--state-interval`): the
 * JSON of `provider.dumpState()` (format in docs/extensions.md). A file is written whole or not at all (a temporary
 * file renamed over it), so a crash while writing leaves the previous file; a bad file is refused with an error that
 * names it and leaves it untouched.
 */
import { readFile, rename, writeFile } from 'node:fs/promises'
import type { Provider } from '../provider/index.js'

/** What to do with state files; paths are relative to the working directory. */
export interface StateFileOptions {
  /** Load this file at start if it exists, and write it on close (Anvil `--state`). */
  path?: string
  /** Load this file at start; it must exist (Anvil `--load-state`). */
  load?: string
  /** Write this file on close (Anvil `--dump-state`). */
  dump?: string
  /** Also write it every this many seconds while serving (Anvil `--state-interval`). */
  interval?: number
}

/** Reads and loads a state file; `mustExist` false lets a missing file mean "start fresh". */
export async function loadStateFile(provider: Provider, path: string, mustExist: boolean): Promise<void> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (e) {
    if (!mustExist && (e as NodeJS.ErrnoException).code === 'ENOENT') return
    throw new Error(`rsksim: cannot read the state file ${path}: ${(e as Error).message}`, { cause: e })
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (e) {
    throw new Error(`rsksim: the state file ${path} is not valid JSON (truncated or edited?): ${(e as Error).message}`, { cause: e })
  }
  try {
    await provider.loadState(parsed)
  } catch (e) {
    throw new Error(`rsksim: cannot load the state file ${path}: ${(e as Error).message}`, { cause: e })
  }
}

/** Writes the node's state to `path` atomically (temporary file, then rename). */
export async function writeStateFile(provider: Provider, path: string): Promise<void> {
  const json = JSON.stringify(await provider.dumpState(), null, 1)
  const temporary = `${path}.${process.pid}.tmp`
  await writeFile(temporary, json)
  await rename(temporary, path)
}

/** The file written on close and by the interval: `dump`, else `path`. */
export const dumpTarget = (o: StateFileOptions): string | undefined => o.dump ?? o.path

/** Loads what `o` asks for at start. */
export async function loadAtStart(provider: Provider, o: StateFileOptions): Promise<void> {
  if (o.load !== undefined) await loadStateFile(provider, o.load, true)
  else if (o.path !== undefined) await loadStateFile(provider, o.path, false)
}
