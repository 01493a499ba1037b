// rsksim's HTTP server in a process of its own (as `npx rsksim` runs), so it is measured like Anvil: the load
// generator and the client never share its event loop. Talks to the bench worker over IPC: it sends its URL once
// listening, and answers 'mem' with process.memoryUsage() after a full GC (run with --expose-gc).
import { startServer } from '../../dist/index.js'

const server = await startServer({ port: 0, host: '127.0.0.1' })
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
