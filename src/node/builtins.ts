/**
 * Node built-ins that only some uses of rsksim need, loaded on first use instead of at import: the fork's HTTP(S)
 * client (node:https loads node:tls), the database's and state dumps' compression (node:zlib) and record encoding
 * (node:v8), and peer addresses' parsing (node:net). Loading them at import cost a process about 8 ms of the ~100 ms import of the library
 * (docs/performance.md, twenty-second round) that an in-process provider without a fork or a database never used.
 * `require` of a built-in is synchronous, so callers stay synchronous; the server itself is loaded by
 * `startServer` (src/index.ts).
 */
import { createRequire } from 'node:module'
import { lazily } from './lazily.js'
import type * as Http from 'node:http'
import type * as Https from 'node:https'
import type * as Zlib from 'node:zlib'
import type * as V8 from 'node:v8'
import type * as Net from 'node:net'

const load = createRequire(import.meta.url)

/** A getter that loads the built-in `name` the first time it is called and returns the same module after. */
const lazy = <T>(name: string): (() => T) => lazily(() => load(name) as T)

export const nodeHttp = lazy<typeof Http>('node:http')
export const nodeHttps = lazy<typeof Https>('node:https')
export const nodeZlib = lazy<typeof Zlib>('node:zlib')
export const nodeV8 = lazy<typeof V8>('node:v8')
export const nodeNet = lazy<typeof Net>('node:net')
