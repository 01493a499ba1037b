// rsksim's HTTP server in a process of its own (as `npx rsksim` runs), so it is measured like Anvil: the load
// generator and the client never share its event loop. Talks to the bench worker over IPC: it sends its URL once
// listening, and answers 'mem' with process.memoryUsage() after a full GC (run with --expose-gc).
//
// Environment (used by bench/http.mjs for A/B runs): RSKSIM_DIST = another build's dist/ folder (e.g. the base
// branch's, to compare two handlers in the same run); RSKSIM_HTTP=raw = serve through the raw `net` prototype
// (bench/lib/raw-http.mjs) instead of startServer; RSKSIM_FAST=0 = startServer without its fast path.
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const dist = path.resolve(process.env.RSKSIM_DIST ?? path.join(import.meta.dirname, '../../dist'))
const { startServer, createProvider } = await import(pathToFileURL(path.join(dist, 'index.js')).href)

let server
if (process.env.RSKSIM_HTTP === 'raw') {
  const { startRawServer } = await import('./raw-http.mjs')
  server = await startRawServer(await createProvider({ accountTxRateLimit: false }))
} else {
  // RSKSIM_FAST=0: node:http for every request (startServer's internal `fastPath` switch, src/server/fastPath.ts).
  // The quota is off as in targets.mjs (the peers have no such limit; this measures execution).
  server = await startServer({ port: 0, host: '127.0.0.1', accountTxRateLimit: false, ...(process.env.RSKSIM_FAST === '0' ? { fastPath: false } : {}) })
}
process.send({ url: server.url })
process.on('message', async (msg) => {
  if (msg === 'mem') {
    globalThis.gc?.()
    process.send({ mem: process.memoryUsage() })
  } else if (msg === 'close') {
    await server.close()
    process.exit(0)
  }
})
